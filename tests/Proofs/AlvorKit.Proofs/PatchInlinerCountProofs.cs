using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The managed API's inliner count (PatchTelemetry.InlinersReJITted) when patches are installed
/// one after the other, as a game developer does: SmallA and SmallB, each inlined by its own hot
/// caller and both by CallerAB, are installed before the callers run again. Each patch counts the
/// callers that inlined its own target (the runtime re-JITs them at their next call), not the
/// latest request's: attributed to the last request, A would say 0 inliners while CallerA and
/// CallerAB ran its replacement, and B would count all three.
/// </summary>
[Trait("Feature", "Patches")]
public sealed class PatchInlinerCountProofs
{
    private static InlinerCountReport Report(string tiering) => PatchReports.Get<InlinerCountReport>(tiering, "inlinercount");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachPatchCountsTheCallersThatInlinedItsTarget(string tiering)
    {
        InlinerCountReport r = Report(tiering);
        Assert.Equal(new InlinerCountCalls(15, 22, 35), r.Original);
        // The callers run the replacements: each was re-JITted.
        Assert.True(r.Patched.CallerA.Ok, $"CallerA: {r.Patched.CallerA}");
        Assert.True(r.Patched.CallerB.Ok, $"CallerB: {r.Patched.CallerB}");
        Assert.True(r.Patched.CallerAB.Ok, $"CallerAB: {r.Patched.CallerAB}");
        // A: CallerA and CallerAB; B: CallerB and CallerAB.
        Assert.True(r.AfterRun.A.Inliners == 2, $"A's inliners after the callers ran: {r.AfterRun.A.Line}");
        Assert.True(r.AfterRun.B.Inliners == 2, $"B's inliners after the callers ran: {r.AfterRun.B.Line}");
        Assert.Contains("2 inliners re-JITted so far", r.AfterRun.A.Line, StringComparison.Ordinal);
        // Inliners recompile at their next call: right after Install returned, none had yet.
        Assert.InRange(r.AAtInstall, 0, r.AfterRun.A.Inliners);
        Assert.InRange(r.BAtInstall, 0, r.AfterRun.B.Inliners);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARemovalCountsForTheRemovedPatchAlone(string tiering)
    {
        InlinerCountReport r = Report(tiering);
        Assert.True(r.Removed.CallerA.Ok, $"CallerA: {r.Removed.CallerA}");
        Assert.True(r.Removed.CallerB.Ok, $"CallerB: {r.Removed.CallerB}");
        Assert.True(r.Removed.CallerAB.Ok, $"CallerAB: {r.Removed.CallerAB}");
        // A's removal re-JITted CallerA and CallerAB again, for A; B's count stays.
        Assert.True(r.AfterRemove.A.Inliners == 4, $"A's inliners after its removal: {r.AfterRemove.A.Line}");
        Assert.True(r.AfterRemove.B.Inliners == 2, $"B's inliners after A's removal: {r.AfterRemove.B.Line}");
    }
}
