using System.Diagnostics;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization.Metadata;

namespace AlvorKit.Tests.Support;

/// <summary>What a child process did: its exit code and everything it wrote.</summary>
public sealed record ProcessResult(int ExitCode, string Stdout, string Stderr)
{
    /// <summary>The last stdout line that is a JSON object: the report a proof host or a
    /// probe prints when it finishes.</summary>
    public JsonObject Report =>
        Stdout.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.StartsWith('{')) is { } line
            ? JsonNode.Parse(line)!.AsObject()
            : throw new InvalidOperationException($"no JSON report in stdout\n{this}");

    /// <summary>The report (the last JSON line of stdout, as <see cref="Report"/>) read as a
    /// `T` through its generated contract. A report that does not fit `T` (a missing or
    /// unknown property, a null where `T` has none) throws, with the process's output.</summary>
    public T ReportAs<T>(JsonTypeInfo<T> contract)
    {
        string line = Stdout.Split('\n').Select(l => l.Trim()).LastOrDefault(l => l.StartsWith('{'))
            ?? throw new InvalidOperationException($"no JSON report in stdout\n{this}");
        try
        {
            return JsonSerializer.Deserialize(line, contract)
                ?? throw new InvalidOperationException($"a null {typeof(T).Name} report\n{this}");
        }
        catch (JsonException e)
        {
            throw new InvalidOperationException($"the report is not a {typeof(T).Name}: {e.Message}\n{this}", e);
        }
    }

    public override string ToString() => $"exit {ExitCode}\n--- stdout\n{Stdout}\n--- stderr\n{Stderr}";
}

/// <summary>
/// The one way tests start processes. The child's environment is the test runner's minus every
/// profiler, runtime and MSBuild setting (CORECLR_*, ALVORKIT_*, COMPlus_*, DOTNET_* but
/// DOTNET_ROOT, MSBuild*), plus what the test gives; a null value removes a variable. A child
/// that outlives its limit is killed with its whole tree and the test fails with a timeout.
/// </summary>
public static class ChildProcess
{
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(60);

    public static ProcessResult Run(string file, IEnumerable<string> args,
        IReadOnlyDictionary<string, string?>? environment = null, string? workingDirectory = null,
        TimeSpan? timeout = null)
    {
        string[] arguments = args.ToArray();
        ProcessStartInfo start = StartInfo(file, arguments, environment, workingDirectory);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{file} did not start");
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        TimeSpan limit = timeout ?? DefaultTimeout;
        if (!process.WaitForExit(limit))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException(
                $"{file} {string.Join(' ', arguments)} did not exit within {limit.TotalSeconds} s");
        }
        if (!Task.WaitAll([stdout, stderr], TimeSpan.FromSeconds(10)))
            throw new TimeoutException($"{file}: its output stayed open after it exited (a build server holding it?)");
        return new ProcessResult(process.ExitCode, stdout.Result, stderr.Result);
    }

    /// <summary>The start information Run uses, for a test that drives the process itself
    /// (writes to its stdin, say).</summary>
    public static ProcessStartInfo StartInfo(string file, IEnumerable<string> args,
        IReadOnlyDictionary<string, string?>? environment = null, string? workingDirectory = null)
    {
        var start = new ProcessStartInfo(file)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
            WorkingDirectory = workingDirectory ?? Checkout.Root,
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
        // No MSBuild node or MSBuild server may outlive a build and hold its output pipes open.
        // The C# compiler server (UseSharedCompilation) is left to the caller's environment: it
        // holds no output pipe of the build that started it, and ./build.sh runs it for a whole
        // test step and shuts it down at the step's end (counted_dotnet).
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        foreach (var (key, value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
                start.Environment.Remove(key);
            else
                start.Environment[key] = value;
        }
        return start;
    }
}
