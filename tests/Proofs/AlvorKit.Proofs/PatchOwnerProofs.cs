using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// One patch per target, many owners: a second install joins the live patch, the original
/// returns only when the last owner removes it, and an owner that holds nothing is refused
/// at the call without changing anything.
/// </summary>
[Trait("Feature", "Patches")]
public sealed class PatchOwnerProofs
{
    private static OwnersReport Report(string tiering) => PatchReports.Get<OwnersReport>(tiering, "owners");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void SecondInstallJoinsTheLivePatch(string tiering)
    {
        OwnersReport r = Report(tiering);
        Assert.Equal(6, r.Original);
        PatchReports.AssertCommand(r.FirstInstall.Command);
        PatchReports.AssertVisibleAtOnce(r.FirstInstall.Result, 105);
        Assert.Equal(1u, r.FirstInstall.Telemetry.OwnerCount);

        PatchStep second = r.SecondInstall;
        PatchReports.AssertCommand(second.Command);
        Assert.True(r.SecondInstallSameHandle, $"{second}");
        PatchReports.AssertVisibleAtOnce(second.Result, 205);
        PatchReports.AssertHealthyTelemetry(second.Telemetry, "Active");
        Assert.Equal(2u, second.Telemetry.OwnerCount);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStrangerIsRefusedAndChangesNothing(string tiering)
    {
        StrangerAttempt stranger = Report(tiering).Stranger;
        Assert.Equal("NotOwner", stranger.RemoveSync);
        Assert.Equal("NotOwner", stranger.ReplaceSync);
        Assert.Equal(205, stranger.Result);
        TelemetryReport before = Report(tiering).SecondInstall.Telemetry, after = stranger.Telemetry;
        foreach ((string field, object a, object b) in new (string, object, object)[]
        {
            ("state", before.State, after.State), ("lastStatus", before.LastStatus, after.LastStatus),
            ("ownerCount", before.OwnerCount, after.OwnerCount),
            ("commandsCompleted", before.CommandsCompleted, after.CommandsCompleted),
            ("replacement", before.Replacement, after.Replacement), ("rejitFinished", before.RejitFinished, after.RejitFinished),
        })
            Assert.True(Equals(a, b), $"{field}: {a} became {b}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheOriginalReturnsOnlyAfterTheLastOwnerRemoves(string tiering)
    {
        OwnersReport r = Report(tiering);
        PatchStep first = r.FirstRemove, last = r.SecondRemove;
        PatchReports.AssertCommand(first.Command);
        Assert.Equal(205, first.Result.Actual);
        PatchReports.AssertHealthyTelemetry(first.Telemetry, "Active");
        Assert.Equal(1u, first.Telemetry.OwnerCount);

        PatchReports.AssertCommand(last.Command);
        PatchReports.AssertVisibleAtOnce(last.Result, 6);
        PatchReports.AssertHealthyTelemetry(last.Telemetry, "Removed");
        Assert.Equal(0u, last.Telemetry.OwnerCount);
        Assert.Equal(0ul, last.Telemetry.Replacement);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnEndedPatchRefusesFurtherCommands(string tiering)
    {
        EndedPatchCalls end = Report(tiering).AfterEnd;
        Assert.Equal("PatchEnded", end.RemoveAgain);
        Assert.Equal("PatchEnded", end.Replace);
        Assert.Equal(6, end.Result);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void WhenTheNewestOwnerLeavesTheOtherOwnersReplacementReturns(string tiering)
    {
        SuccessorReport r = Report(tiering).Successor;
        PatchReports.AssertVisibleAtOnce(r.Result, 105);
        PatchReports.AssertVisibleAtOnce(r.JoinedResult, 205);
        PatchStep leave = r.NewestOwnerLeaves;
        PatchReports.AssertCommand(leave.Command);
        PatchReports.AssertVisibleAtOnce(leave.Result, 105);
        PatchReports.AssertHealthyTelemetry(leave.Telemetry, "Active");
        Assert.Equal(1u, leave.Telemetry.OwnerCount);
        PatchReports.AssertVisibleAtOnce(r.FinalResult, 6);
    }
}
