using System.Text.Json.Nodes;
using AlvorKit.Interception;
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
public sealed class InterceptionConcurrencyProofs
{
    private const int Input = 5;

    // With the stress modes' allowlist: the queue rounds describe AlvorKit.Proofs.Heavy to hold the worker.
    private static JsonObject Report(string tiering) =>
        StressReports.Get(tiering, TimeSpan.FromSeconds(120), "apiconcurrency");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void InstallsOnTwoTargetsFromTwoThreadsAllTakeEffect(string tiering)
    {
        JsonNode r = Report(tiering)["twoThreads"]!;
        string json = r.ToJsonString();
        Assert.True(r.Value<bool>("completed"), json);
        foreach ((string side, int original) in new[] { ("left", Input + 1), ("right", Input + 2) })
        {
            JsonNode t = r[side]!;
            int rounds = t.Value<int>("rounds");
            Assert.True(t["failures"]!.AsArray().Count == 0, json);
            // Every round: the patched value after the install, the original after the remove.
            Assert.True(t.Value<int>("patchedValues") == rounds, json);
            Assert.True(t.Value<int>("originalValues") == rounds, json);
            Assert.True(t.Value<int>("final") == original, json);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACommandWaitingOnOneTargetDoesNotHoldUpAnother(string tiering)
    {
        JsonNode r = Report(tiering)["heldGate"]!;
        string json = r.ToJsonString();
        // While Held's gate was taken, the install on Free (another thread) completed and took effect ...
        Assert.True(r.Value<bool>("freeCompletedWhileHeld"), json);
        Assert.True(r["freeValue"]!.Value<int>("value") == Input + 40, json);
        // ... and the install on Held waited for its own target only.
        Assert.False(r.Value<bool>("heldCompletedWhileHeld"), json);
        Assert.True(r.Value<int>("heldValueWhileHeld") == Input + 3, json);
        Assert.True(r.Value<bool>("heldCompletedAfterRelease"), json);
        Assert.True(r["heldValue"]!.Value<int>("value") == Input + 30, json);
        Assert.True(r.Value<int>("ownerPatches") == 2, json);
        Assert.True(r["heldAfterDispose"]!.Value<int>("value") == Input + 3, json);
        Assert.True(r["freeAfterDispose"]!.Value<int>("value") == Input + 4, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TaskReturningCommandsChangeWhatTargetsReturnWithoutBlockingTheCaller(string tiering)
    {
        JsonNode r = Report(tiering)["async"]!;
        string json = r.ToJsonString();
        // InstallAsync handed back a task before its command could run (its target's gate was
        // taken), and the target kept its body until the task completed.
        Assert.True(r.Value<bool>("incompleteWhenReturned"), json);
        Assert.True(r.Value<double>("returnedMs") < 1000, json);
        Assert.True(r.Value<int>("valueBeforeCompletion") == Input + 5, json);
        Assert.True(r.Value<bool>("installed"), json);
        Assert.True(r["installedValue"]!.Value<int>("value") == Input + 50, json);
        Assert.True(r.Text("installedState") == "Active", json);
        // RemoveAsync
        Assert.False(r.Value<bool>("removedInstalled"), json);
        Assert.True(r["removedValue"]!.Value<int>("value") == Input + 5, json);
        Assert.True(r.Text("removedState") == "Removed", json);
        // ReplaceAsync
        Assert.True(r["swappedFirst"]!.Value<int>("value") == Input + 90, json);
        Assert.True(r["swappedSecond"]!.Value<int>("value") == Input + 900, json);
        Assert.True(r["swappedRemoved"]!.Value<int>("value") == Input + 9, json);
        // ApplyAsync
        Assert.True(r["plannedValue"]!.Value<int>("value") == Input * 3, json);
        Assert.True(r.Text("plannedGeneration") == "Active", json);
        Assert.True(r["plannedRemoved"]!.Value<int>("value") == Input + 8, json);
        // PatchOwner.DisposeAsync
        Assert.True(r["scopedValue"]!.Value<int>("value") == Input + 50, json);
        Assert.True(r.Value<int>("scopedDisposedPatches") == 0, json);
        Assert.True(r["scopedDisposedValue"]!.Value<int>("value") == Input + 5, json);
        // A refusal arrives through the task, typed.
        Assert.True(r.Text("misfit") == "ParameterType", json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CancellationBeforeQueuingInstallsNothingAndAfterQueuingTheOwnerHoldsThePatch(string tiering)
    {
        JsonNode r = Report(tiering)["cancel"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("beforeQueued") == "canceled", json);
        Assert.True(r.Value<int>("beforeQueuedValue") == Input + 6, json);
        Assert.True(r.Value<int>("beforeQueuedOwnerPatches") == 0, json);
        // Canceled after queuing (behind a describe holding the worker): the task is canceled,
        // the command ran anyway, and the owner holds the patch.
        Assert.False(r.Value<bool>("afterQueuedCompletedBeforeCancel"), json);
        Assert.True(r.Text("afterQueued") == "canceled", json);
        Assert.True(r["afterQueuedValue"]!.Value<int>("value") == Input + 70, json);
        Assert.Equal(["Queued"], r["afterQueuedOwnerPatches"]!.AsArray().Select(n => n!.GetValue<string>()));
        Assert.True(r["afterDisposeValue"]!.Value<int>("value") == Input + 7, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CaughtExceptionsCarryTheStatusEnum(string tiering)
    {
        JsonNode r = Report(tiering)["status"]!;
        string json = r.ToJsonString();
        // catch (InterceptionException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        Assert.True(r.Text("notAllowed") == nameof(InterceptionStatus.ModuleNotAllowed), json);
        Assert.True(r.Text("notAllowedType") == "PatchException", json);
        Assert.True(r.Text("notAllowedName") == "ALVK_E_MODULE_NOT_ALLOWED", json);
        Assert.Contains("ALVK_E_MODULE_NOT_ALLOWED", r.Text("notAllowedMessage"));
        Assert.True(r.Text("notAllowedAsync") == nameof(InterceptionStatus.ModuleNotAllowed), json);
        // Refused by the library before the profiler was asked: no status.
        Assert.True(r.Text("mismatch") == "SignatureMismatchException", json);
        Assert.False(r.Value<bool>("mismatchHasStatus"), json);
        Assert.True(r.Text("patchingStatus") == nameof(InterceptionStatus.Ok), json);
    }

    [Fact]
    public void ReadStatusIsOneSnapshotOfTheProfiler()
    {
        JsonNode r = Report(PatchReports.TieredPgo)["status"]!["readStatus"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("startupStatus") == nameof(InterceptionStatus.Ok) && r.Value<bool>("patchingEnabled"), json);
        Assert.True(r.Text("patchableModules") == "AlvorKit.Proofs.Host;AlvorKit.Proofs.Heavy", json);
        Assert.True(r.Value<bool>("allocationProfiling") && r.Value<bool>("workerAlive"), json);
        Assert.True(r.Value<int>("queueCapacity") == 64, json);
        // An install and a remove (and their describe) ran on the worker in between.
        Assert.True(r.Value<ulong>("commandsAfter") >= r.Value<ulong>("commandsBefore") + 2, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnInstallIntoAFullQueueIsCaughtByItsStatusAndChangesNothing(string tiering)
    {
        JsonNode r = Report(tiering)["queueFull"]!;
        string json = r.ToJsonString();
        // catch (InterceptionException e) when (e.Status == InterceptionStatus.QueueFull), in a
        // round where the queue was full throughout.
        Assert.True(r["caught"]?.GetValue<string>() == nameof(InterceptionStatus.QueueFull), json);
        Assert.True(r.Text("exceptionType") == "PatchException", json);
        Assert.Contains("ALVK_E_QUEUE_FULL", r.Text("message"));
        Assert.True(r.Value<int>("valueAfterRefusal") == Input + 11, json);
        Assert.True(r.Value<int>("ownerPatchesAfterRefusal") == 0, json);
        Assert.True(r["valueAfterDrain"]!.Value<int>("value") == Input + 110, json);
        Assert.True(r["valueAfterRemove"]!.Value<int>("value") == Input + 11, json);
    }

    [Fact]
    public void ExpectedReplacementSignatureIsWhatInstallChecks()
    {
        JsonNode r = Report(PatchReports.TieredPgo)["status"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("expectedSignature") == "static int Left(int x)", json);
        Assert.Equal(["Int32"], r["expectedParameters"]!.AsArray().Select(n => n!.GetValue<string>()));
        Assert.True(r.Text("expectedReturn") == "Int32", json);
        Assert.True(r.Value<bool>("matchedByLeftPatched"), json);
        Assert.False(r.Value<bool>("matchedByMisfit"), json);
        Assert.True(r.Text("instanceSignature") == "static void Restart(Stopwatch self)", json);
    }
}
