using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Every refused patch input gets its own status: argument and ABI errors at the call,
/// with nothing queued; checks against the loaded method on the worker, ending the patch
/// Rejected. The running target keeps returning what it returned before.
/// </summary>
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
    ];

    public static TheoryData<string, string> InstallInputs => PatchReports.WithTierings(Installs.Select(i => i.Input));

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "badinput");

    [Theory]
    [MemberData(nameof(InstallInputs))]
    public void BadInstallGetsItsStatusAndChangesNothing(string input, string tiering)
    {
        (_, string status, bool worker) = Installs.Single(i => i.Input == input);
        JsonNode r = Report(tiering)["installs"]![input]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("status") == status, $"{input}: expected {status}: {json}");
        if (worker)
        {
            Assert.True(r.Text("sync") == "Ok", $"{input} is checked on the worker: {json}");
            Assert.True(r.Text("wait") == status, $"{input}: {json}");
            Assert.True(r.Text("state") == "Rejected", $"{input}: {json}");
            Assert.True(r.Text("lastStatus") == status, $"{input}: {json}");
            Assert.True(r.Value<uint>("getReJITParameters") == 0 && r.Value<uint>("rejitStarted") == 0,
                $"{input} reached the runtime: {json}");
        }
        else
        {
            Assert.True(r.Text("sync") == status, $"{input} is refused at the call: {json}");
            Assert.Null(r["wait"]);
        }
        Assert.True(r.Value<bool>("targetUnchanged"), $"{input} changed the target: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryInputWasTriedAndTheTargetStillRunsItsOriginal(string tiering)
    {
        JsonObject r = Report(tiering);
        Assert.Equal(Installs.Select(i => i.Input).Order(), r["installs"]!.AsObject().Select(i => i.Key).Order());
        Assert.Equal(6, r.Value<int>("original"));
        Assert.Equal(6, r.Value<int>("finalResult"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void UnknownHandlesAreRefused(string tiering)
    {
        JsonNode handles = Report(tiering)["handles"]!;
        foreach (string handle in new[] { "unknown", "zero" })
        foreach (string call in new[] { "replace", "remove", "wait", "telemetry" })
            Assert.True(handles[handle]!.Text(call) == "UnknownPatch", $"{call} with the {handle} handle: {handles.ToJsonString()}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RefusalsAgainstALivePatchLeaveItInForce(string tiering)
    {
        JsonNode live = Report(tiering)["live"]!;
        string json = live.ToJsonString();
        PatchReports.AssertCommand(live);
        PatchReports.AssertVisibleAtOnce(live["patched"]!, 105);
        foreach ((string call, string status) in new[]
                 {
                     ("removeByStranger", "NotOwner"), ("replaceByStranger", "NotOwner"),
                     ("replaceOwnerZero", "InvalidOwner"), ("replaceWithZero", "InvalidReplacement"),
                     ("telemetryNullOut", "NullArgument"), ("telemetrySmallStruct", "StructSize"),
                 })
            Assert.True(live.Text(call) == status, $"{call}: expected {status}: {json}");

        // A join that fails validation leaves the live patch as it was.
        JsonNode join = live["badJoin"]!;
        Assert.True(join.Text("sync") == "Ok" && join.Text("wait") == "SignatureHashMismatch", json);
        Assert.True(live.Value<bool>("badJoinSameHandle"), json);
        Assert.Equal("Active", join.Text("state"));
        Assert.True(join.Value<bool>("targetUnchanged"), json);
        Assert.Equal(105, live.Value<int>("stillPatched"));
        Assert.Equal("Active", live["telemetry"]!.Text("state"));
        Assert.Equal(1u, live["telemetry"]!.Value<uint>("ownerCount"));

        PatchReports.AssertCommand(live["remove"]!);
        PatchReports.AssertVisibleAtOnce(live["remove"]!["result"]!, 6);
    }
}
