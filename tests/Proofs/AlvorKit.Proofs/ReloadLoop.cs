using AlvorKit.Tests.Support;

namespace AlvorKit.Proofs;

/// <summary>
/// The edit-save-run loop of HotReloadProofs, set up once for the class: a copy of
/// tests/Proofs/AlvorKit.Proofs.ReloadGame in a temporary folder, built Release; two games from
/// that build under the profiler (ALVORKIT_INTERCEPTION_MODULES=ReloadGame), one with tiered
/// compilation and one without, both watching one drop folder; and `alvorkit-intercept watch` on
/// the game's project and on its library's (which is loaded but not allowlisted), dropping there.
/// Every wait is bounded and fails with what was awaited and the process's last lines.
/// </summary>
public sealed class ReloadLoop : IDisposable
{
    public static readonly TimeSpan Wait = TimeSpan.FromSeconds(25);

    private readonly List<StreamingProcess> _processes = [];

    public ReloadLoop()
    {
        Folder = Directory.CreateTempSubdirectory("alvk-reload-").FullName;
        try
        {
            Project = Path.Combine(Folder, "game");
            Drop = Path.Combine(Folder, "drop");
            CopyGame(Checkout.File("tests", "Proofs", "AlvorKit.Proofs.ReloadGame"), Project);
            // Where the game finds AlvorKit.Interception.dll: the proof host's output, built with it.
            File.WriteAllText(Path.Combine(Project, "Interception.props"),
                $"<Project><PropertyGroup><AlvkInterceptionDir>{Path.GetDirectoryName(ProfiledProcess.Host)}/" +
                "</AlvkInterceptionDir></PropertyGroup></Project>\n");
            ProcessResult build = ChildProcess.Run("dotnet",
                ["build", Path.Combine(Project, "ReloadGame.csproj"), "-c", "Release", "-nologo", "-v", "quiet"],
                workingDirectory: Project, timeout: TimeSpan.FromMinutes(3));
            if (build.ExitCode != 0)
                throw new InvalidOperationException($"the reload game does not build\n{build}");
            string game = Path.Combine(Project, "bin", "Release", "net10.0", "ReloadGame.dll");

            Tiered = StartGame("game (tiering on)", game, tiered: true);
            NotTiered = StartGame("game (tiering off)", game, tiered: false);
            GameWatch = StartWatch("watch (game)", Path.Combine(Project, "ReloadGame.csproj"));
            LibWatch = StartWatch("watch (library)", Path.Combine(Project, "ReloadLib", "ReloadLib.csproj"));
            Baseline = Frames.Parse(Tiered.WaitFor(0, Frames.IsFrame, Wait, "with a first frame").Line);
            string other = NotTiered.WaitFor(0, Frames.IsFrame, Wait, "with a first frame").Line;
            if (!Frames.Parse(other).OrderBy(kv => kv.Key).SequenceEqual(Baseline.OrderBy(kv => kv.Key)))
                throw new InvalidOperationException($"the two games' first frames differ:\n{other}\n{Tiered.Tail(3)}");
            foreach (StreamingProcess w in new[] { GameWatch, LibWatch })
            {
                // The watcher's sources are the ones the build the games loaded was compiled from.
                (string said, _) = w.WaitFor(0, l => l.StartsWith("watch: the sources are the build's", StringComparison.Ordinal) ||
                                                     l.StartsWith("watch: WARNING", StringComparison.Ordinal) ||
                                                     l.StartsWith("watch: warning", StringComparison.Ordinal),
                                             TimeSpan.FromSeconds(60), "comparing its sources with the build");
                if (!said.StartsWith("watch: the sources are the build's", StringComparison.Ordinal))
                    throw new InvalidOperationException($"the watcher's sources are not the build's\n{w.Tail(20)}");
                _ = w.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "saying it watches");
            }
        }
        catch
        {
            Dispose();
            throw;
        }
    }

    /// <summary>The temporary folder: the game's copy and the drop folder.</summary>
    public string Folder { get; }

    /// <summary>The game's copy (edited by the proofs).</summary>
    public string Project { get; }

    public string Drop { get; }

    public StreamingProcess Tiered { get; } = null!;

    public StreamingProcess NotTiered { get; } = null!;

    public IReadOnlyList<StreamingProcess> Games => [Tiered, NotTiered];

    public StreamingProcess GameWatch { get; } = null!;

    public StreamingProcess LibWatch { get; } = null!;

    /// <summary>What every frame shows before any edit (the same in both games).</summary>
    public IReadOnlyDictionary<string, string> Baseline { get; } = new Dictionary<string, string>();

    /// <summary>The source file's path in the copy.</summary>
    public string Source(string relative) => Path.Combine(Project, relative);

    private StreamingProcess StartGame(string name, string game, bool tiered)
    {
        var environment = ProfiledProcess.ProfiledEnvironment("ReloadGame");
        if (!tiered)
            environment["DOTNET_TieredCompilation"] = "0";
        if (Environment.GetEnvironmentVariable("ALVK_PROOF_PRELOAD") is { Length: > 0 } preload)
            environment["LD_PRELOAD"] = preload;
        StreamingProcess process = StreamingProcess.Start(name, "dotnet", [game, Drop, "200"], environment, Project);
        _processes.Add(process);
        return process;
    }

    private StreamingProcess StartWatch(string name, string project)
    {
        StreamingProcess process = StreamingProcess.Start(name, "dotnet",
            [Launcher, "watch", "--project", project, "--drop", Drop, "--debounce", "50"], workingDirectory: Project);
        _processes.Add(process);
        return process;
    }

    public static string Launcher { get; } = Checkout.Required("ALVK_LAUNCHER", "build tools/Launcher (Release)",
        "tools", "Launcher", "bin", Checkout.Configuration, "net10.0", "AlvorKit.Interception.Launcher.dll");

    private static void CopyGame(string from, string to)
    {
        foreach (string file in Directory.EnumerateFiles(from, "*", SearchOption.AllDirectories))
        {
            string relative = Path.GetRelativePath(from, file);
            string[] parts = relative.Split(Path.DirectorySeparatorChar);
            if (parts.Any(p => p is "bin" or "obj"))
                continue;
            string target = Path.Combine(to, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target);
        }
    }

    public void Dispose()
    {
        foreach (StreamingProcess p in _processes)
            p.Dispose();
        try
        {
            Directory.Delete(Folder, recursive: true);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}

/// <summary>The reload game's frame lines: `frame N | key=value | ...`.</summary>
public static class Frames
{
    public static bool IsFrame(string line) => line.StartsWith("frame ", StringComparison.Ordinal);

    public static Dictionary<string, string> Parse(string line) =>
        line.Split(" | ").Skip(1).Select(p => p.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1]);

    public static string? Value(string line, string key) =>
        IsFrame(line) && Parse(line).TryGetValue(key, out string? value) ? value : null;
}
