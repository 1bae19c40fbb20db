using System.Runtime.ExceptionServices;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// One watch per drop folder in a process (<see cref="HotReloader.WatchFolder"/>). A second
/// WatchFolder on a folder the process already watches, from any interceptor (the launcher's
/// startup hook and the game's own code, say), joins the watch under way instead of starting
/// another one: two watches would both apply every update, the second on top of the first. So
/// each update is applied once, by the first watch's reloader, and every caller's callback gets
/// its result. The watch stops when the last caller disposes what WatchFolder returned; until
/// then the first caller's settings hold (its reloader, its largest update).
/// </summary>
internal static class FolderWatches
{
    private static readonly Lock Gate = new();

    // By full path; the file systems of Windows and macOS ignore case by default.
    private static readonly Dictionary<string, SharedWatch> Watches = new(
        OperatingSystem.IsWindows() || OperatingSystem.IsMacOS() ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal);

    /// <summary>Watches <paramref name="folder"/>, or joins the watch of it under way.</summary>
    public static IDisposable Watch(HotReloader reloader, string folder, Action<ReloadResult>? onResult, int maxUpdateBytes)
    {
        string key = Path.TrimEndingDirectorySeparator(Path.GetFullPath(folder));
        lock (Gate)
        {
            if (!Watches.TryGetValue(key, out SharedWatch? shared))
            {
                shared = new SharedWatch(key);
                // A folder FolderWatch refuses throws here, and nothing is kept of it.
                shared.Watch = new FolderWatch(reloader, folder, shared.Publish, maxUpdateBytes);
                Watches[key] = shared;
            }
            var caller = new Caller(shared, onResult);
            shared.Callers.Add(caller);
            return caller;
        }
    }

    private sealed class SharedWatch(string key)
    {
        public FolderWatch? Watch { get; set; }

        // Under Gate.
        public List<Caller> Callers { get; } = [];

        // Every caller's callback, each whatever the others do; the first exception goes on to
        // FolderWatch, which reports it.
        public void Publish(ReloadResult result)
        {
            Caller[] callers;
            lock (Gate)
                callers = [.. Callers];
            ExceptionDispatchInfo? first = null;
            foreach (Caller caller in callers)
            {
                try
                {
                    caller.OnResult?.Invoke(result);
                }
                catch (Exception e)
                {
                    first ??= ExceptionDispatchInfo.Capture(e);
                }
            }
            first?.Throw();
        }

        public void Leave(Caller caller)
        {
            FolderWatch? last = null;
            lock (Gate)
            {
                if (!Callers.Remove(caller) || Callers.Count > 0)
                    return;
                if (Watches.TryGetValue(key, out SharedWatch? current) && current == this)
                    Watches.Remove(key);
                last = Watch;
            }
            // Outside the gate: Dispose waits for an apply under way, whose callbacks take it.
            last?.Dispose();
        }
    }

    private sealed class Caller(SharedWatch shared, Action<ReloadResult>? onResult) : IDisposable
    {
        public Action<ReloadResult>? OnResult { get; } = onResult;

        public void Dispose() => shared.Leave(this);
    }
}
