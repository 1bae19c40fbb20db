using System.Collections.Immutable;
using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Launcher.Watch;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;

/// <summary>
/// The game of the reload measure and its updates, made as `alvorkit-intercept watch` makes
/// them: version 0 compiled as the game's Release build (FirstReload.dll), then each save's
/// source analyzed against the one before and emitted as the compiler's delta by the watcher's
/// own code (EditAnalyzer, EditSession), written as the update file the launcher drops
/// (<c>update-NN.hotreload</c>). Every save changes the same two bodies (a constant and a string),
/// so the first update and the later ones do the same work. Also the rehearsal the watcher drops
/// when it starts (an update of one method as itself, applied nowhere): <c>rehearsal.hotreload</c>.
/// </summary>
internal static class ReloadUpdates
{
    public const string GameName = "FirstReload";

    /// <summary>What <c>Game.Speed(1)</c> returns after update <c>n</c> (0: the build).</summary>
    public static int Speed(int n) => 8 + n;

    private static string Source(int n) => $$"""
        namespace FirstReload;
        public static class Game
        {
            public static int Speed(int x) => x + {{7 + n}};
            public static string Label() => "version {{n}}";
            public static int Other(int x) => x * 2;
        }
        """;

    /// <summary>Writes the build and <paramref name="updates"/> updates into <paramref name="folder"/>.</summary>
    public static void Write(string folder, int updates)
    {
        ImmutableArray<MetadataReference> references =
        [
            .. ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!)
                .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
                .Where(p => Path.GetFileName(p).StartsWith("System.", StringComparison.Ordinal) ||
                            Path.GetFileName(p) is "netstandard.dll" or "mscorlib.dll")
                .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)),
        ];
        SyntaxTree tree = Parse(Source(0));
        Compilation compilation = CSharpCompilation.Create(GameName, [tree], references,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release,
                                         deterministic: true));
        string game = Path.Combine(folder, GameName + ".dll");
        using (FileStream file = File.Create(game))
        {
            EmitResult built = compilation.Emit(file, options: new EmitOptions(debugInformationFormat: DebugInformationFormat.Embedded));
            if (!built.Success)
                throw new InvalidOperationException("the game does not compile:\n" + string.Join("\n", built.Diagnostics));
        }
        EditSession session = EditSession.Start(compilation, File.ReadAllBytes(game), GameName);

        // The watcher's rehearsal at its start (its WarmUp): a method updated as itself, not committed.
        ISymbol other = compilation.GetTypeByMetadataName("FirstReload.Game")!.GetMembers("Other").Single();
        var itself = new EditPlan([new SemanticEdit(SemanticEditKind.Update, other, other)],
                                  new HashSet<ISymbol>(SymbolEqualityComparer.Default), [], []);
        (EmittedUpdate? rehearsal, IReadOnlyList<string> errors) = session.Emit(compilation, itself, ["Game.cs"], CancellationToken.None);
        if (rehearsal is null)
            throw new InvalidOperationException("the rehearsal was not emitted: " + string.Join("\n", errors));
        ReloadDelta d = rehearsal.Delta;
        File.WriteAllBytes(Path.Combine(folder, "rehearsal.hotreload"),
            new ReloadDelta(d.AssemblyName, d.ModuleVersionId, d.Metadata, d.IL, d.Pdb, d.Notices, d.ChangedFiles)
            {
                RestoredMethods = d.RestoredMethods,
                IsRehearsal = true,
            }.ToArray());

        for (int n = 1; n <= updates; n++)
        {
            SyntaxTree next = Parse(Source(n));
            Compilation nextCompilation = compilation.ReplaceSyntaxTree(tree, next);
            EditPlan plan = EditAnalyzer.Analyze(compilation, nextCompilation, [(tree, next)], CancellationToken.None);
            if (plan.Refusals.Count > 0)
                throw new InvalidOperationException("refused: " + string.Join("; ", plan.Refusals));
            (EmittedUpdate? update, errors) = session.Emit(nextCompilation, plan, ["Game.cs"], CancellationToken.None);
            if (update is null)
                throw new InvalidOperationException("not emitted: " + string.Join("\n", errors));
            session.Commit(update);
            (compilation, tree) = (nextCompilation, next);
            File.WriteAllBytes(Path.Combine(folder, $"update-{n:D2}.hotreload"), update.Delta.ToArray());
        }
    }

    private static SyntaxTree Parse(string source) =>
        CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest), path: "Game.cs",
                                   encoding: System.Text.Encoding.UTF8);
}
