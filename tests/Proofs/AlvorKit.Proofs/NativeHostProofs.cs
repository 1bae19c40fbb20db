using System.Collections.Immutable;
using AlvorKit.Interception.Launcher.Watch;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A runtime hosted as game engines embed .NET, not started by `dotnet app.dll`: the C program of
/// tests/NativeHost (alvk_native_host) finds hostfxr with nethost, starts the runtime from
/// HostedGame's runtimeconfig.json (hostfxr_initialize_for_runtime_config) and calls its
/// [UnmanagedCallersOnly] entry point through load_assembly_and_get_function_pointer, which loads
/// the game into an isolated load context of its own. Under `alvorkit-intercept run` the game,
/// in that runtime, installs and removes a replacement, weaves and removes a prefix and a
/// postfix, applies a hot reload to a level assembly this proof compiled (the update made from
/// an edit of it by the watcher's own EditSession) and reverts it, and counts an exact
/// allocation window; every value it printed is asserted here, with tiering on and off. The same
/// program and game without the launcher hold nothing: the profiler is what makes them hold.
/// </summary>
[Trait("Feature", "Launch and loading")]
public sealed class NativeHostProofs(NativeHostProofs.HostedLevel level) : IClassFixture<NativeHostProofs.HostedLevel>
{
    private const string Modules = "HostedGame,HostedGame.Level";

    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(2);

    /// <summary>The C host, built by build.sh (cmake -DALVK_NATIVE_HOST=ON into build/native-host).</summary>
    public static string Host { get; } = Checkout.Required("ALVK_NATIVE_HOST_PROGRAM",
        "run ./build.sh test (it builds tests/NativeHost into build/native-host)",
        "build", "native-host", "tests", "NativeHost", "alvk_native_host");

    /// <summary>The hosted game, built with this project (a project reference).</summary>
    public static string Game { get; } = Checkout.Required(null, "build tests/Proofs/AlvorKit.Proofs (it builds HostedGame)",
        "tests", "NativeHost", "HostedGame", "bin", Checkout.Configuration, "net10.0", "HostedGame.dll");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PatchHookReloadAndCaptureHoldInARuntimeHostedThroughHostfxr(string tiering)
    {
        ProcessResult run = ChildProcess.Run("dotnet",
            [ReloadLoop.Launcher, "run", "--profiler", ProfiledProcess.NativeLibrary, "--modules", Modules, "--allocations=exact",
             "--", Host, Game, level.Assembly, level.Update],
            PatchReports.Tiering(tiering), timeout: Limit);
        Assert.True(run.ExitCode == 0, run.ToString());
        HostedOutput output = new(run);

        // The C host: hostfxr found by nethost, the runtime started from the game's runtimeconfig.json.
        Assert.Matches(@"/host/fxr/[0-9][^/]*/libhostfxr\.so$", output.Value("host", "hostfxr"));
        Assert.Equal(Path.ChangeExtension(Game, ".runtimeconfig.json"), output.Value("host", "config"));
        Assert.Equal("HostedGame.Entry.Run", output.Value("host", "entry"));
        Assert.Equal("2", output.Value("host", "arguments"));
        Assert.Equal("0", output.Value("host", "exit"));

        // The game runs in that program's process, in the isolated context hostfxr made for it,
        // with the profiler loaded and patching on.
        Assert.Equal(Host, output.Value("hosted", "process"));
        Assert.Equal($"IsolatedComponentLoadContext({Game})", output.Value("hosted", "context"));
        Assert.Equal("False", output.Value("hosted", "default"));
        Assert.Equal("Ok", output.Value("hosted", "patching"));
        Assert.Equal("Exact", output.Value("hosted", "allocations"));

        // A replacement installed (Physics.Gravity 10 -> Mods.LowGravity 3), then removed.
        Assert.Equal("10", output.Value("patch", "original"));
        Assert.Equal("3", output.Value("patch", "installed"));
        Assert.Equal("Active", output.Value("patch", "state"));
        Assert.Equal("DirectCall", output.Value("patch", "path")); // the replacement is in the target's assembly
        Assert.Equal("10", output.Value("patch", "removed"));

        // A prefix and a postfix around Combat.Damage(7) = 14: the prefix saw the argument, the
        // postfix the original's 14 and added 1000; removed, neither runs.
        Assert.Equal("14", output.Value("hook", "original"));
        Assert.Equal("1014", output.Value("hook", "hooked"));
        Assert.Equal("1", output.Value("hook", "prefixCalls"));
        Assert.Equal("7", output.Value("hook", "prefixSaw"));
        Assert.Equal("14", output.Value("hook", "postfixSaw"));
        Assert.Equal("14", output.Value("hook", "removed"));
        Assert.Equal("1", output.Value("hook", "prefixCallsAfterRemove"));

        // The level's update: Rules.Name changed and a method added (carried by a side assembly
        // in the game's own context), then reverted to the build's body.
        Assert.Equal("game's context", output.Value("reload", "level"));
        Assert.Equal(HostedLevel.Original, output.Value("reload", "original"));
        Assert.Equal("Applied", output.Value("reload", "outcome"));
        Assert.Equal(HostedLevel.Reloaded, output.Value("reload", "reloaded"));
        Assert.Equal("HostedGame.Level.alvk-reload-1", output.Value("reload", "side"));
        Assert.Equal("Reverted", output.Value("reload", "revert"));
        Assert.Equal(HostedLevel.Original, output.Value("reload", "reverted"));

        // 5,000 Crates allocated inside the window, counted exactly.
        Assert.Equal("Exact", output.Value("allocations", "profiling"));
        Assert.Equal("HostedGame.Crate", output.Value("allocations", "type"));
        Assert.Equal("5000", output.Value("allocations", "allocated"));
        Assert.Equal("5000", output.Value("allocations", "counted"));
        Assert.Equal("False", output.Value("allocations", "estimate"));
        Assert.Equal(5000UL * (Environment.Is64BitProcess ? 24UL : 12UL), ulong.Parse(output.Value("allocations", "bytes"),
            System.Globalization.CultureInfo.InvariantCulture)); // header, method table and one int, padded

        Assert.Equal("True", output.Value("result", "held"));
    }

    [Fact]
    public void WithoutTheProfilerTheHostedGameHoldsNothing()
    {
        ProcessResult run = ChildProcess.Run(Host, [Game, level.Assembly, level.Update], timeout: Limit);
        Assert.Equal(1, run.ExitCode);
        HostedOutput output = new(run);
        Assert.Equal("HostedGame.Entry.Run", output.Value("host", "entry"));
        Assert.Equal(Host, output.Value("hosted", "process"));
        Assert.Equal("ProfilerNotLoaded", output.Value("hosted", "open"));
        Assert.Equal("False", output.Value("result", "held"));
        Assert.DoesNotContain("patch | ", run.Stdout, StringComparison.Ordinal);
        Assert.Equal("1", output.Value("host", "exit"));
    }

    /// <summary>The lines the host and the game print, `step | key=value | ...`.</summary>
    private sealed class HostedOutput(ProcessResult run)
    {
        private readonly List<(string Step, Dictionary<string, string> Values)> _lines = [.. run.Stdout.Split('\n')
            .Select(l => l.TrimEnd('\r').Split(" | "))
            .Where(parts => parts.Length > 1 && parts.Skip(1).All(p => p.Contains('=', StringComparison.Ordinal)))
            .Select(parts => (parts[0], parts.Skip(1).Select(p => p.Split('=', 2)).ToDictionary(kv => kv[0], kv => kv[1])))];

        /// <summary>The value of `key` on the one line of `step` that has it.</summary>
        public string Value(string step, string key)
        {
            var found = _lines.Where(l => l.Step == step && l.Values.ContainsKey(key)).ToList();
            Assert.True(found.Count == 1, $"{found.Count} '{step}' lines with {key}=\n{run}");
            return found[0].Values[key];
        }
    }

    /// <summary>
    /// The level assembly the hosted game loads and reloads, compiled here (Release, into a
    /// temporary folder), and its update: Rules.Name's body edited to call a method the edit adds,
    /// analyzed and emitted against that build by the watcher's own EditAnalyzer and EditSession.
    /// </summary>
    public sealed class HostedLevel : IDisposable
    {
        public const string Name = "HostedGame.Level";
        public const string Original = "level 1";
        public const string Reloaded = "level 2, reloaded";

        private const string Version0 = """
            namespace HostedGame.Level;

            public static class Rules
            {
                public static string Name() => "level 1";
            }
            """;

        private const string Version1 = """
            namespace HostedGame.Level;

            public static class Rules
            {
                public static string Name() => Decorate("level 2");

                private static string Decorate(string text) => text + ", reloaded";
            }
            """;

        private static readonly ImmutableArray<MetadataReference> References = AlvorKit.Tests.FrameworkReferences.All;

        private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("alvk-native-host-");

        public HostedLevel()
        {
            Assembly = Path.Combine(_folder.FullName, Name + ".dll");
            Update = Path.Combine(_folder.FullName, Name + ".hotreload");
            SyntaxTree tree = Parse(Version0);
            Compilation compilation = CSharpCompilation.Create(Name, [tree], References,
                new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release,
                                             deterministic: true));
            using (FileStream file = File.Create(Assembly))
            {
                EmitResult result = compilation.Emit(file, options: new EmitOptions(debugInformationFormat: DebugInformationFormat.Embedded));
                if (!result.Success)
                    throw new InvalidOperationException($"{Name} does not compile:\n" + string.Join("\n", result.Diagnostics));
            }
            EditSession session = EditSession.Start(compilation, File.ReadAllBytes(Assembly), Name);
            SyntaxTree edited = Parse(Version1);
            Compilation next = compilation.ReplaceSyntaxTree(tree, edited);
            EditPlan plan = EditAnalyzer.Analyze(compilation, next, [(tree, edited)], CancellationToken.None);
            if (plan.Refusals.Count > 0)
                throw new InvalidOperationException("refused: " + string.Join("; ", plan.Refusals));
            (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(next, plan, ["Level.cs"], CancellationToken.None);
            if (update is null)
                throw new InvalidOperationException("not emitted: " + string.Join("\n", errors));
            File.WriteAllBytes(Update, update.Delta.ToArray());
        }

        /// <summary>HostedGame.Level.dll, version 0.</summary>
        public string Assembly { get; }

        /// <summary>The update file (ReloadDelta) of the edit.</summary>
        public string Update { get; }

        private static SyntaxTree Parse(string source) =>
            CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest), path: "Level.cs",
                                       encoding: System.Text.Encoding.UTF8);

        public void Dispose()
        {
            try
            {
                _folder.Delete(recursive: true);
            }
            catch (IOException)
            {
            }
        }
    }
}
