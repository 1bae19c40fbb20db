using System.Collections.Immutable;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Launcher.Watch;
using AlvorKit.Interception.Native;
using AlvorKit.Interception.Plans;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Emit;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>
/// One game's versions, as the watcher and the game handle them without a profiler: version 0
/// is compiled (Release) and loaded into a collectible context, as the game's build; each later
/// version is analyzed against the one the game runs (EditAnalyzer), emitted as the compiler's
/// delta (EditSession), and prepared by the game's side (ModuleReloads: the delta read, its side
/// assembly built and loaded, every changed body translated), then committed as if the batch
/// had applied.
/// </summary>
internal sealed class Edits : IDisposable
{
    private static readonly ImmutableArray<MetadataReference> References = AlvorKit.Tests.FrameworkReferences.All;

    private readonly AssemblyLoadContext _context = new("hot reload test", isCollectible: true);
    private readonly EditSession _session;
    private SyntaxTree _tree;
    private Compilation _compilation;

    public Edits(string source, string assemblyName = "Game")
    {
        _tree = Parse(source);
        _compilation = CSharpCompilation.Create(assemblyName, [_tree], References,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release,
                                         nullableContextOptions: NullableContextOptions.Enable, deterministic: true,
                                         allowUnsafe: true));
        using var image = new MemoryStream();
        EmitResult built = _compilation.Emit(image, options: new EmitOptions(debugInformationFormat: DebugInformationFormat.Embedded));
        Assert.True(built.Success, "version 0 does not compile:\n" + string.Join("\n", built.Diagnostics));
        Image = image.ToArray();
        Game = _context.LoadFromStream(new MemoryStream(Image));
        _session = EditSession.Start(_compilation, Image, assemblyName);
        Reloads = new ModuleReloads(Game.ManifestModule);
    }

    /// <summary>Version 0's image.</summary>
    public byte[] Image { get; }

    /// <summary>Version 0, loaded (the game's assembly).</summary>
    public Assembly Game { get; }

    public ModuleReloads Reloads { get; }

    /// <summary>The analysis of the next version against the one the game runs, without emitting it.</summary>
    public EditPlan Plan(string source)
    {
        SyntaxTree next = Parse(source);
        Compilation compilation = _compilation.ReplaceSyntaxTree(_tree, next);
        AssertCompiles(compilation);
        return EditAnalyzer.Analyze(_compilation, compilation, [(_tree, next)], CancellationToken.None);
    }

    /// <summary>The next version: analyzed (no refusal), emitted, prepared by the game's side and
    /// committed; what was prepared.</summary>
    public PreparedReload Apply(string source)
    {
        (PreparedReload prepared, Action commit) = Prepare(source);
        commit();
        return prepared;
    }

    /// <summary>The next version analyzed, emitted and prepared; commit makes it the one the game runs.</summary>
    public (PreparedReload Prepared, Action Commit) Prepare(string source)
    {
        (ReloadDelta delta, Action emitted) = Delta(source);
        PreparedReload prepared = Reloads.Prepare(delta, LoadedBody.Of);
        return (prepared, () =>
        {
            Reloads.Commit(prepared);
            emitted();
        }
        );
    }

    /// <summary>The next version's delta; commit makes it the one the game runs (the watcher's side).</summary>
    public (ReloadDelta Delta, Action Commit) Delta(string source)
    {
        SyntaxTree next = Parse(source);
        Compilation compilation = _compilation.ReplaceSyntaxTree(_tree, next);
        AssertCompiles(compilation);
        EditPlan plan = EditAnalyzer.Analyze(_compilation, compilation, [(_tree, next)], CancellationToken.None);
        Assert.True(plan.Refusals.Count == 0, "refused: " + string.Join("; ", plan.Refusals));
        (EmittedUpdate? update, IReadOnlyList<string> errors) = _session.Emit(compilation, plan, ["Game.cs"], CancellationToken.None);
        Assert.True(update is not null, "not emitted: " + string.Join("\n", errors));
        return (update.Delta, () =>
        {
            _session.Commit(update);
            _tree = next;
            _compilation = compilation;
        }
        );
    }

    /// <summary>The side assembly's type named <paramref name="fullName"/>.</summary>
    public static Type SideType(PreparedReload prepared, string fullName) =>
        prepared.Side?.Assembly?.GetType(fullName, throwOnError: true) ??
        throw new InvalidOperationException("the reload has no side assembly");

    /// <summary>Every method of the side assembly JIT-compiled (what the runtime checks of its IL
    /// and tokens at compilation), generic ones over object where they can be.</summary>
    public static void CompileAll(PreparedReload prepared)
    {
        Assembly side = prepared.Side?.Assembly ?? throw new InvalidOperationException("the reload has no side assembly");
        foreach (Type type in side.GetTypes())
        {
            if (type.ContainsGenericParameters)
                continue;
            foreach (MethodBase method in type.GetMethods(BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic |
                                                          BindingFlags.Static | BindingFlags.Instance)
                         .Cast<MethodBase>()
                         .Concat(type.GetConstructors(BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic |
                                                      BindingFlags.Instance | BindingFlags.Static)))
            {
                if (method.IsAbstract || method.ContainsGenericParameters)
                    continue;
                System.Runtime.CompilerServices.RuntimeHelpers.PrepareMethod(method.MethodHandle);
            }
        }
    }

    /// <summary>alvk_generation_validate on a prepared body, through the library
    /// ALVK_NATIVE_LIBRARY names (built by `cmake --build build/native-release`).</summary>
    public static void AssertValid(PreparedBody body)
    {
        InterceptionStatus status = NativeProfiler.Validate(Exports.Value, body.Lowered, new MethodDescription
        {
            Method = typeof(Edits).GetMethod(nameof(AssertValid))!,
            MetadataToken = 0x0600_0001,
        }, owner: 1, out uint failing);
        Assert.True(status == InterceptionStatus.Ok,
            $"alvk_generation_validate: {status} (entry {failing}: " +
            $"{(failing < body.Lowered.Relocations.Count ? body.Lowered.Relocations[(int)failing].Description : "-")})");
    }

    /// <summary>The relocations of a prepared body of that kind.</summary>
    public static RelocationSpec[] Relocations(PreparedBody body, RelocationKind kind) =>
        [.. body.Lowered.Relocations.Where(r => r.Kind == kind)];

    /// <summary>A relocation's name from the pool.</summary>
    public static string Name(PreparedBody body, RelocationSpec relocation) =>
        System.Text.Encoding.UTF8.GetString(body.Lowered.Pool, (int)relocation.NameOffset, (int)relocation.NameLength);

    private static readonly Lazy<AlvkExports> Exports = new(() =>
    {
        string? path = Environment.GetEnvironmentVariable("ALVK_NATIVE_LIBRARY");
        if (string.IsNullOrEmpty(path) || !File.Exists(path))
            throw new InvalidOperationException(
                "ALVK_NATIVE_LIBRARY must name the native library (build it: cmake --build build/native-release); " +
                $"it is '{path}'");
        return AlvkExports.Bind(NativeLibrary.Load(path));
    });

    private static SyntaxTree Parse(string source) =>
        CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest), path: "Game.cs",
                                   encoding: System.Text.Encoding.UTF8);

    private static void AssertCompiles(Compilation compilation)
    {
        Diagnostic[] errors = [.. compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error)];
        Assert.True(errors.Length == 0, "the version does not compile:\n" + string.Join("\n", errors.Select(e => e.ToString())));
    }

    public void Dispose() => _context.Unload();
}
