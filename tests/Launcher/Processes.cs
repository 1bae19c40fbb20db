using System.Diagnostics;
using System.Text.Json.Nodes;

namespace AlvorKit.Interception.Launcher.Tests;

public sealed record ProcessResult(int ExitCode, string Stdout, string Stderr)
{
    /// <summary>The last stdout line that is a JSON object.</summary>
    public JsonObject LastJson() =>
        Stdout.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.StartsWith('{'))
            is { } line ? JsonNode.Parse(line)!.AsObject()
            : throw new InvalidOperationException($"no JSON line in stdout\n{this}");

    public override string ToString() => $"exit {ExitCode}\n--- stdout\n{Stdout}\n--- stderr\n{Stderr}";
}

/// <summary>Starts processes with an environment free of profiler, runtime and MSBuild
/// settings inherited from the test runner, plus what a test gives.</summary>
internal static class Processes
{
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(60);

    /// <summary>An empty NuGet global packages folder: a launcher run from the checkout must not
    /// pick up an AlvorKit.Interception.Profiler.Native package some restore left in ~/.nuget.</summary>
    public static string EmptyNuGetCache { get; } =
        Directory.CreateDirectory(Path.Combine(AppContext.BaseDirectory, "empty-nuget-cache")).FullName;

    /// <summary>`dotnet &lt;launcher&gt; args...`, with the empty NuGet cache unless `env` names one.</summary>
    public static ProcessResult Launcher(IEnumerable<string> args, IReadOnlyDictionary<string, string?>? env = null,
        string? workingDirectory = null, string? launcher = null) =>
        Run("dotnet", [launcher ?? Repo.Launcher, .. args], WithEmptyNuGetCache(env), workingDirectory);

    public static Dictionary<string, string?> WithEmptyNuGetCache(IReadOnlyDictionary<string, string?>? env = null)
    {
        var result = new Dictionary<string, string?> { ["NUGET_PACKAGES"] = EmptyNuGetCache };
        foreach (var (key, value) in env ?? new Dictionary<string, string?>())
            result[key] = value;
        return result;
    }

    public static ProcessResult Run(string file, IEnumerable<string> args, IReadOnlyDictionary<string, string?>? env = null,
        string? workingDirectory = null, TimeSpan? timeout = null)
    {
        ProcessStartInfo start = StartInfo(file, args, env, workingDirectory);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{file} did not start");
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        TimeSpan limit = timeout ?? DefaultTimeout;
        if (!process.WaitForExit(limit))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{file} {string.Join(' ', args)} did not exit within {limit.TotalSeconds} s");
        }
        if (!Task.WaitAll([stdout, stderr], TimeSpan.FromSeconds(10)))
            throw new TimeoutException($"{file}: its output stayed open after it exited (a build server holding it?)");
        return new ProcessResult(process.ExitCode, stdout.Result, stderr.Result);
    }

    public static ProcessStartInfo StartInfo(string file, IEnumerable<string> args,
        IReadOnlyDictionary<string, string?>? env = null, string? workingDirectory = null)
    {
        var start = new ProcessStartInfo(file)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Repo.Root,
        };
        foreach (string a in args)
            start.ArgumentList.Add(a);
        foreach (string key in start.Environment.Keys.ToList())
        {
            if (key.StartsWith("CORECLR_", StringComparison.Ordinal) ||
                key.StartsWith("ALVORKIT_", StringComparison.Ordinal) ||
                key.StartsWith("COMPlus_", StringComparison.OrdinalIgnoreCase) ||
                key.StartsWith("MSBuild", StringComparison.OrdinalIgnoreCase) ||
                (key.StartsWith("DOTNET_", StringComparison.Ordinal) && key != "DOTNET_ROOT"))
                start.Environment.Remove(key);
        }
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        // No MSBuild node or build server may outlive a build and hold its output pipes open.
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        start.Environment["UseSharedCompilation"] = "false";
        foreach (var (key, value) in env ?? new Dictionary<string, string?>())
        {
            if (value is null)
                start.Environment.Remove(key);
            else
                start.Environment[key] = value;
        }
        return start;
    }
}
