using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Every command kind meets a full worker queue and is refused with ALVK_E_QUEUE_FULL, changing
/// nothing (host mode "queuefull"). Each kind gets its own round: the worker held on one long
/// describe (a 1 MB IL body to hash), the other 63 slots filled with fire-and-forget replaces
/// on a filler patch until one is refused, the probe, and a round counts only if
/// commands_completed did not move from before the blocker was queued until after the probe
/// (no slot can have been freed: the queue was full throughout). The patch table is full of
/// ended patches and the probed patch P has four generation records, so a refusal that took a
/// slot or opened a record would show; so would a generation ID it took (the next filler's ID
/// is the last filler's plus one) and a capture window it closed.
/// </summary>
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class QueueFullProofs
{
    // Kinds whose refusal today's product handles cleanly.
    private static readonly string[] Clean = ["remove", "describe", "describeFunction"];
    // Kinds that open a generation record before the queue refuses them (defect N1).
    private static readonly string[] Recording = ["installJoin", "replace", "generationSubmit"];
    // Kinds that take a patch slot before the queue refuses them (defect N2).
    private static readonly string[] Slotting = ["install", "generationSubmitNew"];

    public static readonly string[] CommandKinds = [.. Slotting, .. Recording, .. Clean];

    public static TheoryData<string, string> AllKinds => PatchReports.WithTierings([.. CommandKinds, "captureEnd"]);
    public static TheoryData<string, string> CommandKindData => PatchReports.WithTierings(CommandKinds);
    public static TheoryData<string, string> CleanKinds => PatchReports.WithTierings(Clean);
    public static TheoryData<string, string> RecordingKinds => PatchReports.WithTierings(Recording);
    public static TheoryData<string, string> SlottingKinds => PatchReports.WithTierings(Slotting);

    private static QueueFullReport Report(string tiering) =>
        StressReports.Get<QueueFullReport>(tiering, TimeSpan.FromSeconds(120), "queuefull").Report;

    // The attempts of a kind's rounds (the capture end's too), the last one first to check.
    private static IReadOnlyList<(SaturationRound Round, string Status)> Attempts(string kind, string tiering) =>
        kind == "captureEnd"
            ? Captures(tiering).Attempts.Select(a => (a.Round, a.End)).ToList()
            : Command(kind, tiering).Attempts.Select(a => (a.Round, a.Status)).ToList();

    private static CaptureEndProbe Captures(string tiering) =>
        Report(tiering).CaptureEnd ?? throw new Xunit.Sdk.XunitException("the capture-end round did not run");

    private static CommandProbe Command(string kind, string tiering) =>
        Report(tiering).Commands.GetValueOrDefault(kind) ?? throw new Xunit.Sdk.XunitException($"no round for {kind}");

    // The valid round of a command kind.
    private static ValidProbe Valid(string kind, string tiering)
    {
        CommandProbe probe = Command(kind, tiering);
        return probe.Valid ?? throw new Xunit.Sdk.XunitException(
            $"{kind}: no valid round in {probe.Attempts.Count} attempts: {ReportJson.Write(probe)}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTableIsFullOfEndedPatchesAndTheProbedPatchHasFourGenerations(string tiering)
    {
        QueueFullReport r = Report(tiering);
        QueueFullSetup setup = r.Setup;
        string json = ReportJson.Write(setup);
        Assert.Equal(64u, r.QueueCapacity);
        Assert.Equal(1u, r.AllocationProfiling);
        Assert.True(setup.EndedPatches == 254 && setup.EndedAllRemoved, json);
        Assert.Equal(4, setup.Probed.Generations.Count);
        PatchReports.AssertVisibleAtOnce(setup.Probed.Value, 1005);
        Assert.Equal("Active", setup.Probed.Current.State);
        Assert.True(setup.Capture.FunctionId, json);
    }

    [Theory]
    [MemberData(nameof(AllKinds))]
    public void EachKindIsRefusedWithQueueFullInAProvablyFullRound(string kind, string tiering)
    {
        IReadOnlyList<(SaturationRound Round, string Status)> attempts = Attempts(kind, tiering);
        string json = string.Join("\n", attempts);
        SaturationRound round = attempts[^1].Round;
        Assert.True(round.Valid, $"{kind}: no valid round in {attempts.Count} attempts: {json}");
        Assert.Equal(63, round.FillersAccepted);
        Assert.Equal("QueueFull", round.FillRefusedWith);
        Assert.Equal(round.CompletedBefore, round.CompletedAfterProbes);
        Assert.Equal("Ok", round.BlockerStatus);
        string status = kind == "captureEnd" ? attempts[^1].Status : Valid(kind, tiering).Status;
        Assert.True(status == "QueueFull", $"{kind}: {status}: {json}");
    }

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void ARefusedCommandWritesNoHandleIdOrOutput(string kind, string tiering)
    {
        ProbeOutputs outputs = Valid(kind, tiering).Outputs;
        foreach ((string output, bool? written) in new[]
                 {
                     ("handleWritten", outputs.HandleWritten), ("idWritten", outputs.IdWritten), ("outWritten", outputs.OutWritten),
                 })
            if (written is not null)
                Assert.False(written.Value, $"{kind}: {output}: {ReportJson.Write(outputs)}");
    }

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void ARefusedCommandChangesNoTargetsReturnValue(string kind, string tiering)
    {
        ValidProbe probe = Valid(kind, tiering);
        ProbeState before = probe.Before;
        foreach ((string state, ProbeState? after) in new[] { ("after", probe.After), ("afterDrain", probe.AfterDrain) })
        {
            if (after is null)
                continue;
            foreach ((string value, int? was, int? now) in new[]
                     {
                         ("value", before.Value, after.Value), ("fresh", before.Fresh, after.Fresh),
                         ("freshGeneration", before.FreshGeneration, after.FreshGeneration),
                     })
                if (was is not null)
                    Assert.True(was == now, $"{kind}: {state} {value}: {was} became {now}: {ReportJson.Write(probe)}");
        }
        Assert.Equal("Ok", probe.ProbedWait);
    }

    [Theory]
    [MemberData(nameof(CleanKinds))]
    public void ARefusalLeavesEverythingAsItWas(string kind, string tiering) => AssertUnchanged(Valid(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(RecordingKinds))]
    public void ARefusedCommandEvictsNoGenerationRecord(string kind, string tiering) => AssertUnchanged(Valid(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(SlottingKinds))]
    public void ARefusedNewPatchTakesNoSlot(string kind, string tiering) => AssertUnchanged(Valid(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void NoRefusalInTheRoundTakesAGenerationId(string kind, string tiering)
    {
        NextGenerationCheck next = Valid(kind, tiering).NextGeneration;
        Assert.Equal("Ok", next.Fill);
        Assert.True(next.Next == next.Expected,
            $"{kind}: the filler after the round took {next.Next}, the last filler before it {next.Last}: " +
            $"{next.Next - next.Expected} IDs went to refused commands");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARefusedCaptureEndLeavesTheWindowOpen(string tiering)
    {
        CaptureWindowAfter after = Captures(tiering).After
            ?? throw new Xunit.Sdk.XunitException("no valid capture-end round");
        Assert.True(after.ReadTypesWhileOpen == "NoCapture", $"the window has a result already: {after}");
        Assert.True(after.BeginWhileOpen == "CaptureActive", $"the window was closed: {after}");
        Assert.True(after.End == "Ok", $"{after}");
        Assert.True(after.MarkersCounted == after.MarkersAllocated, $"the window stopped counting at the refusal: {after}");
    }

    private static void AssertUnchanged(ValidProbe probe, string kind)
    {
        string json = ReportJson.Write(probe);
        Assert.Equal("QueueFull", probe.Status);
        Assert.True(probe.Unchanged, $"{kind} changed state at its refusal: {json}");
        Assert.True(probe.UnchangedAfterDrain, $"{kind}: state differs once the queue drained: {json}");
    }
}
