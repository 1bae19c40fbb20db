using System.Text;
using System.Text.Json.Nodes;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Proofs;

/// <summary>
/// Mixed commands from 8 threads on 50 targets while 2 threads call the targets (host mode
/// "mixedstress"): installs (some with a wrong hash), replaces, bursts of replaces, removes,
/// generation submits (some built against another body), describes (some of a 1 MB body, so
/// the queue fills), telemetry and result reads, capture windows. Every accepted command must
/// reach the worker and finish: the rise of commands_completed equals the worker commands
/// accepted, per kind and exactly; every handle still known has nothing pending and counts
/// exactly the commands accepted on it; every call returns the original's or a replacement's
/// value; all originals are back at the end.
///
/// The bounded version (8 x 1,000) runs in ./build.sh test, under both tiering modes; the full
/// one (8 x 10,000) is MixedStressFullProofs.
/// </summary>
public sealed class MixedStressProofs(ITestOutputHelper output)
{
    public const int Threads = 8, Commands = 1000, Targets = 50;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void Figures(string tiering) => output.WriteLine(MixedStress.Figures(Report(tiering)));

    private static JsonObject Report(string tiering) =>
        StressReports.Get(tiering, TimeSpan.FromSeconds(180), "mixedstress", $"{Threads}", $"{Commands}", $"{Targets}");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryCallReturnsTheOriginalOrAReplacement(string tiering) => MixedStress.AssertCallers(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryAcceptedCommandCompletesExactlyOnce(string tiering) => MixedStress.AssertCompleted(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryKindRanAndMetAFullQueue(string tiering) => MixedStress.AssertCoverage(Report(tiering), Threads * Commands);

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AllOriginalsAreBackAtTheEnd(string tiering) => MixedStress.AssertOriginals(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void GenerationIdsGoOnlyToAcceptedCommands(string tiering) => MixedStress.AssertGenerationIds(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AWaitAfterASubmitAnswersForThatGeneration(string tiering) => MixedStress.AssertWaits(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void OnlyAnAcceptedEndClosesAWindow(string tiering) => MixedStress.AssertCaptures(Report(tiering));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryAcceptedSubmitGetsItsOwnId(string tiering) => MixedStress.AssertUniqueIds(Report(tiering));
}

/// <summary>
/// The full stress: ALVK_STRESS=full runs it (skipped otherwise), at ALVK_STRESS_THREADS x
/// ALVK_STRESS_COMMANDS on ALVK_STRESS_TARGETS targets (default 8 x 10,000 on 50), default
/// tiering. Its defect proofs also need ALVK_DEFECT_PROOFS.
/// </summary>
[Trait("Category", "FullStress")]
public sealed class MixedStressFullProofs(ITestOutputHelper output)
{
    private static int Scale(string variable, int fallback) =>
        int.TryParse(Environment.GetEnvironmentVariable(variable), out int n) && n > 0 ? n : fallback;

    private static readonly int Threads = Scale("ALVK_STRESS_THREADS", 8);
    private static readonly int Commands = Scale("ALVK_STRESS_COMMANDS", 10_000);
    private static readonly int Targets = Scale("ALVK_STRESS_TARGETS", 50);

    private static JsonObject Report() =>
        StressReports.Get(PatchReports.TieredPgo, TimeSpan.FromMinutes(30), "mixedstress", $"{Threads}", $"{Commands}", $"{Targets}");

    [FullStressFact]
    public void Figures() => output.WriteLine(MixedStress.Figures(Report()));

    [FullStressFact]
    public void EveryCallReturnsTheOriginalOrAReplacement() => MixedStress.AssertCallers(Report());

    [FullStressFact]
    public void EveryAcceptedCommandCompletesExactlyOnce() => MixedStress.AssertCompleted(Report());

    [FullStressFact]
    public void EveryKindRanAndMetAFullQueue() => MixedStress.AssertCoverage(Report(), Threads * Commands);

    [FullStressFact]
    public void AllOriginalsAreBackAtTheEnd() => MixedStress.AssertOriginals(Report());

    [FullStressFact]
    public void GenerationIdsGoOnlyToAcceptedCommands() => MixedStress.AssertGenerationIds(Report());

    [FullStressFact]
    public void AWaitAfterASubmitAnswersForThatGeneration() => MixedStress.AssertWaits(Report());

    [FullStressFact]
    public void OnlyAnAcceptedEndClosesAWindow() => MixedStress.AssertCaptures(Report());

    [FullStressFact]
    public void EveryAcceptedSubmitGetsItsOwnId() => MixedStress.AssertUniqueIds(Report());
}

/// <summary>Runs only with ALVK_STRESS=full (./build.sh stress).</summary>
public sealed class FullStressFactAttribute : FactAttribute
{
    public FullStressFactAttribute()
    {
        if (Environment.GetEnvironmentVariable("ALVK_STRESS") != "full")
            Skip = "the full stress runs with ALVK_STRESS=full (./build.sh stress)";
    }
}

/// <summary>The stress reports' assertions, shared by the bounded and the full run.</summary>
public static class MixedStress
{
    private static readonly string[] WorkerKinds = ["install", "replace", "remove", "generationSubmit", "describe", "captureEnd"];

    public static void AssertCallers(JsonObject r)
    {
        JsonNode c = r["callers"]!;
        string json = c.ToJsonString();
        Assert.True(c.Value<long>("violations") == 0, $"a caller saw another value or an exception: {json}");
        Assert.True(c.Value<long>("calls") > 0 && c.Value<long>("original") > 0, json);
        Assert.True(c.Value<long>("replacementA") + c.Value<long>("replacementB") > 0, $"no replacement was seen: {json}");
        Assert.True(c.Value<long>("generation") > 0, $"no generation body was seen: {json}");
    }

    public static void AssertCompleted(JsonObject r)
    {
        string json = r.ToJsonString();
        Assert.True(r.Value<ulong>("completedDelta") == r.Value<ulong>("workerCommandsAccepted"),
            $"commands_completed rose by {r.Value<ulong>("completedDelta")}, the worker accepted {r.Value<ulong>("workerCommandsAccepted")}: " +
            r["kinds"]!.ToJsonString());
        JsonNode handles = r["handles"]!;
        Assert.True(handles.Value<int>("pending") == 0, $"handles with commands pending: {handles.ToJsonString()}");
        Assert.True(handles["mismatches"]!.AsArray().Count == 0, $"handles whose count differs: {handles.ToJsonString()}");
        Assert.True(handles.Value<int>("checked") > 0, json);
        Assert.Equal(0u, r.Value<uint>("queueDepth"));
    }

    public static void AssertCoverage(JsonObject r, int commands)
    {
        JsonNode kinds = r["kinds"]!;
        string json = kinds.ToJsonString();
        foreach (string kind in WorkerKinds.Append("captureBegin"))
            Assert.True(kinds[kind]?["accepted"]?.GetValue<long>() > 0, $"{kind} never accepted: {json}");
        Assert.True(kinds["install"]!["acceptedBadHash"]?.GetValue<long>() > 0, json);
        Assert.True(kinds["generationSubmit"]!["acceptedOtherBody"]?.GetValue<long>() > 0, json);
        Assert.True(kinds["reads"]?.AsObject().Count > 0, json);
        long queueFull = WorkerKinds.Sum(k => kinds[k]?["refused.QueueFull"]?.GetValue<long>() ?? 0);
        Assert.True(queueFull > 0, $"the queue never filled: {json}");
        long calls = kinds.AsObject().Sum(k => k.Value!["calls"]?.GetValue<long>() ?? 0) +
                     kinds["reads"]!.AsObject().Sum(k => k.Value!.GetValue<long>());
        Assert.True(calls >= commands, $"{calls} calls, expected at least {commands}: {json}");
    }

    public static void AssertOriginals(JsonObject r)
    {
        Assert.True(r.Value<bool>("allOriginalAtEnd"), r["notOriginal"]!.ToJsonString());
        Assert.True(r["cleanup"]!.AsObject().Count > 0, r.ToJsonString());
    }

    public static void AssertGenerationIds(JsonObject r)
    {
        JsonNode ids = r["generationIds"]!;
        Assert.True(ids.Value<long>("consumed") == ids.Value<long>("acceptedIdBearing"),
            $"the run consumed {ids.Value<long>("consumed")} generation IDs for {ids.Value<long>("acceptedIdBearing")} accepted " +
            $"installs, replaces and submits ({ids.Value<long>("refusedAfterIdTaken")} refused with QUEUE_FULL): {ids.ToJsonString()}");
    }

    public static void AssertWaits(JsonObject r)
    {
        JsonNode waits = r["waitChecks"]!;
        Assert.True(waits.Value<long>("matched") > 0, waits.ToJsonString());
        Assert.True(waits.Value<long>("mismatched") == 0, $"waits that answered for another command: {waits.ToJsonString()}");
    }

    public static void AssertCaptures(JsonObject r)
    {
        JsonNode c = r["captures"]!;
        string json = c.ToJsonString();
        Assert.True(c.Value<long>("endsNotActiveAfterQueueFull") == 0, $"a window closed by a refused end: {json}");
        Assert.True(c.Value<long>("windowsOpened") == c.Value<long>("endsAccepted"), json);
    }

    /// <summary>The run's figures, for the test log.</summary>
    public static string Figures(JsonObject r)
    {
        var text = new StringBuilder();
        text.AppendLine($"{r.Value<int>("threads")} threads x {r.Value<int>("commandsPerThread")} commands on " +
                        $"{r.Value<int>("targets")} targets: commands {r.Value<double>("commandsMs")} ms, cleanup " +
                        $"{r.Value<double>("cleanupMs")} ms, process {r.Value<long>("processMs")} ms");
        foreach ((string kind, JsonNode? counts) in r["kinds"]!.AsObject())
            text.AppendLine($"  {kind}: {counts!.ToJsonString()}");
        text.AppendLine($"  worker commands accepted {r.Value<long>("workerCommandsAccepted")}, commands_completed rose by " +
                        $"{r.Value<long>("completedDelta")}");
        foreach (string part in new[] { "generationIds", "waitChecks", "captures", "handles", "callers" })
            text.AppendLine($"  {part}: {r[part]!.ToJsonString()}");
        text.Append($"  all originals at the end: {r.Value<bool>("allOriginalAtEnd")}");
        return text.ToString();
    }

    public static void AssertUniqueIds(JsonObject r) =>
        Assert.True(r["generationIds"]!.Value<long>("duplicatesReturned") == 0, r["generationIds"]!.ToJsonString());
}
