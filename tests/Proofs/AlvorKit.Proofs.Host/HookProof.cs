using System.Diagnostics;
using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Prefixes, postfixes and finalizers woven around the original bodies of HookTargets, from the
/// patch classes of AlvorKit.Proofs.HookMod (loaded here by path; this assembly does not
/// reference it): every scenario records what the patched methods returned before, while and
/// after they are hooked. One JSON report; HookProofs asserts the values.
/// </summary>
public static class HookProof
{
    public static HookReport Run() => HookModRun.Run((interceptor, mod) =>
    {
        var steps = new HookModSteps(mod);
        // The inlining caller first: it must be optimized with Small inlined before any patch.
        Inlining(interceptor, steps, mod);
        Values(interceptor, steps);
        Composition(interceptor, steps);
        WholeBody(interceptor, steps);
        Batch(interceptor, steps);
        return new HookReport(null, steps.All, interceptor.Patches.Count);
    });

    // Every single-owner scenario: values before, hooked, and after the owner left.
    private static void Values(Interceptor interceptor, HookModSteps steps)
    {
        var counter = new HookCounter();
        var vector = new HookVector { X = 4 };
        var strings = new HookList<string>();
        strings.Add("one");
        var ints = new HookList<int>();
        ints.Add(1);
        ints.Add(2);
        // Each call the scenarios observe, by name; called before, while hooked and after.
        var calls = new (string Name, Func<long> Call)[]
        {
            ("twice.run", () => HookTargets.Twice(4)),
            ("twice.skip", () => HookTargets.Twice(-3)),
            ("plus", () => HookTargets.Plus(4)),
            ("passThrough", () => HookTargets.PassThrough(3)),
            ("state", () => HookTargets.Stateful(2)),
            ("refArgument", () =>
            {
                int x = 1;
                int returned = HookTargets.RefArgument(ref x, out int doubled);
                return returned * 1_000_000L + x * 1_000L + doubled;
            }),
            ("args", () => HookTargets.Args(1, 2)),
            ("refReturn", () =>
            {
                HookTargets.Slots[2] = 2;
                ref int slot = ref HookTargets.Slot(2);
                return slot * 1_000L + HookTargets.Slots[2];
            }),
            ("guarded.try", () => HookTargets.Guarded(3)),
            ("guarded.catch", () => HookTargets.Guarded(-1)),
            ("observed.success", () => HookTargets.ThrowsObserved(0)),
            ("observed.throw", () => HookTargets.ThrowsObserved(5)),
            ("swallowed.success", () => HookTargets.ThrowsSwallowed(0)),
            ("swallowed.throw", () => HookTargets.ThrowsSwallowed(5)),
            ("replaced.success", () => HookTargets.ThrowsReplaced(0)),
            ("replaced.throw", () => HookTargets.ThrowsReplaced(5)),
            ("classInstance", () =>
            {
                counter.Bonus = 0;
                return counter.Add(3);
            }),
            ("structInstance", () =>
            {
                vector.X = 4;
                int scaled = vector.Scale(3);
                return scaled * 1_000L + vector.X;
            }),
            ("genericMethod.string", () => HookTargets.CountOf(new string[3])),
            ("genericMethod.int", () => HookTargets.CountOf(new int[2])),
            ("genericType.string", () => strings.Count()),
            ("genericType.int", () => ints.Count()),
        };
        foreach ((string name, Func<long> call) in calls)
            Warm(call);
        foreach ((string name, Func<long> call) in calls)
            steps.Call($"{name}.before", call);

        string[] classes =
        [
            "SkipPatch", "ObservingPrefixPatch", "AffectingPrefixPatch", "ResultPatch", "PassThroughPatch", "StatePatch", "RefArgumentPatch", "ArgsPatch", "RefReturnPatch",
            "GuardedPatch", "ObservingFinalizer", "SwallowingFinalizer", "ReplacingFinalizer", "ClassInstancePatch",
            "StructInstancePatch", "GenericMethodPatch", "GenericTypePatch",
        ];
        var owner = new PatchOwner("hook mod");
        int hooked = 0;
        foreach (string name in classes)
        {
            try
            {
                hooked += interceptor.PatchAll(steps.ModType(name), owner).Count;
            }
            catch (Exception e)
            {
                steps.Threw($"patchAll.{name}", e);
            }
        }
        steps.Count("values.woven", hooked);

        int twiceRuns = HookTargets.TwiceRuns, finallies = HookTargets.GuardedFinallies, adds = counter.Calls;
        System.Reflection.PropertyInfo observed = steps.ModType("ObservingPrefixPatch").GetProperty("Runs")!;
        int observedRuns = (int)observed.GetValue(null)!;
        foreach ((string name, Func<long> call) in calls)
            steps.Call($"{name}.hooked", call);
        steps.Count("twice.hookedRuns", HookTargets.TwiceRuns - twiceRuns);
        steps.Count("twice.observingPrefixRuns", (int)observed.GetValue(null)! - observedRuns);
        steps.Count("guarded.hookedFinallies", HookTargets.GuardedFinallies - finallies);
        steps.Count("classInstance.hookedCalls", counter.Calls - adds);
        steps.Count("plus.seen", steps.ModValue("ResultPatch", "Seen"));
        steps.Count("observed.observed", steps.ModValue("ObservingFinalizer", "Observed"));
        steps.Count("observed.successes", steps.ModValue("ObservingFinalizer", "Successes"));

        owner.Dispose();
        steps.Count("values.patchesAfterRemoval", interceptor.Patches.Count);
        foreach ((string name, Func<long> call) in calls)
            steps.Call($"{name}.removed", call);
    }

    // A small method inlined into a hot, optimized caller: hooking Small changes what HotCaller
    // returns, and removing the hook changes it back, though HotCaller itself is never patched.
    private static void Inlining(Interceptor interceptor, HookModSteps steps, Assembly mod)
    {
        long warm = 0;
        for (int batch = 0; batch < 10; batch++)
        {
            for (int i = 0; i < 10_000; i++)
                warm += HookInlining.HotCaller(i);
            Thread.Sleep(30);
        }
        steps.Count("inlining.warm", warm);
        steps.Call("inlining.before", () => HookInlining.HotCaller(7));
        MethodInfo postfix = mod.GetType("AlvorKit.Proofs.HookMod.InliningHooks", throwOnError: true)!.GetMethod("Postfix")!;
        MethodInfo small = typeof(HookInlining).GetMethod(nameof(HookInlining.Small))!;
        WovenPatch patch = interceptor.Hook(small, postfix: postfix, owner: new PatchOwner("inlining"));
        steps.Poll("inlining.hooked", () => HookInlining.HotCaller(7), 515);
        // The woven body is held by the interceptor's internal hook owner: its telemetry counts
        // the callers re-JITted with Small (HotCaller, which inlined it).
        Patch? held = interceptor.Patches.FirstOrDefault(p => p.Target == small);
        steps.Count("inlining.inlinersRejitted", held?.ReadTelemetry().InlinersReJITted ?? -1);
        patch.Remove();
        steps.Poll("inlining.removed", () => HookInlining.HotCaller(7), 15);
    }

    // Three owners on Composed (each postfix appends a digit): beta is High, gamma runs Before
    // alpha; alpha leaves (recomposed), then beta, then gamma (the original back).
    private static void Composition(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => HookTargets.Composed(5);
        Warm(call);
        steps.Call("composed.before", call);
        var alpha = new PatchOwner("alpha");
        var beta = new PatchOwner("beta");
        var gamma = new PatchOwner("gamma");
        try
        {
            interceptor.PatchAll(steps.ModType("AlphaPatch"), alpha);
            steps.Call("composed.alpha", call);
            interceptor.PatchAll(steps.ModType("BetaPatch"), beta);
            steps.Call("composed.alphaBeta", call);
            IReadOnlyList<WovenPatch> last = interceptor.PatchAll(steps.ModType("GammaPatch"), gamma);
            steps.Call("composed.all", call);
            steps.Text("composed.description", last[0].DescribeComposition());
            alpha.Dispose();
            steps.Call("composed.alphaLeft", call);
            beta.Dispose();
            steps.Call("composed.betaLeft", call);
            gamma.Dispose();
            steps.Call("composed.allLeft", call);
        }
        catch (Exception e)
        {
            steps.Threw("composed.failed", e);
        }
        finally
        {
            alpha.Dispose();
            beta.Dispose();
            gamma.Dispose();
        }
    }

    // Hooks, then a whole-body replacement (Install) on the same target: the body set last is
    // in force; the replacement's removal republishes the woven body; the hooks' removal the original.
    private static void WholeBody(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => HookTargets.WholeBody(7);
        Warm(call);
        steps.Call("wholeBody.before", call);
        var hooks = new PatchOwner("whole-body hooks");
        var replacer = new PatchOwner("whole-body replacer");
        try
        {
            interceptor.PatchAll(steps.ModType("WholeBodyPatch"), hooks);
            steps.Call("wholeBody.hooked", call);
            Patch replaced = interceptor.Install(typeof(HookTargets).GetMethod(nameof(HookTargets.WholeBody))!,
                typeof(HookTargets).GetMethod(nameof(HookTargets.WholeBodyReplacement))!, replacer);
            steps.Call("wholeBody.installed", call);
            replaced.Remove();
            steps.Call("wholeBody.installRemoved", call);
            hooks.Dispose();
            steps.Call("wholeBody.hooksRemoved", call);
        }
        catch (Exception e)
        {
            steps.Threw("wholeBody.failed", e);
        }
        finally
        {
            replacer.Dispose();
            hooks.Dispose();
        }
    }

    // PatchAll of a class over ten targets: one batch, all applied; a class with one binding
    // that cannot be made refuses the whole batch and changes nothing.
    private static void Batch(Interceptor interceptor, HookModSteps steps)
    {
        long Sum()
        {
            long sum = 0;
            foreach (Func<int, int> target in HookBatchTargets.All)
                sum += target(1);
            return sum;
        }
        Func<int, int>[] all = HookBatchTargets.All;
        foreach (Func<int, int> target in all)
            Warm(() => target(1));
        Warm(() => HookBatchTargets.Wide(1));
        steps.Call("batch.before", Sum);

        steps.Count("batch.patchesBeforeRefusal", interceptor.Patches.Count);
        using var refusedOwner = new PatchOwner("bad batch");
        try
        {
            steps.Count("batch.refusedApplied", interceptor.PatchAll(steps.ModType("BadBatchPatch"), refusedOwner).Count);
        }
        catch (Exception e)
        {
            steps.Threw("batch.refused", e);
        }
        steps.Call("batch.afterRefusal", Sum);
        steps.Call("batch.wideAfterRefusal", () => HookBatchTargets.Wide(1));
        steps.Count("batch.patchesAfterRefusal", interceptor.Patches.Count);

        var owner = new PatchOwner("ten targets");
        try
        {
            var clock = Stopwatch.StartNew();
            Type tenTargets = steps.ModType("TenTargetsPatch");
            ulong commandsBefore = interceptor.ReadStatus().CommandsCompleted;
            IReadOnlyList<WovenPatch> patches = interceptor.PatchAll(tenTargets, owner);
            // The worker's commands: a describe per target, then one for the batch (ten Applies: twenty).
            // PatchAll may return once the batch's ReJIT is requested, before the worker finishes (and
            // counts) the command, so the count is read once the queue is empty and the count has stopped
            // moving (bounded: a stuck count is read as is).
            steps.Count("batch.commands", (long)(SettledCommands(interceptor) - commandsBefore));
            steps.Count("batch.applied", patches.Count);
            steps.Count("batch.installed", patches.Count(p => p.IsInstalled));
            steps.Count("batch.distinctTargets", patches.Select(p => p.Target).Distinct().Count());
            steps.Count("batch.elapsedMs", clock.ElapsedMilliseconds);
            for (int k = 0; k < all.Length; k++)
            {
                Func<int, int> target = all[k];
                steps.Call($"batch.T{k}", () => target(1));
            }
        }
        catch (Exception e)
        {
            steps.Threw("batch.failed", e);
        }
        finally
        {
            owner.Dispose();
        }
        steps.Call("batch.removed", Sum);
    }

    private static void Warm(Func<long> call)
    {
        for (int i = 0; i < 4; i++)
        {
            try
            {
                call();
            }
            catch (InvalidOperationException)
            {
                // The throwing targets throw while warmed, as they do when observed.
            }
        }
    }
    private static ulong SettledCommands(Interceptor interceptor)
    {
        var deadline = Stopwatch.StartNew();
        ProfilerStatus last = interceptor.ReadStatus();
        while (deadline.ElapsedMilliseconds < 2_000)
        {
            Thread.Sleep(5);
            ProfilerStatus now = interceptor.ReadStatus();
            if (now.QueueDepth == 0 && now.CommandsCompleted == last.CommandsCompleted)
                return now.CommandsCompleted;
            last = now;
        }
        return last.CommandsCompleted;
    }
}
