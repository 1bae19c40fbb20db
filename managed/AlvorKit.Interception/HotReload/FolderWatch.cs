using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using System.Text;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// <see cref="HotReloader.WatchFolder"/>: a FileSystemWatcher on the drop folder for
/// <c>*.hotreload</c> updates (<see cref="ReloadDelta"/> files) created or renamed into place,
/// applied one at a time, in order, on a background task. A file renamed into place (how
/// <c>alvorkit-intercept watch</c> drops it) is whole at its event and is applied at once; a file
/// created or written in place is applied about 50 ms after its last event (a debounce: a copy
/// touches it several times). Each result goes to <c>Name.result.txt</c> (a temporary file
/// renamed over it): a first line the watcher reads (<see cref="ResultHeader"/>), then the
/// summary; and to the callback, whatever went wrong.
/// <para>Only the game's user can feed it: the folder must be private (<see cref="PrivateFolder"/>);
/// a dropped file is read once, bounded, and only if it is a regular file (<see cref="UpdateFile"/>);
/// a result is written under a name no one can guess, created exclusively, then renamed.</para>
/// <para>The watch keeps itself alive until it is disposed (a strong GC handle), so a game that
/// drops the returned object keeps reloading. Dispose stops the watcher and waits for an apply
/// under way.</para>
/// </summary>
internal sealed class FolderWatch : IDisposable
{
    private static readonly TimeSpan Debounce = TimeSpan.FromMilliseconds(50);

    /// <summary>The extension of an update file.</summary>
    public const string Extension = ".hotreload";

    private readonly HotReloader _reloader;
    private readonly string _folder;
    private readonly int _maxUpdateBytes;
    private readonly Action<ReloadResult>? _onResult;
    private readonly FileSystemWatcher _watcher;
    private readonly ConcurrentDictionary<string, Timer> _pending = new(StringComparer.Ordinal);
    private readonly Lock _queueGate = new();
    private readonly CancellationTokenSource _stop = new();
    private GCHandle _alive;
    private Task _queue = Task.CompletedTask;
    private bool _disposed;

    /// <exception cref="UnauthorizedAccessException">The folder is not private to this user.</exception>
    public FolderWatch(HotReloader reloader, string folder, Action<ReloadResult>? onResult, int maxUpdateBytes)
    {
        _reloader = reloader;
        _folder = PrivateFolder.Prepare(folder);
        _maxUpdateBytes = maxUpdateBytes;
        _onResult = onResult;
        _watcher = new FileSystemWatcher(_folder, "*" + Extension)
        {
            NotifyFilter = NotifyFilters.FileName | NotifyFilters.LastWrite | NotifyFilters.Size,
        };
        _watcher.Created += (_, e) => Touched(e.FullPath, Debounce);
        _watcher.Changed += (_, e) => Touched(e.FullPath, Debounce);
        _watcher.Renamed += (_, e) => Touched(e.FullPath, TimeSpan.Zero);
        _alive = GCHandle.Alloc(this);
        // The first update's costs, paid before it comes (an update that comes sooner waits).
        _queue = Task.Run(WarmUp);
        _watcher.EnableRaisingEvents = true;
    }

    private void WarmUp()
    {
        try
        {
            _ = _reloader.WarmUp();
        }
        catch (Exception e) when (e is InterceptionException or BadImageFormatException or InvalidOperationException)
        {
            // The first update pays for it, or says what is wrong.
        }
    }

    public void Dispose()
    {
        Task last;
        lock (_queueGate)
        {
            if (_disposed)
                return;
            _disposed = true;
            last = _queue;
        }
        _watcher.Dispose();
        foreach (Timer timer in _pending.Values)
            timer.Dispose();
        _pending.Clear();
        _stop.Cancel();
        try
        {
            last.Wait();
        }
        catch (AggregateException)
        {
            // An apply under way was canceled at its wait; its command still ran.
        }
        _stop.Dispose();
        _alive.Free();
    }

    // A file event: (re)start its timer, due after `settle`.
    private void Touched(string path, TimeSpan settle)
    {
        if (!path.EndsWith(Extension, StringComparison.OrdinalIgnoreCase))
            return;
        var timer = new Timer(_ => Settled(path));
        Timer? previous = null;
        _pending.AddOrUpdate(path, timer, (_, old) =>
        {
            previous = old;
            return timer;
        });
        previous?.Dispose();
        lock (_queueGate)
        {
            if (_disposed)
            {
                timer.Dispose();
                return;
            }
            timer.Change(settle, Timeout.InfiniteTimeSpan);
        }
    }

    // The debounce ran out: queue the apply behind the ones before it.
    private void Settled(string path)
    {
        if (_pending.TryRemove(path, out Timer? timer))
            timer.Dispose();
        lock (_queueGate)
        {
            if (_disposed)
                return;
            _queue = _queue.ContinueWith(_ => ApplyOne(path), CancellationToken.None,
                TaskContinuationOptions.None, TaskScheduler.Default).Unwrap();
        }
    }

    private async Task ApplyOne(string path)
    {
        if (!UpdateFile.Exists(path))
            return; // renamed away or deleted since its event
        string name = Path.GetFileNameWithoutExtension(path);
        ReloadResult result;
        Guid update = Guid.Empty;
        bool rehearsal = false;
        try
        {
            ReloadDelta delta = ReloadDelta.Read(UpdateFile.Read(path, _maxUpdateBytes));
            Internal.PhaseProbe.Mark("file read");
            update = delta.UpdateId;
            rehearsal = delta.IsRehearsal;
            result = await _reloader.ApplyUpdateAsync(delta, _stop.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
            return;
        }
        catch (Exception e)
        {
            // Whatever it is, the game and the watcher hear of it: a reload is never silent.
            (ReloadOutcome outcome, ReloadRefusalReason reason) = e switch
            {
                UnsafeUpdateFileException => (ReloadOutcome.Refused, ReloadRefusalReason.UnsafeFile),
                IOException or UnauthorizedAccessException or InvalidDataException =>
                    (ReloadOutcome.Refused, ReloadRefusalReason.NotADelta),
                _ => (ReloadOutcome.Failed, ReloadRefusalReason.Unexpected),
            };
            result = new ReloadResult(name, outcome, [],
                [new ReloadRefusal(reason, name, $"{reason}: {path} could not be applied: {e.GetType().Name}: {e.Message}")],
                TimeSpan.Zero, TimeSpan.Zero);
        }
        WriteResult(path, result, update);
        Internal.PhaseProbe.Mark("result written");
        if (!rehearsal)
            Report(result); // a rehearsal is the producer's business, not the game's
    }

    private void Report(ReloadResult result)
    {
        try
        {
            _onResult?.Invoke(result);
        }
        catch (Exception e)
        {
            // The game's callback threw: the queue goes on, and the game's log says so.
            Console.Error.WriteLine($"hot reload: the WatchFolder callback threw {e.GetType().Name}: {e.Message}");
        }
    }

    /// <summary>The result file's first line: what the watcher needs to keep its generations in
    /// step with the game's: the outcome, the generation the game runs after it (number and
    /// id) and the update it answers (<c>#alvk outcome=Applied generation=3 id=... update=...</c>;
    /// the update's id is empty when the file could not be read).</summary>
    public static string ResultHeader(ReloadResult result, Guid update) =>
        $"#alvk outcome={result.Outcome} generation={result.Generation} id={result.GenerationId:D} update={update:D}";

    // Name.result.txt beside the dropped file, written whole: a temporary file of a name no one
    // can guess, created exclusively (an existing file or link of that name fails the create, and
    // is never followed), then renamed over the result (a link there is replaced, not followed).
    private static void WriteResult(string path, ReloadResult result, Guid update)
    {
        string folder = Path.GetDirectoryName(path)!;
        string target = Path.Combine(folder, Path.GetFileNameWithoutExtension(path) + ".result.txt");
        // Guid.NewGuid draws its 122 random bits from the operating system's secure generator.
        string temporary = target + "." + Guid.NewGuid().ToString("N") + ".tmp";
        try
        {
            var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write };
            if (!OperatingSystem.IsWindows())
                options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
            using (var stream = new FileStream(temporary, options))
                stream.Write(new UTF8Encoding(false).GetBytes(ResultHeader(result, update) + "\n" + result.Summary +
                                                              Environment.NewLine));
            File.Move(temporary, target, overwrite: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // The folder went away or the name is held: the callback still has the result.
            try
            {
                File.Delete(temporary);
            }
            catch (Exception again) when (again is IOException or UnauthorizedAccessException)
            {
                // Nothing more to do.
            }
        }
    }
}
