using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The host's "allocations" modes, launched once per variant and cached. Each launch gets
/// ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1 (not "off"), no patchable modules, and its
/// own folder for the exported files; "full-storage" also gets 16 sample slots.
/// </summary>
public static class AllocationReports
{
    public const string CountOnly = "countonly";
    public const string Sampled = "sampled";
    public const string FullStorage = "full-storage";
    public const string Off = "off";

    /// <summary>ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES of the full-storage launch.</summary>
    public const int FullStorageSlots = 16;

    /// <summary>ALVK_DEFAULT_SAMPLE_SLOTS and ALVK_DEFAULT_TYPE_SLOTS.</summary>
    public const int DefaultSampleSlots = 1024;
    public const int DefaultTypeSlots = 4096;

    public static TheoryData<string> CapturingVariants => new(CountOnly, Sampled, FullStorage);

    private static readonly ConcurrentDictionary<string, Lazy<AllocationsReport>> Reports = new();

    // The launches' exported files, removed when the test process exits.
    private static readonly string OutputRoot = CreateOutputRoot();

    private static string CreateOutputRoot()
    {
        string root = Path.Combine(Path.GetTempPath(), $"alvk-allocation-proofs-{Environment.ProcessId}");
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            if (Directory.Exists(root))
                Directory.Delete(root, recursive: true);
        };
        return root;
    }

    /// <summary>The host's report for `variant`, from its one launch.</summary>
    public static AllocationsReport Get(string variant) =>
        Reports.GetOrAdd(variant, v => new Lazy<AllocationsReport>(() => Launch(v))).Value;

    /// <summary>The windows of a capturing variant's launch.</summary>
    public static CapturedWindows Captured(string variant) =>
        Get(variant).Captured ?? throw new Xunit.Sdk.XunitException($"the {variant} launch captured no windows");

    private static AllocationsReport Launch(string variant)
    {
        var extra = new Dictionary<string, string?>
        {
            ["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = variant == Off ? null : "1",
            ["ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES"] = variant == FullStorage ? $"{FullStorageSlots}" : null,
        };
        string output = Path.Combine(OutputRoot, variant);
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules: null), extra,
            TimeSpan.FromSeconds(60), "allocations", variant, output);
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<AllocationsReport>();
    }

    /// <summary>The repository file `relative` (the proofs run from inside the repository).</summary>
    public static string RepositoryFile(string relative) => Checkout.File(relative);
}
