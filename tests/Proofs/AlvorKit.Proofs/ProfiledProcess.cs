using AlvorKit.Proofs.Reports;
using AlvorKit.Tests.Support;

namespace AlvorKit.Proofs;

/// <summary>Launches the proof host with exactly the environment a test gives it: `dotnet Host.dll`
/// on this machine, or, when ALVK_PROOF_RID names another RID (linux-arm64, win-x64), the host
/// published self-contained for that RID (ALVK_PROOF_HOST, its apphost) under its emulator
/// (tests/Support/Emulator), with the library cross-built for it (ALVK_NATIVE_LIBRARY).</summary>
public static class ProfiledProcess
{
    public const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";

    /// <summary>The RID the proofs run for: ALVK_PROOF_RID, or null for this machine's own.</summary>
    public static string? EmulatedRid { get; } =
        Environment.GetEnvironmentVariable("ALVK_PROOF_RID") is { Length: > 0 } rid ? rid : null;

    /// <summary>The emulator the host runs under (null on this machine's own RID). A RID whose
    /// emulator this machine lacks fails every proof here, naming it: build.sh skips such a RID.</summary>
    public static Emulator? Emulated { get; } = EmulatedRid is { } r
        ? Emulator.For(r)?.Start() ?? throw new InvalidOperationException(
            $"ALVK_PROOF_RID={r}: this machine has no emulator for it (qemu-user-static, wine64)")
        : null;

    // qemu-user translates every instruction; the limits the proofs set for this machine are
    // scaled by this much under an emulator.
    private const int EmulatedSlowdown = 4;

    /// <summary>Absolute path of the built native library.</summary>
    public static string NativeLibrary { get; } = Checkout.Required("ALVK_NATIVE_LIBRARY",
        "run ./build.sh test", "build", "native-release", "native", "interception-profiler",
        "libalvorkit_interception_profiler.so");

    /// <summary>Absolute path of the proof host's entry assembly.</summary>
    public static string Host { get; } = Checkout.Required("ALVK_PROOF_HOST", "run ./build.sh test",
        "tests", "Proofs", "AlvorKit.Proofs.Host", "bin", Checkout.Configuration, "net10.0",
        "AlvorKit.Proofs.Host.dll");

    /// <summary>The native library's path as the profiled process sees it (under Wine, on Z:).</summary>
    public static string NativeLibraryAsSeen => TargetPath(NativeLibrary);

    /// <summary>A path of this machine as the profiled process sees it.</summary>
    public static string TargetPath(string path) => Emulated?.TargetPath(path) ?? path;

    /// <summary>The profiler's full environment for the given allowlist. Under an emulator the
    /// path goes in the RID's own variable (CORECLR_PROFILER_PATH_ARM64, _64) and the generic
    /// one is left unset, so an attached profiler shows CoreCLR read the RID's.</summary>
    public static Dictionary<string, string?> ProfiledEnvironment(string? modules, string? libraryPath = null)
    {
        string library = TargetPath(libraryPath ?? NativeLibrary);
        var environment = new Dictionary<string, string?>
        {
            ["CORECLR_ENABLE_PROFILING"] = "1",
            ["CORECLR_PROFILER"] = Clsid,
            ["CORECLR_PROFILER_PATH"] = library,
            ["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library,
            ["ALVORKIT_INTERCEPTION_MODULES"] = modules,
        };
        if (Emulated is { } emulator)
        {
            environment["CORECLR_PROFILER_PATH"] = null;
            environment[emulator.ProfilerPathVariable] = library;
        }
        return environment;
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
        if (Emulated is { } emulator)
        {
            if (assembly != Host)
                throw new NotSupportedException($"{assembly}: only the proof host is published for {emulator.Rid}");
            foreach (var (key, value) in emulator.Environment)
                childEnvironment[key] = value;
        }
        foreach (var (key, value) in environment.Concat(extraEnvironment ?? new Dictionary<string, string?>()))
            childEnvironment[key] = value;
        if (Emulated is { } emulated)
        {
            // An absolute path (an export folder, say; no mode argument starts with '/') is
            // passed as the emulated process sees it.
            emulated.ApplyLimits(childEnvironment);
            (string file, string[] emulatedArgs) = emulated.Command(assembly, args.Select(ArgumentAsSeen));
            return ChildProcess.Run(file, emulatedArgs, childEnvironment, timeout: timeout * EmulatedSlowdown);
        }
        return ChildProcess.Run("dotnet", [assembly, .. args], childEnvironment, timeout: timeout);
    }

    private static string ArgumentAsSeen(string argument) =>
        Path.IsPathFullyQualified(argument) ? TargetPath(argument) : argument;

    /// <summary>The run's report read as a `T`, one of the host's report records: a report that
    /// does not fit the record fails here, with the process's output.</summary>
    public static T Report<T>(this ProcessResult run) => run.ReportAs(ReportJson.Info<T>());
}
