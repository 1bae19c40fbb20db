using System.Diagnostics;
using System.Text.Json;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// The exact compiler command line of a project, asked of MSBuild once: `dotnet msbuild` runs the
/// project's Compile target with ProvideCommandLineArgs and SkipCompilerExecution, so nothing is
/// compiled and no output is written, and CoreCompile is forced to run by a NonExistentFile input
/// (it is otherwise skipped when the build is up to date). Referenced projects are not built
/// (BuildProjectReferences=false): they must have been built with the game.
/// </summary>
internal static class CompilerArguments
{
    /// <summary>The compiler arguments (csc's, relative paths against the project's folder).</summary>
    /// <exception cref="LauncherException">MSBuild failed or gave no compiler arguments.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled:
    /// MSBuild was ended.</exception>
    public static IReadOnlyList<string> Read(string projectPath, string configuration, TimeSpan timeout,
                                             CancellationToken cancellationToken = default)
    {
        var start = new ProcessStartInfo(DotnetHost())
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = Path.GetDirectoryName(projectPath)!,
        };
        foreach (string arg in new[]
                 {
                     "msbuild", projectPath, "-nologo", "-t:Compile", $"-p:Configuration={configuration}",
                     "-p:ProvideCommandLineArgs=true", "-p:SkipCompilerExecution=true",
                     "-p:NonExistentFile=__alvorkit_watch_nonexistent__", "-p:BuildProjectReferences=false",
                     "-getItem:CscCommandLineArgs",
                 })
            start.ArgumentList.Add(arg);
        // MSBuild is not the game: no profiler in it, no startup hook meant for the game, and no node
        // or server left behind.
        foreach (string key in start.Environment.Keys.Where(k => k.StartsWith("CORECLR_", StringComparison.Ordinal)).ToList())
            start.Environment.Remove(key);
        start.Environment.Remove(ReloadHook.HooksVariable);
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";

        using var process = Process.Start(start)
                            ?? throw new LauncherException(ExitCodes.BuildFailed, "cannot start dotnet msbuild");
        // Read to their end even when stopped: the ended process closes them.
        Task<string> stdout = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        Task<string> stderr = process.StandardError.ReadToEndAsync(CancellationToken.None);
        using (cancellationToken.Register(() => End(process)))
        {
            if (!process.WaitForExit(timeout))
            {
                End(process);
                throw new LauncherException(ExitCodes.BuildFailed,
                    $"dotnet msbuild {projectPath} did not finish within {timeout.TotalSeconds:0} s");
            }
        }
        process.WaitForExit();
        cancellationToken.ThrowIfCancellationRequested();
        string output = stdout.Result;
        if (process.ExitCode != 0)
            throw new LauncherException(ExitCodes.BuildFailed,
                $"dotnet msbuild could not read the compiler arguments of {projectPath} (exit {process.ExitCode}); " +
                $"build it once first (dotnet build -c {configuration}):\n{output.Trim()}\n{stderr.Result.Trim()}".TrimEnd());
        IReadOnlyList<string> args = Parse(output);
        if (args.Count == 0)
            throw new LauncherException(ExitCodes.BuildFailed,
                $"dotnet msbuild gave no compiler arguments for {projectPath}: is it a C# project?");
        return args;
    }

    private static void End(Process process)
    {
        try
        {
            process.Kill(entireProcessTree: true);
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            // exited meanwhile
        }
    }

    /// <summary>The items of `-getItem:CscCommandLineArgs` output, in order.</summary>
    internal static IReadOnlyList<string> Parse(string json)
    {
        int first = json.IndexOf('{', StringComparison.Ordinal);
        if (first < 0)
            throw new LauncherException(ExitCodes.BuildFailed, $"dotnet msbuild printed no item list:\n{json.Trim()}");
        using JsonDocument document = JsonDocument.Parse(json.AsMemory(first));
        if (!document.RootElement.TryGetProperty("Items", out JsonElement items) ||
            !items.TryGetProperty("CscCommandLineArgs", out JsonElement list) ||
            list.ValueKind != JsonValueKind.Array)
            return [];
        return list.EnumerateArray()
                   .Select(item => item.TryGetProperty("Identity", out JsonElement identity) ? identity.GetString() : null)
                   .OfType<string>()
                   .ToArray();
    }

    /// <summary>The dotnet host that runs this process (or the SDK's, when it set
    /// DOTNET_HOST_PATH), else `dotnet` on the PATH.</summary>
    internal static string DotnetHost()
    {
        if (Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host))
            return host;
        string? self = Environment.ProcessPath;
        if (self is not null && Path.GetFileNameWithoutExtension(self).Equals("dotnet", StringComparison.OrdinalIgnoreCase))
            return self;
        return "dotnet";
    }
}
