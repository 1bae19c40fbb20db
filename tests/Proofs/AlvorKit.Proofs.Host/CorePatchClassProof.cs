using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The core API's patch-class selection and lifecycle (CorePatchClassGame.cs, core attributes, in this assembly):
/// PatchAllUncategorized, PatchCategory and PatchAll of this assembly under three owners, TargetMethods with
/// Prepare and Cleanup, a class whose Prepare skips it, whole-type patching; after each step every target is
/// called. One HookReport; PatchClassProofs asserts the values.
/// </summary>
public static class CorePatchClassProof
{
    private static readonly (string Name, Func<long> Call)[] Calls =
    [
        ("alpha", () => CoreLifecycleGame.Alpha(3)),
        ("beta", () => CoreLifecycleGame.Beta(3)),
        ("late", () => CoreLifecycleGame.Late(3)),
        ("plain", () => CoreLifecycleGame.Plain(3)),
        ("whole.first", () => CoreWholeGame.First(1)),
        ("whole.second", () => CoreWholeGame.Second(1)),
    ];

    public static HookReport Run()
    {
        using Interceptor interceptor = Interceptor.Open();
        if (!interceptor.IsPatchingEnabled)
            return new HookReport(interceptor.PatchingRefusal ?? "patching is disabled", [], 0);
        var steps = new List<HookStep>();
        System.Reflection.Assembly game = typeof(CorePatchClassProof).Assembly;
        foreach ((string _, Func<long> call) in Calls)
        {
            for (int i = 0; i < 4; i++)
                call();
        }
        Record(steps, "before");
        var one = new PatchOwner("core one");
        var two = new PatchOwner("core two");
        var three = new PatchOwner("core three");
        Step(steps, "uncategorized", () => steps.Add(new HookStep("uncategorized.sets",
            interceptor.PatchAllUncategorized(game, one).Count, null, null)));
        Step(steps, "late", () => steps.Add(new HookStep("late.sets", interceptor.PatchCategory(game, "core.late", two).Count, null, null)));
        Step(steps, "oneLeft", one.Dispose);
        Step(steps, "all", () => steps.Add(new HookStep("all.sets", interceptor.PatchAll(game, three).Count, null, null)));
        Step(steps, "allLeft", () =>
        {
            two.Dispose();
            three.Dispose();
        });
        return new HookReport(null, steps, interceptor.Patches.Count);
    }

    private static void Step(List<HookStep> steps, string name, Action action)
    {
        try
        {
            action();
        }
        catch (Exception e)
        {
            steps.Add(new HookStep($"{name}.threw", null,
                new HookThrown(e.GetType().Name, e.Message, null, e.InnerException?.GetType().Name, null, null, null, null), null));
        }
        Record(steps, name);
        steps.Add(new HookStep($"{name}.log", null, null, string.Join("\n", CorePatchLog.Calls)));
        CorePatchLog.Calls.Clear();
    }

    private static void Record(List<HookStep> steps, string step)
    {
        foreach ((string name, Func<long> call) in Calls)
            steps.Add(new HookStep($"{step}.{name}", call(), null, null));
    }
}
