using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Launcher.Watch;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>A small game project built once (Release) in a temporary folder, with a System.Text.Json
/// source-generated context and a LibraryImport, so it compiles only when the generators run.</summary>
public sealed class SmallGame : IDisposable
{
    private readonly TempDir _dir = new("watch-game");

    public SmallGame()
    {
        Project = Path.Combine(_dir.Path, "Small.csproj");
        File.WriteAllText(Project, """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup>
                <TargetFramework>net10.0</TargetFramework>
                <OutputType>Exe</OutputType>
                <Nullable>enable</Nullable>
                <ImplicitUsings>enable</ImplicitUsings>
                <AllowUnsafeBlocks>true</AllowUnsafeBlocks>
                <TreatWarningsAsErrors>true</TreatWarningsAsErrors>
              </PropertyGroup>
            </Project>
            """);
        File.WriteAllText(Game, """
            using System.Runtime.InteropServices;
            using System.Text.Json.Serialization;

            Console.WriteLine(System.Text.Json.JsonSerializer.Serialize(Rules.Point(), PointContext.Default.Point));

            public record Point(int X, int Y);

            [JsonSerializable(typeof(Point))]
            public partial class PointContext : JsonSerializerContext { }

            public static partial class Rules
            {
                public static Point Point() => new(1, Speed());

                public static int Speed() => 7;

                [LibraryImport("libc", EntryPoint = "getpid")]
                public static partial int GetPid();
            }
            """);
        File.WriteAllText(Other, "internal static class Other { public static string Name() => \"other\"; }\n");
        ProcessResult build = Processes.Run("dotnet", ["build", Project, "-c", "Release", "-nologo", "-v", "quiet"],
                                            workingDirectory: _dir.Path, timeout: TimeSpan.FromMinutes(3));
        if (build.ExitCode != 0)
            throw new InvalidOperationException($"the small game does not build\n{build}");
        Arguments = CompilerArguments.Read(Project, "Release", TimeSpan.FromMinutes(2));
    }

    public string Project { get; }

    public string Folder => _dir.Path;

    public string Game => Path.Combine(_dir.Path, "Game.cs");

    public string Other => Path.Combine(_dir.Path, "Other.cs");

    /// <summary>The project's compiler arguments, from MSBuild.</summary>
    public IReadOnlyList<string> Arguments { get; }

    public string Temp(string name) => Path.Combine(_dir.Sub("scratch"), name);

    public void Dispose() => _dir.Dispose();
}

/// <summary>watch's compile service: the project's compiler arguments from MSBuild, Roslyn in
/// process (unchanged sources reproduce the build; errors as the compiler prints them; only saved
/// files reparsed), and drops that appear whole. Facts that edit a source restore it.</summary>
public sealed class CompileServiceTests(SmallGame game) : IClassFixture<SmallGame>
{
    [Fact]
    public void TheArgumentsAreTheProjectsCompilerCommandLine()
    {
        Assert.Contains(game.Arguments, a => a.EndsWith("Game.cs", StringComparison.Ordinal));
        Assert.Contains("/optimize+", game.Arguments);
        Assert.Contains(game.Arguments, a => a.StartsWith("/analyzer:", StringComparison.Ordinal) &&
                                             a.EndsWith("System.Text.Json.SourceGeneration.dll", StringComparison.Ordinal));
        Assert.Contains(game.Arguments, a => a.StartsWith("/out:", StringComparison.Ordinal));
    }

    [Fact]
    public void UnchangedSourcesReproduceTheBuildAndAnEditDoesNot()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        Assert.True(compiler.GeneratorCount > 0);
        CompileResult first = compiler.Compile();
        Assert.True(first.Succeeded, string.Join('\n', first.Errors));
        string ours = game.Temp("unchanged.dll");
        File.WriteAllBytes(ours, first.Image!);
        AssemblyComparison same = AssemblyComparer.Compare(compiler.BuiltOutput, ours);
        Assert.True(same.IsCompared, same.RefusalMessage);
        Assert.Empty(same.ChangedMethods);
        Assert.Empty(same.RudeEdits);
        Assert.Empty(same.GeneratedChanges);

        string original = File.ReadAllText(game.Game);
        try
        {
            File.WriteAllText(game.Game, original.Replace("Speed() => 7;", "Speed() => 8;", StringComparison.Ordinal));
            CompileResult edited = compiler.Compile();
            Assert.True(edited.Succeeded, string.Join('\n', edited.Errors));
            string changed = game.Temp("edited.dll");
            File.WriteAllBytes(changed, edited.Image!);
            AssemblyComparison diff = AssemblyComparer.Compare(compiler.BuiltOutput, changed);
            MethodComparison method = Assert.Single(diff.ChangedMethods);
            Assert.Equal("Rules.Speed()", method.Member);
        }
        finally
        {
            File.WriteAllText(game.Game, original);
        }
    }

    [Fact]
    public void CompileErrorsArePrintedAsTheCompilerDoesAndNothingIsEmitted()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        string original = File.ReadAllText(game.Game);
        try
        {
            string broken = original.Replace("Speed() => 7;", "Speed() => 7 +;", StringComparison.Ordinal);
            File.WriteAllText(game.Game, broken);
            // Where the compiler points: the ';' after the '+', 1-based.
            string[] lines = broken.Split('\n');
            int line = Array.FindIndex(lines, l => l.Contains("7 +;", StringComparison.Ordinal));
            int column = lines[line].IndexOf("+;", StringComparison.Ordinal) + 2;
            CompileResult result = compiler.Compile();
            Assert.False(result.Succeeded);
            Assert.Null(result.Image);
            string error = Assert.Single(result.Errors);
            Assert.Equal($"{game.Game}({line + 1},{column}): error CS1525: Invalid expression term ';'", error);
        }
        finally
        {
            File.WriteAllText(game.Game, original);
        }
        Assert.True(compiler.Compile().Succeeded);
    }

    [Fact]
    public void OnlyTheSavedFilesAreReparsed()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        CompileResult first = compiler.Compile();
        Assert.Contains(game.Game, first.ChangedFiles);
        Assert.Contains(game.Other, first.ChangedFiles);
        Assert.Empty(compiler.Compile().ChangedFiles);
        string original = File.ReadAllText(game.Other);
        try
        {
            File.WriteAllText(game.Other, original.Replace("\"other\"", "\"another\"", StringComparison.Ordinal));
            CompileResult second = compiler.Compile();
            Assert.True(second.Succeeded, string.Join('\n', second.Errors));
            Assert.Equal([game.Other], second.ChangedFiles);
        }
        finally
        {
            File.WriteAllText(game.Other, original);
        }
        Assert.True(compiler.IsSource(game.Other));
        Assert.False(compiler.IsSource(game.Project));
    }

    [Fact]
    public async Task ADroppedAssemblyAppearsWhole()
    {
        using var dir = new TempDir("watch-drop");
        var drop = new DropFolder(dir.Sub("drop"));
        byte[] small = Enumerable.Repeat((byte)1, 10_000).ToArray();
        byte[] large = Enumerable.Repeat((byte)2, 3_000_000).ToArray();
        drop.Drop("Game", small, pdb: [9, 9]);
        string dll = Path.Combine(drop.Path, "Game.dll");

        // A reader polling the file while drops replace it sees one image or the other, whole.
        using var stop = new CancellationTokenSource();
        var seen = new List<int>();
        Task reader = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                byte[] read = File.ReadAllBytes(dll);
                Assert.True(read.Length == small.Length || read.Length == large.Length, $"a partial file: {read.Length} bytes");
                Assert.True(read.All(b => b == read[0]));
                lock (seen)
                    seen.Add(read.Length);
            }
        });
        var events = new List<string>();
        using (var watcher = new FileSystemWatcher(drop.Path, "*.dll") { EnableRaisingEvents = true })
        {
            watcher.Created += (_, e) => { lock (events) events.Add($"created {e.Name}"); };
            watcher.Renamed += (_, e) => { lock (events) events.Add($"renamed {e.OldName} -> {e.Name}"); };
            for (int i = 0; i < 20; i++)
                drop.Drop("Game", i % 2 == 0 ? large : small, pdb: null);
            Thread.Sleep(300);
        }
        stop.Cancel();
        await reader;
        lock (seen)
            Assert.Contains(large.Length, seen);
        // Game.dll itself is never created or written: it only arrives by rename.
        lock (events)
        {
            Assert.NotEmpty(events);
            Assert.All(events, e => Assert.Matches(@"^renamed Game\.dll\.\d+\.tmp -> Game\.dll$", e));
        }
        Assert.Equal(["Game.dll", "Game.pdb"], Directory.GetFiles(drop.Path).Select(Path.GetFileName).Order());
    }

    [Fact]
    public void TheGamesResultIsReadOnceItIsNewerThanTheDrop()
    {
        using var dir = new TempDir("watch-result");
        var drop = new DropFolder(dir.Path);
        File.WriteAllText(Path.Combine(dir.Path, "Game.result.txt"), "an old result");
        DateTime dropped = drop.Drop("Game", [1], pdb: null);
        File.SetLastWriteTimeUtc(Path.Combine(dir.Path, "Game.result.txt"), dropped - TimeSpan.FromSeconds(5));
        Assert.Null(drop.WaitForResult("Game", dropped, TimeSpan.FromMilliseconds(300), () => false, CancellationToken.None));
        _ = Task.Run(() =>
        {
            Thread.Sleep(200);
            DropFolder.Write(Path.Combine(dir.Path, "Game.result.txt"), "Game: 1 method changed"u8.ToArray());
        });
        Assert.Equal("Game: 1 method changed",
                     drop.WaitForResult("Game", dropped, TimeSpan.FromSeconds(10), () => false, CancellationToken.None));
    }
}
