using System.Reflection;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// A mod written only against AlvorKit.Interception.HarmonyLib (AlvorKit.Proofs.HarmonyMod, loaded here by path)
/// patches HarmonyGame and HarmonyWholeGame step by step: two Harmony IDs, PatchAllUncategorized, PatchCategory,
/// PatchAll, UnpatchCategory, TargetMethods with Prepare/Cleanup, HarmonyPatchAll, HarmonyBefore across the IDs,
/// Harmony.Patch (a hook that fits and one that does not) and both Unpatch forms, UnpatchAll of one ID and of all. After each step every target is called: the report holds the values
/// they returned (HookReport), the mod's lifecycle log and its queries; HarmonyProofs asserts them.
/// </summary>
public static class HarmonyProof
{
    private static readonly (string Name, Func<long> Call)[] Calls =
    [
        ("score", () => HarmonyGame.Score(5)),
        ("damage", () => HarmonyGame.Damage(3)),
        ("heal", () => HarmonyGame.Heal(3)),
        ("skipped", () => HarmonyGame.Skipped(3)),
        ("disabled", () => HarmonyGame.Disabled(3)),
        ("categorized", () => HarmonyGame.Categorized(3)),
        ("manual", () => HarmonyGame.Manual(3)),
        ("whole.first", () => HarmonyWholeGame.First(1)),
        ("whole.second", () => HarmonyWholeGame.Second(1)),
        ("unit.constructor", () => new HarmonyUnit(3).Level),
        ("unit.getter", () => new HarmonyUnit().Boosted),
        ("unit.ref", () =>
        {
            int a = 1;
            return HarmonyUnit.Swap(ref a) * 1000L + a;
        }),
        ("unit.byValue", () => HarmonyUnit.Swap(5)),
    ];

    // The mod's entry points, in order; after each, every target is called.
    private static readonly string[] Mod =
    [
        "PatchUncategorized", "PatchBetaCategory", "PatchLateCategory", "UnpatchLateCategory", "PatchManual",
        "PatchBadHook", "UnpatchManualPostfixes", "UnpatchManualPrefix", "UnpatchAlpha", "UnpatchBeta", "PatchEverything",
        "UnpatchEveryId",
    ];

    public static HookReport Run()
    {
        var steps = new List<HookStep>();
        using (Interceptor interceptor = Interceptor.Open())
        {
            if (!interceptor.IsPatchingEnabled)
                return new HookReport(interceptor.PatchingRefusal ?? "patching is disabled", [], 0);
        }
        Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
            Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.HarmonyMod.dll"));
        Type entry = mod.GetType("AlvorKit.Proofs.HarmonyMod.Entry", throwOnError: true)!;
        foreach ((string _, Func<long> call) in Calls)
        {
            for (int i = 0; i < 4; i++)
                call();
        }
        Record(steps, "before");
        foreach (string step in Mod)
        {
            try
            {
                entry.GetMethod(step)!.Invoke(null, null);
            }
            catch (TargetInvocationException e) when (e.InnerException is { } inner)
            {
                steps.Add(new HookStep($"{step}.threw", null, new HookThrown(inner.GetType().Name, inner.Message,
                    null, inner.InnerException?.GetType().Name, null, null, null, null), null));
            }
            Record(steps, step);
            steps.Add(new HookStep($"{step}.log", null, null, (string)entry.GetMethod("TakeLog")!.Invoke(null, null)!));
            steps.Add(new HookStep($"{step}.state", null, null, (string)entry.GetMethod("State")!.Invoke(null, null)!));
        }
        return new HookReport(null, steps, 0);
    }

    private static void Record(List<HookStep> steps, string step)
    {
        foreach ((string name, Func<long> call) in Calls)
        {
            try
            {
                steps.Add(new HookStep($"{step}.{name}", call(), null, null));
            }
            catch (Exception e)
            {
                steps.Add(new HookStep($"{step}.{name}", null,
                    new HookThrown(e.GetType().Name, e.Message, null, null, null, null, null, null), null));
            }
        }
    }
}
