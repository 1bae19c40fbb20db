using System.Collections.Immutable;
using System.Diagnostics;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Microsoft.CodeAnalysis.Text;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>The project's sources as read after a save: the compilation they make (generators
/// run), which documents changed since the committed state, and the compiler's errors in them.</summary>
/// <param name="Compilation">The compilation with the generators' output.</param>
/// <param name="User">The compilation of the project's own files (what the generators ran on).</param>
/// <param name="Driver">The generator driver after this run.</param>
/// <param name="Trees">The project's own trees by path.</param>
/// <param name="Changed">Each changed document (the project's and the generators'): its tree before and after.</param>
/// <param name="ChangedFiles">The project's files whose text changed.</param>
/// <param name="Errors">The compiler's errors in the changed documents, as it prints them.</param>
/// <param name="Elapsed">Reading, parsing, generating and checking.</param>
internal sealed record SourceUpdate(Compilation Compilation, CSharpCompilation User, GeneratorDriver Driver,
    IReadOnlyDictionary<string, SyntaxTree> Trees, IReadOnlyList<(SyntaxTree? Old, SyntaxTree? New)> Changed,
    IReadOnlyList<string> ChangedFiles, IReadOnlyList<string> Errors, TimeSpan Elapsed)
{
    public bool Succeeded => Errors.Count == 0;
}

/// <summary>
/// One project's sources as Roslyn compiles them in this process, from the compiler arguments
/// its build uses (CompilerArguments): the same sources, references, options, source generators
/// and analyzer config. It keeps the state the game runs (committed: the build it loaded, then
/// every update it applied) and reads a save against it: only files whose text changed are
/// reparsed, the generator driver runs incrementally, and only the changed documents are
/// checked for errors (an update compiles only the members that changed). The set of source
/// files is the one the arguments name: a file added to the project needs a new watcher.
/// </summary>
internal sealed class ProjectCompiler
{
    private readonly CSharpCommandLineArguments _args;
    private readonly CSharpParseOptions _parseOptions;
    private readonly HashSet<string> _sourceSet;
    private Dictionary<string, SyntaxTree> _trees = new(StringComparer.Ordinal);
    private CSharpCompilation _user;
    private GeneratorDriver _driver;

    // The files read with a new text since the committed state (null: every file must be read
    // again, after a commit of another state than the last read), and that last read.
    private HashSet<string>? _unsettled;
    private SourceUpdate? _lastRead;

    public ProjectCompiler(IReadOnlyList<string> compilerArguments, string projectDirectory)
    {
        _args = CSharpCommandLineParser.Default.Parse(compilerArguments, projectDirectory,
                                                      sdkDirectory: null, additionalReferenceDirectories: null);
        ImmutableArray<Diagnostic> bad = _args.Errors.Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        if (bad.Length > 0)
            throw new LauncherException(ExitCodes.BuildFailed,
                "the project's compiler arguments do not parse:\n" + string.Join('\n', bad.Select(d => d.ToString())));
        _parseOptions = _args.ParseOptions;
        ProjectDirectory = projectDirectory;
        AssemblyName = Path.GetFileNameWithoutExtension(_args.OutputFileName ?? _args.CompilationName ?? "")
                       is { Length: > 0 } name
            ? name
            : throw new LauncherException(ExitCodes.BuildFailed, "the project's compiler arguments name no output");
        SourceFiles = _args.SourceFiles.Select(f => Path.GetFullPath(f.Path, projectDirectory)).ToArray();
        _sourceSet = new HashSet<string>(SourceFiles, StringComparer.Ordinal);

        ProjectAnalyzerConfig config = ProjectAnalyzerConfig.Read(_args.AnalyzerConfigPaths);
        // A referenced project's output is missing when it was not built in this configuration.
        if (_args.MetadataReferences.Select(r => Path.GetFullPath(r.Reference, projectDirectory))
                .FirstOrDefault(p => !File.Exists(p)) is { } missing)
            throw new LauncherException(ExitCodes.BuildFailed,
                $"watch: {missing}, a reference of the project, is missing: build the project in the configuration " +
                "watch was given (--configuration), and start the game from that build");
        var references = _args.MetadataReferences.Select(r =>
            (MetadataReference)MetadataReference.CreateFromFile(Path.GetFullPath(r.Reference, projectDirectory), r.Properties));
        CSharpCompilationOptions options = _args.CompilationOptions
            .WithSyntaxTreeOptionsProvider(config.SeverityProvider)
            .WithStrongNameProvider(new DesktopStrongNameProvider(_args.KeyFileSearchPaths));
        _user = CSharpCompilation.Create(_args.CompilationName, [], references, options);

        var loader = new AnalyzerLoader();
        ISourceGenerator[] generators = _args.ResolveAnalyzerReferences(loader)
            .SelectMany(a => a.GetGenerators(LanguageNames.CSharp))
            .ToArray();
        GeneratorCount = generators.Length;
        ImmutableArray<AdditionalText> additional = [.. _args.AdditionalFiles.Select(f =>
            (AdditionalText)new FileText(Path.GetFullPath(f.Path, projectDirectory)))];
        _driver = CSharpGeneratorDriver.Create(generators, additional, _parseOptions, config.OptionsProvider);
        Current = _user;
    }

    public string ProjectDirectory { get; }

    /// <summary>The assembly's simple name (the file name of its output without .dll).</summary>
    public string AssemblyName { get; }

    /// <summary>Every source file the compiler arguments name, full paths.</summary>
    public IReadOnlyList<string> SourceFiles { get; }

    /// <summary>The source generators the arguments name (System.Text.Json's, LibraryImport's, ...).</summary>
    public int GeneratorCount { get; }

    /// <summary>The file the project's own build wrote (the compiler's /out:, in obj/).</summary>
    public string BuiltOutput => Path.Combine(_args.OutputDirectory, _args.OutputFileName!);

    /// <summary>Its portable PDB, when the build writes one beside it (null: embedded or none).</summary>
    public string? BuiltPdb => _args.EmitPdb && _args.EmitOptions.DebugInformationFormat != DebugInformationFormat.Embedded
        ? _args.PdbPath ?? Path.ChangeExtension(BuiltOutput, ".pdb")
        : null;

    /// <summary>The committed compilation (generators' output included): what the game runs.</summary>
    public Compilation Current { get; private set; }

    /// <summary>Whether <paramref name="path"/> is one of the project's source files.</summary>
    public bool IsSource(string path) => _sourceSet.Contains(Path.GetFullPath(path));

    /// <summary>Reads every source file, reparses those whose text differs from the committed
    /// state, runs the generators, and checks the changed documents (not at the first read: the
    /// build's sources); commits nothing. With
    /// <c>instead</c>: one file's text to use instead of the file's (the warm-up's edit, never saved).</summary>
    public SourceUpdate Read(CancellationToken cancellationToken = default) => Read(null, null, cancellationToken);

    /// <inheritdoc cref="Read(CancellationToken)"/>
    /// <param name="only">The files saved since the last read (null: any may have been): the
    /// others keep their committed text, unread.</param>
    /// <param name="instead">One file's text to use instead of the file's.</param>
    /// <param name="cancellationToken">Stops the read.</param>
    public SourceUpdate Read(IReadOnlyCollection<string>? only, (string Path, SourceText Text)? instead,
                             CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var trees = new Dictionary<string, SyntaxTree>(_trees, StringComparer.Ordinal);
        var changed = new List<(SyntaxTree? Old, SyntaxTree? New)>();
        var files = new List<string>();
        CSharpCompilation user = _user;
        foreach (string path in SourceFiles)
        {
            if (only is not null && _unsettled is not null && _trees.ContainsKey(path) && !only.Contains(path) &&
                !_unsettled.Contains(path) && !(instead is { } i && string.Equals(i.Path, path, StringComparison.Ordinal)))
                continue;
            SourceText text;
            try
            {
                if (instead is { } given && string.Equals(given.Path, path, StringComparison.Ordinal))
                {
                    text = given.Text;
                }
                else
                {
                    using FileStream stream = File.OpenRead(path);
                    text = SourceText.From(stream, _args.Encoding, _args.ChecksumAlgorithm);
                }
            }
            catch (IOException e)
            {
                return new SourceUpdate(Current, _user, _driver, _trees, [], files,
                                        [$"{path}: error: cannot read the file: {e.Message}"], clock.Elapsed);
            }
            if (_trees.TryGetValue(path, out SyntaxTree? old) && old.GetText(cancellationToken).ContentEquals(text))
                continue;
            SyntaxTree tree = CSharpSyntaxTree.ParseText(text, _parseOptions, path, cancellationToken);
            user = old is null ? user.AddSyntaxTrees(tree) : user.ReplaceSyntaxTree(old, tree);
            trees[path] = tree;
            changed.Add((old, tree));
            files.Add(path);
        }
        _unsettled?.UnionWith(files);
        if (changed.Count == 0)
            return _lastRead = new SourceUpdate(Current, _user, _driver, _trees, [], files, [], clock.Elapsed);

        GeneratorDriver driver = _driver.RunGeneratorsAndUpdateCompilation(user, out Compilation generated,
            out ImmutableArray<Diagnostic> generatorDiagnostics, cancellationToken);
        changed.AddRange(GeneratedChanges(Current, _user, generated, user));
        var errors = new List<string>(generatorDiagnostics.Where(d => d.Severity == DiagnosticSeverity.Error).Select(d => d.ToString()));
        // The first read is of the sources the build compiled (BuildSources says whether they
        // are): checking them all would be a whole compile, for nothing.
        bool first = _lastRead is null;
        foreach ((_, SyntaxTree? now) in first ? [] : changed)
        {
            if (now is null)
                continue;
            errors.AddRange(generated.GetSemanticModel(now).GetDiagnostics(cancellationToken: cancellationToken)
                .Where(d => d.Severity == DiagnosticSeverity.Error).Select(d => d.ToString()));
        }
        return _lastRead = new SourceUpdate(generated, user, driver, trees, changed, files, [.. errors.Distinct()], clock.Elapsed);
    }

    /// <summary>Whether each of the project's files <paramref name="update"/> read with a new
    /// text still holds that text (false: a file written since, or that cannot be read).</summary>
    public bool AsRead(SourceUpdate update)
    {
        foreach (string path in update.ChangedFiles)
        {
            if (!update.Trees.TryGetValue(path, out SyntaxTree? tree))
                return false;
            try
            {
                using FileStream stream = File.OpenRead(path);
                if (!SourceText.From(stream, _args.Encoding, _args.ChecksumAlgorithm).ContentEquals(tree.GetText()))
                    return false;
            }
            catch (IOException)
            {
                return false;
            }
        }
        return true;
    }

    /// <summary>The compiler's errors anywhere in <paramref name="update"/>'s compilation in
    /// trees that mention one of <paramref name="names"/> (a member removed or renamed may still
    /// be used elsewhere).</summary>
    public static IReadOnlyList<string> ErrorsMentioning(SourceUpdate update, IReadOnlyCollection<string> names,
                                                        CancellationToken cancellationToken)
    {
        if (names.Count == 0)
            return [];
        var errors = new List<string>();
        foreach (SyntaxTree tree in update.Compilation.SyntaxTrees)
        {
            if (update.Changed.Any(c => c.New == tree))
                continue;
            string text = tree.GetText(cancellationToken).ToString();
            if (!names.Any(n => text.Contains(n, StringComparison.Ordinal)))
                continue;
            errors.AddRange(update.Compilation.GetSemanticModel(tree).GetDiagnostics(cancellationToken: cancellationToken)
                .Where(d => d.Severity == DiagnosticSeverity.Error).Select(d => d.ToString()));
        }
        return errors;
    }

    /// <summary>Keeps the generator driver of <paramref name="update"/> (the warm-up's, never
    /// committed): its pipelines have run incrementally once, which the first run after the
    /// initial one pays for. The driver caches what it computed from its inputs, and the next run
    /// compares its inputs with the last ones, so its output stays that of the sources it is given.</summary>
    public void AdoptGenerators(SourceUpdate update) => _driver = update.Driver;

    /// <summary>The state the game now runs.</summary>
    public void Commit(SourceUpdate update)
    {
        // The last read is the state now: nothing read is unsettled. Another state (an earlier
        // one the game went back to): any file may differ from it, so the next read reads all.
        _unsettled = ReferenceEquals(update, _lastRead) ? new HashSet<string>(StringComparer.Ordinal) : null;
        if (update.Changed.Count == 0)
            return;
        _trees = new Dictionary<string, SyntaxTree>(update.Trees, StringComparer.Ordinal);
        _user = update.User;
        _driver = update.Driver;
        Current = update.Compilation;
    }

    // The generators' documents that differ between two compilations (each with the
    // compilation of the project's own files it was generated from), by path.
    private static IEnumerable<(SyntaxTree? Old, SyntaxTree? New)> GeneratedChanges(Compilation before, Compilation beforeOwn,
                                                                                    Compilation after, Compilation afterOwn)
    {
        var ownBefore = new HashSet<SyntaxTree>(beforeOwn.SyntaxTrees);
        var ownAfter = new HashSet<SyntaxTree>(afterOwn.SyntaxTrees);
        Dictionary<string, SyntaxTree> old = before.SyntaxTrees.Where(t => !ownBefore.Contains(t))
            .ToDictionary(t => t.FilePath, StringComparer.Ordinal);
        foreach (SyntaxTree tree in after.SyntaxTrees.Where(t => !ownAfter.Contains(t)))
        {
            if (old.Remove(tree.FilePath, out SyntaxTree? previous))
            {
                if (!previous.GetText().ContentEquals(tree.GetText()))
                    yield return (previous, tree);
            }
            else
            {
                yield return (null, tree);
            }
        }
        foreach (SyntaxTree gone in old.Values)
            yield return (gone, null);
    }

    private sealed class FileText(string path) : AdditionalText
    {
        public override string Path => path;

        public override SourceText? GetText(CancellationToken cancellationToken = default)
        {
            try
            {
                using FileStream stream = File.OpenRead(path);
                return SourceText.From(stream);
            }
            catch (IOException)
            {
                return null;
            }
        }
    }
}
