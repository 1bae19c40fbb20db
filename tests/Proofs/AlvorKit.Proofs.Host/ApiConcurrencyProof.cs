using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Internal;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets of the concurrency proofs (mode "apiconcurrency"); the bodies here are the originals.
public static class ConcurrencyTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Left(int x) => x + 1;

    public static int LeftPatched(int x) => x + 10;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Right(int x) => x + 2;

    public static int RightPatched(int x) => x + 20;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Held(int x) => x + 3;

    public static int HeldPatched(int x) => x + 30;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Free(int x) => x + 4;

    public static int FreePatched(int x) => x + 40;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Later(int x) => x + 5;

    public static int LaterPatched(int x) => x + 50;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Canceled(int x) => x + 6;

    public static int CanceledPatched(int x) => x + 60;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Queued(int x) => x + 7;

    public static int QueuedPatched(int x) => x + 70;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Planned(int x) => x + 8;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Swapped(int x) => x + 9;

    public static int SwappedFirst(int x) => x + 90;

    public static int SwappedSecond(int x) => x + 900;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Crowded(int x) => x + 11;

    public static int CrowdedPatched(int x) => x + 110;

    // A replacement whose signature does not fit Left (it takes a long).
    public static int Misfit(long x) => (int)x;
}

/// <summary>
/// The managed API's commands from several threads and without blocking (mode "apiconcurrency"):
///   twoThreads  - two threads install and remove patches on two targets at once, 12 rounds each
///   heldGate    - while a command on one target holds that target's gate (as it does while it
///                 waits for the worker), an install on another target from another thread
///                 completes; the one on the held target completes once the gate is free
///   async       - InstallAsync returns before its command can run, then completes; ApplyAsync,
///                 ReplaceAsync and RemoveAsync change what the targets return
///   cancel      - a token that fires before the command is queued: nothing installed; once it
///                 is queued: the task is canceled, the patch still arrives, held by its owner
///   status      - the status enum in caught exceptions (ModuleNotAllowed, no status for a
///                 signature mismatch), and ExpectedReplacementSignature
///   queueFull   - an Install while the worker's queue is full (QueueSaturator's rounds) throws
///                 an InterceptionException whose Status is QueueFull; the target is unchanged,
///                 and the same Install succeeds once the queue drained
/// Every step records what the patched methods return. The allowlist must name
/// AlvorKit.Proofs.Heavy (the queue rounds' blocker), as the stress modes' does.
/// </summary>
public static class ApiConcurrencyProof
{
    private const int Input = 5, MaxAttempts = 50;
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(20);

    public static ApiConcurrencyReport Run()
    {
        using Interceptor interceptor = Interceptor.Open();
        var patcher = new Patcher();
        var saturator = new QueueSaturator(patcher, HeavyModule.Load());
        TwoThreadsReport twoThreads = TwoThreads(interceptor);
        HeldGateReport heldGate = HeldGate(interceptor);
        AsyncCommandsReport async = Async(interceptor);
        CancelReport cancel = Cancel(interceptor, patcher, saturator);
        ApiStatusReport status = Status(interceptor);
        return new ApiConcurrencyReport(twoThreads, heldGate, async, cancel, status, QueueFull(interceptor, saturator));
    }

    private static MethodInfo M(string name) => Patcher.Method(typeof(ConcurrencyTargets), name);

    private static Polled<int> Value(Func<int, int> call, int expected) => Patcher.PollFor(() => call(Input), expected);

    // Two threads, two targets, 12 install/remove rounds each, started together.
    private static TwoThreadsReport TwoThreads(Interceptor interceptor)
    {
        const int rounds = 12;
        using var start = new Barrier(2);
        ThreadRounds Worker(string target, Func<int, int> call, int original, int patched)
        {
            using var owner = new PatchOwner($"{target} thread");
            int installedRight = 0, removedRight = 0;
            var failures = new List<string>();
            start.SignalAndWait();
            for (int i = 0; i < rounds; i++)
            {
                try
                {
                    Patch patch = interceptor.Install(M(target), M(target + "Patched"), owner);
                    int seen = Patcher.PollFor(() => call(Input), patched).Actual;
                    if (seen == patched)
                        installedRight++;
                    patch.Remove();
                    seen = Patcher.PollFor(() => call(Input), original).Actual;
                    if (seen == original)
                        removedRight++;
                }
                catch (Exception e)
                {
                    failures.Add($"{e.GetType().Name}: {e.Message}");
                }
            }
            return new ThreadRounds(rounds, installedRight, removedRight, failures, call(Input));
        }
        Task<ThreadRounds> left = Task.Factory.StartNew(() => Worker("Left", ConcurrencyTargets.Left, Input + 1, Input + 10),
            TaskCreationOptions.LongRunning);
        Task<ThreadRounds> right = Task.Factory.StartNew(() => Worker("Right", ConcurrencyTargets.Right, Input + 2, Input + 20),
            TaskCreationOptions.LongRunning);
        bool done = Task.WaitAll([left, right], Limit);
        return new TwoThreadsReport(done, done ? left.Result : null, done ? right.Result : null);
    }

    // The gate of Held is taken here, as a command on Held takes it for as long as it waits for
    // the profiler's worker. An install on Free from another thread must not wait for it.
    private static HeldGateReport HeldGate(Interceptor interceptor)
    {
        using var owner = new PatchOwner("held gate");
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Held)));
        gate.Wait();
        Task<Patch> held, free;
        bool freeCompletedWhileHeld, heldCompletedWhileHeld;
        Polled<int> freeValue;
        int heldValueWhileHeld;
        try
        {
            held = Task.Factory.StartNew(() => interceptor.Install(M("Held"), M("HeldPatched"), owner),
                TaskCreationOptions.LongRunning);
            free = Task.Factory.StartNew(() => interceptor.Install(M("Free"), M("FreePatched"), owner),
                TaskCreationOptions.LongRunning);
            freeCompletedWhileHeld = free.Wait(Limit) && free.IsCompletedSuccessfully;
            freeValue = Value(ConcurrencyTargets.Free, Input + 40);
            Thread.Sleep(100); // time enough for the held install to finish, were it not waiting
            heldCompletedWhileHeld = held.IsCompleted;
            heldValueWhileHeld = ConcurrencyTargets.Held(Input);
        }
        finally
        {
            gate.Release();
        }
        bool heldCompletedAfterRelease = held.Wait(Limit) && held.IsCompletedSuccessfully;
        Polled<int> heldValue = Value(ConcurrencyTargets.Held, Input + 30);
        int ownerPatches = owner.Patches.Count;
        owner.Dispose();
        Polled<int> heldAfterDispose = Value(ConcurrencyTargets.Held, Input + 3);
        return new HeldGateReport(freeCompletedWhileHeld, freeValue, heldCompletedWhileHeld, heldValueWhileHeld,
            heldCompletedAfterRelease, heldValue, ownerPatches, heldAfterDispose, Value(ConcurrencyTargets.Free, Input + 4));
    }

    private static AsyncCommandsReport Async(Interceptor interceptor)
    {
        using var owner = new PatchOwner("async");

        // InstallAsync while its target's gate is taken: the call returns an incomplete task at
        // once (nothing on this thread waits), which completes once the gate is free.
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Later)));
        gate.Wait();
        var clock = Stopwatch.StartNew();
        Task<Patch> later = interceptor.InstallAsync(M("Later"), M("LaterPatched"), owner);
        double returnedMs = clock.Elapsed.TotalMilliseconds;
        bool incompleteWhenReturned = !later.IsCompleted;
        int valueBeforeCompletion = ConcurrencyTargets.Later(Input);
        gate.Release();
        Patch patch = later.WaitAsync(Limit).GetAwaiter().GetResult();
        bool installed = patch.IsInstalled;
        Polled<int> installedValue = Value(ConcurrencyTargets.Later, Input + 50);
        string installedState = patch.ReadTelemetry().State.ToString();
        patch.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        bool removedInstalled = patch.IsInstalled;
        Polled<int> removedValue = Value(ConcurrencyTargets.Later, Input + 5);
        string removedState = patch.ReadTelemetry().State.ToString();

        // ReplaceAsync switches the replacement.
        Patch swapped = interceptor.InstallAsync(M("Swapped"), M("SwappedFirst"), owner).WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> swappedFirst = Value(ConcurrencyTargets.Swapped, Input + 90);
        swapped.ReplaceAsync(M("SwappedSecond")).WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> swappedSecond = Value(ConcurrencyTargets.Swapped, Input + 900);
        swapped.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> swappedRemoved = Value(ConcurrencyTargets.Swapped, Input + 9);

        // ApplyAsync: Planned(x) becomes x * 3.
        var plan = new GenerationPlan(M(nameof(ConcurrencyTargets.Planned))) { Name = "times three" };
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Ldc_I4_3);
        plan.Emit(OpCodes.Mul);
        plan.Emit(OpCodes.Ret);
        Patch planned = interceptor.ApplyAsync(plan, owner).WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> plannedValue = Value(ConcurrencyTargets.Planned, Input * 3);
        string? plannedGeneration = planned.ReadLastGeneration()?.State.ToString();
        planned.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> plannedRemoved = Value(ConcurrencyTargets.Planned, Input + 8);

        // await using: DisposeAsync removes what the owner still holds.
        var scoped = new PatchOwner("async scope");
        interceptor.InstallAsync(M("Later"), M("LaterPatched"), scoped).WaitAsync(Limit).GetAwaiter().GetResult();
        Polled<int> scopedValue = Value(ConcurrencyTargets.Later, Input + 50);
        scoped.DisposeAsync().AsTask().WaitAsync(Limit).GetAwaiter().GetResult();
        int scopedDisposedPatches = scoped.Patches.Count;
        Polled<int> scopedDisposedValue = Value(ConcurrencyTargets.Later, Input + 5);

        // A failure arrives through the task, typed.
        string misfit;
        try
        {
            interceptor.InstallAsync(M("Later"), M("Misfit"), owner).WaitAsync(Limit).GetAwaiter().GetResult();
            misfit = "no exception";
        }
        catch (SignatureMismatchException e)
        {
            misfit = e.Kind.ToString();
        }
        return new AsyncCommandsReport(returnedMs, incompleteWhenReturned, valueBeforeCompletion, installed, installedValue,
            installedState, removedInstalled, removedValue, removedState, swappedFirst, swappedSecond, swappedRemoved,
            plannedValue, plannedGeneration, plannedRemoved, scopedValue, scopedDisposedPatches, scopedDisposedValue, misfit);
    }

    private static CancelReport Cancel(Interceptor interceptor, Patcher patcher, QueueSaturator saturator)
    {
        using var owner = new PatchOwner("cancel");

        // Before the command is queued: it waits for the target's gate when the token fires.
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Canceled)));
        gate.Wait();
        string beforeQueued;
        using (var early = new CancellationTokenSource())
        {
            Task<Patch> task = interceptor.InstallAsync(M("Canceled"), M("CanceledPatched"), owner, early.Token);
            early.Cancel();
            beforeQueued = Outcome(task);
        }
        gate.Release();
        Thread.Sleep(50);
        int beforeQueuedValue = ConcurrencyTargets.Canceled(Input);
        int beforeQueuedOwnerPatches = owner.Patches.Count;

        // After the command is queued (InstallAsync queues it before it returns when the gate is
        // free), behind a describe that holds the worker for milliseconds: the task ends as
        // canceled, the command runs anyway, and the owner holds its patch. An attempt whose
        // command finished before InstallAsync returned is undone and tried again.
        int attempts = 0;
        bool completedBeforeCancel;
        string afterQueued;
        while (true)
        {
            attempts++;
            saturator.Quiet();
            using var late = new CancellationTokenSource();
            Thread blocker = saturator.StartBlocker();
            Task<Patch> task = interceptor.InstallAsync(M("Queued"), M("QueuedPatched"), owner, late.Token);
            bool completed = task.IsCompleted;
            late.Cancel();
            string outcome = Outcome(task);
            blocker.Join();
            // Done before the token fired (the blocker's describe was not ahead after all): undo, again.
            if ((!completed && outcome == "canceled") || attempts == MaxAttempts)
            {
                completedBeforeCancel = completed;
                afterQueued = outcome;
                break;
            }
            if (task.IsCompletedSuccessfully)
                task.Result.Remove();
        }
        Polled<int> afterQueuedValue = Value(ConcurrencyTargets.Queued, Input + 70);
        var held = new List<string>();
        var clock = Stopwatch.StartNew();
        while (owner.Patches.Count == 0 && clock.Elapsed < Limit)
            Thread.Sleep(5);
        foreach (Patch p in owner.Patches)
            held.Add(p.Target.Name);
        owner.Dispose();
        return new CancelReport(beforeQueued, beforeQueuedValue, beforeQueuedOwnerPatches, completedBeforeCancel, afterQueued,
            attempts, afterQueuedValue, held, Value(ConcurrencyTargets.Queued, Input + 7));
    }

    // An Install on Crowded while QueueSaturator holds the worker and has filled its queue.
    private static ApiQueueFullReport QueueFull(Interceptor interceptor, QueueSaturator saturator)
    {
        using var owner = new PatchOwner("queue full");
        string? exceptionType = null, exceptionMessage = null;
        // Warm-up: the module copy identified, the replacement compiled, the path JIT-compiled.
        interceptor.Install(M("Crowded"), M("CrowdedPatched"), owner).Remove();
        Patcher.PollFor(() => ConcurrencyTargets.Crowded(Input), Input + 11);
        int rounds = 0;
        string? caught = null;
        for (int attempt = 0; attempt < MaxAttempts && caught is null; attempt++)
        {
            string? status = null, type = null, message = null;
            SaturationRound round = saturator.Round(() =>
            {
                try
                {
                    interceptor.Install(M("Crowded"), M("CrowdedPatched"), owner);
                    status = "no exception";
                }
                catch (InterceptionException e) when (e.Status == InterceptionStatus.QueueFull)
                {
                    status = e.Status.ToString();
                    type = e.GetType().Name;
                    message = e.Message;
                }
                catch (InterceptionException e)
                {
                    status = e.Status?.ToString() ?? e.GetType().Name;
                }
            });
            rounds++;
            if (round.Valid && status == nameof(InterceptionStatus.QueueFull))
            {
                caught = status;
                exceptionType = type;
                exceptionMessage = message;
            }
            else if (status == "no exception")
            {
                owner.Patches.Single().Remove();
            }
        }
        saturator.Quiet();
        int valueAfterRefusal = ConcurrencyTargets.Crowded(Input);
        int ownerPatchesAfterRefusal = owner.Patches.Count;
        Patch patch = interceptor.Install(M("Crowded"), M("CrowdedPatched"), owner);
        Polled<int> valueAfterDrain = Value(ConcurrencyTargets.Crowded, Input + 110);
        patch.Remove();
        return new ApiQueueFullReport(exceptionType, exceptionMessage, caught, rounds, valueAfterRefusal,
            ownerPatchesAfterRefusal, valueAfterDrain, Value(ConcurrencyTargets.Crowded, Input + 11));
    }

    private static string Outcome(Task<Patch> task)
    {
        try
        {
            task.Wait(Limit);
            return task.IsCompletedSuccessfully ? "succeeded" : task.Status.ToString();
        }
        catch (AggregateException e) when (e.InnerException is OperationCanceledException)
        {
            return "canceled";
        }
        catch (AggregateException e)
        {
            return $"{e.InnerException?.GetType().Name}: {e.InnerException?.Message}";
        }
    }

    private static ApiStatusReport Status(Interceptor interceptor)
    {
        string notAllowedStatus, notAllowedAsync, mismatch;
        string? notAllowedType = null, notAllowedName = null, notAllowedMessage = null;
        bool? mismatchHasStatus = null;
        // System.Private.CoreLib is not in ALVORKIT_INTERCEPTION_MODULES.
        MethodInfo notAllowed = typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!;
        try
        {
            interceptor.Install(notAllowed, M("LeftPatched"));
            notAllowedStatus = "no exception";
        }
        catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        {
            notAllowedStatus = e.Status.ToString()!;
            notAllowedType = e.GetType().Name;
            notAllowedName = (e as PatchException)?.StatusName;
            notAllowedMessage = e.Message;
        }
        try
        {
            interceptor.InstallAsync(notAllowed, M("LeftPatched")).WaitAsync(Limit).GetAwaiter().GetResult();
            notAllowedAsync = "no exception";
        }
        catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        {
            notAllowedAsync = e.Status.ToString()!;
        }
        try
        {
            interceptor.Install(M("Left"), M("Misfit"));
            mismatch = "no exception";
        }
        catch (InterceptionException e)
        {
            mismatch = e.GetType().Name;
            mismatchHasStatus = e.Status.HasValue;
        }
        ReplacementSignature expected = Interceptor.ExpectedReplacementSignature(M("Left"));
        ReplacementSignature instance =
            Interceptor.ExpectedReplacementSignature(typeof(Stopwatch).GetMethod(nameof(Stopwatch.Restart))!);
        string patchingStatus = interceptor.PatchingStatus.ToString();
        ProfilerStatus before = interceptor.ReadStatus();
        interceptor.Install(M("Left"), M("LeftPatched")).Remove();
        ProfilerStatus after = interceptor.ReadStatus();
        var readStatus = new ReadStatusReport(before.StartupStatus.ToString(), before.IsPatchingEnabled,
            before.PatchableModules, before.AllocationProfiling, before.WorkerAlive, before.QueueCapacity,
            before.CommandsCompleted, after.CommandsCompleted);
        return new ApiStatusReport(notAllowedStatus, notAllowedType, notAllowedName, notAllowedMessage, notAllowedAsync,
            mismatch, mismatchHasStatus, expected.ToString(), [.. expected.Parameters.Select(t => t.Name)],
            expected.ReturnType.Name, expected.IsMatchedBy(M("LeftPatched")), expected.IsMatchedBy(M("Misfit")),
            instance.ToString(), patchingStatus, readStatus);
    }
}
