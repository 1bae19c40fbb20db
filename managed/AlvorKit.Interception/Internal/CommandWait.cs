using System.Diagnostics;

namespace AlvorKit.Interception.Internal;

/// <summary>Where a command's result is looked at: the profiler (<see cref="NativeProfiler"/>), or a
/// test's stand-in.</summary>
internal interface ICommandResults
{
    /// <summary>Waits up to <paramref name="timeout"/> for the command, blocking this thread: its result,
    /// or why the wait did not get it (Timeout, UnknownCommand).</summary>
    InterceptionStatus Wait(ulong command, TimeSpan timeout);

    /// <summary>Looks at the command without waiting: true with its result once it finished (or with
    /// why the look failed), false while it is queued or running.</summary>
    bool TryResult(ulong command, out InterceptionStatus result);
}

/// <summary>
/// The asynchronous wait for one command's result, at most a timeout in all. A look first; then one
/// blocking wait of at most <see cref="Blocking"/> on a thread-pool thread (the profiler's wait wakes
/// it when the worker finishes the command: a batch the worker runs in a few milliseconds, such as a
/// process's first, is seen as it ends, not at the next step of a timer); then looks on timers (1, 2,
/// 4, 8, then every 16 ms), which hold no thread. So no thread is parked for the whole timeout: a
/// pool thread at most <see cref="Blocking"/> per command in flight. A caller on a thread of its own
/// (a game's, which may have nothing else to run) does not block: its blocking wait runs on the pool.
/// </summary>
internal static class CommandWait
{
    /// <summary>The longest the wait blocks a thread.</summary>
    internal static readonly TimeSpan Blocking = TimeSpan.FromMilliseconds(5);

    /// <summary>The command's result, or Timeout once <paramref name="timeout"/> has passed. A
    /// rehearsal (no command: the profiler refused its submission) takes the same steps, the
    /// blocking wait and one timer step, without a look first.</summary>
    internal static async ValueTask<InterceptionStatus> For(ICommandResults results, ulong command, TimeSpan timeout,
                                                             bool rehearsal = false)
    {
        long started = Stopwatch.GetTimestamp();
        if (!rehearsal && results.TryResult(command, out InterceptionStatus result))
            return result;
        TimeSpan block = timeout < Blocking ? timeout : Blocking;
        if (block > TimeSpan.Zero)
        {
            var look = new BlockingLook(results, command, block);
            if (Thread.CurrentThread.IsThreadPoolThread)
                look.Run();
            else
                await Task.Run(look.Run).ConfigureAwait(false);
            if (look.Result != InterceptionStatus.Timeout && !rehearsal)
                return look.Result;
        }
        int delay = 1;
        while (true)
        {
            if (!rehearsal && results.TryResult(command, out result))
                return result;
            rehearsal = false;
            TimeSpan left = timeout - Stopwatch.GetElapsedTime(started);
            if (left <= TimeSpan.Zero)
                return InterceptionStatus.Timeout;
            await Task.Delay(TimeSpan.FromMilliseconds(Math.Min(delay, Math.Max(1, left.TotalMilliseconds))))
                .ConfigureAwait(false);
            delay = Math.Min(delay * 2, 16);
        }
    }

    // The blocking wait as an object (not a Func returning the status: a framework generic over this
    // library's enum, compiled at run time on its first use).
    private sealed class BlockingLook(ICommandResults results, ulong command, TimeSpan timeout)
    {
        public InterceptionStatus Result { get; private set; } = InterceptionStatus.Timeout;

        public void Run() => Result = results.Wait(command, timeout);
    }
}
