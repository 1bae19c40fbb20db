using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// A mod written only against the Harmony-shaped surface (AlvorKit.Proofs.HarmonyMod) in a profiled process (the
/// host's "harmony" mode, HarmonyProof), under default tiering with PGO and with tiered compilation off. After each
/// of the mod's steps every target is called: the assertions are on the values they returned.
/// </summary>
[Trait("Feature", "Harmony API")]
public sealed class HarmonyProofs
{
    // Originals: Score(5) 5, Damage(3) 6, Heal(3) 4, Skipped(3) 2, Disabled(3) 9, Categorized(3) 8, Manual(3) 12,
    // First(1) 2, Second(1) 3.
    private static readonly string[] Targets =
        ["score", "damage", "heal", "skipped", "disabled", "categorized", "manual", "whole.first", "whole.second"];

    // Per step, what each target returns after it (in the order of Targets).
    private static readonly (string Step, long[] Values)[] Expected =
    [
        ("before", [5, 6, 4, 2, 9, 8, 12, 2, 3]),
        // alpha, uncategorized classes: Score's digit 1, TargetMethods +1000 (Skipped refused by Prepare),
        // Disabled's Prepare() false, Categorized waits for its category, HarmonyPatchAll +100 on both members.
        ("PatchUncategorized", [51, 1006, 1004, 2, 9, 8, 12, 102, 103]),
        // beta's digit 2 runs before alpha's (HarmonyBefore("mod.alpha")), though installed after it.
        ("PatchBetaCategory", [521, 1006, 1004, 2, 9, 8, 12, 102, 103]),
        ("PatchLateCategory", [521, 1006, 1004, 2, 9, 7008, 12, 102, 103]),
        ("UnpatchLateCategory", [521, 1006, 1004, 2, 9, 8, 12, 102, 103]),
        // gamma's Harmony.Patch: the prefix doubles x (6 + 9), the postfix adds 900.
        ("PatchManual", [521, 1006, 1004, 2, 9, 8, 915, 102, 103]),
        // A hook that does not fit: refused (HarmonyException), nothing changed.
        ("PatchBadHook", [521, 1006, 1004, 2, 9, 8, 915, 102, 103]),
        ("UnpatchManualPostfixes", [521, 1006, 1004, 2, 9, 8, 15, 102, 103]),
        ("UnpatchManualPrefix", [521, 1006, 1004, 2, 9, 8, 12, 102, 103]),
        // UnpatchAll("mod.alpha"): alpha's hooks gone everywhere, beta's stay.
        ("UnpatchAlpha", [52, 6, 4, 2, 9, 8, 12, 2, 3]),
        ("UnpatchBeta", [5, 6, 4, 2, 9, 8, 12, 2, 3]),
        // alpha.PatchAll(): categorized classes too; beta's class is alpha's now, and Before naming its own ID
        // does not order it (install order: alpha's digit first).
        ("PatchEverything", [512, 1006, 1004, 2, 9, 7008, 12, 102, 103]),
        // UnpatchAll(): every Harmony ID.
        ("UnpatchEveryId", [5, 6, 4, 2, 9, 8, 12, 2, 3]),
    ];

    public static TheoryData<string, string> Steps
    {
        get
        {
            var data = new TheoryData<string, string>();
            foreach (string tiering in PatchReports.Tierings)
                foreach ((string step, long[] _) in Expected)
                    data.Add(tiering, step);
            return data;
        }
    }

    private static HookReport Report(string tiering)
    {
        HookReport r = PatchReports.Get<HookReport>(tiering, "harmony");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    [Theory]
    [MemberData(nameof(Steps))]
    public void EachStepOfAHarmonyModLeavesTheValuesItsHooksMake(string tiering, string step)
    {
        HookReport r = Report(tiering);
        Assert.DoesNotContain(r.Steps, s => s.Name == $"{step}.threw");
        long[] expected = Expected.Single(e => e.Step == step).Values;
        for (int i = 0; i < Targets.Length; i++)
        {
            HookStep call = Step(r, $"{step}.{Targets[i]}");
            Assert.True(call.Threw is null, $"{call.Name} threw {call.Threw}");
            Assert.True(call.Value == expected[i], $"{call.Name}: expected {expected[i]}, returned {call.Value}");
        }
    }

    // new HarmonyUnit(3).Level, new HarmonyUnit().Boosted, Swap(ref 1) as result * 1000 + a, Swap(5):
    // originals, and hooked (constructor +40, getter +500, the ref overload's argument +10 first; the by-value
    // overload untouched).
    private static readonly long[] UnitOriginals = [3, 2, 2_002, 5];
    private static readonly long[] UnitHooked = [43, 502, 12_012, 5];

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void MethodTypesAndArgumentVariationsNameTheMembersTheValuesShow(string tiering)
    {
        HookReport r = Report(tiering);
        string[] units = ["unit.constructor", "unit.getter", "unit.ref", "unit.byValue"];
        foreach ((string step, long[] expected) in new[]
                 {
                     ("before", UnitOriginals), ("PatchUncategorized", UnitHooked), ("UnpatchAlpha", UnitOriginals),
                     ("PatchEverything", UnitHooked), ("UnpatchEveryId", UnitOriginals),
                 })
        {
            for (int i = 0; i < units.Length; i++)
            {
                HookStep call = Step(r, $"{step}.{units[i]}");
                Assert.True(call.Value == expected[i], $"{call.Name}: expected {expected[i]}, returned {call.Value} {call.Threw}");
            }
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PrepareTargetMethodsAndCleanupRunInHarmonysOrderAroundTheBatch(string tiering)
    {
        HookReport r = Report(tiering);
        foreach (string step in new[] { "PatchUncategorized", "PatchEverything" })
        {
            string[] log = (Step(r, $"{step}.log").Text ?? "").Split('\n');
            // The class whose Prepare() returned false: only its Cleanup ran.
            Assert.Equal(1, log.Count(l => l == "Disabled.Cleanup"));
            Assert.Equal(
            [
                "Prepare(null, mod.alpha)", "TargetMethods",
                "Prepare(Damage, mod.alpha)", "Prepare(Heal, mod.alpha)", "Prepare(Skipped, mod.alpha)",
                "Cleanup(Damage, null)", "Cleanup(Heal, null)", "Cleanup(Skipped, null)", "Cleanup(null, null)",
            ], log.Where(l => l != "Disabled.Cleanup"));
        }
        Assert.Equal("", Step(r, "PatchBetaCategory.log").Text);   // beta's category has no lifecycle methods
        Assert.Equal("HarmonyException: HookBindingException", Step(r, "PatchBadHook.log").Text);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void HasAnyPatchesAndGetPatchedMethodsFollowEachId(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal("mod.alpha: patches [.ctor,Damage,First,Heal,Score,Second,Swap,get_Boosted]\nmod.beta: none []\nmod.gamma: none []",
            Step(r, "PatchUncategorized.state").Text);
        Assert.Equal("mod.alpha: patches [.ctor,Categorized,Damage,First,Heal,Score,Second,Swap,get_Boosted]\nmod.beta: patches [Score]\n" +
                     "mod.gamma: none []", Step(r, "PatchLateCategory.state").Text);
        Assert.Equal("mod.alpha: patches [.ctor,Damage,First,Heal,Score,Second,Swap,get_Boosted]\nmod.beta: patches [Score]\n" +
                     "mod.gamma: patches [Manual]", Step(r, "PatchManual.state").Text);
        Assert.Equal("mod.alpha: none []\nmod.beta: patches [Score]\nmod.gamma: none []",
            Step(r, "UnpatchAlpha.state").Text);
        Assert.Equal("mod.alpha: none []\nmod.beta: none []\nmod.gamma: none []", Step(r, "UnpatchEveryId.state").Text);
    }
}
