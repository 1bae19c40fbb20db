using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Replacing a patch again and again does not make the profiler hold more: its snapshots stay
/// as they were, the dispatch signature is emitted once and then reused, and each new
/// signature a generation brings is counted (token and bytes) in the runtime status.
/// </summary>
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class MemoryProofs
{
    private const int Replacements = 2000;

    private static MemoryReport Report(string tiering) =>
        PatchReports.Get<MemoryReport>(tiering, "memory", Replacements.ToString());

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ReplacementsDoNotGrowWhatTheProfilerHolds(string tiering)
    {
        ReplacesReport r = Report(tiering).Replaces;
        Assert.True(r.Install == "Ok" && r.Failures == 0, $"{r}");
        MemoryCounters before = r.Before, after = r.After;
        Assert.True(before.SnapshotBytes > 0, $"{r}");
        Assert.True(after.SnapshotBytes == before.SnapshotBytes, $"{r}");
        Assert.True(after.SnapshotCount == before.SnapshotCount, $"{r}");
        // One calli signature for the target, emitted at install, reused by every replacement.
        Assert.True(after.TokensEmitted == before.TokensEmitted, $"{r}");
        Assert.True(after.BytesEmitted == before.BytesEmitted, $"{r}");
        Assert.True(after.TokensReused - before.TokensReused == Replacements, $"{r}");
        Assert.True(r.Remove == "Ok" && r.AfterRemove == 2, $"{r}");
        Assert.True(r.Final.SnapshotBytes == 0 && r.Final.SnapshotCount == 0,
            $"the removed patch left snapshots behind: {r}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void NewSignaturesAreCountedAndKnownOnesReused(string tiering)
    {
        SignaturesReport r = Report(tiering).Signatures;
        IReadOnlyList<SignatureStep> steps = r.Steps;
        Assert.Equal(17, steps.Count);
        (ulong TokensEmitted, ulong BytesEmitted, ulong TokensReused) previous =
            (r.Before.TokensEmitted, r.Before.BytesEmitted, r.Before.TokensReused);
        for (int i = 0; i < steps.Count; i++)
        {
            SignatureStep step = steps[i];
            Assert.True(step.Submit == "Ok" && step.Result == "Ok", $"step {i}: {step}");
            Assert.True(step.Value == 5 + step.Locals, $"step {i}: {step}");
            ulong emitted = step.TokensEmitted - previous.TokensEmitted;
            ulong bytes = step.BytesEmitted - previous.BytesEmitted;
            ulong reused = step.TokensReused - previous.TokensReused;
            if (i < 16)
                Assert.True(emitted == 1 && bytes == (ulong)step.BlobLength && reused == 0, $"step {i}: {step} after {previous}");
            else // the first signature again
                Assert.True(emitted == 0 && bytes == 0 && reused == 1, $"step {i}: {step} after {previous}");
            previous = (step.TokensEmitted, step.BytesEmitted, step.TokensReused);
        }
        Assert.True(r.Remove == "Ok" && r.AfterRemove == 4, $"{r}");
    }
}
