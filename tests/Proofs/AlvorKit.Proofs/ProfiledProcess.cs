using System.Diagnostics;
using System.Text.Json.Nodes;

namespace AlvorKit.Proofs;

/// <summary>The result of one isolated host process.</summary>
public sealed record ProcessResult(int ExitCode, string Stdout, string Stderr)
{
    /// <summary>The host's one JSON line.</summary>
    public JsonObject Report =>
        JsonNode.Parse(Stdout.Trim().Split('\n').Last())?.AsObject()
        ?? throw new InvalidOperationException($"no JSON report; stdout: {Stdout} stderr: {Stderr}");

    public override string ToString() => $"exit {ExitCode}\nstdout: {Stdout}\nstderr: {Stderr}";
}

/// <summary>Launches the proof host with exactly the environment a test gives it.</summary>
public static class ProfiledProcess
{
    public const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";

    /// <summary>Absolute path of the built native library.</summary>
    public static string NativeLibrary { get; } = Locate("ALVK_NATIVE_LIBRARY",
        Path.Combine("build", "native-release", "native", "interception-profiler",
            "libalvorkit_interception_profiler.so"));

    /// <summary>Absolute path of the proof host's entry assembly.</summary>
    public static string Host { get; } = Locate("ALVK_PROOF_HOST",
        Path.Combine("tests", "Proofs", "AlvorKit.Proofs.Host", "bin", BuildConfiguration, "net10.0",
            "AlvorKit.Proofs.Host.dll"));

#if DEBUG
    private const string BuildConfiguration = "Debug";
#else
    private const string BuildConfiguration = "Release";
#endif

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
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(assembly);
        foreach (string a in args)
            start.ArgumentList.Add(a);
        // Isolation: nothing profiler-related leaks in from the test runner.
        foreach (string key in start.Environment.Keys.ToList())
        {
            if (key.StartsWith("CORECLR_", StringComparison.Ordinal) ||
                key.StartsWith("ALVORKIT_", StringComparison.Ordinal) ||
                key.StartsWith("DOTNET_", StringComparison.Ordinal) ||
                key.StartsWith("COMPlus_", StringComparison.Ordinal))
                start.Environment.Remove(key);
        }
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        // The sanitizer job (./build.sh test): an ASan build of the profiler needs the ASan
        // runtime loaded first, in the profiled process only (not in the test runner).
        if (Environment.GetEnvironmentVariable("ALVK_PROOF_PRELOAD") is { Length: > 0 } preload)
            start.Environment["LD_PRELOAD"] = preload;
        foreach (var (key, value) in environment.Concat(extraEnvironment ?? new Dictionary<string, string?>()))
        {
            if (value is null)
                start.Environment.Remove(key);
            else
                start.Environment[key] = value;
        }
        using var process = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException(
                $"the proof host did not exit within {timeout.TotalSeconds} s: {string.Join(' ', args)}");
        }
        return new ProcessResult(process.ExitCode, stdout.Result, stderr.Result);
    }

    private static string Locate(string variable, string relative)
    {
        string? explicitPath = Environment.GetEnvironmentVariable(variable);
        if (!string.IsNullOrEmpty(explicitPath))
            return Path.GetFullPath(explicitPath);
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir != null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "build.sh")))
            {
                string candidate = Path.Combine(dir.FullName, relative);
                if (File.Exists(candidate))
                    return candidate;
                throw new FileNotFoundException($"{candidate} is missing: run ./build.sh test (or set {variable})");
            }
        }
        throw new FileNotFoundException($"repository root not found above {AppContext.BaseDirectory}; set {variable}");
    }
}
