using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Compares an assembly as it was loaded with a rebuild of it, from their files' metadata
/// (System.Reflection.Metadata; nothing is loaded or compiled). Types are matched by namespace,
/// name and enclosing type; methods by name and signature; fields by name. Signatures and
/// bodies are compared by what their tokens refer to, so a rebuild whose tables are numbered
/// differently is no change.
/// </summary>
public static class AssemblyComparer
{
    /// <summary>Compares the assembly file <paramref name="loadedPath"/> with the rebuild
    /// <paramref name="rebuiltPath"/>.</summary>
    /// <param name="loadedPath">The file the running assembly was loaded from.</param>
    /// <param name="rebuiltPath">The rebuilt assembly.</param>
    /// <returns>The comparison, or a refusal (<see cref="AssemblyComparison.Refusal"/>) when
    /// the rebuild is of another assembly or a file is not an assembly.</returns>
    public static AssemblyComparison Compare(string loadedPath, string rebuiltPath)
    {
        using FileStream loaded = File.OpenRead(loadedPath);
        using FileStream rebuilt = File.OpenRead(rebuiltPath);
        return Compare(loaded, rebuilt);
    }

    /// <summary>Compares two assembly images read from streams (left open, read from their
    /// current position).</summary>
    /// <param name="loaded">The image the running assembly was loaded from.</param>
    /// <param name="rebuilt">The rebuilt image.</param>
    /// <returns>The comparison, or a refusal.</returns>
    public static AssemblyComparison Compare(Stream loaded, Stream rebuilt)
    {
        using var loadedImage = new PEReader(loaded, PEStreamOptions.LeaveOpen | PEStreamOptions.PrefetchEntireImage);
        using var rebuiltImage = new PEReader(rebuilt, PEStreamOptions.LeaveOpen | PEStreamOptions.PrefetchEntireImage);
        return Compare(loadedImage, rebuiltImage);
    }

    /// <summary>Compares two assembly images.</summary>
    /// <param name="loaded">The image the running assembly was loaded from.</param>
    /// <param name="rebuilt">The rebuilt image.</param>
    /// <returns>The comparison, or a refusal.</returns>
    public static AssemblyComparison Compare(PEReader loaded, PEReader rebuilt) => Compare(loaded, rebuilt, out _);

    /// <summary>As <see cref="Compare(PEReader, PEReader)"/>, with both builds' metadata (null when refused).</summary>
    internal static AssemblyComparison Compare(PEReader loaded, PEReader rebuilt, out (BuildSide Loaded, BuildSide Rebuilt)? sides)
    {
        ArgumentNullException.ThrowIfNull(loaded);
        ArgumentNullException.ThrowIfNull(rebuilt);
        sides = null;
        string? loadedName = AssemblyNameOf(loaded, out string? why);
        if (loadedName is null)
            return Refused("", ComparisonRefusal.NotAnAssembly, $"the loaded file: {why}");
        string? rebuiltName = AssemblyNameOf(rebuilt, out why);
        if (rebuiltName is null)
            return Refused(loadedName, ComparisonRefusal.NotAnAssembly, $"the rebuild: {why}");
        if (!string.Equals(loadedName, rebuiltName, StringComparison.Ordinal))
            return Refused(loadedName, ComparisonRefusal.AssemblyNameDiffers,
                           $"the rebuild is {rebuiltName}, not {loadedName}");

        var comparison = new Comparison(new BuildSide(loaded), new BuildSide(rebuilt));
        comparison.Run();
        sides = (comparison.Loaded, comparison.Rebuilt);
        return new AssemblyComparison(loadedName, ComparisonRefusal.None, null, comparison.Methods, comparison.Edits);
    }

    private static AssemblyComparison Refused(string name, ComparisonRefusal refusal, string message) =>
        new(name, refusal, message, [], []);

    private static string? AssemblyNameOf(PEReader image, out string? why)
    {
        try
        {
            if (!image.HasMetadata)
            {
                why = "no CLI metadata";
                return null;
            }
            MetadataReader reader = image.GetMetadataReader();
            if (!reader.IsAssembly)
            {
                why = "a module without an assembly definition";
                return null;
            }
            why = null;
            return reader.GetString(reader.GetAssemblyDefinition().Name);
        }
        catch (BadImageFormatException e)
        {
            why = e.Message;
            return null;
        }
    }

    /// <summary>One comparison's walk over the types of both builds.</summary>
    private sealed class Comparison(BuildSide a, BuildSide b)
    {
        public BuildSide Loaded => a;

        public BuildSide Rebuilt => b;

        public List<MethodComparison> Methods { get; } = [];

        public List<MemberEdit> Edits { get; } = [];

        public void Run()
        {
            foreach (TypeDefinitionHandle handle in a.Reader.TypeDefinitions)
            {
                string name = a.Keys.FullName(handle);
                if (b.Types.TryGetValue(name, out TypeDefinitionHandle other))
                    CompareTypes(handle, other);
                else
                    Edits.Add(new MemberEdit(EditKind.TypeRemoved, name, a.IsGenerated(handle)));
            }
            foreach (TypeDefinitionHandle handle in b.Reader.TypeDefinitions)
            {
                string name = b.Keys.FullName(handle);
                if (!a.Types.ContainsKey(name))
                    Edits.Add(new MemberEdit(EditKind.TypeAdded, name, b.IsGenerated(handle)));
            }
        }

        private void CompareTypes(TypeDefinitionHandle handleA, TypeDefinitionHandle handleB)
        {
            TypeDefinition typeA = a.Reader.GetTypeDefinition(handleA), typeB = b.Reader.GetTypeDefinition(handleB);
            string name = a.Keys.FullName(handleA);
            bool generated = a.IsGenerated(handleA);

            string baseA = BaseName(a.Keys, typeA), baseB = BaseName(b.Keys, typeB);
            string kindA = Kind(typeA, baseA), kindB = Kind(typeB, baseB);
            if (!string.Equals(kindA, kindB, StringComparison.Ordinal))
                Edits.Add(new MemberEdit(EditKind.TypeKindChanged, name, generated, $"{kindA} → {kindB}"));
            else if (!string.Equals(baseA, baseB, StringComparison.Ordinal))
                Edits.Add(new MemberEdit(EditKind.BaseTypeChanged, name, generated,
                                         $"{BaseName(a.Display, typeA)} → {BaseName(b.Display, typeB)}"));
            else if (typeA.Attributes != typeB.Attributes)
                Edits.Add(new MemberEdit(EditKind.TypeAttributesChanged, name, generated,
                                         $"{typeA.Attributes} → {typeB.Attributes}"));
            if (!Interfaces(a, typeA).SetEquals(Interfaces(b, typeB)))
                Edits.Add(new MemberEdit(EditKind.InterfacesChanged, name, generated));

            CompareFields(name, typeA, typeB, generated);
            CompareMethods(typeA, typeB, generated);
        }

        private void CompareFields(string typeName, TypeDefinition typeA, TypeDefinition typeB, bool generatedType)
        {
            // Names are unique in what C# emits; in other IL a repeated name keeps its first field.
            var fieldsB = new Dictionary<string, FieldDefinitionHandle>(StringComparer.Ordinal);
            foreach (FieldDefinitionHandle handle in typeB.GetFields())
                fieldsB.TryAdd(b.Name(b.Reader.GetFieldDefinition(handle).Name), handle);
            var seen = new HashSet<string>(StringComparer.Ordinal);
            foreach (FieldDefinitionHandle handle in typeA.GetFields())
            {
                FieldDefinition field = a.Reader.GetFieldDefinition(handle);
                string name = a.Name(field.Name);
                seen.Add(name);
                string member = typeName + "." + name;
                bool generated = generatedType || BuildSide.IsGeneratedName(name);
                if (!fieldsB.TryGetValue(name, out FieldDefinitionHandle otherHandle))
                {
                    Edits.Add(new MemberEdit(EditKind.FieldRemoved, member, generated));
                    continue;
                }
                FieldDefinition other = b.Reader.GetFieldDefinition(otherHandle);
                if (!string.Equals(field.DecodeSignature(a.Keys, null), other.DecodeSignature(b.Keys, null),
                                   StringComparison.Ordinal))
                    Edits.Add(new MemberEdit(EditKind.FieldTypeChanged, member, generated,
                                             $"{field.DecodeSignature(a.Display, null)} → " +
                                             other.DecodeSignature(b.Display, null)));
                else if (field.Attributes != other.Attributes)
                    Edits.Add(new MemberEdit(EditKind.FieldAttributesChanged, member, generated,
                                             $"{field.Attributes} → {other.Attributes}"));
            }
            foreach ((string name, FieldDefinitionHandle _) in fieldsB.Where(f => !seen.Contains(f.Key)))
                Edits.Add(new MemberEdit(EditKind.FieldAdded, typeName + "." + name,
                                         generatedType || BuildSide.IsGeneratedName(name)));
        }

        private void CompareMethods(TypeDefinition typeA, TypeDefinition typeB, bool generatedType)
        {
            var methodsB = new Dictionary<string, MethodDefinitionHandle>(StringComparer.Ordinal);
            foreach (MethodDefinitionHandle handle in typeB.GetMethods())
                methodsB.TryAdd(b.MethodKey(b.Reader.GetMethodDefinition(handle)), handle);
            var unmatchedA = new List<MethodDefinitionHandle>();
            var matchedB = new HashSet<MethodDefinitionHandle>();
            foreach (MethodDefinitionHandle handle in typeA.GetMethods())
            {
                MethodDefinition method = a.Reader.GetMethodDefinition(handle);
                if (!methodsB.TryGetValue(a.MethodKey(method), out MethodDefinitionHandle otherHandle))
                {
                    unmatchedA.Add(handle);
                    continue;
                }
                matchedB.Add(otherHandle);
                MethodDefinition other = b.Reader.GetMethodDefinition(otherHandle);
                string member = a.MethodName(method);
                bool generated = generatedType || BuildSide.IsGeneratedName(a.Name(method.Name));
                if (method.Attributes != other.Attributes || method.ImplAttributes != other.ImplAttributes)
                    Edits.Add(new MemberEdit(EditKind.MethodAttributesChanged, member, generated,
                                             Flags(method) + " → " + Flags(other)));
                string? difference = MethodBodyComparer.Difference(a, method, b, other);
                Methods.Add(new MethodComparison(member, generated, difference is not null, difference,
                                                 MetadataTokens.GetToken(handle), MetadataTokens.GetToken(otherHandle)));
                if (generated && difference is not null)
                    Edits.Add(new MemberEdit(EditKind.BodyChanged, member, true, difference));
            }

            // What is left: a name on both sides is a changed signature (paired in declaration
            // order when overloads of one name changed); the rest were removed or added.
            List<MethodDefinitionHandle> unmatchedB = typeB.GetMethods().Where(h => !matchedB.Contains(h)).ToList();
            foreach (MethodDefinitionHandle handle in unmatchedA)
            {
                MethodDefinition method = a.Reader.GetMethodDefinition(handle);
                string name = a.Name(method.Name);
                bool generated = generatedType || BuildSide.IsGeneratedName(name);
                int index = unmatchedB.FindIndex(h =>
                    string.Equals(b.Name(b.Reader.GetMethodDefinition(h).Name), name, StringComparison.Ordinal));
                if (index < 0)
                {
                    Edits.Add(new MemberEdit(EditKind.MethodRemoved, a.MethodName(method), generated));
                    continue;
                }
                MethodDefinition other = b.Reader.GetMethodDefinition(unmatchedB[index]);
                unmatchedB.RemoveAt(index);
                Edits.Add(new MemberEdit(EditKind.SignatureChanged, a.MethodName(method), generated,
                                         "now " + b.MethodName(other) + Returns(b, other)));
            }
            foreach (MethodDefinitionHandle handle in unmatchedB)
            {
                MethodDefinition method = b.Reader.GetMethodDefinition(handle);
                Edits.Add(new MemberEdit(EditKind.MethodAdded, b.MethodName(method),
                                         generatedType || BuildSide.IsGeneratedName(b.Name(method.Name))));
            }
        }

        private static string Returns(BuildSide side, MethodDefinition method) =>
            " : " + method.DecodeSignature(side.Display, null).ReturnType;

        private static string Flags(MethodDefinition method) => $"{method.Attributes}; {method.ImplAttributes}";

        private static string BaseName(MetadataNames names, TypeDefinition type) =>
            type.BaseType.IsNil ? "" : names.Type(type.BaseType);

        private static HashSet<string> Interfaces(BuildSide side, TypeDefinition type) =>
            type.GetInterfaceImplementations()
                .Select(h => side.Keys.Type(side.Reader.GetInterfaceImplementation(h).Interface))
                .ToHashSet(StringComparer.Ordinal);

        /// <summary>class, struct, enum, interface or delegate, from the attributes and the
        /// base type's scoped name.</summary>
        private static string Kind(TypeDefinition type, string baseName)
        {
            if ((type.Attributes & TypeAttributes.Interface) != 0)
                return "interface";
            string baseLocal = baseName[(baseName.IndexOf(']', StringComparison.Ordinal) + 1)..];
            return baseLocal switch
            {
                "System.Enum" => "enum",
                "System.ValueType" => "struct",
                "System.MulticastDelegate" => "delegate",
                _ => "class",
            };
        }
    }
}
