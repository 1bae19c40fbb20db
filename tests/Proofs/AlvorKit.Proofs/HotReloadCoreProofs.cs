using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The hot reload core in a profiled process (host mode "hotreload"), for edits that need only
/// ABI 3.2 relocations: a rebuilt assembly's changed body runs from the next call (a constant; a
/// call to a framework method the module never referenced), the same rebuild again changes
/// nothing, a batch whose second body the profiler fails puts back the first, a rude edit is refused and changes nothing, the original rebuild restores the
/// original, a rebuild of an assembly that is not loaded, or loaded and not allowlisted, is
/// refused, a rebuild dropped into a
/// watched folder is applied with its summary written beside it, and RevertAll restores every
/// original. Tiering on and off.
/// </summary>
public sealed class HotReloadCoreProofs
{
    private static readonly ConcurrentDictionary<string, Lazy<HotReloadCoreReport>> Runs = new();

    private static HotReloadCoreReport Report(string tiering) =>
        Runs.GetOrAdd(tiering, _ => new Lazy<HotReloadCoreReport>(() =>
        {
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("HotGame"),
                PatchReports.Tiering(tiering), TimeSpan.FromSeconds(120), "hotreload");
            Assert.True(run.ExitCode == 0, run.ToString());
            return run.Report<HotReloadCoreReport>();
        })).Value;

    private static void AssertValue(ReloadStep step)
    {
        Assert.True(step.Value.Ok, $"the method gave {step.Value.Actual}, not {step.Value.Expected}, after " +
                                   $"{step.Value.Calls} calls:\n{step.Summary}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AChangedBodyRunsFromTheNextCallAndTheOriginalComesBack(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.Equal(1, r.Original);
        Assert.True(r.Constant.Outcome == "Applied", r.Constant.Summary);
        Assert.Equal(["HotGame.Game.Value()|Applied|IL_0000: ldc.i4.1 → ldc.i4.2"], r.Constant.Methods);
        Assert.StartsWith("HotGame: 1 method changed, applied in ", r.Constant.Summary, StringComparison.Ordinal);
        AssertValue(r.Constant);

        Assert.True(r.Same.Outcome == "NothingChanged", r.Same.Summary);
        Assert.Empty(r.Same.Methods);
        AssertValue(r.Same);

        Assert.True(r.Back.Outcome == "Applied", r.Back.Summary);
        Assert.Equal(["HotGame.Game.Value()|RestoredOriginal|"], r.Back.Methods);
        AssertValue(r.Back);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallToAFrameworkMethodTheModuleNeverReferencedApplies(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.True(r.NewCall.Outcome == "Applied", r.NewCall.Summary);
        // The difference from the body it ran before (the previous rebuild's), not the original's.
        Assert.Equal(["HotGame.Game.Value()|Applied|IL_0000: ldc.i4.2 → ldc.i4.7"], r.NewCall.Methods);
        AssertValue(r.NewCall);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABatchWhoseSecondBodyFailsRollsTheFirstBack(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.True(r.Failed.Outcome == "Failed", r.Failed.Summary);
        Assert.Equal(2, r.Failed.Methods.Count);
        Assert.StartsWith("HotGame.Game.Value()|RolledBack|", r.Failed.Methods[0], StringComparison.Ordinal);
        Assert.StartsWith("HotGame.Game.Twin()|Failed|", r.Failed.Methods[1], StringComparison.Ordinal);
        Assert.Contains("ALVK_E_MEMBER_NOT_FOUND", r.Failed.Summary, StringComparison.Ordinal);
        AssertValue(r.Failed); // Value() runs the body of the reload before (7), not 3
        Assert.True(r.TwinAfterFailure.Ok, $"{r.TwinAfterFailure}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARudeEditAndAssembliesNotLoadedOrNotAllowlistedAreRefusedAndChangeNothing(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.True(r.Rude.Outcome == "Refused", r.Rude.Summary);
        Assert.Empty(r.Rude.Methods);
        string refusal = Assert.Single(r.Rude.Refusals);
        Assert.StartsWith("MethodAdded: HotGame.Game.Extra()", refusal, StringComparison.Ordinal);
        AssertValue(r.Rude); // still the body of the reload before

        Assert.True(r.NotLoaded.Outcome == "Refused", r.NotLoaded.Summary);
        Assert.StartsWith("NotLoaded: HotGameNotLoaded", Assert.Single(r.NotLoaded.Refusals), StringComparison.Ordinal);
        AssertValue(r.NotLoaded);

        // HotGameOther is loaded, but ALVORKIT_INTERCEPTION_MODULES names only HotGame.
        Assert.True(r.NotAllowlisted.Outcome == "Refused", r.NotAllowlisted.Summary);
        Assert.StartsWith("NotAllowlisted: HotGameOther", Assert.Single(r.NotAllowlisted.Refusals), StringComparison.Ordinal);
        AssertValue(r.NotAllowlisted); // its original body still runs
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARebuildDroppedInAWatchedFolderIsAppliedAndItsSummaryWritten(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.True(r.Watched.Outcome == "Applied", r.Watched.Summary);
        AssertValue(r.Watched);
        Assert.NotNull(r.ResultFile);
        Assert.Equal(r.Watched.Summary, r.ResultFile.TrimEnd('\n', '\r'));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RevertAllRestoresEveryOriginal(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);

        Assert.True(r.Reverted.Outcome == "Reverted", r.Reverted.Summary);
        Assert.Equal(["HotGame.Game.Value()|RestoredOriginal|"], r.Reverted.Methods);
        AssertValue(r.Reverted);
        Assert.Equal(0, r.PatchesHeldAtEnd);
    }
}
