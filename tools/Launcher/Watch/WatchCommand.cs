using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// `watch`. With no game (`--drop &lt;folder&gt;` alone), <see cref="WatchSession"/> as it is: the
/// game was started some other way and watches the folder. With `-- [command]`, the whole loop in
/// one command, as `dotnet watch` is: the project is built (--configuration, Release by default),
/// the game is started under the profiler with reload on, as
/// `run --reload &lt;drop&gt; --modules &lt;the project's assembly&gt; -- &lt;command&gt;` would start it (a
/// bare `--`: `dotnet &lt;the project's TargetPath&gt;`), then every save is compiled into the drop
/// folder: --drop, or a private folder of watch's own, deleted at the end. The game exiting ends
/// the watch, and watch exits with the game's exit code; Ctrl+C or SIGTERM end both (the game is
/// ended when the watch stops, whatever stopped it).
/// </summary>
internal static class WatchCommand
{
    private const string Prefix = "watch: ";

    public static int Start(WatchOptions options) =>
        options.Game is null ? WatchSession.Start(options) : WithGame(options, Console.Out);

    private static int WithGame(WatchOptions options, TextWriter output)
    {
        // As WatchSession.Start: the SDK's compiler is found before anything needs its types.
        SdkCompiler.Require();
        string project = Path.GetFullPath(options.Project);
        if (!File.Exists(project))
            throw new LauncherException(ExitCodes.Usage, $"watch: no project file {project}");
        string hook = ReloadHook.Locate();

        var clock = Stopwatch.StartNew();
        Say(output, $"building {project} ({options.Configuration})");
        (string targetPath, string assemblyName) = Build(project, options.Configuration);
        IReadOnlyList<string> command = options.Game is { Count: > 0 } given
            ? given
            : [CompilerArguments.DotnetHost(), targetPath];

        string rid = Rids.Current();
        LocatedProfiler profiler = new ProfilerLocator
        {
            Rid = rid,
            ExplicitPath = options.ProfilerPath,
            AppDirectory = Program.AppDirectoryOf(command),
        }.Locate();
        string modules = ReloadHook.WatchModules(assemblyName);

        // The drop folder: a fresh private one (mode 0700, which the game's watch requires of a
        // folder) unless --drop names one; no update of an earlier session lies in a fresh one.
        string? own = null;
        string drop = options.Drop.Length > 0
            ? ReloadHook.PrepareFolder(options.Drop)
            : own = Directory.CreateTempSubdirectory("alvorkit-reload-").FullName;
        try
        {
            IReadOnlyList<Variable> variables =
            [
                .. new ProfilerSettings(profiler, rid, modules, AllocationProfiling.Off).Variables(),
                .. ReloadHook.Variables(drop, hook, Environment.GetEnvironmentVariable(ReloadHook.HooksVariable)),
            ];
            // Started before the watcher reads the project, so that the game watches the folder by
            // the time the watcher drops its rehearsal.
            using WatchedGame game = WatchedGame.Start(command, variables,
                code => Say(output, $"the game exited with code {code}"));
            Say(output, $"built in {Ms(clock.Elapsed)}; started the game (pid {game.Id}): {string.Join(' ', command)}; " +
                        $"profiler {profiler.Path} (from {profiler.Source}); modules {modules}; reload on, drop folder {drop}");
            try
            {
                new WatchSession(options with { Drop = drop, GameExited = game.Exited }, output).Run();
            }
            catch (LauncherException) when (game.Signaled)
            {
                // Stopped while it was starting (Ctrl+C reached MSBuild too): the signal says why, not MSBuild.
            }
            return game.Stop();
        }
        finally
        {
            if (own is not null)
                DeleteQuietly(own);
        }
    }

    /// <summary>`dotnet build` of the project, and the two properties the game's start needs, from
    /// the same MSBuild run. Its errors reach the launcher's stderr as the build prints them.</summary>
    private static (string TargetPath, string AssemblyName) Build(string project, string configuration)
    {
        var start = new ProcessStartInfo(CompilerArguments.DotnetHost())
        {
            RedirectStandardOutput = true,
            UseShellExecute = false,
            WorkingDirectory = Path.GetDirectoryName(project)!,
        };
        foreach (string arg in new[]
                 {
                     "build", project, "-nologo", "-c", configuration, "-t:Build",
                     "-getProperty:TargetPath", "-getProperty:AssemblyName",
                 })
            start.ArgumentList.Add(arg);
        // The build is not the game: no profiler, no startup hook meant for the game.
        foreach (string key in start.Environment.Keys.Where(k => k.StartsWith("CORECLR_", StringComparison.Ordinal)).ToList())
            start.Environment.Remove(key);
        start.Environment.Remove(ReloadHook.HooksVariable);
        start.Environment.Remove(ReloadHook.FolderVariable);

        using var process = Process.Start(start)
                            ?? throw new LauncherException(ExitCodes.BuildFailed, "watch: cannot start dotnet build");
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        int json = output.IndexOf('{', StringComparison.Ordinal);
        if (process.ExitCode != 0 || json < 0)
            throw new LauncherException(ExitCodes.BuildFailed,
                $"watch: dotnet build {project} -c {configuration} failed (exit {process.ExitCode}); the game was not " +
                $"started\n{(json < 0 ? output : output[..json]).Trim()}".TrimEnd());
        using JsonDocument document = JsonDocument.Parse(output.AsMemory(json));
        string Property(string name) =>
            document.RootElement.TryGetProperty("Properties", out JsonElement properties) &&
            properties.TryGetProperty(name, out JsonElement value) && value.GetString() is { Length: > 0 } text
                ? text
                : throw new LauncherException(ExitCodes.Usage,
                    $"watch: {project} has no {name} (a project of several target frameworks?): give the command that " +
                    "starts the game after `--`");
        return (Property("TargetPath"), Property("AssemblyName"));
    }

    private static void DeleteQuietly(string folder)
    {
        try
        {
            Directory.Delete(folder, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // a temporary folder left behind
        }
    }

    // Also called on the thread that reports the game's exit: Console.Out is synchronized.
    private static void Say(TextWriter output, string message)
    {
        output.WriteLine(Prefix + message);
        output.Flush();
    }

    private static string Ms(TimeSpan t) => string.Create(CultureInfo.InvariantCulture, $"{t.TotalMilliseconds:0} ms");
}
