using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// One patch per target, many owners: a second install joins the live patch, the original
/// returns only when the last owner removes it, and an owner that holds nothing is refused
/// at the call without changing anything.
/// </summary>
public sealed class PatchOwnerProofs
{
    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "owners");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void SecondInstallJoinsTheLivePatch(string tiering)
    {
        JsonObject r = Report(tiering);
        Assert.Equal(6, r.Value<int>("original"));
        PatchReports.AssertCommand(r["firstInstall"]!);
        PatchReports.AssertVisibleAtOnce(r["firstInstall"]!["result"]!, 105);
        Assert.Equal(1u, r["firstInstall"]!["telemetry"]!.Value<uint>("ownerCount"));

        JsonNode second = r["secondInstall"]!;
        PatchReports.AssertCommand(second);
        Assert.True(second.Value<bool>("sameHandle"), second.ToJsonString());
        PatchReports.AssertVisibleAtOnce(second["result"]!, 205);
        PatchReports.AssertHealthyTelemetry(second["telemetry"]!, "Active");
        Assert.Equal(2u, second["telemetry"]!.Value<uint>("ownerCount"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStrangerIsRefusedAndChangesNothing(string tiering)
    {
        JsonNode stranger = Report(tiering)["stranger"]!;
        Assert.Equal("NotOwner", stranger.Text("removeSync"));
        Assert.Equal("NotOwner", stranger.Text("replaceSync"));
        Assert.Equal(205, stranger.Value<int>("result"));
        JsonNode before = Report(tiering)["secondInstall"]!["telemetry"]!, after = stranger["telemetry"]!;
        foreach (string field in new[] { "state", "lastStatus", "ownerCount", "commandsCompleted", "replacement", "rejitFinished" })
            Assert.True(JsonNode.DeepEquals(before[field], after[field]), $"{field}: {before[field]} became {after[field]}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheOriginalReturnsOnlyAfterTheLastOwnerRemoves(string tiering)
    {
        JsonObject r = Report(tiering);
        JsonNode first = r["firstRemove"]!, last = r["secondRemove"]!;
        PatchReports.AssertCommand(first);
        Assert.Equal(205, first["result"]!.Value<int>("value"));
        PatchReports.AssertHealthyTelemetry(first["telemetry"]!, "Active");
        Assert.Equal(1u, first["telemetry"]!.Value<uint>("ownerCount"));

        PatchReports.AssertCommand(last);
        PatchReports.AssertVisibleAtOnce(last["result"]!, 6);
        PatchReports.AssertHealthyTelemetry(last["telemetry"]!, "Removed");
        Assert.Equal(0u, last["telemetry"]!.Value<uint>("ownerCount"));
        Assert.Equal(0ul, last["telemetry"]!.Value<ulong>("replacement"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnEndedPatchRefusesFurtherCommands(string tiering)
    {
        JsonNode end = Report(tiering)["afterEnd"]!;
        Assert.Equal("PatchEnded", end.Text("removeAgain"));
        Assert.Equal("PatchEnded", end.Text("replace"));
        Assert.Equal(6, end.Value<int>("result"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void WhenTheNewestOwnerLeavesTheOtherOwnersReplacementReturns(string tiering)
    {
        JsonNode r = Report(tiering)["successor"]!;
        PatchReports.AssertVisibleAtOnce(r["result"]!, 105);
        PatchReports.AssertVisibleAtOnce(r["joinedResult"]!, 205);
        JsonNode leave = r["newestOwnerLeaves"]!;
        PatchReports.AssertCommand(leave);
        PatchReports.AssertVisibleAtOnce(leave["result"]!, 105);
        PatchReports.AssertHealthyTelemetry(leave["telemetry"]!, "Active");
        Assert.Equal(1u, leave["telemetry"]!.Value<uint>("ownerCount"));
        PatchReports.AssertVisibleAtOnce(r["finalResult"]!, 6);
    }
}
