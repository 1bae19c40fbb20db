using AlvorKit.Proofs.Reports;
using AlvorKit.Tests.Support;

namespace AlvorKit.Proofs;

/// <summary>Launches the proof host with exactly the environment a test gives it.</summary>
public static class ProfiledProcess
{
    public const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";

    /// <summary>Absolute path of the built native library.</summary>
    public static string NativeLibrary { get; } = Checkout.Required("ALVK_NATIVE_LIBRARY",
        "run ./build.sh test", "build", "native-release", "native", "interception-profiler",
        "libalvorkit_interception_profiler.so");

    /// <summary>Absolute path of the proof host's entry assembly.</summary>
    public static string Host { get; } = Checkout.Required("ALVK_PROOF_HOST", "run ./build.sh test",
        "tests", "Proofs", "AlvorKit.Proofs.Host", "bin", Checkout.Configuration, "net10.0",
        "AlvorKit.Proofs.Host.dll");

    /// <summary>The profiler's full environment for the given allowlist.</summary>
    public static Dictionary<string, string?> ProfiledEnvironment(string? modules, string? libraryPath = null)
    {
        string library = libraryPath ?? NativeLibrary;
        return new Dictionary<string, string?>
        {
            ["CORECLR_ENABLE_PROFILING"] = "1",
            ["CORECLR_PROFILER"] = Clsid,
            ["CORECLR_PROFILER_PATH"] = library,
            ["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library,
            ["ALVORKIT_INTERCEPTION_MODULES"] = modules,
        };
    }

    public static ProcessResult Run(IReadOnlyDictionary<string, string?> environment, params string[] args) =>
        Run(environment, extraEnvironment: null, TimeSpan.FromSeconds(60), args);

    /// <summary>Run, with `extraEnvironment` applied after `environment` (this is how a test
    /// passes DOTNET_* settings: inherited ones are removed) and a longer or shorter limit.</summary>
    public static ProcessResult Run(IReadOnlyDictionary<string, string?> environment,
        IReadOnlyDictionary<string, string?>? extraEnvironment, TimeSpan timeout, params string[] args) =>
        RunAssembly(Host, environment, extraEnvironment, timeout, args);

    /// <summary>Run for another entry assembly (the live demo, say) than the proof host.</summary>
    public static ProcessResult RunAssembly(string assembly, IReadOnlyDictionary<string, string?> environment,
        IReadOnlyDictionary<string, string?>? extraEnvironment, TimeSpan timeout, params string[] args)
    {
        var childEnvironment = new Dictionary<string, string?>();
        // The sanitizer job (./build.sh test): an ASan build of the profiler needs the ASan
        // runtime loaded first, in the profiled process only (not in the test runner).
        if (Environment.GetEnvironmentVariable("ALVK_PROOF_PRELOAD") is { Length: > 0 } preload)
            childEnvironment["LD_PRELOAD"] = preload;
        foreach (var (key, value) in environment.Concat(extraEnvironment ?? new Dictionary<string, string?>()))
            childEnvironment[key] = value;
        return ChildProcess.Run("dotnet", [assembly, .. args], childEnvironment, timeout: timeout);
    }

    /// <summary>The run's report read as a `T`, one of the host's report records: a report that
    /// does not fit the record fails here, with the process's output.</summary>
    public static T Report<T>(this ProcessResult run) => run.ReportAs(ReportJson.Info<T>());
}
