using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception.HotReload;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace AlvorKit.HotReload.Tests;

/// <summary>Compiles C# sources to assembly files as a Release build of a game would be, and
/// reads raw method bodies back for the tests' preconditions.</summary>
internal static class Builds
{
    private static readonly ImmutableArray<MetadataReference> References =
        ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!)
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Where(p => Path.GetFileName(p).StartsWith("System.", StringComparison.Ordinal) ||
                    Path.GetFileName(p) is "netstandard.dll" or "mscorlib.dll")
        .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p))
        .ToImmutableArray();

    private static readonly string Folder = NewFolder();

    /// <summary>A temporary folder for this run's builds, deleted when the test process exits.</summary>
    private static string NewFolder()
    {
        string folder = Directory.CreateTempSubdirectory("alvk-hotreload-").FullName;
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            try
            {
                Directory.Delete(folder, recursive: true);
            }
            catch (IOException)
            {
                // Still open elsewhere: left to the system's temporary-file cleanup.
            }
        };
        return folder;
    }

    /// <summary>`source` compiled (Release, deterministic) into a new file; the compiler's errors
    /// fail the test.</summary>
    public static string Compile(string source, string assemblyName = "Game")
    {
        CSharpCompilation compilation = CSharpCompilation.Create(
            assemblyName,
            [CSharpSyntaxTree.ParseText(source, new CSharpParseOptions(LanguageVersion.Latest))],
            References,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary,
                                         optimizationLevel: OptimizationLevel.Release,
                                         nullableContextOptions: NullableContextOptions.Enable,
                                         deterministic: true));
        string path = Path.Combine(Folder, $"{Guid.NewGuid():N}", assemblyName + ".dll");
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        using (FileStream file = File.Create(path))
        {
            Microsoft.CodeAnalysis.Emit.EmitResult result = compilation.Emit(file);
            if (!result.Success)
                throw new InvalidOperationException("the test's source does not compile:\n" +
                    string.Join("\n", result.Diagnostics.Where(d => d.Severity == DiagnosticSeverity.Error)));
        }
        return path;
    }

    /// <summary>The two sources compiled and compared.</summary>
    public static AssemblyComparison Compare(string loaded, string rebuilt, string rebuiltName = "Game") =>
        AssemblyComparer.Compare(Compile(loaded), Compile(rebuilt, rebuiltName));

    /// <summary>The raw IL bytes of the first method named `method` in type `type` (full name).</summary>
    public static byte[] RawIL(string path, string type, string method)
    {
        using var image = new PEReader(File.OpenRead(path));
        MetadataReader reader = image.GetMetadataReader();
        foreach (TypeDefinitionHandle handle in reader.TypeDefinitions)
        {
            TypeDefinition definition = reader.GetTypeDefinition(handle);
            string name = reader.GetString(definition.Namespace) + "." + reader.GetString(definition.Name);
            if (name != type)
                continue;
            foreach (MethodDefinitionHandle m in definition.GetMethods())
            {
                MethodDefinition md = reader.GetMethodDefinition(m);
                if (reader.GetString(md.Name) == method)
                    return image.GetMethodBody(md.RelativeVirtualAddress).GetILBytes()!;
            }
        }
        throw new InvalidOperationException($"{type}.{method} is not in {path}");
    }
}
