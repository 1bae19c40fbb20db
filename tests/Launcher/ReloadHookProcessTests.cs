using System.Globalization;
using System.Text.RegularExpressions;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>A game with no AlvorKit code and no reference to AlvorKit: a console loop that prints
/// one frame every 50 ms, its text from Rules.Line(), made and built (Release) in a temporary
/// folder. `dotnet Loop.dll [frames] [exit code]`: 2400 frames (two minutes) and 0 by default.</summary>
public class LoopGame : IDisposable
{
    public const string Original = "the original rule";

    private readonly TempDir _dir;

    public LoopGame()
        : this("Loop", """
            int frames = args.Length > 0 ? int.Parse(args[0]) : 2400;
            int code = args.Length > 1 ? int.Parse(args[1]) : 0;
            Console.WriteLine($"loop: pid {Environment.ProcessId}");
            for (int i = 0; i < frames; i++)
            {
                Console.WriteLine($"frame {i}: {Rules.Line()}");
                Thread.Sleep(50);
            }
            return code;
            """, "")
    {
    }

    protected LoopGame(string name, string program, string items)
    {
        _dir = new TempDir("reload-game");
        Name = name;
        Project = Path.Combine(_dir.Path, name + ".csproj");
        File.WriteAllText(Project, $$"""
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <OutputType>Exe</OutputType>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
              </PropertyGroup>
              <ItemGroup>{{items}}</ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(_dir.Path, "Program.cs"), program);
        File.WriteAllText(Rules, $$"""
            internal static class Rules
            {
                public static string Line() => "{{Original}}";
            }
            """);
        ProcessResult build = Processes.Run("dotnet", ["build", Project, "-c", "Release", "-nologo", "-v", "quiet"],
                                            workingDirectory: _dir.Path, timeout: TimeSpan.FromMinutes(3));
        if (build.ExitCode != 0)
            throw new InvalidOperationException($"the game {name} does not build\n{build}");
    }

    /// <summary>The assembly's name: what --modules names.</summary>
    public string Name { get; }

    public string Project { get; }

    public string Folder => _dir.Path;

    public string Rules => Path.Combine(_dir.Path, "Rules.cs");

    public string Dll => Path.Combine(_dir.Path, "bin", "Release", "net10.0", Name + ".dll");

    /// <summary>Rules.Line() returns <paramref name="text"/> from the next save on; Dispose puts the original back.</summary>
    public IDisposable Edit(string text)
    {
        File.WriteAllText(Rules, File.ReadAllText(Rules).Replace(Original, text, StringComparison.Ordinal));
        return new Restore(Rules, Original, text);
    }

    public void Dispose()
    {
        _dir.Dispose();
        GC.SuppressFinalize(this);
    }

    private sealed class Restore(string path, string original, string text) : IDisposable
    {
        public void Dispose() => File.WriteAllText(path, File.ReadAllText(path).Replace(text, original, StringComparison.Ordinal));
    }
}

/// <summary>The same loop in a game that watches the folder itself, as samples/LiveDemo does:
/// `dotnet SelfWatch.dll &lt;folder&gt;`, each result printed after "game callback: " on one line. It
/// references the AlvorKit assemblies of this test's output, as a game references the package.</summary>
public sealed class SelfWatchingGame : LoopGame
{
    public SelfWatchingGame()
        : base("SelfWatch", """
            using AlvorKit.Interception;

            using var interceptor = Interceptor.Open();
            using IDisposable watch = interceptor.Reload.WatchFolder(args[0],
                result => Console.WriteLine("game callback: " + result.Summary.Replace('\n', '|')));
            for (int i = 0; i < 2400; i++)
            {
                Console.WriteLine($"frame {i}: {Rules.Line()}");
                Thread.Sleep(50);
            }
            """, string.Concat(References.Select(name => $"<Reference Include=\"{name}\"><HintPath>" +
                $"{Path.Combine(AppContext.BaseDirectory, name + ".dll")}</HintPath></Reference>")))
    {
    }

    private static readonly string[] References =
        ["AlvorKit.Interception", "AlvorKit.Interception.Native", "AlvorKit.Interception.Allocations"];
}

/// <summary>Hot reload with no code in the game, on real processes: `run --reload` gives the game
/// the launcher's startup hook, which watches the drop folder; `watch --project Game.csproj --
/// [command]` is the whole loop in one command (build, start under the profiler with reload on,
/// compile each save), and Ctrl+C or SIGTERM ends the game with it; a game that exits ends the
/// watch with the game's exit code. The facts run one at a time (one class): they edit one project.</summary>
public sealed partial class ReloadHookProcessTests(LoopGame game) : IClassFixture<LoopGame>
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(120);

    private static readonly UnixFileMode Private = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute;

    [Fact]
    public void RunReloadAppliesWatchsUpdatesInAGameWithNoAlvorKitCode()
    {
        string deps = Path.ChangeExtension(game.Dll, ".deps.json");
        Assert.DoesNotContain("AlvorKit", File.ReadAllText(deps), StringComparison.Ordinal);

        using var dir = new TempDir("run-reload");
        string drop = Path.Combine(dir.Path, "drop"); // made by the launcher, private
        using var run = StreamingProcess.Start("game", "dotnet",
            [Repo.Launcher, "run", "--reload", drop, "--modules", "Loop", "--", "dotnet", game.Dll],
            Processes.WithEmptyNuGetCache(), game.Folder);
        run.WaitFor(0, l => l == $"stderr: alvorkit-reload: watching {drop} for updates (patchable: Loop)", Wait,
                    "saying the hook watches the folder");
        run.WaitFor(0, l => l.EndsWith(": " + LoopGame.Original, StringComparison.Ordinal), Wait, "a frame");
        if (!OperatingSystem.IsWindows())
            Assert.Equal(Private, File.GetUnixFileMode(drop));

        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--warm-up", "1"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        // The hook answers the watcher's rehearsal as a game's own WatchFolder would.
        watch.WaitFor(0, l => l.StartsWith("watch: the game rehearsed an update in ", StringComparison.Ordinal), Wait,
                      "saying the game rehearsed");
        int mark = watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching").Index;

        int frames = run.Mark;
        using (game.Edit("a rule edited while the game runs"))
        {
            run.WaitFor(frames, l => l.EndsWith(": a rule edited while the game runs", StringComparison.Ordinal), Wait,
                        "a frame of the edited rule");
            run.WaitFor(frames, l => l.StartsWith("stderr: alvorkit-reload: Loop: 1 method changed, applied in ",
                                                  StringComparison.Ordinal), Wait, "the hook reporting the update");
            watch.WaitFor(mark, l => l.StartsWith("game: Loop: 1 method changed, applied in ", StringComparison.Ordinal),
                          Wait, "the game's answer");
        }
        Assert.DoesNotContain(run.Lines, l => l.Contains("Unhandled exception", StringComparison.Ordinal));
    }

    [Fact]
    public void WatchWithABareDoubleDashBuildsStartsReloadsAndCtrlCStopsBoth()
    {
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--warm-up", "1", "--"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        (int pid, string drop) = Started(watch, $" {game.Dll}; ");
        if (!OperatingSystem.IsWindows())
            Assert.Equal(Private, File.GetUnixFileMode(drop));
        watch.WaitFor(0, l => l.StartsWith("stderr: alvorkit-reload: watching ", StringComparison.Ordinal), Wait,
                      "the hook watching in the game");
        int mark = watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching").Index;
        watch.WaitFor(0, l => l.EndsWith(": " + LoopGame.Original, StringComparison.Ordinal), Wait, "a frame");

        using (game.Edit("one command, edited"))
        {
            mark = watch.WaitFor(mark, l => l.EndsWith(": one command, edited", StringComparison.Ordinal), Wait,
                                 "a frame of the edited rule").Index;
        }
        // The file put back: the frames show the original rule again.
        watch.WaitFor(mark, l => l.EndsWith(": " + LoopGame.Original, StringComparison.Ordinal), Wait,
                      "a frame of the original rule again");

        Assert.True(watch.Interrupt(TimeSpan.FromSeconds(30)),
            $"watch did not stop on SIGINT\n{watch.Tail(20)}\n{watch.Diagnose()}");
        AssertGone(pid, watch);
        // The game's exit code: 130, the SIGINT the launcher forwarded (no terminal delivered it); 143
        // if the launcher ran in a terminal's foreground group, left the game to the terminal, and
        // ended it with SIGTERM when none came.
        Assert.True(watch.ExitCode is 130 or 143, $"exit {watch.ExitCode}\n{watch.Tail(20)}");
        Assert.False(Directory.Exists(drop), $"watch's own drop folder {drop} was left behind");
    }

    [Fact]
    public void WatchWithACommandStopsTheGameOnSigTerm()
    {
        if (OperatingSystem.IsWindows())
            return;
        using var dir = new TempDir("watch-term");
        string drop = Path.Combine(dir.Path, "drop");
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--warm-up", "0", "--", "dotnet", game.Dll],
            Processes.WithEmptyNuGetCache(), game.Folder);
        (int pid, string given) = Started(watch, $" dotnet {game.Dll}; ");
        Assert.Equal(drop, given);
        watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching");

        Assert.True(watch.Signal(Signals.Terminate, TimeSpan.FromSeconds(30)),
            $"watch did not stop on SIGTERM\n{watch.Tail(20)}\n{watch.Diagnose()}");
        AssertGone(pid, watch);
        Assert.Equal(143, watch.ExitCode); // the game's: ended by the SIGTERM the launcher forwarded
        Assert.True(Directory.Exists(drop)); // --drop's folder is the user's: it stays
    }

    [Fact]
    public void AGameThatExitsEndsTheWatchWithItsExitCode()
    {
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--warm-up", "0", "--", "dotnet", game.Dll, "20", "7"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        watch.WaitFor(0, l => l == "watch: the game exited with code 7", Wait, "saying the game exited");
        watch.WaitFor(0, l => l == "watch: stopped", Wait, "stopping");
        // Signal 0 sends nothing: this only waits for the exit.
        Assert.True(watch.Signal(0, TimeSpan.FromSeconds(30)), watch.Tail(20));
        Assert.Equal(7, watch.ExitCode);
    }

    // The line that says the game started: its pid and the drop folder.
    private static (int Pid, string Drop) Started(StreamingProcess watch, string command)
    {
        string line = watch.WaitFor(0, l => l.StartsWith("watch: built in ", StringComparison.Ordinal), Wait,
                                    "saying it built and started the game").Line;
        Match started = StartedLine().Match(line);
        Assert.True(started.Success, line);
        Assert.Contains(command, line, StringComparison.Ordinal);
        // The game's assembly, and AlvorKit's own rehearsal assembly, which watch alone allowlists.
        Assert.Contains("; modules Loop;AlvorKit.Interception.Rehearsal; ", line, StringComparison.Ordinal);
        return (int.Parse(started.Groups[1].Value, CultureInfo.InvariantCulture), started.Groups[2].Value);
    }

    private static void AssertGone(int pid, StreamingProcess watch)
    {
        // kill(pid, 0) fails once no such process exists (the launcher reaped it before exiting).
        Assert.True(OperatingSystem.IsWindows() || Signals.Send(pid, 0) != 0,
                    $"the game (pid {pid}) outlived watch\n{watch.Tail(20)}");
        Assert.Contains(watch.Lines, l => l.StartsWith("watch: the game exited with code ", StringComparison.Ordinal));
    }

    [GeneratedRegex(@"; started the game \(pid (\d+)\): .*; reload on, drop folder (.+)$")]
    private static partial Regex StartedLine();
}

/// <summary>`run --reload` on a game that watches the same folder itself: the game's WatchFolder
/// joins the hook's watch, so each update is applied once and both hear of it.</summary>
public sealed class SharedWatchProcessTests(SelfWatchingGame game) : IClassFixture<SelfWatchingGame>
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(120);

    [Fact]
    public void TheGamesOwnWatchOfTheFolderSharesTheHooksAndEachUpdateIsAppliedOnce()
    {
        using var dir = new TempDir("shared-watch");
        string drop = Path.Combine(dir.Path, "drop");
        using var run = StreamingProcess.Start("game", "dotnet",
            [Repo.Launcher, "run", "--reload", drop, "--modules", game.Name, "--", "dotnet", game.Dll, drop],
            Processes.WithEmptyNuGetCache(), game.Folder);
        run.WaitFor(0, l => l.StartsWith("stderr: alvorkit-reload: watching ", StringComparison.Ordinal), Wait,
                    "the hook watching");
        run.WaitFor(0, l => l.EndsWith(": " + LoopGame.Original, StringComparison.Ordinal), Wait, "a frame");
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--warm-up", "0"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching");

        const string HookPrefix = "stderr: alvorkit-reload: ", GamePrefix = "game callback: ";
        int from = run.Mark;
        using (game.Edit("applied once"))
        {
            string hook = run.WaitFor(from, l => l.StartsWith(HookPrefix + "SelfWatch: 1 method changed, applied in ",
                                                               StringComparison.Ordinal), Wait, "the hook's result").Line;
            string own = run.WaitFor(from, l => l.StartsWith(GamePrefix + "SelfWatch: 1 method changed, applied in ",
                                                              StringComparison.Ordinal), Wait, "the game's result").Line;
            // One apply, two listeners: the same result, its timings included. Two watches would each
            // apply the update, and time their own apply.
            Assert.StartsWith(hook[HookPrefix.Length..] + "|", own[GamePrefix.Length..], StringComparison.Ordinal);
            int edited = run.WaitFor(from, l => l.EndsWith(": applied once", StringComparison.Ordinal), Wait,
                                     "a frame of the edited rule").Index;
            run.WaitFor(edited + 20, l => l.StartsWith("frame ", StringComparison.Ordinal), Wait, "a second of frames more");
            Assert.Single(run.Lines.Skip(from), l => l.StartsWith(HookPrefix + "SelfWatch: ", StringComparison.Ordinal));
            Assert.Single(run.Lines.Skip(from), l => l.StartsWith(GamePrefix, StringComparison.Ordinal));
        }
    }
}
