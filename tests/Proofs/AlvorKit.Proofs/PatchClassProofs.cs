using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// The core API's patch-class selection and lifecycle in a profiled process (the host's "patchclasses" mode,
/// CorePatchClassProof): PatchAllUncategorized, PatchCategory and PatchAll under three owners, TargetMethods with
/// Prepare and Cleanup, Prepare skipping a class and a target, whole-type patching; both tiering modes. The
/// assertions are on the values the targets returned after each step.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class PatchClassProofs
{
    private static readonly string[] Targets = ["alpha", "beta", "late", "plain", "whole.first", "whole.second"];

    private static readonly (string Step, long[] Values)[] Expected =
    [
        ("before", [4, 5, 6, 7, 2, 3]),
        // Uncategorized classes: TargetMethods +1000 on Alpha (Prepare skipped Beta), +50 on Plain (the class
        // whose Prepare() returned false left it alone), whole type +100; Late waits for its category.
        ("uncategorized", [1004, 5, 6, 57, 102, 103]),
        ("late", [1004, 5, 7006, 57, 102, 103]),
        // The first owner left: its hooks are gone, the category's stay.
        ("oneLeft", [4, 5, 7006, 7, 2, 3]),
        // PatchAll: categorized and uncategorized; Late now has two owners' +7000.
        ("all", [1004, 5, 14006, 57, 102, 103]),
        ("allLeft", [4, 5, 6, 7, 2, 3]),
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
        HookReport r = PatchReports.Get<HookReport>(tiering, "patchclasses");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    [Theory]
    [MemberData(nameof(Steps))]
    public void EachSelectionPatchesItsClassesAndTheValuesShowIt(string tiering, string step)
    {
        HookReport r = Report(tiering);
        Assert.DoesNotContain(r.Steps, s => s.Name == $"{step}.threw");
        long[] expected = Expected.Single(e => e.Step == step).Values;
        for (int i = 0; i < Targets.Length; i++)
        {
            HookStep call = Step(r, $"{step}.{Targets[i]}");
            Assert.True(call.Value == expected[i], $"{call.Name}: expected {expected[i]}, returned {call.Value}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheSelectionsReturnTheirSetsAndTheLifecycleRunsInOrder(string tiering)
    {
        HookReport r = Report(tiering);
        // Alpha, Plain, First, Second / Late / all five.
        Assert.Equal(4, Step(r, "uncategorized.sets").Value);
        Assert.Equal(1, Step(r, "late.sets").Value);
        Assert.Equal(5, Step(r, "all.sets").Value);
        foreach ((string step, string owner) in new[] { ("uncategorized", "core one"), ("all", "core three") })
        {
            string[] log = (Step(r, $"{step}.log").Text ?? "").Split('\n');
            Assert.Equal(1, log.Count(l => l == "Skipped.Cleanup"));
            Assert.Equal(
            [
                $"Ready(null, {owner})", $"Ready(Alpha, {owner})", $"Ready(Beta, {owner})",
                "Done(Alpha, null)", "Done(Beta, null)", "Done(null, null)",
            ], log.Where(l => l != "Skipped.Cleanup"));
        }
        Assert.Equal("", Step(r, "late.log").Text);
        Assert.Equal(0, r.PatchesLeft);
    }
}
