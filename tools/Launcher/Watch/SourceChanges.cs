namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// Saves of a project's source files, seen by a FileSystemWatcher on its folder (editors write in
/// place or write a temporary file and rename it over the source: both count), debounced: a wait
/// returns once no save came for the debounce interval.
/// </summary>
internal sealed class SourceChanges : IDisposable
{
    private readonly FileSystemWatcher _watcher;
    private readonly Func<string, bool> _isSource;
    private readonly Action<string> _onOtherSource;
    private readonly HashSet<string> _otherSeen = new(StringComparer.Ordinal);
    private readonly SemaphoreSlim _signal = new(0);
    private readonly Lock _gate = new();
    private HashSet<string> _changed = new(StringComparer.Ordinal);
    private bool _lost;
    private long _lastChangeTicks;

    /// <param name="directory">The project's folder (watched with its subfolders).</param>
    /// <param name="isSource">Whether a path is one of the compiled source files.</param>
    /// <param name="onOtherSource">Called once per .cs file saved there that is not one of them
    /// (outside bin/ and obj/): a file added after the compiler arguments were read.</param>
    public SourceChanges(string directory, Func<string, bool> isSource, Action<string> onOtherSource)
    {
        _isSource = isSource;
        _onOtherSource = onOtherSource;
        _watcher = new FileSystemWatcher(directory)
        {
            IncludeSubdirectories = true,
            NotifyFilter = NotifyFilters.LastWrite | NotifyFilters.FileName | NotifyFilters.Size | NotifyFilters.CreationTime,
            InternalBufferSize = 64 * 1024,
        };
        _watcher.Changed += (_, e) => OnChange(e.FullPath);
        _watcher.Created += (_, e) => OnChange(e.FullPath);
        _watcher.Renamed += (_, e) => OnChange(e.FullPath);
        _watcher.Error += (_, _) => Signal(null); // events lost: every file is read again
        _watcher.EnableRaisingEvents = true;
    }

    /// <summary>A save came that no wait has returned for yet.</summary>
    public bool Pending => _signal.CurrentCount > 0;

    /// <summary>The source files saved since the last call, or null when the watcher lost events
    /// (every file may have changed).</summary>
    public IReadOnlyCollection<string>? TakeChanged()
    {
        lock (_gate)
        {
            HashSet<string> changed = _changed;
            bool lost = _lost;
            _changed = new HashSet<string>(StringComparer.Ordinal);
            _lost = false;
            return lost ? null : changed;
        }
    }

    /// <summary>Makes the next <see cref="WaitForChanges"/> return at once, as a save would (with
    /// nothing new saved): the files last read are read again.</summary>
    public void ReadAgain() => _signal.Release();

    /// <summary>Whether another save comes within <paramref name="timeout"/> (it stays pending for
    /// the next <see cref="WaitForChanges"/>).</summary>
    public bool SaveWithin(TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            if (!_signal.Wait(timeout, cancellationToken))
                return false;
            _signal.Release();
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    /// <summary>Waits for a save, then for the debounce quiet time. False when stopped.</summary>
    public bool WaitForChanges(TimeSpan debounce, CancellationToken cancellationToken)
    {
        try
        {
            _signal.Wait(cancellationToken);
            while (true)
            {
                // drain the saves that came together
                while (_signal.Wait(0, CancellationToken.None))
                {
                }
                TimeSpan quiet = TimeSpan.FromTicks(DateTime.UtcNow.Ticks - Interlocked.Read(ref _lastChangeTicks));
                if (quiet >= debounce)
                    return true;
                _ = _signal.Wait(debounce - quiet, cancellationToken);
            }
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    private void OnChange(string path)
    {
        if (!path.EndsWith(".cs", StringComparison.OrdinalIgnoreCase))
            return;
        if (_isSource(path))
        {
            Signal(path);
            return;
        }
        string relative = Path.GetRelativePath(_watcher.Path, path);
        string[] parts = relative.Split(Path.DirectorySeparatorChar);
        if (parts.Any(p => p is "bin" or "obj"))
            return;
        bool first;
        lock (_otherSeen)
            first = _otherSeen.Add(path);
        if (first)
            _onOtherSource(path);
    }

    private void Signal(string? path)
    {
        lock (_gate)
        {
            if (path is null)
                _lost = true;
            else
                _changed.Add(Path.GetFullPath(path));
        }
        Interlocked.Exchange(ref _lastChangeTicks, DateTime.UtcNow.Ticks);
        try
        {
            _signal.Release();
        }
        catch (ObjectDisposedException)
        {
            // an event the watcher raised as it was disposed (the watch stopping)
        }
    }

    public void Dispose()
    {
        _watcher.Dispose();
        _signal.Dispose();
    }
}
