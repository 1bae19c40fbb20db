using System.Collections.Immutable;
using System.Diagnostics;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Microsoft.CodeAnalysis.Text;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>What one compile produced.</summary>
/// <param name="Image">The assembly, or null when it did not compile.</param>
/// <param name="Pdb">Its portable PDB, when the project emits a separate one.</param>
/// <param name="Errors">The compiler's errors, as it prints them (file(line,col): error CSxxxx: message).</param>
/// <param name="ChangedFiles">The source files whose text changed since the last compile (every file the first time).</param>
/// <param name="Elapsed">Reading, parsing, generating and emitting.</param>
internal sealed record CompileResult(byte[]? Image, byte[]? Pdb, IReadOnlyList<string> Errors,
                                     IReadOnlyList<string> ChangedFiles, TimeSpan Elapsed)
{
    public bool Succeeded => Image is not null;
}

/// <summary>
/// Compiles one project with Roslyn in this process, from the compiler arguments its build uses
/// (CompilerArguments): the same sources, references, options, source generators and analyzer
/// config, emitted to memory. Between compiles it keeps the syntax trees of files whose text did
/// not change and the generator driver's incremental state. The set of source files is the one
/// the arguments name: a file added to the project needs a new watcher.
/// </summary>
internal sealed class ProjectCompiler
{
    private readonly CSharpCommandLineArguments _args;
    private readonly CSharpParseOptions _parseOptions;
    private readonly Dictionary<string, SyntaxTree> _trees = new(StringComparer.Ordinal);
    private readonly HashSet<string> _sourceSet;
    private CSharpCompilation _compilation;
    private GeneratorDriver _driver;

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
        var references = _args.MetadataReferences.Select(r =>
            (MetadataReference)MetadataReference.CreateFromFile(Path.GetFullPath(r.Reference, projectDirectory), r.Properties));
        CSharpCompilationOptions options = _args.CompilationOptions
            .WithSyntaxTreeOptionsProvider(config.SeverityProvider)
            .WithStrongNameProvider(new DesktopStrongNameProvider(_args.KeyFileSearchPaths));
        _compilation = CSharpCompilation.Create(_args.CompilationName, [], references, options);

        var loader = new AnalyzerLoader();
        ISourceGenerator[] generators = _args.ResolveAnalyzerReferences(loader)
            .SelectMany(a => a.GetGenerators(LanguageNames.CSharp))
            .ToArray();
        GeneratorCount = generators.Length;
        ImmutableArray<AdditionalText> additional = [.. _args.AdditionalFiles.Select(f =>
            (AdditionalText)new FileText(Path.GetFullPath(f.Path, projectDirectory)))];
        _driver = CSharpGeneratorDriver.Create(generators, additional, _parseOptions, config.OptionsProvider);
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

    /// <summary>Whether <paramref name="path"/> is one of the project's source files.</summary>
    public bool IsSource(string path) => _sourceSet.Contains(Path.GetFullPath(path));

    /// <summary>Compiles as after a save of the first source file, <paramref name="times"/> times,
    /// and keeps nothing: the compiler's code is then warm (jitted, tiered up) for the first real
    /// save instead of slow on it.</summary>
    public void Rehearse(int times, CancellationToken cancellationToken = default)
    {
        if (SourceFiles.Count == 0 || !_trees.TryGetValue(SourceFiles[0], out SyntaxTree? tree))
            return;
        for (int i = 0; i < times && !cancellationToken.IsCancellationRequested; i++)
        {
            SyntaxTree again = CSharpSyntaxTree.ParseText(tree.GetText(cancellationToken), _parseOptions, tree.FilePath,
                                                          cancellationToken);
            _compilation = _compilation.ReplaceSyntaxTree(tree, again);
            _trees[SourceFiles[0]] = tree = again;
            _ = Compile(cancellationToken);
        }
    }

    /// <summary>Reads every source file, reparses those whose text changed, runs the generators and
    /// emits the assembly (and its PDB) to memory.</summary>
    public CompileResult Compile(CancellationToken cancellationToken = default)
    {
        var clock = Stopwatch.StartNew();
        var changed = new List<string>();
        foreach (string path in SourceFiles)
        {
            SourceText text;
            try
            {
                using FileStream stream = File.OpenRead(path);
                text = SourceText.From(stream, _args.Encoding, _args.ChecksumAlgorithm);
            }
            catch (IOException e)
            {
                return new CompileResult(null, null, [$"{path}: error: cannot read the file: {e.Message}"], changed, clock.Elapsed);
            }
            if (_trees.TryGetValue(path, out SyntaxTree? old) && old.GetText(cancellationToken).ContentEquals(text))
                continue;
            SyntaxTree tree = CSharpSyntaxTree.ParseText(text, _parseOptions, path, cancellationToken);
            _compilation = old is null ? _compilation.AddSyntaxTrees(tree) : _compilation.ReplaceSyntaxTree(old, tree);
            _trees[path] = tree;
            changed.Add(path);
        }

        _driver = _driver.RunGeneratorsAndUpdateCompilation(_compilation, out Compilation generated,
                                                            out ImmutableArray<Diagnostic> generatorDiagnostics, cancellationToken);
        bool embedded = _args.EmitOptions.DebugInformationFormat == DebugInformationFormat.Embedded;
        using var image = new MemoryStream();
        using var pdb = new MemoryStream();
        using Stream? win32 = _args.Win32ResourceFile is null && _args.Win32Icon is null
            ? generated.CreateDefaultWin32Resources(versionResource: true, noManifest: _args.NoWin32Manifest,
                                                    manifestContents: null, iconInIcoFormat: null)
            : null;
        EmitResult emit = generated.Emit(image, _args.EmitPdb && !embedded ? pdb : null,
            win32Resources: win32, manifestResources: _args.ManifestResources,
            options: _args.EmitOptions, cancellationToken: cancellationToken);
        string[] errors = generatorDiagnostics.Concat(emit.Diagnostics)
            .Where(d => d.Severity == DiagnosticSeverity.Error)
            .Select(d => d.ToString())
            .Distinct()
            .ToArray();
        if (!emit.Success || errors.Length > 0)
            return new CompileResult(null, null, errors.Length > 0 ? errors : ["error: the compiler emitted nothing"],
                                     changed, clock.Elapsed);
        return new CompileResult(image.ToArray(), _args.EmitPdb && !embedded ? pdb.ToArray() : null, [], changed, clock.Elapsed);
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
