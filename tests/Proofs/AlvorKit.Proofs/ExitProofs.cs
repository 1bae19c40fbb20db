using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A process that ends while its worker queue is full and four threads keep calling every
/// exported function (host mode "exit"): by returning 3 from Main, or by Environment.Exit(4).
/// At that moment the worker is resolving a full sampled capture window, so the runtime's
/// Shutdown finds it busy and waits for it. The process must end with its own exit code,
/// promptly, with nothing on stderr but the host's own lines (and, in exact profiling, the
/// profiler's one documented startup line about its cost); the calls made after the worker
/// stopped return statuses (the host writes one line per function and status it meets then).
/// Each exit runs in exact profiling ("return", "environment") and in sampled profiling
/// ("-sampled": the window's sampling session may be open or stopping at exit).
/// </summary>
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class ExitProofs
{
    private const string Prefix = "[alvk-exit-proof] ";
    private const string AfterShutdown = Prefix + "after-shutdown ";

    public static TheoryData<string, int> Variants => new()
    {
        { "return", 3 }, { "environment", 4 }, { "return-sampled", 3 }, { "environment-sampled", 4 },
    };

    private static readonly string[] Exports =
    [
        "alvk_version_number", "alvk_status_string", "alvk_get_runtime_status", "alvk_describe_method",
        "alvk_module_identify", "alvk_describe_module_method", "alvk_patch_install", "alvk_patch_replace",
        "alvk_patch_remove", "alvk_patch_wait", "alvk_last_command", "alvk_command_wait", "alvk_patch_get_telemetry",
        "alvk_generation_validate",
        "alvk_generation_submit", "alvk_generation_get_result", "alvk_capture_begin", "alvk_capture_end",
        "alvk_capture_read_types", "alvk_capture_read_samples", "alvk_capture_describe_function",
    ];

    [Theory]
    [MemberData(nameof(Variants))]
    public void TheProcessEndsWithItsExitCodeWithCommandsQueued(string variant, int exitCode)
    {
        (ProcessResult run, TimeSpan elapsed) = StressReports.Exit(variant);
        Assert.True(run.ExitCode == exitCode, run.ToString());
        Assert.True(elapsed < TimeSpan.FromSeconds(30), $"took {elapsed.TotalSeconds:F1} s: {run}");
        ExitReport r = run.Report<ExitReport>();
        Assert.Equal("Ok", r.CaptureBegin);
        // Exact profiling: the full window's thousands of stacks keep the worker resolving at
        // exit. A sampled window holds a few dozen (one per 100 KB), so its End may be done.
        if (!IsSampled(variant))
            Assert.True(r.CaptureEndReturnedBeforeExit is null, $"the worker was not busy at exit: {r}");
        Assert.True(r.QueueDepthAtExit > 0, $"{r}");
        Assert.Equal(1u, r.WorkerAliveAtExit);
    }

    [Theory]
    [MemberData(nameof(Variants))]
    public void EveryExportWasBeingCalledAtExit(string variant, int exitCode)
    {
        IReadOnlyDictionary<string, long> calls = StressReports.Exit(variant).Run.Report<ExitReport>().CallsBeforeExit;
        foreach (string export in Exports)
            Assert.True(calls.Keys.Any(c => c.StartsWith(export + " ", StringComparison.Ordinal)),
                $"{export} was not called before exit {exitCode}: {string.Join(", ", calls.Keys)}");
    }

    [Theory]
    [MemberData(nameof(Variants))]
    public void NothingCrashesAndTheWorkerStopsInTime(string variant, int exitCode)
    {
        ProcessResult run = StressReports.Exit(variant).Run;
        string[] foreign = Foreign(run, variant);
        Assert.True(foreign.Length == 0, $"exit {exitCode}: unexpected stderr (a crash, an abort, the worker left running?):\n" +
            string.Join('\n', foreign));
    }

    [Theory]
    [MemberData(nameof(Variants))]
    public void CallsAfterTheWorkerStoppedReturnStatuses(string variant, int exitCode)
    {
        // Whether a thread gets a call in between the worker's stop and the end of the process
        // is a race: the window is the rest of the worker's current command, a few milliseconds
        // when it is a light one, and on a loaded 2-core machine the callers may all be off the
        // CPU for it (2 or 3 processes in 32, measured with two processes at once). So up to
        // three processes: the first where a call met the stopped worker is the proof, and
        // every process, that one or not, must end with its exit code, write nothing foreign
        // and report each call after the stop as a function and a status name.
        var runs = new List<ProcessResult> { StressReports.Exit(variant).Run };
        while (!SawStoppedWorker(runs[^1]) && runs.Count < 3)
            runs.Add(StressReports.ExitAgain(variant).Run);
        foreach (ProcessResult run in runs)
        {
            Assert.True(run.ExitCode == exitCode, run.ToString());
            string[] foreign = Foreign(run, variant);
            Assert.True(foreign.Length == 0, $"exit {exitCode}: unexpected stderr:\n{string.Join('\n', foreign)}");
            foreach (string line in AfterShutdownLines(run))
            {
                string[] parts = line[AfterShutdown.Length..].Split(' ');
                Assert.True(parts.Length == 2 && Exports.Contains(parts[0]) && parts[1].All(char.IsLetter),
                    $"not a function and a status name: {line}");
            }
        }
        Assert.True(SawStoppedWorker(runs[^1]),
            $"exit {exitCode}: in {runs.Count} processes no call saw the stopped worker:\n{runs[^1].Stderr}");
    }

    private static bool IsSampled(string variant) => variant.EndsWith("-sampled", StringComparison.Ordinal);

    // Stderr lines that are neither the host's nor, in exact profiling, the profiler's one
    // startup line about exact profiling's cost (which must be there, once).
    private static string[] Foreign(ProcessResult run, string variant)
    {
        string[] lines = run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        string[] exactLine = [.. lines.Where(l => l.StartsWith("[alvorkit-interception] allocation profiling is exact",
            StringComparison.Ordinal))];
        string[] foreign = [.. lines.Where(l => !l.StartsWith(Prefix, StringComparison.Ordinal) && !exactLine.Contains(l))];
        int expected = IsSampled(variant) ? 0 : 1;
        return exactLine.Length == expected
            ? foreign
            : [.. foreign, $"({exactLine.Length} lines about exact allocation profiling, expected {expected})"];
    }

    private static string[] AfterShutdownLines(ProcessResult run) =>
        run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Where(l => l.StartsWith(AfterShutdown, StringComparison.Ordinal)).ToArray();

    private static bool SawStoppedWorker(ProcessResult run) =>
        AfterShutdownLines(run).Any(l => l.EndsWith(" WorkerUnavailable", StringComparison.Ordinal));
}
