using System.Text;
using AlvorKit.Proofs.Reports;
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
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class MixedStressProofs(ITestOutputHelper output)
{
    public const int Threads = 8, Commands = 1000, Targets = 50;

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void Figures(string tiering) => output.WriteLine(MixedStress.Figures(Run(tiering)));

    private static Timed<MixedStressReport> Run(string tiering) => StressReports.Get<MixedStressReport>(
        tiering, TimeSpan.FromSeconds(180), "mixedstress", $"{Threads}", $"{Commands}", $"{Targets}");

    private static MixedStressReport Report(string tiering) => Run(tiering).Report;

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
[Trait("Feature", "Reliability and concurrency")]
[Trait("Category", "FullStress")]
public sealed class MixedStressFullProofs(ITestOutputHelper output)
{
    private static int Scale(string variable, int fallback) =>
        int.TryParse(Environment.GetEnvironmentVariable(variable), out int n) && n > 0 ? n : fallback;

    private static readonly int Threads = Scale("ALVK_STRESS_THREADS", 8);
    private static readonly int Commands = Scale("ALVK_STRESS_COMMANDS", 10_000);
    private static readonly int Targets = Scale("ALVK_STRESS_TARGETS", 50);

    private static Timed<MixedStressReport> Run() => StressReports.Get<MixedStressReport>(
        PatchReports.TieredPgo, TimeSpan.FromMinutes(30), "mixedstress", $"{Threads}", $"{Commands}", $"{Targets}");

    private static MixedStressReport Report() => Run().Report;

    [FullStressFact]
    public void Figures() => output.WriteLine(MixedStress.Figures(Run()));

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

    public static void AssertCallers(MixedStressReport r)
    {
        CallerCounts c = r.Callers;
        Assert.True(c.Violations == 0, $"a caller saw another value or an exception: {Show(c)}");
        Assert.True(c.Calls > 0 && c.Original > 0, Show(c));
        Assert.True(c.ReplacementA + c.ReplacementB > 0, $"no replacement was seen: {Show(c)}");
        Assert.True(c.Generation > 0, $"no generation body was seen: {Show(c)}");
    }

    public static void AssertCompleted(MixedStressReport r)
    {
        Assert.True(r.CompletedDelta == (ulong)r.WorkerCommandsAccepted,
            $"commands_completed rose by {r.CompletedDelta}, the worker accepted {r.WorkerCommandsAccepted}: " + Show(r.Kinds));
        HandleChecks handles = r.Handles;
        Assert.True(handles.Pending == 0, $"handles with commands pending: {Show(handles)}");
        Assert.True(handles.Mismatches.Count == 0, $"handles whose count differs: {Show(handles)}");
        Assert.True(handles.Checked > 0, Show(handles));
        Assert.Equal(0u, r.QueueDepth);
    }

    public static void AssertCoverage(MixedStressReport r, int commands)
    {
        IReadOnlyDictionary<string, IReadOnlyDictionary<string, long>> kinds = r.Kinds;
        string json = Show(kinds);
        long Count(string kind, string what) => kinds.GetValueOrDefault(kind)?.GetValueOrDefault(what) ?? 0;
        foreach (string kind in WorkerKinds.Append("captureBegin"))
            Assert.True(Count(kind, "accepted") > 0, $"{kind} never accepted: {json}");
        Assert.True(Count("install", "acceptedBadHash") > 0, json);
        Assert.True(Count("generationSubmit", "acceptedOtherBody") > 0, json);
        Assert.True(kinds.GetValueOrDefault("reads")?.Count > 0, json);
        long queueFull = WorkerKinds.Sum(k => Count(k, "refused.QueueFull"));
        Assert.True(queueFull > 0, $"the queue never filled: {json}");
        long calls = kinds.Keys.Sum(k => Count(k, "calls")) + kinds["reads"].Values.Sum();
        Assert.True(calls >= commands, $"{calls} calls, expected at least {commands}: {json}");
    }

    public static void AssertOriginals(MixedStressReport r)
    {
        Assert.True(r.AllOriginalAtEnd, Show(r.NotOriginal));
        Assert.True(r.Cleanup.Count > 0, Show(r.Cleanup));
    }

    public static void AssertGenerationIds(MixedStressReport r)
    {
        GenerationIdCounts ids = r.GenerationIds;
        Assert.True(ids.Consumed == (ulong)ids.AcceptedIdBearing,
            $"the run consumed {ids.Consumed} generation IDs for {ids.AcceptedIdBearing} accepted " +
            $"installs, replaces and submits ({ids.RefusedAfterIdTaken} refused with QUEUE_FULL): {ids}");
    }

    public static void AssertWaits(MixedStressReport r)
    {
        WaitChecks waits = r.WaitChecks;
        Assert.True(waits.Matched > 0, Show(waits));
        Assert.True(waits.Mismatched == 0, $"waits that answered for another command: {Show(waits)}");
    }

    public static void AssertCaptures(MixedStressReport r)
    {
        CaptureCounts c = r.Captures;
        Assert.True(c.EndsNotActiveAfterQueueFull == 0, $"a window closed by a refused end: {c}");
        Assert.True(c.WindowsOpened == c.EndsAccepted, $"{c}");
    }

    public static string Figures(Timed<MixedStressReport> run)
    {
        MixedStressReport r = run.Report;
        var text = new StringBuilder();
        text.AppendLine($"{r.Threads} threads x {r.CommandsPerThread} commands on " +
                        $"{r.Targets} targets: commands {r.CommandsMs} ms, cleanup " +
                        $"{r.CleanupMs} ms, process {run.ProcessMs} ms");
        foreach ((string kind, IReadOnlyDictionary<string, long> counts) in r.Kinds)
            text.AppendLine($"  {kind}: {Show(counts)}");
        text.AppendLine($"  worker commands accepted {r.WorkerCommandsAccepted}, commands_completed rose by " +
                        $"{r.CompletedDelta}");
        text.AppendLine($"  generationIds: {Show(r.GenerationIds)}");
        text.AppendLine($"  waitChecks: {Show(r.WaitChecks)}");
        text.AppendLine($"  captures: {Show(r.Captures)}");
        text.AppendLine($"  handles: {Show(r.Handles)}");
        text.AppendLine($"  callers: {Show(r.Callers)}");
        text.Append($"  all originals at the end: {r.AllOriginalAtEnd}");
        return text.ToString();
    }

    public static void AssertUniqueIds(MixedStressReport r) =>
        Assert.True(r.GenerationIds.DuplicatesReturned == 0, $"{r.GenerationIds}");

    // A part of the report as JSON (records with lists and maps print their contents so).
    private static string Show<T>(T part) => ReportJson.Write(part);
}
