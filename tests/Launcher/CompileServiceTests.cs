using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Launcher.Watch;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>A small game project built once (Release) in a temporary folder, with a System.Text.Json
/// source-generated context and a LibraryImport, so it compiles only when the generators run.
/// One build serves the classes of <see cref="SmallGameCollection"/>, one after the other (their
/// facts edit its sources and restore them); WatchStopTests, the longest, has its own, so that it
/// runs beside them.</summary>
public sealed class SmallGame : IDisposable
{
    private readonly TempDir _dir = new("watch-game");
    private readonly Lazy<IReadOnlyList<string>> _arguments;

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
        _arguments = new(() => CompilerArguments.Read(Project, "Release", TimeSpan.FromMinutes(2)));
    }

    public string Project { get; }

    public string Folder => _dir.Path;

    public string Game => Path.Combine(_dir.Path, "Game.cs");

    public string Other => Path.Combine(_dir.Path, "Other.cs");

    /// <summary>The project's compiler arguments, from MSBuild (asked at the first use: the classes
    /// that start watch processes, which ask MSBuild themselves, never use them).</summary>
    public IReadOnlyList<string> Arguments => _arguments.Value;

    public void Dispose() => _dir.Dispose();
}

/// <summary>The classes that share one <see cref="SmallGame"/>: CompileServiceTests and
/// WatchProcessTests.</summary>
[CollectionDefinition(Name)]
public sealed class SmallGameCollection : ICollectionFixture<SmallGame>
{
    public const string Name = "small game";
}

/// <summary>watch's compile service: the project's compiler arguments from MSBuild, Roslyn in
/// process (the sources are the build's, by the PDB's checksums; an edit is the compiler's delta
/// of the changed method against the build; errors as the compiler prints them; only saved
/// files reparsed), and drops that appear whole. Facts that edit a source restore it.</summary>
[Collection(SmallGameCollection.Name)]
public sealed class CompileServiceTests(SmallGame game)
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

    private ProjectCompiler Started()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        SourceUpdate first = compiler.Read();
        Assert.True(first.Succeeded, string.Join('\n', first.Errors));
        compiler.Commit(first);
        return compiler;
    }

    [Fact]
    public void TheSourcesAreTheBuildsAndAnEditIsTheDeltaOfTheChangedMethod()
    {
        ProjectCompiler compiler = Started();
        Assert.True(compiler.GeneratorCount > 0);
        byte[] built = File.ReadAllBytes(compiler.BuiltOutput);
        Assert.Empty(BuildSources.Differences(built, compiler.BuiltPdb, compiler.Current, compiler.SourceFiles)!);
        EditSession session = EditSession.Start(compiler.Current, built, compiler.AssemblyName);

        string original = File.ReadAllText(game.Game);
        try
        {
            File.WriteAllText(game.Game, original.Replace("Speed() => 7;", "Speed() => 8;", StringComparison.Ordinal));
            SourceUpdate edited = compiler.Read();
            Assert.True(edited.Succeeded, string.Join('\n', edited.Errors));
            Assert.Equal([game.Game], edited.ChangedFiles);
            EditPlan plan = EditAnalyzer.Analyze(compiler.Current, edited.Compilation, edited.Changed, CancellationToken.None);
            Assert.Empty(plan.Refusals);
            Assert.Equal(["Rules.Speed()"], plan.Edits.Select(e => EditAnalyzer.Display(e.NewSymbol!)));
            (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(edited.Compilation, plan, edited.ChangedFiles,
                                                                                 CancellationToken.None);
            Assert.True(update is not null, string.Join('\n', errors));
            Assert.Equal(1, update.Methods);
            Assert.Equal(session.ModuleVersionId, update.Delta.ModuleVersionId);
            Assert.Equal("Small", update.Delta.AssemblyName);
            // The sources now differ from the build by that edit.
            Assert.Single(BuildSources.Differences(built, compiler.BuiltPdb, edited.Compilation, compiler.SourceFiles)!);
        }
        finally
        {
            File.WriteAllText(game.Game, original);
        }
    }

    [Fact]
    public void CompileErrorsArePrintedAsTheCompilerDoes()
    {
        ProjectCompiler compiler = Started();
        string original = File.ReadAllText(game.Game);
        try
        {
            string broken = original.Replace("Speed() => 7;", "Speed() => 7 +;", StringComparison.Ordinal);
            File.WriteAllText(game.Game, broken);
            // Where the compiler points: the ';' after the '+', 1-based.
            string[] lines = broken.Split('\n');
            int line = Array.FindIndex(lines, l => l.Contains("7 +;", StringComparison.Ordinal));
            int column = lines[line].IndexOf("+;", StringComparison.Ordinal) + 2;
            SourceUpdate result = compiler.Read();
            Assert.False(result.Succeeded);
            string error = Assert.Single(result.Errors);
            Assert.Equal($"{game.Game}({line + 1},{column}): error CS1525: Invalid expression term ';'", error);
        }
        finally
        {
            File.WriteAllText(game.Game, original);
        }
        Assert.True(compiler.Read().Succeeded);
    }

    [Fact]
    public void OnlyTheSavedFilesAreReparsed()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        SourceUpdate first = compiler.Read();
        Assert.Contains(game.Game, first.ChangedFiles);
        Assert.Contains(game.Other, first.ChangedFiles);
        compiler.Commit(first);
        Assert.Empty(compiler.Read().ChangedFiles);
        string original = File.ReadAllText(game.Other);
        try
        {
            File.WriteAllText(game.Other, original.Replace("\"other\"", "\"another\"", StringComparison.Ordinal));
            SourceUpdate second = compiler.Read();
            Assert.True(second.Succeeded, string.Join('\n', second.Errors));
            Assert.Equal([game.Other], second.ChangedFiles);
            Assert.Single(second.Changed);
        }
        finally
        {
            File.WriteAllText(game.Other, original);
        }
        Assert.True(compiler.IsSource(game.Other));
        Assert.False(compiler.IsSource(game.Project));
    }

    [Fact]
    public void OnlyTheFilesSavedSinceTheCommittedStateAreRead()
    {
        ProjectCompiler compiler = Started();
        string game0 = File.ReadAllText(game.Game), other0 = File.ReadAllText(game.Other);
        try
        {
            File.WriteAllText(game.Game, game0.Replace("Speed() => 7;", "Speed() => 8;", StringComparison.Ordinal));
            File.WriteAllText(game.Other, other0.Replace("\"other\"", "\"another\"", StringComparison.Ordinal));
            // Told only Game.cs was saved: Other.cs keeps its committed text, unread.
            SourceUpdate first = compiler.Read([game.Game], null, CancellationToken.None);
            Assert.Equal([game.Game], first.ChangedFiles);
            // Not committed (the game refused it, say): Game.cs is read again with the next save.
            SourceUpdate second = compiler.Read([game.Other], null, CancellationToken.None);
            Assert.Equal([game.Game, game.Other], second.ChangedFiles.Order(StringComparer.Ordinal));
            compiler.Commit(second);
            Assert.Empty(compiler.Read([], null, CancellationToken.None).ChangedFiles);
            // A commit of another state than the last read (the game went back to it): every file is read.
            compiler.Commit(first);
            Assert.Equal([game.Other], compiler.Read([], null, CancellationToken.None).ChangedFiles);
        }
        finally
        {
            File.WriteAllText(game.Game, game0);
            File.WriteAllText(game.Other, other0);
        }
    }

    [Fact]
    public async Task ADroppedUpdateAppearsWhole()
    {
        using var dir = new TempDir("watch-drop");
        var drop = new DropFolder(dir.Sub("drop"));
        ReloadDelta Delta(int size, byte fill) =>
            new("Game", Guid.Empty, Enumerable.Repeat(fill, size).ToArray(), new byte[] { fill });
        ReloadDelta small = Delta(10_000, 1), large = Delta(3_000_000, 2);
        drop.Drop("Game", small);
        string file = Path.Combine(drop.Path, "Game.hotreload");

        // A reader polling the file while drops replace it sees one update or the other, whole.
        using var stop = new CancellationTokenSource();
        var seen = new List<int>();
        Task reader = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                ReloadDelta read = ReloadDelta.Read(File.ReadAllBytes(file));
                Assert.True(read.Metadata.Length is 10_000 or 3_000_000, $"a partial update: {read.Metadata.Length} bytes");
                lock (seen)
                    seen.Add(read.Metadata.Length);
            }
        });
        bool SawLarge()
        {
            lock (seen)
                return seen.Contains(3_000_000);
        }
        var events = new List<string>();
        using (var watcher = new FileSystemWatcher(drop.Path, "*.hotreload") { EnableRaisingEvents = true })
        {
            watcher.Created += (_, e) => { lock (events) events.Add($"created {e.Name}"); };
            watcher.Renamed += (_, e) => { lock (events) events.Add($"renamed {e.OldName} -> {e.Name}"); };
            // At least 20 drops, and on until the reader has seen a large one (a loaded machine
            // can let 20 drops pass between two of its reads), for at most 10 s.
            var deadline = DateTime.UtcNow.AddSeconds(10);
            for (int i = 0; i < 20 || (!SawLarge() && DateTime.UtcNow < deadline); i++)
                drop.Drop("Game", i % 2 == 0 ? large : small);
            Thread.Sleep(300);
        }
        stop.Cancel();
        await reader;
        lock (seen)
            Assert.Contains(3_000_000, seen);
        // Game.hotreload itself is never created or written: it only arrives by rename.
        lock (events)
        {
            Assert.NotEmpty(events);
            Assert.All(events, e => Assert.Matches(@"^renamed Game\.hotreload\.\d+\.tmp -> Game\.hotreload$", e));
        }
        Assert.Equal(["Game.hotreload"], Directory.GetFiles(drop.Path).Select(Path.GetFileName));
    }

    [Fact]
    public void TheGamesAnswerToTheUpdateIsRead()
    {
        using var dir = new TempDir("watch-result");
        var drop = new DropFolder(dir.Path);
        string result = Path.Combine(dir.Path, "Game.result.txt");
        Guid mine = Guid.NewGuid(), earlier = Guid.NewGuid();
        string Header(string outcome, int generation, Guid id, Guid update) =>
            $"#alvk outcome={outcome} generation={generation} id={id:D} update={update:D}";
        DropFolder.Write(result, System.Text.Encoding.UTF8.GetBytes(Header("Applied", 1, earlier, earlier) + "\nthe one before"));
        DateTime dropped = drop.Drop("Game", new ReloadDelta("Game", Guid.Empty, new byte[] { 1 }, new byte[] { 1 }));
        // The answer to another update is not this one's, however new it is.
        Assert.Null(drop.WaitForResult("Game", mine, dropped, TimeSpan.FromMilliseconds(300), () => false, CancellationToken.None));
        // An answer to a file the game could not read (no update id) counts once it is newer than the drop.
        DropFolder.Write(result, System.Text.Encoding.UTF8.GetBytes(Header("Refused", 1, earlier, Guid.Empty) + "\nnot a delta"));
        File.SetLastWriteTimeUtc(result, dropped - TimeSpan.FromSeconds(5));
        Assert.Null(drop.WaitForResult("Game", mine, dropped, TimeSpan.FromMilliseconds(300), () => false, CancellationToken.None));
        _ = Task.Run(() =>
        {
            Thread.Sleep(200);
            DropFolder.Write(result, System.Text.Encoding.UTF8.GetBytes(Header("Applied", 2, mine, mine) + "\nGame: 1 method changed"));
        });
        GameAnswer? answer = drop.WaitForResult("Game", mine, dropped, TimeSpan.FromSeconds(10), () => false, CancellationToken.None);
        Assert.NotNull(answer);
        Assert.True(answer.Applied);
        Assert.Equal((2, mine, mine), (answer.Generation, answer.Id, answer.Update));
        Assert.Equal("Game: 1 method changed", answer.Text);
        // A header without the update's id, or with a malformed one, is not an answer.
        Assert.Null(GameAnswer.Parse($"#alvk outcome=Applied generation=1 id={mine:D}\nx"));
        Assert.Null(GameAnswer.Parse($"#alvk outcome=Applied generation=1 id={mine:D} update=nope\nx"));
    }

    [Fact]
    public void TheWatcherFollowsTheGenerationTheGameSaysItRuns()
    {
        var compiler = new ProjectCompiler(game.Arguments, game.Folder);
        SourceUpdate build = compiler.Read();
        compiler.Commit(build);
        byte[] built = File.ReadAllBytes(compiler.BuiltOutput);
        EditSession session = EditSession.Start(compiler.Current, built, compiler.AssemblyName);
        var history = new UpdateHistory(build, session.Baseline);
        string original = File.ReadAllText(game.Game);
        (SourceUpdate, EmittedUpdate) Save(string speed)
        {
            File.WriteAllText(game.Game, original.Replace("Speed() => 7;", $"Speed() => {speed};", StringComparison.Ordinal));
            SourceUpdate sources = compiler.Read();
            Assert.True(sources.Succeeded, string.Join('\n', sources.Errors));
            EditPlan plan = EditAnalyzer.Analyze(compiler.Current, sources.Compilation, sources.Changed, CancellationToken.None);
            (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(sources.Compilation, plan, sources.ChangedFiles,
                                                                                 CancellationToken.None);
            Assert.True(update is not null, string.Join('\n', errors));
            Assert.NotEqual(Guid.Empty, update.Delta.UpdateId);
            return (sources, update);
        }
        GameAnswer Answer(ReloadOutcome outcome, int generation, Guid id, Guid update) => new(outcome, generation, id, update, "");
        Guid BaseOf(EmittedUpdate update)
        {
            using var provider = System.Reflection.Metadata.MetadataReaderProvider.FromMetadataImage(
                System.Collections.Immutable.ImmutableArray.Create(update.Delta.Metadata.Span));
            System.Reflection.Metadata.MetadataReader reader = provider.GetMetadataReader();
            System.Reflection.Metadata.ModuleDefinition module = reader.GetModuleDefinition();
            return module.BaseGenerationId.IsNil ? Guid.Empty : reader.GetGuid(module.BaseGenerationId);
        }
        try
        {
            // Update 1, applied.
            (SourceUpdate s1, EmittedUpdate u1) = Save("8");
            history.Dropped(s1, u1);
            history.Applied(compiler, session, s1, u1);
            Assert.Equal((1, u1.Delta.UpdateId), (session.Generation, history.Current));

            // Update 2 dropped; the watcher stopped waiting; the game applied it after all.
            (SourceUpdate s2, EmittedUpdate u2) = Save("9");
            Assert.Equal(u1.Delta.UpdateId, BaseOf(u2));
            history.Dropped(s2, u2);
            Assert.Equal("the game applied update 2 after all",
                         history.Follow(Answer(ReloadOutcome.Applied, 2, u2.Delta.UpdateId, u2.Delta.UpdateId), compiler, session));
            Assert.Equal((2, u2.Delta.UpdateId), (session.Generation, history.Current));
            Assert.Null(history.Pending);

            // The game restarted from the build: a refusal says it runs generation 0. The
            // watcher goes back to the build, and the next update carries every change since.
            (SourceUpdate s3, EmittedUpdate u3) = Save("10");
            history.Dropped(s3, u3);
            string? moved = history.Follow(Answer(ReloadOutcome.Refused, 0, Guid.Empty, u3.Delta.UpdateId), compiler, session);
            Assert.StartsWith("the game runs the build again", moved);
            Assert.Equal((0, Guid.Empty), (session.Generation, history.Current));
            (_, EmittedUpdate again) = Save("10");
            Assert.Equal(Guid.Empty, BaseOf(again));

            // A generation this watcher never made is named, and nothing moves.
            string? unknown = history.Follow(Answer(ReloadOutcome.Refused, 4, Guid.NewGuid(), Guid.NewGuid()), compiler, session);
            Assert.Contains("which this watcher did not make", unknown);
            Assert.Equal(0, session.Generation);
        }
        finally
        {
            File.WriteAllText(game.Game, original);
        }
    }
}
