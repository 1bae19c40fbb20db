using System.Text.Json.Nodes;
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

    private static JsonObject Report(string tiering) => StressReports.Get(tiering, TimeSpan.FromSeconds(120), "queuefull");

    private static JsonNode Probe(string kind, string tiering) =>
        kind == "captureEnd" ? Report(tiering)["captureEnd"]! : Report(tiering)["commands"]![kind]!;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTableIsFullOfEndedPatchesAndTheProbedPatchHasFourGenerations(string tiering)
    {
        JsonObject r = Report(tiering);
        JsonNode setup = r["setup"]!;
        string json = setup.ToJsonString();
        Assert.Equal(64u, r.Value<uint>("queueCapacity"));
        Assert.Equal(1u, r.Value<uint>("allocationProfiling"));
        Assert.True(setup.Value<int>("endedPatches") == 254 && setup.Value<bool>("endedAllRemoved"), json);
        Assert.Equal(4, setup["probed"]!["generations"]!.AsArray().Count);
        PatchReports.AssertVisibleAtOnce(setup["probed"]!["value"]!, 1005);
        Assert.Equal("Active", setup["probed"]!["current"]!.Text("state"));
        Assert.True(setup["capture"]!.Value<bool>("functionId"), json);
    }

    [Theory]
    [MemberData(nameof(AllKinds))]
    public void EachKindIsRefusedWithQueueFullInAProvablyFullRound(string kind, string tiering)
    {
        JsonNode probe = Probe(kind, tiering);
        string json = probe.ToJsonString();
        JsonNode round = probe["attempts"]!.AsArray().Last()!;
        Assert.True(round.Value<bool>("valid"), $"{kind}: no valid round in {probe["attempts"]!.AsArray().Count} attempts: {json}");
        Assert.Equal(63, round.Value<int>("fillersAccepted"));
        Assert.Equal("QueueFull", round.Text("fillRefusedWith"));
        Assert.Equal(round.Value<ulong>("completedBefore"), round.Value<ulong>("completedAfterProbes"));
        Assert.Equal("Ok", round.Text("blockerStatus"));
        string status = kind == "captureEnd" ? round.Text("end") : probe.Text("status");
        Assert.True(status == "QueueFull", $"{kind}: {status}: {json}");
    }

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void ARefusedCommandWritesNoHandleIdOrOutput(string kind, string tiering)
    {
        JsonNode probe = Probe(kind, tiering);
        foreach (string output in new[] { "handleWritten", "idWritten", "outWritten" })
            if (probe[output] is not null)
                Assert.False(probe.Value<bool>(output), $"{kind}: {output}: {probe.ToJsonString()}");
    }

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void ARefusedCommandChangesNoTargetsReturnValue(string kind, string tiering)
    {
        JsonNode probe = Probe(kind, tiering);
        JsonNode before = probe["before"]!;
        foreach (string state in new[] { "after", "afterDrain" })
        {
            if (probe[state] is not { } after)
                continue;
            foreach (string value in new[] { "value", "fresh", "freshGeneration" })
                if (before[value] is not null)
                    Assert.True(JsonNode.DeepEquals(before[value], after[value]), $"{kind}: {state} {value}: {probe.ToJsonString()}");
        }
        Assert.Equal("Ok", probe.Text("probedWait"));
    }

    [Theory]
    [MemberData(nameof(CleanKinds))]
    public void ARefusalLeavesEverythingAsItWas(string kind, string tiering) => AssertUnchanged(Probe(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(RecordingKinds))]
    public void ARefusedCommandEvictsNoGenerationRecord(string kind, string tiering) => AssertUnchanged(Probe(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(SlottingKinds))]
    public void ARefusedNewPatchTakesNoSlot(string kind, string tiering) => AssertUnchanged(Probe(kind, tiering), kind);

    [Theory]
    [MemberData(nameof(CommandKindData))]
    public void NoRefusalInTheRoundTakesAGenerationId(string kind, string tiering)
    {
        JsonNode next = Probe(kind, tiering)["nextGeneration"]!;
        Assert.Equal("Ok", next.Text("fill"));
        Assert.True(next.Value<ulong>("next") == next.Value<ulong>("expected"),
            $"{kind}: the filler after the round took {next.Value<ulong>("next")}, the last filler before it {next.Value<ulong>("last")}: " +
            $"{next.Value<ulong>("next") - next.Value<ulong>("expected")} IDs went to refused commands");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARefusedCaptureEndLeavesTheWindowOpen(string tiering)
    {
        JsonNode after = Report(tiering)["captureEnd"]!["after"]!;
        string json = after.ToJsonString();
        Assert.True(after.Text("readTypesWhileOpen") == "NoCapture", $"the window has a result already: {json}");
        Assert.True(after.Text("beginWhileOpen") == "CaptureActive", $"the window was closed: {json}");
        Assert.True(after.Text("end") == "Ok", json);
        Assert.True(after.Value<long>("markersCounted") == after.Value<long>("markersAllocated"),
            $"the window stopped counting at the refusal: {json}");
    }

    private static void AssertUnchanged(JsonNode probe, string kind)
    {
        string json = probe.ToJsonString();
        Assert.Equal("QueueFull", probe.Text("status"));
        Assert.True(probe.Value<bool>("unchanged"), $"{kind} changed state at its refusal: {json}");
        Assert.True(probe.Value<bool>("unchangedAfterDrain"), $"{kind}: state differs once the queue drained: {json}");
    }
}
