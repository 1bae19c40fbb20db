using System.Collections.Immutable;
using Microsoft.CodeAnalysis;

namespace AlvorKit.Tests;

/// <summary>The shared framework's assemblies as compiler references, for the small games the
/// hot reload tests and proofs compile in process (this file is compiled into both).</summary>
internal static class FrameworkReferences
{
    public static readonly ImmutableArray<MetadataReference> All =
        ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!)
        .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
        .Where(p => Path.GetFileName(p).StartsWith("System.", StringComparison.Ordinal) ||
                    Path.GetFileName(p) is "netstandard.dll" or "mscorlib.dll")
        .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p))
        .ToImmutableArray();
}
