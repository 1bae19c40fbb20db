using System.Collections.Immutable;
using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Launcher.Watch;
using AlvorKit.Proofs.Reports;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;

namespace AlvorKit.Proofs;

/// <summary>
/// The game of HotReloadCoreProofs and the edits made to it, one kind of edit per step, as a
/// developer makes them: version 0 compiled as the game's Release build (ReloadCore.dll), then
/// each step's source analyzed against the one before and emitted as the compiler's delta by
/// the watcher's own code (EditAnalyzer, EditSession), written as the update file the host
/// applies. Each step names the value every probe of the game must return after it. Built once
/// into a temporary folder, with the script the host reads.
/// </summary>
internal sealed class HotReloadScenario : IDisposable
{
    public const string GameName = "ReloadCore";

    /// <summary>AlvorKit's own assembly whose one method the reload's warm-up patches for real (beside
    /// the proof host, as beside the launcher's startup hook).</summary>
    public const string RehearsalAssembly = "AlvorKit.Interception.Rehearsal";

    /// <summary>The probes, in the order of every step's expected values.</summary>
    public static readonly string[] Probes =
    [
        "Constant", "Literal", "Helper", "Instance", "Field", "StaticField", "Types", "Lambda", "Closure", "LocalFunction",
        "Async", "Iterator", "Data", "Members", "Generic", "Inlined", "Pair", "Ctor",
    ];

    private const string Version0 = """
        using System;
        using System.Collections.Generic;
        using System.Linq;
        using System.Runtime.CompilerServices;
        using System.Threading.Tasks;
        namespace ReloadCore;

        public class Unit
        {
            private int _hp = 10;
            public int Hp => _hp;
            public int Hit(int damage) => damage;
        }

        public struct Spot
        {
            public int X;
            public int Twice() => X * 2;
        }

        public static class Probes
        {
            // Created when the game starts, before any reload: an object that lived.
            public static readonly Unit Existing = new();

            public static string Constant() => "speed 7";
            public static string Literal() => "hello";
            public static string Helper() => "helper none";
            public static string Instance() => "instance " + Existing.Hit(3);
            public static string Field() => "field none";
            public static string StaticField() => "static none";
            public static string Types() => "types none";
            public static string Lambda() { Func<int, int> f = x => x + 1; return "lambda " + f(1); }
            public static string Closure() { int k = 2; Func<int, int> f = x => x * k; return "closure " + f(3); }
            public static string LocalFunction() => "local none";
            public static string Async() => "async " + AsyncValue().GetAwaiter().GetResult();
            private static async Task<int> AsyncValue() { await Task.Yield(); return 1; }
            public static string Iterator() => "iterator " + string.Join(",", Numbers());
            private static IEnumerable<int> Numbers() { yield return 1; yield return 2; }
            public static string Data() { int[] xs = [4, 5, 6]; return "data " + string.Join(",", new[] { 1, 2, 3 }) + " " + xs.Sum() + " " + "ab"u8.Length; }
            public static string Members() => "members none";
            public static string Generic() => "generic none";
            public static string Inlined() { long s = 0; for (int i = 0; i < 1000; i++) s += Tiny(); return "inlined " + s; }
            [MethodImpl(MethodImplOptions.AggressiveInlining)] private static int Tiny() => 1;
            public static string Pair() => Left() + "/" + Right();
            public static int Left() => 1;
            public static int Right() => 1;
            public static string Ctor() => "ctor " + new Unit().Hp + " " + new Spot().Twice();
        }
        """;

    private const string OtherSource = """
        namespace ReloadCoreOther;
        public static class Other { public static string Name() => "other 1"; }
        """;

    private static readonly string[] Initial =
    [
        "speed 7", "hello", "helper none", "instance 3", "field none", "static none", "types none", "lambda 2", "closure 6",
        "local none", "async 1", "iterator 1,2", "data 1,2,3 15 2", "members none", "generic none", "inlined 1000", "1/1",
        "ctor 10 0",
    ];

    /// <summary>The edits, in order: each its source changes (from, to), and the probes whose
    /// value it changes.</summary>
    private static readonly (string Name, (string From, string To)[] Edits, (string Probe, string Value)[] Changes)[] Edits =
    [
        ("constant", [("\"speed 7\"", "\"speed \" + (6 * 2)")], [("Constant", "speed 12")]),
        ("literal", [("\"hello\"", "\"howdy, a new literal\"")], [("Literal", "howdy, a new literal")]),
        ("added static method", [("public static string Helper() => \"helper none\";",
            "public static string Helper() => \"helper \" + Triple(5);\n    private static int Triple(int x) => x * 3;")],
            [("Helper", "helper 15")]),
        ("added instance method", [("public int Hit(int damage) => damage;",
            "public int Hit(int damage) => damage;\n    public int Armor(int damage) => damage - _hp / 2;"),
            ("\"instance \" + Existing.Hit(3)", "\"instance \" + Existing.Armor(20)")], [("Instance", "instance 15")]),
        ("added instance field", [("private int _hp = 10;", "private int _hp = 10;\n    private int _shield = 4;\n    public int Shield => _shield;"),
            ("public static string Field() => \"field none\";", "public static string Field() => $\"field {Existing.Shield} {new Unit().Shield}\";")],
            [("Field", "field 0 4")]),
        ("added static field", [("public static string StaticField() => \"static none\";",
            "private static int s_seed;\n    public static string StaticField() { s_seed = 21; return \"static \" + (s_seed * 2); }")],
            [("StaticField", "static 42")]),
        ("added types", [("public static string Types() => \"types none\";",
            "public static string Types() => $\"types {new Combo(2).Twice()} {new Pt(3, 4).Sum} {new Score(5)} {Grade.High} {new Unit.Buff().Power}\";"),
            ("public int Hp => _hp;", "public int Hp => _hp;\n    public sealed class Buff { public int Power => 9; }"),
            ("public static class Probes", """
            public sealed class Combo(int start) { private readonly List<int> _hits = [start]; public int Twice() => _hits.Sum() * 2; }
            public readonly struct Pt(int x, int y) { public int Sum => x + y; }
            public record Score(int Value);
            public enum Grade { Low = 1, High = 7 }
            public static class Probes
            """)], [("Types", "types 4 7 Score { Value = 5 } High 9")]),
        ("new lambdas", [("{ Func<int, int> f = x => x + 1; return \"lambda \" + f(1); }",
            "{ Func<int, int> f = x => x * 10; Func<int, int> g = x => x - 1; return \"lambda \" + g(f(1)); }")],
            [("Lambda", "lambda 9")]),
        ("closure capturing more", [("{ int k = 2; Func<int, int> f = x => x * k; return \"closure \" + f(3); }",
            "{ int k = 5; int m = 2; Func<int, int> f = x => x * k + m; return \"closure \" + f(3); }")],
            [("Closure", "closure 17")]),
        ("local function", [("public static string LocalFunction() => \"local none\";",
            "public static string LocalFunction() { int Add(int a) => a + 40; return \"local \" + Add(2); }")],
            [("LocalFunction", "local 42")]),
        ("new await", [("{ await Task.Yield(); return 1; }", "{ await Task.Yield(); await Task.Delay(1); return 2; }")],
            [("Async", "async 2")]),
        ("iterator", [("{ yield return 1; yield return 2; }", "{ yield return 1; yield return 2; yield return 3; }")],
            [("Iterator", "iterator 1,2,3")]),
        ("data", [("int[] xs = [4, 5, 6];", "int[] xs = [10, 20, 30];"), ("new[] { 1, 2, 3 }", "new[] { 7, 8, 9 }"),
            ("\"ab\"u8", "\"abcd\"u8")], [("Data", "data 7,8,9 60 4")]),
        ("properties events operators", [("public int Hit(int damage) => damage;", """
            public int Hit(int damage) => damage;
                public int Double => Hp * 2;
                public event Action? Changed;
                public void Raise() => Changed?.Invoke();
                public static Unit operator +(Unit a, Unit b) => a;
            """), ("public static string Members() => \"members none\";",
            "public static string Members() { var u = new Unit(); int n = 0; u.Changed += () => n++; u.Raise(); u.Raise(); return $\"members {u.Double} {n} {(u + u).Hp}\"; }")],
            [("Members", "members 20 2 10")]),
        ("generic type", [("public enum Grade", "public sealed class Box<T>(T value) { public T Value => value; }\npublic enum Grade"),
            ("public static string Generic() => \"generic none\";",
             "public static string Generic() => $\"generic {new Box<string>(\"s\").Value} {new Box<int>(3).Value} {new List<Box<int>> { new(4) }.Count}\";")],
            [("Generic", "generic s 3 1")]),
        ("inlined callee", [("private static int Tiny() => 1;", "private static int Tiny() => 2;")], [("Inlined", "inlined 2000")]),
        ("added constructors", [("public int Hp => _hp;", "public int Hp => _hp;\n    public Unit(int bonus) { _hp += bonus; }\n    public Unit() { }"),
            ("public int Twice() => X * 2;", "public int Twice() => X * 2;\n    public Spot(int x) { X = x; }"),
            ("\"ctor \" + new Unit().Hp + \" \" + new Spot().Twice()", "\"ctor \" + new Unit(5).Hp + \" \" + new Spot(4).Twice()")],
            [("Ctor", "ctor 15 8")]),
        ("edit of an added method", [("x * 3;", "x * 4;")], [("Helper", "helper 20")]),
        ("two halves in one save", [("public static int Left() => 1;", "public static int Left() => 2;"),
            ("public static int Right() => 1;", "public static int Right() => 2;")], [("Pair", "2/2")]),
    ];

    private static readonly ImmutableArray<MetadataReference> References = AlvorKit.Tests.FrameworkReferences.All;

    private static readonly Lazy<HotReloadScenario> SharedScenario = new(() =>
    {
        var scenario = new HotReloadScenario();
        AppDomain.CurrentDomain.ProcessExit += (_, _) => scenario.Dispose();
        return scenario;
    });

    /// <summary>The one build of the scenario for the whole test run, read by every class that
    /// needs it (HotReloadCoreProofs, DropFolderProofs): each of its builds compiles the game and
    /// emits every delta again, the same files each time. Its folder is deleted as the run ends.
    /// Its users only read what it wrote, and each writes into its own subfolder.</summary>
    public static HotReloadScenario Shared => SharedScenario.Value;

    private readonly DirectoryInfo _folder = Directory.CreateTempSubdirectory("alvk-hotreload-core-");

    public HotReloadScenario()
    {
        string game = Game = Path.Combine(_folder.FullName, GameName + ".dll");
        (Compilation compilation, SyntaxTree tree) = Build(GameName, Version0, game);
        string other = Path.Combine(_folder.FullName, "ReloadCoreOther.dll");
        (Compilation otherCompilation, SyntaxTree otherTree) = Build("ReloadCoreOther", OtherSource, other);
        EditSession session = EditSession.Start(compilation, File.ReadAllBytes(game), GameName);
        EditSession otherSession = EditSession.Start(otherCompilation, File.ReadAllBytes(other), "ReloadCoreOther");

        var steps = new List<HotReloadScriptStep>();
        string[] expected = [.. Initial];
        string source = Version0;
        string Write(string name, ReloadDelta delta)
        {
            string path = Path.Combine(_folder.FullName, $"{steps.Count:00}-{name.Replace(' ', '-')}.hotreload");
            File.WriteAllBytes(path, delta.ToArray());
            return path;
        }
        // Analyzed and emitted against the source the game runs; committed as the game applies it.
        ReloadDelta Next(string next, bool commit = true)
        {
            SyntaxTree nextTree = Parse(next);
            Compilation nextCompilation = compilation.ReplaceSyntaxTree(tree, nextTree);
            EditPlan plan = EditAnalyzer.Analyze(compilation, nextCompilation, [(tree, nextTree)], CancellationToken.None);
            if (plan.Refusals.Count > 0)
                throw new InvalidOperationException("refused: " + string.Join("; ", plan.Refusals));
            (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(nextCompilation, plan, ["Game.cs"], CancellationToken.None);
            if (update is null)
                throw new InvalidOperationException("not emitted: " + string.Join("\n", errors));
            if (commit)
            {
                session.Commit(update);
                (compilation, tree, source) = (nextCompilation, nextTree, next);
            }
            return update.Delta;
        }

        foreach ((string name, (string From, string To)[] edits, (string Probe, string Value)[] changes) in Edits)
        {
            string next = edits.Aggregate(source, (text, e) => text.Contains(e.From, StringComparison.Ordinal)
                ? text.Replace(e.From, e.To, StringComparison.Ordinal)
                : throw new InvalidOperationException($"step {name}: the source has no '{e.From}'"));
            foreach ((string probe, string value) in changes)
                expected[Array.IndexOf(Probes, probe)] = value;
            string file = Write(name, Next(next));
            // The first update rehearsed first: prepared, validated, applied nowhere; the same
            // update then applies, so the rehearsal left the generation where it was.
            if (steps.Count == 0)
                steps.Add(new HotReloadScriptStep("rehearsal", "rehearse", file, [.. Initial], Changes: false));
            steps.Add(new HotReloadScriptStep(name, "apply", file, [.. expected], Changes: true,
                                              Pair: name == "two halves in one save"));
        }

        // A virtual method added to a type that lives, emitted without the watcher's analysis
        // (which refuses it first): the game refuses it itself, and nothing changes.
        steps.Add(new HotReloadScriptStep("virtual method added (the game's own refusal)", "apply",
            Write("rude", RudeDelta(session, compilation, tree, source)), [.. expected], Changes: false));
        steps.Add(new HotReloadScriptStep("revert all", "revert", null, [.. Initial], Changes: true));
        // The original source again, after the revert: every original body, none kept as a copy.
        steps.Add(new HotReloadScriptStep("original source", "apply", Write("original", Next(Version0.Replace(
            "public static class Probes", Additions(source) + "public static class Probes", StringComparison.Ordinal))),
            [.. Initial], Changes: true));
        steps.Add(new HotReloadScriptStep("update through a watched folder", "watch", Write("watched",
            Next(source.Replace("\"speed 7\"", "\"speed 99\"", StringComparison.Ordinal))),
            [.. Initial.Select((v, i) => Probes[i] == "Constant" ? "speed 99" : v)], Changes: true));
        string[] last = [.. steps[^1].Expected];
        steps.Add(new HotReloadScriptStep("not a delta", "apply", Write("garbage", new ReloadDelta(GameName,
            session.ModuleVersionId, new byte[] { 0x42, 0x53, 0x4A, 0x42, 1, 2, 3 }, new byte[8])), last, Changes: false));
        steps.Add(new HotReloadScriptStep("an assembly that is not loaded", "apply", Write("absent", new ReloadDelta("Absent",
            Guid.NewGuid(), new byte[8], new byte[8])), last, Changes: false));
        SyntaxTree otherNext = Parse(OtherSource.Replace("other 1", "other 2", StringComparison.Ordinal));
        Compilation otherNextCompilation = otherCompilation.ReplaceSyntaxTree(otherTree, otherNext);
        (EmittedUpdate? otherUpdate, _) = otherSession.Emit(otherNextCompilation,
            EditAnalyzer.Analyze(otherCompilation, otherNextCompilation, [(otherTree, otherNext)], CancellationToken.None),
            [], CancellationToken.None);
        steps.Add(new HotReloadScriptStep("an assembly that is not allowlisted", "apply", Write("other", otherUpdate!.Delta),
                                          last, Changes: false));
        // An update of a generation the game never got: emitted after one that is never applied.
        _ = Next(source.Replace("\"speed 99\"", "\"speed 100\"", StringComparison.Ordinal));
        steps.Add(new HotReloadScriptStep("an update out of sequence", "apply", Write("skipped",
            Next(source.Replace("\"speed 100\"", "\"speed 101\"", StringComparison.Ordinal))), last, Changes: false));

        Script = Path.Combine(_folder.FullName, "script.json");
        File.WriteAllText(Script, ReportJson.Write(new HotReloadScript(game, other,
            [.. Probes.Select(p => "ReloadCore.Probes." + p)], steps)));
        Steps = steps;
    }

    /// <summary>The game's build (version 0).</summary>
    public string Game { get; }

    /// <summary>The script the host runs.</summary>
    public string Script { get; }

    public IReadOnlyList<HotReloadScriptStep> Steps { get; }

    // The types and members the edits added, kept in the "original source" version: put back
    // as the original, the probes' bodies are their own again, and what was added stays.
    private static string Additions(string source)
    {
        int start = source.IndexOf("public sealed class Combo", StringComparison.Ordinal);
        int end = source.IndexOf("public static class Probes", StringComparison.Ordinal);
        return source[start..end];
    }

    private static ReloadDelta RudeDelta(EditSession session, Compilation compilation, SyntaxTree tree, string source)
    {
        SyntaxTree rudeTree = Parse(source.Replace("public int Hp => _hp;",
            "public int Hp => _hp;\n    public virtual int Extra() => 1;", StringComparison.Ordinal));
        Compilation rude = compilation.ReplaceSyntaxTree(tree, rudeTree);
        ISymbol extra = rude.GetTypeByMetadataName("ReloadCore.Unit")!.GetMembers("Extra").Single();
        var plan = new EditPlan([new SemanticEdit(SemanticEditKind.Insert, null, extra)],
                                new HashSet<ISymbol>([extra], SymbolEqualityComparer.Default), [], []);
        (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(rude, plan, [], CancellationToken.None);
        return update?.Delta ?? throw new InvalidOperationException("the rude delta was not emitted: " + string.Join("\n", errors));
    }

    private static (Compilation Compilation, SyntaxTree Tree) Build(string name, string source, string path)
    {
        SyntaxTree tree = Parse(source);
        Compilation compilation = CSharpCompilation.Create(name, [tree], References,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release,
                                         nullableContextOptions: NullableContextOptions.Enable, deterministic: true));
        using (FileStream file = File.Create(path))
        {
            EmitResult result = compilation.Emit(file, options: new EmitOptions(debugInformationFormat: DebugInformationFormat.Embedded));
            if (!result.Success)
                throw new InvalidOperationException($"{name} does not compile:\n" + string.Join("\n", result.Diagnostics));
        }
        return (compilation, tree);
    }

    private static SyntaxTree Parse(string source) =>
        CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest), path: "Game.cs",
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
