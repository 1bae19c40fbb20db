using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The managed API's commands from several threads and without blocking (host mode
/// "apiconcurrency"): installs on two targets from two threads proceed together, a command
/// waiting on one target does not hold up another target, InstallAsync / ApplyAsync /
/// ReplaceAsync / RemoveAsync change what the targets return without a thread waiting,
/// cancellation, and the status enum in caught exceptions. Every assertion is on what the
/// patched methods returned.
/// </summary>
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class InterceptionConcurrencyProofs
{
    private const int Input = 5;

    // With the stress modes' allowlist: the queue rounds describe AlvorKit.Proofs.Heavy to hold the worker.
    private static ApiConcurrencyReport Report(string tiering) =>
        StressReports.Get<ApiConcurrencyReport>(tiering, TimeSpan.FromSeconds(120), "apiconcurrency").Report;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void InstallsOnTwoTargetsFromTwoThreadsAllTakeEffect(string tiering)
    {
        TwoThreadsReport r = Report(tiering).TwoThreads;
        string json = ReportJson.Write(r);
        Assert.True(r.Completed, json);
        foreach ((ThreadRounds? side, int original) in new[] { (r.Left, Input + 1), (r.Right, Input + 2) })
        {
            ThreadRounds t = side ?? throw new Xunit.Sdk.XunitException($"a thread did not report: {json}");
            int rounds = t.Rounds;
            Assert.True(t.Failures.Count == 0, json);
            // Every round: the patched value after the install, the original after the remove.
            Assert.True(t.PatchedValues == rounds, json);
            Assert.True(t.OriginalValues == rounds, json);
            Assert.True(t.Final == original, json);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACommandWaitingOnOneTargetDoesNotHoldUpAnother(string tiering)
    {
        HeldGateReport r = Report(tiering).HeldGate;
        string json = $"{r}";
        // While Held's gate was taken, the install on Free (another thread) completed and took effect ...
        Assert.True(r.FreeCompletedWhileHeld, json);
        Assert.True(r.FreeValue.Actual == Input + 40, json);
        // ... and the install on Held waited for its own target only.
        Assert.False(r.HeldCompletedWhileHeld, json);
        Assert.True(r.HeldValueWhileHeld == Input + 3, json);
        Assert.True(r.HeldCompletedAfterRelease, json);
        Assert.True(r.HeldValue.Actual == Input + 30, json);
        Assert.True(r.OwnerPatches == 2, json);
        Assert.True(r.HeldAfterDispose.Actual == Input + 3, json);
        Assert.True(r.FreeAfterDispose.Actual == Input + 4, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TaskReturningCommandsChangeWhatTargetsReturnWithoutBlockingTheCaller(string tiering)
    {
        AsyncCommandsReport r = Report(tiering).Async;
        string json = $"{r}";
        // InstallAsync handed back a task before its command could run (its target's gate was
        // taken), and the target kept its body until the task completed.
        Assert.True(r.IncompleteWhenReturned, json);
        Assert.True(r.ReturnedMs < 1000, json);
        Assert.True(r.ValueBeforeCompletion == Input + 5, json);
        Assert.True(r.Installed, json);
        Assert.True(r.InstalledValue.Actual == Input + 50, json);
        Assert.True(r.InstalledState == "Active", json);
        // RemoveAsync
        Assert.False(r.RemovedInstalled, json);
        Assert.True(r.RemovedValue.Actual == Input + 5, json);
        Assert.True(r.RemovedState == "Removed", json);
        // ReplaceAsync
        Assert.True(r.SwappedFirst.Actual == Input + 90, json);
        Assert.True(r.SwappedSecond.Actual == Input + 900, json);
        Assert.True(r.SwappedRemoved.Actual == Input + 9, json);
        // ApplyAsync
        Assert.True(r.PlannedValue.Actual == Input * 3, json);
        Assert.True(r.PlannedGeneration == "Active", json);
        Assert.True(r.PlannedRemoved.Actual == Input + 8, json);
        // PatchOwner.DisposeAsync
        Assert.True(r.ScopedValue.Actual == Input + 50, json);
        Assert.True(r.ScopedDisposedPatches == 0, json);
        Assert.True(r.ScopedDisposedValue.Actual == Input + 5, json);
        // A refusal arrives through the task, typed.
        Assert.True(r.Misfit == "ParameterType", json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CancellationBeforeQueuingInstallsNothingAndAfterQueuingTheOwnerHoldsThePatch(string tiering)
    {
        CancelReport r = Report(tiering).Cancel;
        string json = ReportJson.Write(r);
        Assert.True(r.BeforeQueued == "canceled", json);
        Assert.True(r.BeforeQueuedValue == Input + 6, json);
        Assert.True(r.BeforeQueuedOwnerPatches == 0, json);
        // Canceled after queuing (behind a describe holding the worker): the task is canceled,
        // the command ran anyway, and the owner holds the patch.
        Assert.False(r.AfterQueuedCompletedBeforeCancel, json);
        Assert.True(r.AfterQueued == "canceled", json);
        Assert.True(r.AfterQueuedValue.Actual == Input + 70, json);
        Assert.Equal(["Queued"], r.AfterQueuedOwnerPatches);
        Assert.True(r.AfterDisposeValue.Actual == Input + 7, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CaughtExceptionsCarryTheStatusEnum(string tiering)
    {
        ApiStatusReport r = Report(tiering).Status;
        string json = ReportJson.Write(r);
        // catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        Assert.True(r.NotAllowed == nameof(InterceptionStatus.ModuleNotAllowed), json);
        Assert.True(r.NotAllowedType == "PatchException", json);
        Assert.True(r.NotAllowedName == "ALVK_E_MODULE_NOT_ALLOWED", json);
        Assert.Contains("ALVK_E_MODULE_NOT_ALLOWED", r.NotAllowedMessage);
        Assert.True(r.NotAllowedAsync == nameof(InterceptionStatus.ModuleNotAllowed), json);
        // Refused by the library before the profiler was asked: no status.
        Assert.True(r.Mismatch == "SignatureMismatchException", json);
        Assert.True(r.MismatchHasStatus == false, json);
        Assert.True(r.PatchingStatus == nameof(InterceptionStatus.Ok), json);
    }

    [Fact]
    public void ReadStatusIsOneSnapshotOfTheProfiler()
    {
        ReadStatusReport r = Report(PatchReports.TieredPgo).Status.ReadStatus;
        string json = $"{r}";
        Assert.True(r.StartupStatus == nameof(InterceptionStatus.Ok) && r.PatchingEnabled, json);
        Assert.True(r.PatchableModules == "AlvorKit.Proofs.Host;AlvorKit.Proofs.Heavy", json);
        Assert.True(r.AllocationProfiling && r.WorkerAlive, json);
        Assert.True(r.QueueCapacity == 64, json);
        // An install and a remove (and their describe) ran on the worker in between.
        Assert.True(r.CommandsAfter >= r.CommandsBefore + 2, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnInstallIntoAFullQueueIsCaughtByItsStatusAndChangesNothing(string tiering)
    {
        ApiQueueFullReport r = Report(tiering).QueueFull;
        string json = $"{r}";
        // catch (InterceptionException e) when (e.Status == InterceptionStatus.QueueFull), in a
        // round where the queue was full throughout.
        Assert.True(r.Caught == nameof(InterceptionStatus.QueueFull), json);
        Assert.True(r.ExceptionType == "PatchException", json);
        Assert.Contains("ALVK_E_QUEUE_FULL", r.Message);
        Assert.True(r.ValueAfterRefusal == Input + 11, json);
        Assert.True(r.OwnerPatchesAfterRefusal == 0, json);
        Assert.True(r.ValueAfterDrain.Actual == Input + 110, json);
        Assert.True(r.ValueAfterRemove.Actual == Input + 11, json);
    }

    [Fact]
    public void ExpectedReplacementSignatureIsWhatInstallChecks()
    {
        ApiStatusReport r = Report(PatchReports.TieredPgo).Status;
        string json = ReportJson.Write(r);
        Assert.True(r.ExpectedSignature == "static int Left(int x)", json);
        Assert.Equal(["Int32"], r.ExpectedParameters);
        Assert.True(r.ExpectedReturn == "Int32", json);
        Assert.True(r.MatchedByLeftPatched, json);
        Assert.False(r.MatchedByMisfit, json);
        Assert.True(r.InstanceSignature == "static void Restart(Stopwatch self)", json);
    }
}
