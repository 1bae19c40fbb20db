using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception;
using AlvorKit.Interception.Internal;

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

    public static JsonObject Run()
    {
        using Interceptor interceptor = Interceptor.Open();
        var patcher = new Patcher();
        var saturator = new QueueSaturator(patcher, HeavyModule.Load());
        return new JsonObject
        {
            ["twoThreads"] = TwoThreads(interceptor),
            ["heldGate"] = HeldGate(interceptor),
            ["async"] = Async(interceptor),
            ["cancel"] = Cancel(interceptor, patcher, saturator),
            ["status"] = Status(interceptor),
            ["queueFull"] = QueueFull(interceptor, saturator),
        };
    }

    private static MethodInfo M(string name) => Patcher.Method(typeof(ConcurrencyTargets), name);

    private static JsonObject Value(Func<int, int> call, int expected) => Patcher.Poll(() => call(Input), expected);

    // Two threads, two targets, 12 install/remove rounds each, started together.
    private static JsonObject TwoThreads(Interceptor interceptor)
    {
        const int rounds = 12;
        using var start = new Barrier(2);
        JsonObject Worker(string target, Func<int, int> call, int original, int patched)
        {
            using var owner = new PatchOwner($"{target} thread");
            int installedRight = 0, removedRight = 0;
            var failures = new JsonArray();
            start.SignalAndWait();
            for (int i = 0; i < rounds; i++)
            {
                try
                {
                    Patch patch = interceptor.Install(M(target), M(target + "Patched"), owner);
                    Patcher.Poll(() => call(Input), patched, out int seen);
                    if (seen == patched)
                        installedRight++;
                    patch.Remove();
                    Patcher.Poll(() => call(Input), original, out seen);
                    if (seen == original)
                        removedRight++;
                }
                catch (Exception e)
                {
                    failures.Add($"{e.GetType().Name}: {e.Message}");
                }
            }
            return new JsonObject
            {
                ["rounds"] = rounds,
                ["patchedValues"] = installedRight,
                ["originalValues"] = removedRight,
                ["failures"] = failures,
                ["final"] = call(Input),
            };
        }
        Task<JsonObject> left = Task.Factory.StartNew(() => Worker("Left", ConcurrencyTargets.Left, Input + 1, Input + 10),
            TaskCreationOptions.LongRunning);
        Task<JsonObject> right = Task.Factory.StartNew(() => Worker("Right", ConcurrencyTargets.Right, Input + 2, Input + 20),
            TaskCreationOptions.LongRunning);
        bool done = Task.WaitAll([left, right], Limit);
        return new JsonObject
        {
            ["completed"] = done,
            ["left"] = done ? left.Result : null,
            ["right"] = done ? right.Result : null,
        };
    }

    // The gate of Held is taken here, as a command on Held takes it for as long as it waits for
    // the profiler's worker. An install on Free from another thread must not wait for it.
    private static JsonObject HeldGate(Interceptor interceptor)
    {
        using var owner = new PatchOwner("held gate");
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Held)));
        gate.Wait();
        var report = new JsonObject();
        Task<Patch> held, free;
        try
        {
            held = Task.Factory.StartNew(() => interceptor.Install(M("Held"), M("HeldPatched"), owner),
                TaskCreationOptions.LongRunning);
            free = Task.Factory.StartNew(() => interceptor.Install(M("Free"), M("FreePatched"), owner),
                TaskCreationOptions.LongRunning);
            report["freeCompletedWhileHeld"] = free.Wait(Limit) && free.IsCompletedSuccessfully;
            report["freeValue"] = Value(ConcurrencyTargets.Free, Input + 40);
            Thread.Sleep(100); // time enough for the held install to finish, were it not waiting
            report["heldCompletedWhileHeld"] = held.IsCompleted;
            report["heldValueWhileHeld"] = ConcurrencyTargets.Held(Input);
        }
        finally
        {
            gate.Release();
        }
        report["heldCompletedAfterRelease"] = held.Wait(Limit) && held.IsCompletedSuccessfully;
        report["heldValue"] = Value(ConcurrencyTargets.Held, Input + 30);
        report["ownerPatches"] = owner.Patches.Count;
        owner.Dispose();
        report["heldAfterDispose"] = Value(ConcurrencyTargets.Held, Input + 3);
        report["freeAfterDispose"] = Value(ConcurrencyTargets.Free, Input + 4);
        return report;
    }

    private static JsonObject Async(Interceptor interceptor)
    {
        using var owner = new PatchOwner("async");
        var report = new JsonObject();

        // InstallAsync while its target's gate is taken: the call returns an incomplete task at
        // once (nothing on this thread waits), which completes once the gate is free.
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Later)));
        gate.Wait();
        var clock = Stopwatch.StartNew();
        Task<Patch> later = interceptor.InstallAsync(M("Later"), M("LaterPatched"), owner);
        report["returnedMs"] = clock.Elapsed.TotalMilliseconds;
        report["incompleteWhenReturned"] = !later.IsCompleted;
        report["valueBeforeCompletion"] = ConcurrencyTargets.Later(Input);
        gate.Release();
        Patch patch = later.WaitAsync(Limit).GetAwaiter().GetResult();
        report["installed"] = patch.IsInstalled;
        report["installedValue"] = Value(ConcurrencyTargets.Later, Input + 50);
        report["installedState"] = patch.ReadTelemetry().State.ToString();
        patch.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        report["removedInstalled"] = patch.IsInstalled;
        report["removedValue"] = Value(ConcurrencyTargets.Later, Input + 5);
        report["removedState"] = patch.ReadTelemetry().State.ToString();

        // ReplaceAsync switches the replacement.
        Patch swapped = interceptor.InstallAsync(M("Swapped"), M("SwappedFirst"), owner).WaitAsync(Limit).GetAwaiter().GetResult();
        report["swappedFirst"] = Value(ConcurrencyTargets.Swapped, Input + 90);
        swapped.ReplaceAsync(M("SwappedSecond")).WaitAsync(Limit).GetAwaiter().GetResult();
        report["swappedSecond"] = Value(ConcurrencyTargets.Swapped, Input + 900);
        swapped.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        report["swappedRemoved"] = Value(ConcurrencyTargets.Swapped, Input + 9);

        // ApplyAsync: Planned(x) becomes x * 3.
        var plan = new GenerationPlan(M(nameof(ConcurrencyTargets.Planned))) { Name = "times three" };
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Ldc_I4_3);
        plan.Emit(OpCodes.Mul);
        plan.Emit(OpCodes.Ret);
        Patch planned = interceptor.ApplyAsync(plan, owner).WaitAsync(Limit).GetAwaiter().GetResult();
        report["plannedValue"] = Value(ConcurrencyTargets.Planned, Input * 3);
        report["plannedGeneration"] = planned.ReadLastGeneration()?.State.ToString();
        planned.RemoveAsync().WaitAsync(Limit).GetAwaiter().GetResult();
        report["plannedRemoved"] = Value(ConcurrencyTargets.Planned, Input + 8);

        // await using: DisposeAsync removes what the owner still holds.
        var scoped = new PatchOwner("async scope");
        interceptor.InstallAsync(M("Later"), M("LaterPatched"), scoped).WaitAsync(Limit).GetAwaiter().GetResult();
        report["scopedValue"] = Value(ConcurrencyTargets.Later, Input + 50);
        scoped.DisposeAsync().AsTask().WaitAsync(Limit).GetAwaiter().GetResult();
        report["scopedDisposedPatches"] = scoped.Patches.Count;
        report["scopedDisposedValue"] = Value(ConcurrencyTargets.Later, Input + 5);

        // A failure arrives through the task, typed.
        try
        {
            interceptor.InstallAsync(M("Later"), M("Misfit"), owner).WaitAsync(Limit).GetAwaiter().GetResult();
            report["misfit"] = "no exception";
        }
        catch (SignatureMismatchException e)
        {
            report["misfit"] = e.Kind.ToString();
        }
        return report;
    }

    private static JsonObject Cancel(Interceptor interceptor, Patcher patcher, QueueSaturator saturator)
    {
        var report = new JsonObject();
        using var owner = new PatchOwner("cancel");

        // Before the command is queued: it waits for the target's gate when the token fires.
        SemaphoreSlim gate = PatchRegistry.GateOf(M(nameof(ConcurrencyTargets.Canceled)));
        gate.Wait();
        using (var early = new CancellationTokenSource())
        {
            Task<Patch> task = interceptor.InstallAsync(M("Canceled"), M("CanceledPatched"), owner, early.Token);
            early.Cancel();
            report["beforeQueued"] = Outcome(task);
        }
        gate.Release();
        Thread.Sleep(50);
        report["beforeQueuedValue"] = ConcurrencyTargets.Canceled(Input);
        report["beforeQueuedOwnerPatches"] = owner.Patches.Count;

        // After the command is queued (InstallAsync queues it before it returns when the gate is
        // free), behind a describe that holds the worker for milliseconds: the task ends as
        // canceled, the command runs anyway, and the owner holds its patch. An attempt whose
        // command finished before InstallAsync returned is undone and tried again.
        int attempts = 0;
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
                report["afterQueuedCompletedBeforeCancel"] = completed;
                report["afterQueued"] = outcome;
                break;
            }
            if (task.IsCompletedSuccessfully)
                task.Result.Remove();
        }
        report["afterQueuedAttempts"] = attempts;
        report["afterQueuedValue"] = Value(ConcurrencyTargets.Queued, Input + 70);
        var held = new JsonArray();
        var clock = Stopwatch.StartNew();
        while (owner.Patches.Count == 0 && clock.Elapsed < Limit)
            Thread.Sleep(5);
        foreach (Patch p in owner.Patches)
            held.Add(p.Target.Name);
        report["afterQueuedOwnerPatches"] = held;
        owner.Dispose();
        report["afterDisposeValue"] = Value(ConcurrencyTargets.Queued, Input + 7);
        return report;
    }

    // An Install on Crowded while QueueSaturator holds the worker and has filled its queue.
    private static JsonObject QueueFull(Interceptor interceptor, QueueSaturator saturator)
    {
        using var owner = new PatchOwner("queue full");
        var report = new JsonObject();
        // Warm-up: the module copy identified, the replacement compiled, the path JIT-compiled.
        interceptor.Install(M("Crowded"), M("CrowdedPatched"), owner).Remove();
        Patcher.Poll(() => ConcurrencyTargets.Crowded(Input), Input + 11);
        var rounds = new JsonArray();
        string? caught = null;
        for (int attempt = 0; attempt < MaxAttempts && caught is null; attempt++)
        {
            string? status = null, type = null, message = null;
            JsonObject round = saturator.RoundAsJson(() =>
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
            round["install"] = status;
            rounds.Add(round);
            if (round["valid"]!.GetValue<bool>() && status == nameof(InterceptionStatus.QueueFull))
            {
                caught = status;
                report["exceptionType"] = type;
                report["message"] = message;
            }
            else if (status == "no exception")
            {
                owner.Patches.Single().Remove();
            }
        }
        saturator.Quiet();
        report["caught"] = caught;
        report["rounds"] = rounds.Count;
        report["valueAfterRefusal"] = ConcurrencyTargets.Crowded(Input);
        report["ownerPatchesAfterRefusal"] = owner.Patches.Count;
        Patch patch = interceptor.Install(M("Crowded"), M("CrowdedPatched"), owner);
        report["valueAfterDrain"] = Value(ConcurrencyTargets.Crowded, Input + 110);
        patch.Remove();
        report["valueAfterRemove"] = Value(ConcurrencyTargets.Crowded, Input + 11);
        return report;
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

    private static JsonObject Status(Interceptor interceptor)
    {
        var report = new JsonObject();
        // System.Private.CoreLib is not in ALVORKIT_INTERCEPTION_MODULES.
        MethodInfo notAllowed = typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!;
        try
        {
            interceptor.Install(notAllowed, M("LeftPatched"));
            report["notAllowed"] = "no exception";
        }
        catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        {
            report["notAllowed"] = e.Status.ToString();
            report["notAllowedType"] = e.GetType().Name;
            report["notAllowedName"] = (e as PatchException)?.StatusName;
            report["notAllowedMessage"] = e.Message;
        }
        try
        {
            interceptor.InstallAsync(notAllowed, M("LeftPatched")).WaitAsync(Limit).GetAwaiter().GetResult();
            report["notAllowedAsync"] = "no exception";
        }
        catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        {
            report["notAllowedAsync"] = e.Status.ToString();
        }
        try
        {
            interceptor.Install(M("Left"), M("Misfit"));
            report["mismatch"] = "no exception";
        }
        catch (InterceptionException e)
        {
            report["mismatch"] = e.GetType().Name;
            report["mismatchHasStatus"] = e.Status.HasValue;
        }
        ReplacementSignature expected = Interceptor.ExpectedReplacementSignature(M("Left"));
        report["expectedSignature"] = expected.ToString();
        report["expectedParameters"] = new JsonArray(expected.Parameters.Select(t => (JsonNode)t.Name).ToArray());
        report["expectedReturn"] = expected.ReturnType.Name;
        report["matchedByLeftPatched"] = expected.IsMatchedBy(M("LeftPatched"));
        report["matchedByMisfit"] = expected.IsMatchedBy(M("Misfit"));
        ReplacementSignature instance =
            Interceptor.ExpectedReplacementSignature(typeof(Stopwatch).GetMethod(nameof(Stopwatch.Restart))!);
        report["instanceSignature"] = instance.ToString();
        report["patchingStatus"] = interceptor.PatchingStatus.ToString();
        ProfilerStatus before = interceptor.ReadStatus();
        interceptor.Install(M("Left"), M("LeftPatched")).Remove();
        ProfilerStatus after = interceptor.ReadStatus();
        report["readStatus"] = new JsonObject
        {
            ["startupStatus"] = before.StartupStatus.ToString(),
            ["patchingEnabled"] = before.IsPatchingEnabled,
            ["patchableModules"] = before.PatchableModules,
            ["allocationProfiling"] = before.AllocationProfiling,
            ["workerAlive"] = before.WorkerAlive,
            ["queueCapacity"] = before.QueueCapacity,
            ["commandsBefore"] = before.CommandsCompleted,
            ["commandsAfter"] = after.CommandsCompleted,
        };
        return report;
    }
}

/// <summary>A saturation round as JSON, for the report this mode still builds as JSON.</summary>
internal static class SaturationRoundJson
{
    public static JsonObject RoundAsJson(this QueueSaturator saturator, Action probes) =>
        JsonNode.Parse(AlvorKit.Proofs.Reports.ReportJson.Write(saturator.Round(probes)))!.AsObject();
}
