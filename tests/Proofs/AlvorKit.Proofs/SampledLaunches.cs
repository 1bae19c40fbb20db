using System.Collections.Concurrent;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The host's "sampling" modes, each launched once per test process and cached, with
/// ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING set to the mode's value and no patchable modules.
/// The launch's limit is the proof that nothing hangs: a process that outlives it is killed
/// and its proofs fail.
/// </summary>
public static class SampledLaunches
{
    public const string Windows = "windows";
    public const string Cycles = "cycles";
    public const string Threads = "threads";
    public const string Exact = "exact";
    public const string Flag = "flag";

    /// <summary>The malformed value the "flag" launch starts with.</summary>
    public const string MalformedValue = "sampledd";

    private static readonly ConcurrentDictionary<string, Lazy<ProcessResult>> Runs = new();

    /// <summary>The launch of `variant` (its exit code checked), for its stderr.</summary>
    public static ProcessResult Run(string variant) =>
        Runs.GetOrAdd(variant, v => new Lazy<ProcessResult>(() => Launch(v))).Value;

    /// <summary>The report of `variant`'s launch.</summary>
    public static T Get<T>(string variant) => Run(variant).Report<T>();

    private static ProcessResult Launch(string variant)
    {
        string profiling = variant switch
        {
            Exact => "exact",
            Flag => MalformedValue,
            _ => "sampled",
        };
        var extra = new Dictionary<string, string?> { ["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = profiling };
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules: null), extra,
            TimeSpan.FromSeconds(60), "sampling", variant);
        Assert.True(run.ExitCode == 0, run.ToString());
        return run;
    }
}

/// <summary>
/// The sampled proofs' collection: run after every parallel proof and alone, so the "cycles"
/// launch times its allocation loop on a machine the other proofs' processes do not share
/// (with them, the loop's minima moved by 5% between phases and failed the stale-keyword
/// proof for no cause of its own).
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class SampledAlone
{
    public const string Name = "sampled launches, alone";
}
