using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The patch table at its bound (ALVORKIT_INTERCEPTION_MAX_PATCHES=256, the smallest) full of
/// ended patches (host mode "recycling"): eight targets
/// patched together and removed in reverse order, then one target installed and removed once
/// per remaining slot. Nine new installs recycle the oldest ended patches in the order they
/// ended (not in slot order); each recycled handle answers ALVK_E_UNKNOWN_PATCH from every
/// function that takes a handle, even with the new patch's owner; every other ended handle
/// still answers; the new patch behind the slot is untouched by the stale handle's calls.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class RecyclingProofs
{
    private static readonly ConcurrentDictionary<string, Lazy<RecyclingReport>> Runs = new();

    // Below its bound the table grows rather than recycle (until 256 patches have ended): the
    // bound makes every new patch past the 256th take an ended one's slot.
    private static RecyclingReport Report(string tiering) => Runs.GetOrAdd(tiering, t => new Lazy<RecyclingReport>(() =>
    {
        var environment = ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host");
        environment["ALVORKIT_INTERCEPTION_MAX_PATCHES"] = "256";
        ProcessResult run = ProfiledProcess.Run(environment, PatchReports.Tiering(t), TimeSpan.FromSeconds(120), "recycling");
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<RecyclingReport>();
    })).Value;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTableFillsWithEndedPatches(string tiering)
    {
        RecyclingReport r = Report(tiering);
        RecyclingPhase1 phase1 = r.Phase1;
        RecyclingPhase2 phase2 = r.Phase2;
        Assert.Equal(8, phase1.Installs.Count);
        Assert.Equal(8, phase1.Removes.Count);
        for (int i = 0; i < 8; i++)
        {
            Assert.True(phase1.Installs[i] == "Ok/Ok", $"install {i}: {string.Join(", ", phase1.Installs)}");
            Assert.True(phase1.Removes[i] == "Ok/Ok", $"remove {i}: {string.Join(", ", phase1.Removes)}");
        }
        Assert.True(phase1.PatchedValues.AllExpected, string.Join(", ", phase1.PatchedValues.Polls));
        Assert.True(phase1.OriginalValues.AllExpected, string.Join(", ", phase1.OriginalValues.Polls));
        Assert.Equal(8, phase1.DistinctHandles);
        Assert.Equal(248, phase2.Cycles);
        Assert.Empty(phase2.Refusals);
        Assert.Equal(256, phase2.DistinctHandles);
        Assert.True(phase2.EndedStates.Count == 1 && phase2.EndedStates.GetValueOrDefault("Removed") == 256,
            string.Join(", ", phase2.EndedStates));
        Assert.Equal(55, phase2.CycledValue);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RecyclingTakesTheOldestEndedPatchFirst(string tiering)
    {
        IReadOnlyList<Recycle> recycles = Report(tiering).Recycles;
        Assert.Equal(9, recycles.Count);
        for (int step = 0; step < recycles.Count; step++)
        {
            Recycle r = recycles[step];
            Assert.True(r.Install == "Ok" && r.Wait == "Ok", $"{r}");
            Assert.True(r.GoneCount == 1, $"step {step}: {r}");
            Assert.True(r.GoneIsOldest && r.GoneIndex == step, $"step {step}: {r}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARecycledHandleIsUnknownToEveryFunctionThatTakesAHandle(string tiering)
    {
        foreach (Recycle r in Report(tiering).Recycles)
        {
            IReadOnlyDictionary<string, string> calls = r.StaleCalls;
            Assert.Equal(8, calls.Count);
            foreach ((string call, string status) in calls)
                Assert.True(status == "UnknownPatch", $"{call}: {string.Join(", ", calls)}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheNewPatchBehindARecycledSlotIsUnaffected(string tiering)
    {
        foreach (Recycle r in Report(tiering).Recycles)
        {
            Assert.True(r.NewHandleDiffersFromStale && r.NewHandleWasNeverIssued, $"{r}");
            PatchReports.AssertVisibleAtOnce(r.NewValue, 1005);
            Assert.True(r.NewUnchanged, $"the stale handle's calls changed the new patch: {r}");
            Assert.Equal(1005, r.NewValueAfter);
            Assert.Equal("Active", r.NewGeneration);
            PatchReports.AssertHealthyTelemetry(r.NewTelemetry, "Active");
            Assert.Equal(1u, r.NewTelemetry.OwnerCount);
            Assert.Equal(1u, r.NewTelemetry.CommandsCompleted);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryOtherEndedPatchStillAnswersAndTheOriginalsComeBack(string tiering)
    {
        RecyclingReport r = Report(tiering);
        Assert.True(r.OthersStillAnswer, $"{r}");
        Assert.Equal(256 - 9, r.OthersCount);
        foreach ((string handle, string removal) in r.Removals)
            Assert.True(removal == "Ok/Ok", $"{handle}: {removal}");
        Assert.True(r.FinalValues.AllExpected, string.Join(", ", r.FinalValues.Polls));
        PatchReports.AssertVisibleAtOnce(r.FinalCycled, 55);
    }
}
