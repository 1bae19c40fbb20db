using AlvorKit.Interception.HotReload;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Emit;
using Microsoft.CodeAnalysis.Text;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// The first save's path, taken at the watcher's start without a save, so that the compiler's
/// code and the watcher's are JIT-compiled before the first real edit: a source file's text with
/// a comment added is read (reparsed, the generators run, the file checked for errors), the
/// edit is analyzed, an update of one of the file's methods as itself is emitted and the update
/// serialized. Nothing is committed; the last update is returned as a rehearsal for the game
/// (<see cref="ReloadDelta.IsRehearsal"/>: the game prepares it and applies nothing).
/// </summary>
internal static class WarmUp
{
    /// <summary>Runs that path <paramref name="times"/> times; returns the last update as a
    /// rehearsal, or null when the project has no method to emit.</summary>
    public static ReloadDelta? Run(ProjectCompiler compiler, EditSession session, int times, CancellationToken cancellationToken)
    {
        (string Path, SyntaxTree Tree, MethodDeclarationSyntax Method)? target = Target(compiler, cancellationToken);
        if (target is not { } t)
            return null;
        EmittedUpdate? last = null;
        SourceUpdate? read = null;
        SourceText original = t.Tree.GetText(cancellationToken);
        for (int i = 0; i < times && !cancellationToken.IsCancellationRequested; i++)
        {
            SourceText edited = original.WithChanges(new TextChange(new TextSpan(original.Length, 0), $"\n// warm-up {i}\n"));
            SourceUpdate update = read = compiler.Read(null, (t.Path, edited), cancellationToken);
            _ = EditAnalyzer.Analyze(compiler.Current, update.Compilation, update.Changed, cancellationToken);
            SyntaxTree tree = update.Trees[t.Path];
            MethodDeclarationSyntax method = tree.GetRoot(cancellationToken).DescendantNodes()
                .OfType<MethodDeclarationSyntax>().First(m => m.Identifier.Text == t.Method.Identifier.Text &&
                                                              m.SpanStart == t.Method.SpanStart);
            if (update.Compilation.GetSemanticModel(tree).GetDeclaredSymbol(method, cancellationToken) is not { } symbol)
                return null;
            var plan = new EditPlan([new SemanticEdit(SemanticEditKind.Update, symbol, symbol)],
                                    new HashSet<ISymbol>(SymbolEqualityComparer.Default), [], []);
            (EmittedUpdate? emitted, _) = session.Emit(update.Compilation, plan, update.ChangedFiles, cancellationToken);
            _ = emitted?.Delta.ToArray();
            last = emitted ?? last;
        }
        if (read is not null)
            compiler.AdoptGenerators(read);
        if (last?.Delta is not { } d)
            return null;
        return new ReloadDelta(d.AssemblyName, d.ModuleVersionId, d.Metadata, d.IL, d.Pdb, d.Notices, d.ChangedFiles)
        {
            RestoredMethods = d.RestoredMethods,
            IsRehearsal = true,
        };
    }

    /// <summary>Binds every source file of the committed compilation once, on a background
    /// thread, after the watcher is ready: the compiler's binding of each kind of code is then
    /// compiled by the JIT, and what it reads of the referenced assemblies loaded, before a save
    /// binds the file it changed. The diagnostics are not used (the build compiled these sources).</summary>
    public static void BindAllInBackground(ProjectCompiler compiler, CancellationToken cancellationToken)
    {
        Compilation compilation = compiler.Current;
        SyntaxTree[] own = [.. compilation.SyntaxTrees.Where(t => compiler.IsSource(t.FilePath))];
        var thread = new Thread(() =>
        {
            try
            {
                foreach (SyntaxTree tree in own)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    _ = compilation.GetSemanticModel(tree).GetDiagnostics(cancellationToken: cancellationToken);
                }
            }
            catch (OperationCanceledException)
            {
                // stopped
            }
        })
        { IsBackground = true, Name = "watch warm-up", Priority = ThreadPriority.BelowNormal };
        thread.Start();
    }

    // The first source file with an ordinary method of a class that has a body from which the
    // compiler synthesizes nothing (no lambda, local function, await, yield or initialized
    // data): in a Release baseline such members would be new ones, and the rehearsal would make
    // the game load a side assembly for them.
    private static (string, SyntaxTree, MethodDeclarationSyntax)? Target(ProjectCompiler compiler, CancellationToken cancellationToken)
    {
        foreach (string path in compiler.SourceFiles)
        {
            if (compiler.Current.SyntaxTrees.FirstOrDefault(t => t.FilePath == path) is not { } tree)
                continue;
            MethodDeclarationSyntax? method = tree.GetRoot(cancellationToken).DescendantNodes()
                .OfType<MethodDeclarationSyntax>()
                .FirstOrDefault(m => (m.Body is not null || m.ExpressionBody is not null) && m.Parent is ClassDeclarationSyntax &&
                                     !m.Modifiers.Any(SyntaxKind.AsyncKeyword) && !m.DescendantNodes().Any(Synthesizes));
            if (method is not null)
                return (path, tree, method);
        }
        return null;
    }

    private static bool Synthesizes(SyntaxNode node) =>
        node is AnonymousFunctionExpressionSyntax or LocalFunctionStatementSyntax or AwaitExpressionSyntax or
            YieldStatementSyntax or InitializerExpressionSyntax or CollectionExpressionSyntax or QueryExpressionSyntax or
            StackAllocArrayCreationExpressionSyntax or AnonymousObjectCreationExpressionSyntax ||
        node.IsKind(SyntaxKind.Utf8StringLiteralExpression);
}
