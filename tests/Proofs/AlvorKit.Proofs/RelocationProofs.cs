using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Relocations that share operand sites, and a generation's relocation bound, in a profiled
/// process (the host's "relocations" mode, RelocationProof), under default tiering with PGO and
/// with tiered compilation off. Every assertion is on a value the patched method returned:
/// (a) a prefix rewrites arguments of a 33-parameter method through __args (its woven body boxes
/// and unboxes every argument); (b) a plan with 1,000 distinct user strings returns the sum of
/// their lengths; one raw relocation fills three ldstr operands; (c) a plan and a raw
/// generation past ALVK_MAX_RELOCATIONS are refused, the target unchanged.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
public sealed class RelocationProofs
{
    private const int MaxRelocations = 4096;

    private static RelocationReport Report(string tiering)
    {
        RelocationReport r = PatchReports.Get<RelocationReport>(tiering, "relocations");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    // CallThirtyThree: digest * 100,000 + r0 after the call * 10 + r1's length after it.
    private const long Original = 6_569L * 100_000 + 1000 * 10 + 3;
    private const long ThroughArgs = 12_741L * 100_000 + 2000 * 10 + 7;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ArgsOnAThirtyThreeParameterMethodChangesTheArgumentsTheOriginalSees(string tiering)
    {
        ManyArgumentsReport r = Report(tiering).ManyArguments!;
        string json = ReportJson.Write(r);
        Assert.True(r.Threw is null, json);
        Assert.Equal(Original, r.Before);
        // a0 +100, c0 +95, s0 +9, o0 +63, f1 +1, p0 +900, ref r0 +1000, ref r1 +4, ref r2 +4000;
        // the caller sees r0 = 2000 and r1 of 7 characters written back through the references.
        PatchReports.AssertVisibleAtOnce(r.Hooked!, ThroughArgs);
        Assert.True(r.WovenState == "Active", json);
        // Each type is one relocation however many box/unbox.any/ldobj/stobj name it.
        Assert.True(r.WovenRelocations is > 0 and < 64, json);
        PatchReports.AssertVisibleAtOnce(r.Removed!, Original);
        Assert.True(r.PatchesLeft == 0, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanWithAThousandDistinctRelocationsApplies(string tiering)
    {
        ThousandReport r = Report(tiering).Thousand!;
        string json = ReportJson.Write(r);
        Assert.True(r.Threw is null, json);
        Assert.Equal(-1, r.Original);
        // String i is '#', its number in four digits and i % 13 x's.
        int expected = Enumerable.Range(0, 1000).Sum(i => 5 + i % 13);
        PatchReports.AssertVisibleAtOnce(r.Applied!, expected);
        Assert.True(r.State == "Active", json);
        Assert.True(r.PlanRelocations >= 1000 && r.ResultRelocations == r.PlanRelocations, json);
        Assert.True(r.DistinctUserStrings == 1000, json);
        PatchReports.AssertVisibleAtOnce(r.Removed!, -1);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void OneRelocationFillsEveryOperandSiteItNames(string tiering)
    {
        RelocationReport report = Report(tiering);
        // Length("shared!") three times: the token written at the relocation's il_offset and both sites.
        GenerationResultReport g = GenerationProofs.AssertApplied(report.SharedSites!, 21, prior: 0);
        string json = ReportJson.Write(g);
        RelocationResultReport only = Assert.Single(g.Relocations);
        Assert.True(only.Kind == "UserString" && only.Table == 0x70 && only.HResult >= 0, json);
        GenerationProofs.AssertRemoved(report.SharedSitesRemoved!, -2);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PastTheRelocationBoundAPlanAndARawGenerationAreRefused(string tiering)
    {
        RelocationBoundReport r = Report(tiering).Bound!;
        string json = ReportJson.Write(r);
        Assert.Equal(MaxRelocations, r.MaxRelocations);
        // The plan: refused at the string that would be relocation 4,097, before the profiler saw it.
        Assert.True(r.PlanThrew == "PlanException", json);
        Assert.Contains($"past {MaxRelocations} relocations", r.PlanMessage!, StringComparison.Ordinal);
        Assert.True(r.StringsEmitted == MaxRelocations && r.PlanRelocationsWhenRefused == MaxRelocations, json);
        Assert.Equal(-3, r.PlanTargetAfter);
        // The C ABI: the bound itself validates, one more is ALVK_E_LIMIT_EXCEEDED at the call.
        Assert.True(r.RawAtBoundValidate == "Ok", json);
        Assert.True(r.RawPastBoundSubmit == "LimitExceeded" && r.RawPastBoundHandleZero, json);
        Assert.Equal(-4, r.RawTargetAfter);
    }
}
