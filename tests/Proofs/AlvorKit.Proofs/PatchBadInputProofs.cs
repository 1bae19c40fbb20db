using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Every refused patch input gets its own status: argument and ABI errors at the call,
/// with nothing queued; checks against the loaded method on the worker, ending the patch
/// Rejected. The running target keeps returning what it returned before.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class PatchBadInputProofs
{
    // input, status, decided on the worker (true) or at the call (false).
    private static readonly (string Input, string Status, bool Worker)[] Installs =
    [
        ("unknownMvid", "UnknownModule", true),
        ("moduleNotAllowed", "ModuleNotAllowed", true),
        ("typeDefToken", "TokenNotMethodDef", true),
        ("tokenPastTable", "TokenOutOfRange", true),
        ("signatureHashMismatch", "SignatureHashMismatch", true),
        ("bodyIdentityMismatch", "BodyIdentityMismatch", true),
        ("abstractMethod", "MethodHasNoIL", true),
        ("externMethod", "MethodHasNoIL", true),
        ("genericMethod", "GenericTargetUnsupported", true),
        ("genericClassMethod", "GenericTargetUnsupported", true),
        ("nullRequest", "NullArgument", false),
        ("nullHandle", "NullArgument", false),
        ("smallStruct", "StructSize", false),
        ("ownerZero", "InvalidOwner", false),
        ("replacementZero", "InvalidReplacement", false),
        ("unknownFlag", "InvalidFlags", false),
        ("reservedNonZero", "InvalidFlags", false),
        ("reserved2NonZero", "InvalidFlags", false),
        ("replacementModuleWithoutToken", "InvalidFlags", false),
        ("replacementTokenWithoutModule", "InvalidFlags", false),
        ("replacementTokenNotMethodDef", "TokenNotMethodDef", false),
        ("replacementTokenNilMethodDef", "TokenNotMethodDef", false),
        ("replacementIsTarget", "ReplacementIsTarget", false),
    ];

    public static TheoryData<string, string> InstallInputs => PatchReports.WithTierings(Installs.Select(i => i.Input));

    private static BadInputReport Report(string tiering) => PatchReports.Get<BadInputReport>(tiering, "badinput");

    [Theory]
    [MemberData(nameof(InstallInputs))]
    public void BadInstallGetsItsStatusAndChangesNothing(string input, string tiering)
    {
        (_, string status, bool worker) = Installs.Single(i => i.Input == input);
        BadInstall r = Report(tiering).Installs[input];
        Assert.True(r.Status == status, $"{input}: expected {status}: {r}");
        if (worker)
        {
            Assert.True(r.Sync == "Ok", $"{input} is checked on the worker: {r}");
            WorkerVerdict verdict = Assert.IsType<WorkerVerdict>(r.Worker);
            Assert.True(verdict.Wait == status, $"{input}: {r}");
            Assert.True(verdict.State == "Rejected", $"{input}: {r}");
            Assert.True(verdict.LastStatus == status, $"{input}: {r}");
            Assert.True(verdict.GetReJITParameters == 0 && verdict.RejitStarted == 0, $"{input} reached the runtime: {r}");
        }
        else
        {
            Assert.True(r.Sync == status, $"{input} is refused at the call: {r}");
            Assert.Null(r.Worker);
        }
        Assert.True(r.TargetUnchanged, $"{input} changed the target: {r}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryInputWasTriedAndTheTargetStillRunsItsOriginal(string tiering)
    {
        BadInputReport r = Report(tiering);
        Assert.Equal(Installs.Select(i => i.Input).Order(), r.Installs.Keys.Order());
        Assert.Equal(6, r.Original);
        Assert.Equal(6, r.FinalResult);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMethodCannotBeItsOwnReplacementThroughTheApi(string tiering)
    {
        BadInputReport r = Report(tiering);
        Assert.Equal("ReplacementIsTarget", r.ManagedSelfInstall);
        Assert.Equal("ReplacementIsTarget", r.ManagedSelfReplace);
        Assert.Equal(6, r.AfterManagedSelf);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void UnknownHandlesAreRefused(string tiering)
    {
        IReadOnlyDictionary<string, HandleRefusals> handles = Report(tiering).Handles;
        foreach (string handle in new[] { "unknown", "zero" })
        {
            HandleRefusals h = handles[handle];
            foreach ((string call, string status) in new[] { ("replace", h.Replace), ("remove", h.Remove), ("wait", h.Wait), ("telemetry", h.Telemetry) })
                Assert.True(status == "UnknownPatch", $"{call} with the {handle} handle: {h}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RefusalsAgainstALivePatchLeaveItInForce(string tiering)
    {
        LiveRefusals live = Report(tiering).Live;
        PatchReports.AssertCommand(live.Command);
        PatchReports.AssertVisibleAtOnce(live.Patched, 105);
        foreach ((string call, string actual, string status) in new[]
                 {
                     ("removeByStranger", live.RemoveByStranger, "NotOwner"),
                     ("replaceByStranger", live.ReplaceByStranger, "NotOwner"),
                     ("replaceOwnerZero", live.ReplaceOwnerZero, "InvalidOwner"),
                     ("replaceWithZero", live.ReplaceWithZero, "InvalidReplacement"),
                     ("telemetryNullOut", live.TelemetryNullOut, "NullArgument"),
                     ("telemetrySmallStruct", live.TelemetrySmallStruct, "StructSize"),
                 })
            Assert.True(actual == status, $"{call}: expected {status}, got {actual}: {live}");
        // alvk_patch_replace_with (ABI 3.4): each refused at the call.
        foreach ((string call, string status) in new[]
                 {
                     ("null", "NullArgument"), ("smallStruct", "StructSize"), ("tokenWithoutModule", "InvalidFlags"),
                     ("moduleWithoutToken", "InvalidFlags"), ("typeDefToken", "TokenNotMethodDef"),
                     ("entryPointZero", "InvalidReplacement"), ("stranger", "NotOwner"), ("target", "ReplacementIsTarget"),
                 })
            Assert.True(live.ReplaceWith.GetValueOrDefault(call) == status,
                $"replace_with {call}: expected {status}: {string.Join(", ", live.ReplaceWith)}");

        // A join that fails validation leaves the live patch as it was.
        BadInstall join = live.BadJoin;
        Assert.True(join.Sync == "Ok" && join.Worker?.Wait == "SignatureHashMismatch", $"{join}");
        Assert.True(live.BadJoinSameHandle, $"{live}");
        Assert.Equal("Active", join.Worker.State);
        Assert.True(join.TargetUnchanged, $"{join}");
        Assert.Equal(105, live.StillPatched);
        Assert.Equal("Active", live.Telemetry.State);
        Assert.Equal(1u, live.Telemetry.OwnerCount);

        PatchReports.AssertCommand(live.Remove.Command);
        PatchReports.AssertVisibleAtOnce(live.Remove.Result, 6);
    }
}
