using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;

namespace AlvorKit.Interception.HotReload;

/// <summary>One of the two builds being compared: its image, metadata, names (scoped keys and
/// names for people) and its types by full name.</summary>
internal sealed class BuildSide
{
    public BuildSide(PEReader image)
    {
        Image = image;
        Reader = image.GetMetadataReader();
        Keys = new MetadataNames(Reader, scoped: true);
        Display = new MetadataNames(Reader, scoped: false);
        foreach (TypeDefinitionHandle handle in Reader.TypeDefinitions)
            Types[Keys.FullName(handle)] = handle;
    }

    public PEReader Image { get; }

    public MetadataReader Reader { get; }

    public MetadataNames Keys { get; }

    public MetadataNames Display { get; }

    public Dictionary<string, TypeDefinitionHandle> Types { get; } = new(StringComparer.Ordinal);

    public string Name(StringHandle handle) => Reader.GetString(handle);

    /// <summary>A method's match key in its type: name and scoped signature.</summary>
    public string MethodKey(MethodDefinition method) =>
        Name(method.Name) + MetadataNames.Signature(method.DecodeSignature(Keys, null));

    /// <summary>A method for people: "Ns.Type.Name(int, string)".</summary>
    public string MethodName(MethodDefinition method) =>
        Keys.FullName(method.GetDeclaringType()) + "." + Name(method.Name) + Display.Parameters(method);

    /// <summary>True when the type or any type enclosing it is compiler-generated.</summary>
    public bool IsGenerated(TypeDefinitionHandle handle)
    {
        for (; !handle.IsNil; handle = Reader.GetTypeDefinition(handle).GetDeclaringType())
        {
            if (IsGeneratedName(Name(Reader.GetTypeDefinition(handle).Name)))
                return true;
        }
        return false;
    }

    /// <summary>Compiler-generated names have a character C# does not allow in one: '&lt;'
    /// ("&lt;&gt;c", "&lt;Main&gt;d__0", "&lt;Update&gt;b__0_0", "&lt;x&gt;5__2").</summary>
    public static bool IsGeneratedName(string name) => name.Contains('<', StringComparison.Ordinal);
}
