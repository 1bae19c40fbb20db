using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Only the game's user can feed code into it through a watched folder (Linux, in a profiled
/// process, tiering on): a folder anyone else can write to, or swap for another, is refused
/// before anything is watched; links planted at the result's names are replaced, never
/// followed, so nothing outside the folder is written; a FIFO, a link to /dev/zero and a sparse
/// 1.9 GB file are each refused without being read, with a result, and the watch goes on;
/// mutated updates each get a result and a result file, whatever their fault, and none applies; Dispose returns
/// at once with a FIFO just dropped; a watch whose object the game never kept still answers
/// after collections.
/// </summary>
[Trait("Feature", "Hot reload")]
public sealed class DropFolderProofs
{
    private static readonly Lazy<DropFolderReport> Run = new(() =>
    {
        HotReloadScenario scenario = HotReloadScenario.Shared;
        HotReloadScriptStep constant = scenario.Steps.Single(s => s.Name == "constant");
        string expected = constant.Expected[Array.IndexOf(HotReloadScenario.Probes, "Constant")];
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(HotReloadScenario.GameName),
            null, TimeSpan.FromSeconds(180), "dropfolder", scenario.Game, constant.File!, expected);
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<DropFolderReport>();
    });

    [Fact]
    public void AFolderOthersCanWriteToOrSwapIsRefused()
    {
        DropFolderReport r = Run.Value;
        Assert.Equal(5, r.Refusals.Count);
        Assert.All(r.Refusals, f => Assert.True(f.Refused, $"{f.What}: watched"));
        Assert.Contains("mode 0777", r.Refusals[0].Message, StringComparison.Ordinal);
        Assert.Contains("mode 0770", r.Refusals[1].Message, StringComparison.Ordinal);
        Assert.Contains("owned by user", r.Refusals[2].Message, StringComparison.Ordinal);
        Assert.Contains("symbolic link", r.Refusals[3].Message, StringComparison.Ordinal);
        Assert.Contains("which other users can write to", r.Refusals[4].Message, StringComparison.Ordinal);
        Assert.Equal("0700", r.CreatedMode);
    }

    [Fact]
    public void LinksAtTheResultsNamesAreReplacedAndNothingOutsideIsWritten()
    {
        DropFolderReport r = Run.Value;
        Assert.Equal("Applied", r.AppliedOutcome);
        Assert.True(r.AfterUpdate.Ok, $"the probe gave '{r.AfterUpdate.Actual}', not '{r.AfterUpdate.Expected}'");
        Assert.True(r.ResultFileIsRegular, "the result file is still a link");
        Assert.Equal("untouched", r.OutsideTarget);
        Assert.Equal("untouched", r.OutsideOldTemporary);
    }

    [Fact]
    public void AFifoALinkAndAHugeFileAreRefusedUnreadAndTheWatchGoesOn()
    {
        DropFolderReport r = Run.Value;
        Assert.StartsWith("Refused UnsafeFile:", r.Fifo, StringComparison.Ordinal);
        Assert.Contains("not a regular file", r.Fifo, StringComparison.Ordinal);
        Assert.True(r.FifoResultWritten);
        Assert.StartsWith("Refused UnsafeFile:", r.DevZeroLink, StringComparison.Ordinal);
        Assert.Contains("symbolic link", r.DevZeroLink, StringComparison.Ordinal);
        Assert.StartsWith("Refused UnsafeFile:", r.SparseFile, StringComparison.Ordinal);
        Assert.Contains("1900000000 bytes", r.SparseFile, StringComparison.Ordinal);
        Assert.True(r.WorkingSetGrowthMiB < 100, $"the working set grew by {r.WorkingSetGrowthMiB} MiB");
        Assert.True(r.DisposeMilliseconds < 5000, $"Dispose took {r.DisposeMilliseconds} ms with a FIFO in the folder");
    }

    [Fact]
    public void EveryMutatedUpdateGetsAResultAndAResultFile()
    {
        DropFolderReport r = Run.Value;
        Assert.Equal(r.Mutations, r.MutationOutcomes.Count);
        Assert.Equal(r.Mutations, r.MutationResultFiles);
        Assert.DoesNotContain("Applied", r.MutationOutcomes);
        // Some mutants fail inside the metadata reader with an exception no reload expects: they
        // are reported like the rest (before, they left no result and no callback).
        Assert.Contains(r.MutationOutcomes, o => o.EndsWith("Exception", StringComparison.Ordinal));
        Assert.True(r.AfterRevert.Ok, $"after RevertAll the probe gave '{r.AfterRevert.Actual}'");
    }

    [Fact]
    public void AWatchTheGameDidNotKeepStillAnswersAfterCollections()
    {
        DropFolderReport r = Run.Value;
        Assert.NotNull(r.UnkeptWatchResult);
        Assert.StartsWith("Refused", r.UnkeptWatchResult, StringComparison.Ordinal);
    }
}
