using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A command means exactly one command: alvk_command_wait gives each waiter its own command's
/// result (alvk_patch_wait gives the patch's latest), refused calls issue no command, and a
/// generation refused at the call (stale, or the queue full) takes no generation ID.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class CommandProofs
{
    private static CommandsReport Report(string tiering) => PatchReports.Get<CommandsReport>(tiering, "commands");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachWaiterGetsItsOwnCommandsResult(string tiering)
    {
        OwnCommandReport r = Report(tiering).OwnCommand;
        Assert.True(r.Original == 8, $"{r}");
        Assert.True(r.Install.Result == "Ok", $"{r.Install}");
        PatchReports.AssertVisibleAtOnce(r.AfterInstall, 14);
        Assert.True(r.SameHandle, $"{r}");
        // The replace succeeded; the join queued behind it was rejected on the worker.
        Assert.True(r.Replace.Wait == "Ok" && r.Replace.Result == "Ok", $"{r.Replace}");
        Assert.True(r.Join.Sync == "Ok", $"{r.Join}");
        Assert.True(r.Join.Result == "BodyIdentityMismatch", $"{r.Join}");
        Assert.True(r.DistinctIds, $"install {r.Install.Command}, replace {r.Replace.Command}, join {r.Join.Command}");
        // The patch-wide wait reports the latest finished command, which is not the replace.
        Assert.True(r.PatchWait == "BodyIdentityMismatch", $"{r}");
        PatchReports.AssertVisibleAtOnce(r.AfterReplace, 21);
        Assert.True(r.RefusedRemove.Status == "NotOwner", $"{r.RefusedRemove}");
        Assert.True(r.RefusedRemove.LastCommand == 0, $"{r.RefusedRemove}");
        Assert.True(r.UnknownZero == "UnknownCommand" && r.UnknownFuture == "UnknownCommand", $"{r}");
        Assert.True(r.Remove.Result == "Ok", $"{r.Remove}");
        PatchReports.AssertVisibleAtOnce(r.AfterRemove, 8);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RefusedSubmissionsTakeNoGenerationId(string tiering)
    {
        GenerationIdsReport r = Report(tiering).GenerationIds;
        Assert.True(r.Original == 6, $"{r}");
        Assert.True(r.StaleAtCall.Status == "StaleGeneration", $"{r.StaleAtCall}");
        Assert.True(r.StaleAtCall.Id == 0 && r.StaleAtCall.LastCommand == 0, $"{r.StaleAtCall}");
        int accepted = r.Accepted;
        Assert.True(accepted >= 100, $"{r}");
        // The queue was full at least once while the chain went on: without that, this proves nothing.
        Assert.True(r.QueueFull > 0, $"the queue never filled: {r}");
        Assert.True(r.Stale == 0 && r.Other == 0, $"{r}");
        Assert.True(r.Gaps == 0, $"refused submissions consumed generation IDs: {r}");
        Assert.True(r.CommandsEnded == accepted, $"{r}");
        Assert.True(r.Last.Actual == 700 + accepted, $"{r.Last}");
        Assert.True(r.Remove.Result == "Ok", $"{r.Remove}");
        Assert.True(r.AfterRemove.Actual == 6, $"{r.AfterRemove}");
    }
}
