using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;

namespace AlvorKit.Interception.Metadata;

/// <summary>
/// The metadata of a loaded module as the runtime loaded it (Assembly.TryGetRawMetadata, no
/// file access), one reader per assembly, for plans and hot reload alike.
/// </summary>
internal static unsafe class LoadedMetadata
{
    // Weak on the assembly: a reader of a collectible copy must not keep its AssemblyLoadContext
    // from unloading.
    private static readonly ConditionalWeakTable<Assembly, MetadataReader> Readers = new();

    /// <summary>The metadata of `module` (the manifest module of its assembly).</summary>
    public static MetadataReader Of(Module module)
    {
        Assembly assembly = module.Assembly;
        if (module != assembly.ManifestModule)
            throw new NotSupportedException($"{module.Name} is not the manifest module of {assembly.GetName().Name}; " +
                                            "multi-module assemblies are not supported.");
        return Readers.GetValue(assembly, a =>
        {
            if (!a.TryGetRawMetadata(out byte* blob, out int length))
                throw new NotSupportedException($"the metadata of {a.GetName().Name} is not available " +
                                                "(a dynamic or in-memory assembly without metadata?)");
            return new MetadataReader(blob, length);
        });
    }
}
