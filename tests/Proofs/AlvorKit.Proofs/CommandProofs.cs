using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A command means exactly one command: alvk_command_wait gives each waiter its own command's
/// result (alvk_patch_wait gives the patch's latest), refused calls issue no command, and a
/// generation refused at the call (stale, or the queue full) takes no generation ID.
/// </summary>
public sealed class CommandProofs
{
    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "commands");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachWaiterGetsItsOwnCommandsResult(string tiering)
    {
        JsonNode r = Report(tiering)["ownCommand"]!;
        string json = r.ToJsonString();
        Assert.True(r.Value<int>("original") == 8, json);
        Assert.True(r["install"]!.Text("result") == "Ok", json);
        PatchReports.AssertVisibleAtOnce(r["afterInstall"]!, 14);
        Assert.True(r.Value<bool>("sameHandle"), json);
        // The replace succeeded; the join queued behind it was rejected on the worker.
        Assert.True(r["replace"]!.Text("wait") == "Ok" && r["replace"]!.Text("result") == "Ok", json);
        Assert.True(r["join"]!.Text("sync") == "Ok", json);
        Assert.True(r["join"]!.Text("result") == "BodyIdentityMismatch", json);
        Assert.True(r.Value<bool>("distinctIds"), json);
        // The patch-wide wait reports the latest finished command, which is not the replace.
        Assert.True(r.Text("patchWait") == "BodyIdentityMismatch", json);
        PatchReports.AssertVisibleAtOnce(r["afterReplace"]!, 21);
        Assert.True(r["refusedRemove"]!.Text("status") == "NotOwner", json);
        Assert.True(r["refusedRemove"]!.Value<ulong>("lastCommand") == 0, json);
        Assert.True(r.Text("unknownZero") == "UnknownCommand" && r.Text("unknownFuture") == "UnknownCommand", json);
        Assert.True(r["remove"]!.Text("result") == "Ok", json);
        PatchReports.AssertVisibleAtOnce(r["afterRemove"]!, 8);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RefusedSubmissionsTakeNoGenerationId(string tiering)
    {
        JsonNode r = Report(tiering)["generationIds"]!;
        string json = r.ToJsonString();
        Assert.True(r.Value<int>("original") == 6, json);
        Assert.True(r["staleAtCall"]!.Text("status") == "StaleGeneration", json);
        Assert.True(r["staleAtCall"]!.Value<ulong>("id") == 0 && r["staleAtCall"]!.Value<ulong>("lastCommand") == 0, json);
        int accepted = r.Value<int>("accepted");
        Assert.True(accepted >= 100, json);
        // The queue was full at least once while the chain went on: without that, this proves nothing.
        Assert.True(r.Value<int>("queueFull") > 0, $"the queue never filled: {json}");
        Assert.True(r.Value<int>("stale") == 0 && r.Value<int>("other") == 0, json);
        Assert.True(r.Value<int>("gaps") == 0, $"refused submissions consumed generation IDs: {json}");
        Assert.True(r.Value<int>("commandsEnded") == accepted, json);
        Assert.True(r["last"]!.Value<int>("value") == 700 + accepted, json);
        Assert.True(r["remove"]!.Text("result") == "Ok", json);
        Assert.True(r["afterRemove"]!.Value<int>("value") == 6, json);
    }
}
