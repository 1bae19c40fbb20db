using System.Collections.Concurrent;
using System.Diagnostics;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Launches of the host's queue, recycling, exit and mixed-stress modes, each once per
/// argument list and cached. Their environment adds to the patch proofs' the module the
/// QUEUE_FULL rounds describe to hold the worker (AlvorKit.Proofs.Heavy, written by the host)
/// and allocation profiling (capture end is one of the command kinds).
/// </summary>
public static class StressReports
{
    public const string Modules = "AlvorKit.Proofs.Host;AlvorKit.Proofs.Heavy";

    /// <summary>The sample slots of the exit launches: a window that full takes the worker a
    /// few hundred milliseconds to resolve, so Shutdown finds it busy.</summary>
    public const string ExitSampleSlots = "8192";

    private static readonly ConcurrentDictionary<string, Lazy<(ProcessResult Run, long ProcessMs)>> Launches = new();
    private static readonly ConcurrentDictionary<string, Lazy<(ProcessResult Run, TimeSpan Elapsed)>> Runs = new();

    /// <summary>The host's report for `args` under `tiering`, allocation profiling on, read as
    /// a `T`, and how long the process ran.</summary>
    public static Timed<T> Get<T>(string tiering, TimeSpan timeout, params string[] args)
    {
        (ProcessResult run, long processMs) = Launch(tiering, timeout, args);
        return new Timed<T>(run.Report<T>(), processMs);
    }

    private static (ProcessResult Run, long ProcessMs) Launch(string tiering, TimeSpan timeout, string[] args)
    {
        (ProcessResult run, long processMs) = Launches.GetOrAdd($"{tiering} {string.Join(' ', args)}",
            _ => new Lazy<(ProcessResult, long)>(() =>
            {
                var extra = new Dictionary<string, string?>(PatchReports.Tiering(tiering))
                {
                    ["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = "1",
                };
                var clock = Stopwatch.StartNew();
                ProcessResult result = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(Modules), extra, timeout, args);
                return (result, clock.ElapsedMilliseconds);
            })).Value;
        Assert.True(run.ExitCode == 0, run.ToString());
        return (run, processMs);
    }

    /// <summary>The exit mode's process (it ends with its own exit code), and how long it ran.</summary>
    public static (ProcessResult Run, TimeSpan Elapsed) Exit(string variant) =>
        Runs.GetOrAdd(variant, v => new Lazy<(ProcessResult, TimeSpan)>(() => ExitAgain(v))).Value;

    /// <summary>Another exit-mode process, not the cached one.</summary>
    public static (ProcessResult Run, TimeSpan Elapsed) ExitAgain(string variant)
    {
        var extra = new Dictionary<string, string?>
        {
            ["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = variant.EndsWith("-sampled", StringComparison.Ordinal)
                ? "sampled"
                : "1",
            ["ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES"] = ExitSampleSlots,
        };
        var clock = Stopwatch.StartNew();
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"), extra,
            TimeSpan.FromSeconds(60), "exit", variant);
        return (run, clock.Elapsed);
    }
}

/// <summary>A report, and how long the process that wrote it ran.</summary>
public sealed record Timed<T>(T Report, long ProcessMs);
