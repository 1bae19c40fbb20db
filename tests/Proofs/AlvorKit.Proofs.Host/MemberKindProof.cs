using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Hooks on members that are not plain methods, in a real profiled process: a static constructor hooked before
/// it ran, an iterator's and an async method's MoveNext, a finalizer and an event's add accessor, named by
/// PatchMethodKind in AlvorKit.Proofs.HookMod's MemberKindPatches. Each call returns the original's own result
/// * 1000 + what the hooks counted during it, before, while hooked and after the owner left. One HookReport;
/// MemberKindProofs asserts the values.
/// </summary>
public static class MemberKindProof
{
    private static readonly string[] Classes =
        ["StaticConstructorPatch", "IteratorPatch", "AsyncPatch", "FinalizerPatch", "EventAddPatch"];

    public static HookReport Run() => HookModRun.Run((interceptor, mod) =>
    {
        var steps = new List<HookStep>();
        var calls = new (string Name, Func<long> Call)[]
        {
            ("iterator", () => Counted(MemberKindCounter.IteratorSteps, () => StateMachines.Count3().Sum())),
            ("async", () => Counted(MemberKindCounter.AsyncSteps, () => StateMachines.Twice(21).GetAwaiter().GetResult())),
            ("finalizer", () =>
            {
                int finalized = MemberKindLog.Read(MemberKindCounter.Finalized);
                int hooked = MemberKindLog.Read(MemberKindCounter.FinalizedByHook);
                Mortal.Abandon(10);
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                return (MemberKindLog.Read(MemberKindCounter.Finalized) - finalized) * 1000L +
                       (MemberKindLog.Read(MemberKindCounter.FinalizedByHook) - hooked);
            }),
            ("event", () => Counted(MemberKindCounter.EventAdds, () =>
            {
                var emitter = new Emitter();
                for (int i = 0; i < 3; i++)
                    emitter.Fired += (_, _) => { };
                return emitter.Handlers;
            })),
        };
        foreach ((_, Func<long> call) in calls)
        {
            for (int i = 0; i < 4; i++)
                call();
        }
        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.before", call);

        var owner = new PatchOwner("member kinds mod");
        int woven = 0;
        foreach (string name in Classes)
        {
            try
            {
                woven += interceptor.PatchAll(mod.GetType($"AlvorKit.Proofs.HookMod.{name}", throwOnError: true)!, owner).Count;
            }
            catch (Exception e)
            {
                steps.Add(new HookStep($"patchAll.{name}", null,
                    new HookThrown(e.GetType().Name, e.Message, null, null, null, null, null, null), null));
            }
        }
        steps.Add(new HookStep("memberKinds.woven", woven, null, null));
        // The static constructor runs now, at the type's first access, hooked.
        Call(steps, "staticConstructor.hooked",
            () => LateInitialized.Value * 1000L + MemberKindLog.Read(MemberKindCounter.StaticConstructorPrefixes));
        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.hooked", call);

        owner.Dispose();
        steps.Add(new HookStep("memberKinds.patchesAfterRemoval", interceptor.Patches.Count, null, null));
        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.removed", call);
        return new HookReport(null, steps, interceptor.Patches.Count);
    });

    // The call's result * 1000 + how much the counter moved during it.
    private static long Counted(MemberKindCounter counter, Func<int> call)
    {
        int before = MemberKindLog.Read(counter);
        int result = call();
        return result * 1000L + (MemberKindLog.Read(counter) - before);
    }

    private static void Call(List<HookStep> steps, string name, Func<long> call)
    {
        try
        {
            steps.Add(new HookStep(name, call(), null, null));
        }
        catch (Exception e)
        {
            steps.Add(new HookStep(name, null, new HookThrown(e.GetType().Name, e.Message, null, null, null, null, null, null), null));
        }
    }
}
