using System.Diagnostics;
using AlvorKit.Tests.Support;

namespace AlvorKit.Interception.Launcher.Tests;

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
        string? workingDirectory = null, TimeSpan? timeout = null) =>
        ChildProcess.Run(file, args, env, workingDirectory, timeout ?? DefaultTimeout);

    public static ProcessStartInfo StartInfo(string file, IEnumerable<string> args,
        IReadOnlyDictionary<string, string?>? env = null, string? workingDirectory = null) =>
        ChildProcess.StartInfo(file, args, env, workingDirectory);
}
