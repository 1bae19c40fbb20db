using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Install, replace and remove on a hot method in a profiled process: what the target
/// returns after each step, and the telemetry that accounts for it.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Platform", "all")]
public sealed class PatchLifecycleProofs
{
    private static LifecycleReport Report(string tiering) => PatchReports.Get<LifecycleReport>(tiering, "lifecycle");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachStepChangesWhatTheTargetReturns(string tiering)
    {
        LifecycleReport r = Report(tiering);
        Assert.Equal(6, r.Original);
        Assert.True(r.HandleNonZero);
        foreach ((PatchStep step, int expected) in new[] { (r.Install, 105), (r.Replace, 1005), (r.Remove, 6) })
        {
            PatchReports.AssertCommand(step.Command);
            PatchReports.AssertVisibleAtOnce(step.Result, expected);
        }
        Assert.Equal("Ok", r.WaitAfterRemoved);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TelemetryAccountsForEveryStep(string tiering)
    {
        LifecycleReport r = Report(tiering);
        TelemetryReport install = r.Install.Telemetry, replace = r.Replace.Telemetry, remove = r.Remove.Telemetry;
        PatchReports.AssertHealthyTelemetry(install, "Active");
        PatchReports.AssertHealthyTelemetry(replace, "Active");
        PatchReports.AssertHealthyTelemetry(remove, "Removed");

        Assert.True(r.ReplacementIsA, $"{install}");
        Assert.True(r.ReplacementIsB, $"{replace}");
        Assert.Equal(0ul, remove.Replacement);
        TelemetryReport[] steps = [install, replace, remove];
        Assert.Equal([1u, 1u, 0u], steps.Select(t => t.OwnerCount));
        Assert.Equal([1u, 2u, 3u], steps.Select(t => t.CommandsCompleted));
        foreach ((string counter, Func<TelemetryReport, uint> read) in new (string, Func<TelemetryReport, uint>)[]
        {
            ("getReJITParameters", t => t.GetReJITParameters), ("rejitStarted", t => t.RejitStarted),
            ("rejitFinished", t => t.RejitFinished),
        })
        {
            uint[] counts = steps.Select(read).ToArray();
            // Install and replace each ReJIT the target, so each adds callbacks; the restore makes
            // the original version active again (RequestRevert: its native code, nothing compiled).
            Assert.True(counts[0] < counts[1] && counts[1] <= counts[2], $"{counter} after each step: {string.Join(", ", counts)}");
        }
        foreach (TelemetryReport t in new[] { install, replace })
            Assert.True(t.CompileElapsedNs >= t.CommandElapsedNs, $"{t}");
        foreach (TelemetryReport t in steps)
        {
            Assert.Equal(install.CalliSignatureToken, t.CalliSignatureToken);
            Assert.Equal(0u, t.Flags);
        }
    }
}
