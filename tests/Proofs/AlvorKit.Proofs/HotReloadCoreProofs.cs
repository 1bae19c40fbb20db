using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hot reload in a profiled process, one kind of edit per step (HotReloadScenario): the
/// compiler's delta of each edit, made by the watcher's own code, applied to the running Release
/// game through Interceptor.Reload, and every probe method of the game polled for the value the
/// edit gives it — a changed constant and string, added static and instance methods, an added
/// instance field (an object that lived reads its default, a new one its initializer), an added
/// static field, added classes, structs, records, enums and nested types, new lambdas and a
/// closure that captures more, a local function, a new await, an iterator's new yield, changed
/// array, collection-expression and UTF-8 data, added properties, events and operators, a new
/// generic type and its instantiations, an inlined callee, constructors added to a class and a
/// struct that lived, an edit of a method an earlier step
/// added; two halves of one save seen together by a thread calling them all along; the game's
/// own refusal of what it cannot carry, with nothing changed; RevertAll; the original source
/// again; an update through a watched folder; a rehearsal that changes nothing; and updates refused as not a delta, for an
/// assembly not loaded or not allowlisted, or out of sequence; after the reload's warm-up, a
/// relocation laid out for the validator compiles nothing; the warm-up's real patch of AlvorKit's
/// rehearsal method returned its new string and was removed, leaving no patch. Tiering on and off.
/// </summary>
[Trait("Feature", "Hot reload")]
[Trait("Sanitized", "yes")]
public sealed class HotReloadCoreProofs
{
    private static readonly ConcurrentDictionary<string, Lazy<HotReloadCoreReport>> Runs = new();

    private static HotReloadCoreReport Report(string tiering) =>
        Runs.GetOrAdd(tiering, _ => new Lazy<HotReloadCoreReport>(() =>
        {
            // The game and AlvorKit's rehearsal assembly, as `alvorkit-intercept watch` allowlists them.
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(HotReloadScenario.GameName + ";" +
                                                                                         HotReloadScenario.RehearsalAssembly),
                PatchReports.Tiering(tiering), TimeSpan.FromSeconds(240), "hotreload", HotReloadScenario.Shared.Script);
            Assert.True(run.ExitCode == 0, run.ToString());
            return run.Report<HotReloadCoreReport>();
        })).Value;

    public static TheoryData<string, string> AppliedSteps => PatchReports.WithTierings(
    [
        "constant", "literal", "added static method", "added instance method", "added instance field", "added static field",
        "added types", "new lambdas", "closure capturing more", "local function", "new await", "iterator", "data",
        "properties events operators", "generic type", "inlined callee", "added constructors", "edit of an added method",
        "two halves in one save", "original source", "update through a watched folder",
    ]);

    private static HotReloadStepReport Step(string tiering, string name) =>
        Report(tiering).Steps.SingleOrDefault(s => s.Name == name) ?? throw new InvalidOperationException($"no step {name}");

    private static void AssertProbes(HotReloadStepReport step)
    {
        foreach (Polled<string> probe in step.Probes)
            Assert.True(probe.Ok, $"{step.Name}: a probe gave '{probe.Actual}', not '{probe.Expected}', after {probe.Calls} " +
                                  $"calls\n{step.Summary}");
    }

    [Theory]
    [MemberData(nameof(AppliedSteps))]
    public void TheEditAppliesAndEveryProbeReturnsItsValue(string step, string tiering)
    {
        HotReloadStepReport r = Step(tiering, step);
        Assert.True(r.Outcome == "Applied", $"{step}: {r.Outcome}\n{r.Summary}");
        Assert.Empty(r.Refusals);
        Assert.NotEmpty(r.Methods);
        Assert.All(r.Methods, m => Assert.DoesNotContain("|Failed|", m, StringComparison.Ordinal));
        AssertProbes(r);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachMethodLineSaysWhatChangedWithReadableOperands(string tiering)
    {
        Assert.Contains("ReloadCore.Probes.Constant()|Applied|IL_0000: ldstr \"speed 7\" → ldstr \"speed \"",
                        Step(tiering, "constant").Methods[0], StringComparison.Ordinal);
        Assert.Equal("ReloadCore.Probes.Triple(int)|Applied|IL_0001: ldc.i4.3 → ldc.i4.4",
                     Assert.Single(Step(tiering, "edit of an added method").Methods));
        Assert.Contains(Step(tiering, "added static method").Methods,
                        m => m.StartsWith("ReloadCore.Probes.Helper()|Applied|", StringComparison.Ordinal) &&
                             m.Contains("call ReloadCore.Probes.Triple(int)", StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TwoHalvesOfOneSaveAreOneBatch(string tiering)
    {
        HotReloadStepReport r = Step(tiering, "two halves in one save");
        Assert.Equal(["ReloadCore.Probes.Left()", "ReloadCore.Probes.Right()"],
                     r.Methods.Select(m => m.Split('|')[0]).Order(StringComparer.Ordinal));
        Assert.Equal(["1/1", "2/2"], r.PairSeen);
        Assert.True(r.PairCalls > 1000, $"the pair was called {r.PairCalls} times");
        Assert.True(r.PairMixed == 0, $"{r.PairMixed} of {r.PairCalls} calls saw one half of the save without the other");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARehearsalPreparesTheUpdateAndChangesNothing(string tiering)
    {
        HotReloadStepReport rehearsal = Step(tiering, "rehearsal");
        Assert.True(rehearsal.Outcome == "NothingChanged", rehearsal.Summary);
        Assert.Empty(rehearsal.Methods);
        Assert.Empty(rehearsal.Refusals);
        AssertProbes(rehearsal);
        // The same update, applied next, follows the same generation: the rehearsal kept it.
        Assert.Equal("Applied", Step(tiering, "constant").Outcome);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheWarmUpPatchesTheRehearsalMethodForRealAndRemovesThePatch(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);
        // Before the patch the method returned its own string; while patched, the rehearsal body's new
        // string; after the removal, its own again.
        Assert.Equal("original", r.WarmUpOriginal);
        Assert.Equal("rehearsed", r.WarmUpPatched);
        Assert.Equal("original", r.WarmUpRestored);
        // Nothing of it is left: the method runs its original body, the profiler holds no live patch,
        // the interceptor none; and the patch went through the profiler's worker (its batch and its removal).
        Assert.Equal("original", r.RehearsalAfterWarmUp);
        Assert.Equal(0u, r.LivePatchesAfterWarmUp);
        Assert.Equal(0, r.PatchesHeldAfterWarmUp);
        Assert.True(r.WarmUpCommands >= 2, $"{r.WarmUpCommands} commands finished during the warm-up");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheWarmUpAppliesAnUpdateOfTheRehearsalMethodAndTheReloaderKeepsNothingOfIt(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);
        // The patch came from an update of the rehearsal assembly, translated and compared as a game's is:
        // its difference names the new string its body returns.
        Assert.NotNull(r.WarmUpDifference);
        Assert.Contains("rehearsed", r.WarmUpDifference, StringComparison.Ordinal);
        // The reloader keeps no reloads of the rehearsal assembly (its view, generation and placements are
        // let go) and holds no applied body; the game's module, indexed ahead, is the one it keeps.
        Assert.DoesNotContain(HotReloadScenario.RehearsalAssembly, r.ReloadedModulesAfterWarmUp);
        Assert.Equal([HotReloadScenario.GameName], r.ReloadedModulesAfterWarmUp);
        Assert.Equal(0, r.AppliedBodiesAfterWarmUp);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AfterTheWarmUpARelocationsLayoutForTheValidatorCompilesNothing(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);
        // What the first body naming a new string or member would otherwise compile (the framework's spans
        // over the relocation struct); the warm-up's own layout is refused by the validator (no owner, no body).
        Assert.True(r.LayoutCompiled == 0, $"{r.LayoutCompiled} methods compiled");
        Assert.Equal("InvalidOwner", r.LayoutAfterWarmUp);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void WhatTheGameCannotCarryIsRefusedAndNothingChanges(string tiering)
    {
        HotReloadStepReport r = Step(tiering, "virtual method added (the game's own refusal)");
        Assert.True(r.Outcome == "Refused", r.Summary);
        Assert.Empty(r.Methods);
        Assert.StartsWith("RudeEdit: ReloadCore.Unit.Extra()", Assert.Single(r.Refusals), StringComparison.Ordinal);
        AssertProbes(r);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RevertAllAndTheOriginalSourceBringEveryOriginalBack(string tiering)
    {
        HotReloadStepReport revert = Step(tiering, "revert all");
        Assert.True(revert.Outcome == "Reverted", revert.Summary);
        Assert.All(revert.Methods, m => Assert.Contains("|RestoredOriginal|", m, StringComparison.Ordinal));
        AssertProbes(revert);

        HotReloadStepReport original = Step(tiering, "original source");
        // Every method of the game the edits changed runs its original again (lambdas and state
        // machines included); what the compiler generated for earlier edits may get a new body.
        string[] own = [.. original.Methods.Where(m => !m.Contains(" (", StringComparison.Ordinal))];
        Assert.Contains(own, m => m.StartsWith("ReloadCore.Probes.Lambda()|", StringComparison.Ordinal));
        Assert.Contains(own, m => m.StartsWith("ReloadCore.Probes.AsyncValue()|", StringComparison.Ordinal));
        Assert.All(own, m => Assert.Contains("|RestoredOriginal|", m, StringComparison.Ordinal));
        Assert.Contains(original.Notices, n => n.StartsWith("RemovedMemberStays|", StringComparison.Ordinal));
        AssertProbes(original);
        // Held at the end: the watched folder's update, and the generated methods of the side
        // assemblies the original source gave new bodies (no method of the game's own).
        Assert.Equal(1 + original.Methods.Count(m => m.Contains(" (", StringComparison.Ordinal) &&
                                                      m.Contains("|Applied|", StringComparison.Ordinal)),
                     Report(tiering).PatchesHeldAtEnd);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUpdateDroppedInAWatchedFolderIsAppliedAndItsResultWritten(string tiering)
    {
        HotReloadStepReport r = Step(tiering, "update through a watched folder");
        Assert.NotNull(r.ResultFile);
        string[] lines = r.ResultFile.Split('\n');
        Assert.Matches(@"^#alvk outcome=Applied generation=\d+ id=[0-9a-f-]{36} update=[0-9a-f-]{36}$", lines[0]);
        Assert.Equal(r.Summary, string.Join('\n', lines.Skip(1)).TrimEnd('\n', '\r'));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void UpdatesThatAreNotThisGamesNextAreRefusedAndChangeNothing(string tiering)
    {
        foreach ((string step, string reason) in new[]
                 {
                     ("not a delta", "NotADelta"), ("an assembly that is not loaded", "NotLoaded"),
                     ("an assembly that is not allowlisted", "NotAllowlisted"), ("an update out of sequence", "OutOfSequence"),
                 })
        {
            HotReloadStepReport r = Step(tiering, step);
            Assert.True(r.Outcome == "Refused", $"{step}: {r.Summary}");
            Assert.StartsWith(reason + ":", Assert.Single(r.Refusals), StringComparison.Ordinal);
            AssertProbes(r);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void WhatTheEditsAddedIsCarriedBySideAssembliesOfTheGame(string tiering)
    {
        HotReloadCoreReport r = Report(tiering);
        Assert.NotEmpty(r.SideAssemblies);
        Assert.All(r.SideAssemblies, s => Assert.Matches(@"^ReloadCore\.alvk-reload-\d+$", s));
    }
}
