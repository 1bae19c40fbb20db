using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The patch table at scale, in profiled processes under both tiering modes: 1,000
/// distinct targets in one batch, all active, then removed with every original back; batches
/// with one bad request refused whole, nothing patched; single installs past 256 patches (the
/// table grows), and ALVORKIT_INTERCEPTION_MAX_PATCHES bounding live patches; a malformed bound's
/// startup status.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class ScaleProofs
{
    private const int Input = 5, Patched = Input + 1_000_000;

    public static TheoryData<string> Tierings => PatchReports.TieringModes;

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AThousandTargetsInOneBatchAreAllActiveThenAllRemoved(string tiering)
    {
        ScaleBatchReport r = PatchReports.Get<ScaleBatchReport>(tiering, "scale", "batch");
        Assert.True(r.Outcome == "Ok", r.Outcome);
        Assert.Equal(1000, r.Count);
        Assert.Equal(1000, r.PatchesReturned);
        Assert.Equal(1000, r.DistinctHandles);
        Assert.True(r.States.Count == 1 && r.States.GetValueOrDefault("Active") == 1000, $"states: {string.Join(", ", r.States)}");
        Assert.True(r.PatchedWrong == 0, $"{r.PatchedWrong} targets did not return {Patched}: {string.Join(", ", r.FirstPatchedWrong)}");
        Assert.Equal(1000u, r.Active.LivePatches);
        Assert.True(r.Active.SlotsAllocated >= 1000 && r.Active.SlotsAllocated <= r.Active.Capacity, $"{r.Active}");
        Assert.Equal(65536u, r.Active.Capacity); // ALVK_DEFAULT_PATCH_CAPACITY
        Assert.True(r.Removal == "Ok", r.Removal);
        Assert.True(r.OriginalWrong == 0, $"{r.OriginalWrong} originals not back: {string.Join(", ", r.FirstOriginalWrong)}");
        Assert.True(r.EndedStates.Count == 1 && r.EndedStates.GetValueOrDefault("Removed") == 1000,
            $"ended: {string.Join(", ", r.EndedStates)}");
        Assert.Equal(0u, r.AfterRemoval.LivePatches);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheManagedApiRefusesAWholeBatchForOneBadPair(string tiering)
    {
        ScaleRefusedReport r = PatchReports.Get<ScaleRefusedReport>(tiering, "scale", "refused");
        ManagedBatchRefusal m = r.Mismatch;
        Assert.True(m.Exception == "BatchInstallException", $"{m}");
        Assert.Null(m.Status); // refused before anything reached the profiler
        Assert.Equal(10, m.Count);
        Assert.Equal([4], m.RefusedIndexes);
        Assert.Equal(["SignatureMismatchException"], m.ReasonTypes);
        Assert.Contains("[4] ", m.Message);
        Assert.Equal(0u, m.After.LivePatches);
        Assert.Equal(0, m.ValuesChanged);
        ManagedBatchRefusal d = r.Duplicate;
        Assert.Equal([7], d.RefusedIndexes);
        Assert.Equal(["ArgumentException"], d.ReasonTypes);
        Assert.Equal(0u, d.After.LivePatches);
        Assert.Equal(0, d.ValuesChanged);
        Assert.Equal(0, r.ValuesChanged);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheWorkerRejectsAWholeBatchBeforePublishingAnyBody(string tiering)
    {
        WorkerBatchRefusal w = PatchReports.Get<ScaleRefusedReport>(tiering, "scale", "refused").Worker;
        Assert.True(w.Call == "Ok", $"queued: {w}"); // the body identity is the worker's to check
        Assert.True(w.Command == "Ok/BodyIdentityMismatch", $"{w}");
        Assert.All(w.States, s => Assert.Equal("Rejected", s));
        for (int i = 0; i < w.LastStatuses.Count; i++)
            Assert.Equal(i == 6 ? "BodyIdentityMismatch" : "BatchAborted", w.LastStatuses[i]);
        Assert.Equal(0u, w.GetReJitParameters); // nothing reached the runtime
        Assert.Equal(0u, w.After.LivePatches);
        Assert.Equal(0, w.ValuesChanged);
    }

    // input, the call's status, the refused request's index (-1: none is singled out, statuses
    // untouched).
    private static readonly (string Input, string Status, int Index)[] BadInputs =
    [
        ("countZero", "LimitExceeded", -1),
        ("countAboveBound", "LimitExceeded", -1),
        ("nullRequests", "NullArgument", -1),
        ("nullHandles", "NullArgument", -1),
        ("nullStatuses", "NullArgument", -1),
        ("smallStruct", "StructSize", 0),
        ("strideMismatch", "StructSize", 3),
        ("oddStride", "StructSize", 2),
        ("duplicateTarget", "DuplicateTarget", 7),
        ("ownerZero", "InvalidOwner", 5),
        ("mixedFallback", "InvalidFlags", 4),
    ];

    public static TheoryData<string, string> BadInputCases => PatchReports.WithTierings(BadInputs.Select(b => b.Input));

    [Theory]
    [MemberData(nameof(BadInputCases))]
    public void BadBatchInputGetsItsStatusAndChangesNothing(string input, string tiering)
    {
        (_, string status, int index) = BadInputs.Single(b => b.Input == input);
        BatchBadInput r = PatchReports.Get<ScaleRefusedReport>(tiering, "scale", "refused").BadInputs[input];
        Assert.True(r.Call == status, $"{input}: expected {status}: {r}");
        Assert.Equal(0ul, r.LastCommand);
        Assert.Equal(r.Before, r.After);
        if (index >= 0)
            for (int i = 0; i < r.Statuses.Count; i++)
                Assert.Equal(i == index ? status : "BatchAborted", r.Statuses[i]);
        else if (input != "nullStatuses")
            Assert.All(r.Statuses, s => Assert.Equal("untouched", s));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void InstallsPassTheOld256PatchTable(string tiering)
    {
        ScaleBoundReport r = PatchReports.Get<ScaleBoundReport>(tiering, "scale", "bound");
        Assert.Equal(65536u, r.Before.Capacity);
        Assert.Equal(1000, r.Attempted);
        Assert.True(r.Succeeded == 1000 && r.FirstRefusedIndex == -1, $"{r}");
        Assert.Equal(1000u, r.AtEnd.LivePatches);
        Assert.Equal(0, r.PatchedWrong);
        Assert.Equal("Ok:1000", r.Removed);
        Assert.Equal(0u, r.AfterRemoval.LivePatches);
        Assert.Equal(0, r.OriginalWrong);
    }

    [Fact]
    public void MaxPatchesBoundsTheLivePatches()
    {
        var env = ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host");
        env["ALVORKIT_INTERCEPTION_MAX_PATCHES"] = "300";
        ProcessResult run = ProfiledProcess.Run(env, extraEnvironment: null, TimeSpan.FromSeconds(120), "scale", "bound");
        Assert.True(run.ExitCode == 0, run.ToString());
        ScaleBoundReport r = run.Report<ScaleBoundReport>();
        Assert.Equal(300u, r.Before.Capacity);
        Assert.Equal(301, r.Attempted);
        Assert.Equal(300, r.Succeeded);
        Assert.Equal(300, r.FirstRefusedIndex);
        Assert.Equal("PatchTableFull/PatchTableFull", r.FirstRefusal);
        Assert.Equal(300u, r.AtEnd.LivePatches);
        Assert.True(r.AtEnd.SlotsAllocated <= 320, $"{r.AtEnd}"); // grown by chunks, never past the bound's
        Assert.Equal(0, r.PatchedWrong);
        Assert.Equal("Ok:300", r.Removed);
        Assert.Equal(0, r.OriginalWrong);
    }

    [Theory]
    [InlineData("abc")]
    [InlineData("255")]
    [InlineData("1048577")]
    [InlineData("-300")]
    public void AMalformedMaxPatchesLeavesTheProfilerInert(string value)
    {
        var env = ProfiledProcess.ProfiledEnvironment("Game");
        env["ALVORKIT_INTERCEPTION_MAX_PATCHES"] = value;
        ProcessResult run = ProfiledProcess.Run(env, "status");
        RuntimeStatusReport s = run.Report<StatusReport>().Status ?? throw new Xunit.Sdk.XunitException(run.ToString());
        Assert.Equal(1u, s.Attached);
        Assert.Equal("PatchCapacityMalformed", s.StartupStatus);
        Assert.Equal(0u, s.EventMaskLow);
        Assert.Equal(0u, s.WorkerAlive);
        Assert.Contains($"[alvorkit-interception] ALVORKIT_INTERCEPTION_MAX_PATCHES=\"{value}\" must be a whole number from 256 to 1048576", run.Stderr);
    }
}
