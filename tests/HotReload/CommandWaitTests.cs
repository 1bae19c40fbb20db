using System.Diagnostics;
using AlvorKit.Interception;
using AlvorKit.Interception.Internal;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>The asynchronous wait for the profiler's answer to a command (a reload's batch waits with
/// it): a command the worker finishes within a few milliseconds is seen by one bounded blocking wait,
/// which the profiler's wait ends as the command does, not at the next step of a timer; a longer one
/// falls back to looks on timers, so no thread is held for the whole timeout; a caller on a thread of
/// its own is not blocked. The profiler is stood in for by a recorder of the calls.</summary>
public sealed class CommandWaitTests
{
    private const ulong Command = 42;

    // Records each call: "look" (no wait) or "wait <ms>", with the thread it ran on.
    private sealed class Recorder(Func<Recorder, bool> finishedAtLook, Func<Recorder, TimeSpan, bool> finishedInWait)
        : ICommandResults
    {
        public List<string> Calls { get; } = [];
        public List<bool> OnPool { get; } = [];
        public List<int> Threads { get; } = [];

        public InterceptionStatus Wait(ulong command, TimeSpan timeout)
        {
            Record($"wait {timeout.TotalMilliseconds:0.###}", command);
            return finishedInWait(this, timeout) ? InterceptionStatus.Ok : InterceptionStatus.Timeout;
        }

        public bool TryResult(ulong command, out InterceptionStatus result)
        {
            Record("look", command);
            bool done = finishedAtLook(this);
            result = done ? InterceptionStatus.Ok : InterceptionStatus.Timeout;
            return done;
        }

        private void Record(string call, ulong command)
        {
            Assert.Equal(Command, command);
            lock (Calls)
            {
                Calls.Add(call);
                OnPool.Add(Thread.CurrentThread.IsThreadPoolThread);
                Threads.Add(Environment.CurrentManagedThreadId);
            }
        }
    }

    [Fact]
    public async Task ACommandThatEndsDuringTheBlockingWaitIsSeenByItWithNoTimerStep()
    {
        // Running at the first look, finished while the blocking wait waits.
        var results = new Recorder(_ => false, (_, _) => true);
        InterceptionStatus status = await OnPool(() => CommandWait.For(results, Command, TimeSpan.FromSeconds(10)));
        Assert.Equal(InterceptionStatus.Ok, status);
        Assert.Equal(["look", $"wait {CommandWait.Blocking.TotalMilliseconds:0.###}"], results.Calls);
        Assert.InRange(CommandWait.Blocking, TimeSpan.FromMilliseconds(1), TimeSpan.FromMilliseconds(10));
    }

    [Fact]
    public async Task ACommandFinishedAtTheFirstLookIsReturnedWithoutWaiting()
    {
        var results = new Recorder(_ => true, (_, _) => throw new InvalidOperationException("no wait expected"));
        InterceptionStatus status = await OnPool(() => CommandWait.For(results, Command, TimeSpan.FromSeconds(10)));
        Assert.Equal(InterceptionStatus.Ok, status);
        Assert.Equal(["look"], results.Calls);
    }

    [Fact]
    public async Task ALongerCommandIsLookedAtOnTimersAfterOneBlockingWait()
    {
        // Still running after the blocking wait; finished at the third look on a timer.
        var results = new Recorder(r => r.Calls.Count(c => c == "look") >= 4, (_, _) => false);
        var clock = Stopwatch.StartNew();
        InterceptionStatus status = await OnPool(() => CommandWait.For(results, Command, TimeSpan.FromSeconds(10)));
        Assert.Equal(InterceptionStatus.Ok, status);
        Assert.Equal(["look", $"wait {CommandWait.Blocking.TotalMilliseconds:0.###}", "look", "look", "look"], results.Calls);
        // The timer steps (1 + 2 ms) came after the blocking wait: the recorder's wait did not block,
        // so at least their time passed.
        Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(3), $"{clock.Elapsed}");
    }

    [Fact]
    public async Task ACommandThatNeverEndsTimesOutHavingBlockedOnceForAtMostTheTimeout()
    {
        var results = new Recorder(_ => false, (_, _) => false);
        var clock = Stopwatch.StartNew();
        InterceptionStatus status = await OnPool(() => CommandWait.For(results, Command, TimeSpan.FromMilliseconds(40)));
        Assert.Equal(InterceptionStatus.Timeout, status);
        Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(40), $"{clock.Elapsed}");
        Assert.Single(results.Calls, c => c.StartsWith("wait ", StringComparison.Ordinal));
        Assert.True(results.Calls.Count(c => c == "look") >= 3, string.Join(", ", results.Calls));

        // A timeout shorter than the blocking wait bounds it.
        var brief = new Recorder(_ => false, (_, _) => false);
        Assert.Equal(InterceptionStatus.Timeout,
                     await OnPool(() => CommandWait.For(brief, Command, TimeSpan.FromMilliseconds(2))));
        Assert.Equal("wait 2", brief.Calls[1]);
    }

    [Fact]
    public async Task ACallerOnAThreadOfItsOwnIsNotBlockedTheWaitBlocksAPoolThread()
    {
        using var release = new ManualResetEventSlim();
        // The blocking wait holds until the caller's thread has got its task back (not completed).
        var results = new Recorder(_ => false, (_, _) => release.Wait(TimeSpan.FromSeconds(30)));
        ValueTask<InterceptionStatus> pending = default;
        int caller = 0;
        bool completedAtReturn = true;
        var thread = new Thread(() =>
        {
            caller = Environment.CurrentManagedThreadId;
            pending = CommandWait.For(results, Command, TimeSpan.FromSeconds(10));
            completedAtReturn = pending.IsCompleted;
        });
        thread.Start();
        Assert.True(thread.Join(TimeSpan.FromSeconds(30)), "the caller's thread was blocked by the wait");
        Assert.False(completedAtReturn);
        release.Set();
        Assert.Equal(InterceptionStatus.Ok, await pending);
        Assert.Equal(["look", $"wait {CommandWait.Blocking.TotalMilliseconds:0.###}"], results.Calls);
        Assert.Equal(caller, results.Threads[0]);
        Assert.NotEqual(caller, results.Threads[1]);
        Assert.True(results.OnPool[1], "the blocking wait did not run on a pool thread");
    }

    [Fact]
    public async Task ARehearsalTakesTheBlockingWaitAndOneTimerStepWithoutAFirstLook()
    {
        var results = new Recorder(_ => true, (_, _) => false);
        InterceptionStatus status = await OnPool(() => CommandWait.For(results, Command, TimeSpan.FromSeconds(10), rehearsal: true));
        Assert.Equal(InterceptionStatus.Ok, status);
        Assert.Equal([$"wait {CommandWait.Blocking.TotalMilliseconds:0.###}", "look"], results.Calls);
    }

    // Starts the wait on a pool thread, as a reload's batch does (after its preparation on the pool).
    private static Task<InterceptionStatus> OnPool(Func<ValueTask<InterceptionStatus>> wait) =>
        Task.Run(async () => await wait());
}
