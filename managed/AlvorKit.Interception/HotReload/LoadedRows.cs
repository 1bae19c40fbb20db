using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// The rows the loaded module already has, by what they stand for in the module's own tokens,
/// so a translated body uses an existing token wherever there is one and needs a relocation only
/// for what is new: AssemblyRefs by name, TypeRefs by scope and name, MemberRefs by parent, name
/// and signature bytes, TypeSpecs, MethodSpecs and StandAloneSigs by blob, user strings by value,
/// and the module's own methods and fields by their type's full name, name and signature.
/// </summary>
internal sealed class LoadedRows
{
    private readonly Dictionary<string, AssemblyReferenceHandle> _assemblies = new(StringComparer.Ordinal);
    private readonly Dictionary<(int Scope, string Namespace, string Name), int> _typeRefs = [];
    private readonly Dictionary<(int Parent, string Name, string Signature), int> _memberRefs = [];
    private readonly Dictionary<string, int> _typeSpecs = new(StringComparer.Ordinal);
    private readonly Dictionary<(int Method, string Blob), int> _methodSpecs = [];
    private readonly Dictionary<string, int> _standAloneSigs = new(StringComparer.Ordinal);
    private readonly Dictionary<string, int> _userStrings = new(StringComparer.Ordinal);
    private readonly Dictionary<string, MethodDefinitionHandle> _methods = new(StringComparer.Ordinal);
    private readonly Dictionary<string, FieldDefinitionHandle> _fields = new(StringComparer.Ordinal);

    public LoadedRows(BuildSide side)
    {
        Side = side;
        MetadataReader reader = side.Reader;
        foreach (AssemblyReferenceHandle handle in reader.AssemblyReferences)
            _assemblies.TryAdd(reader.GetString(reader.GetAssemblyReference(handle).Name), handle);
        foreach (TypeReferenceHandle handle in reader.TypeReferences)
        {
            TypeReference type = reader.GetTypeReference(handle);
            _typeRefs.TryAdd((Token(type.ResolutionScope), reader.GetString(type.Namespace), reader.GetString(type.Name)),
                             MetadataTokens.GetToken(handle));
        }
        foreach (MemberReferenceHandle handle in reader.MemberReferences)
        {
            MemberReference member = reader.GetMemberReference(handle);
            _memberRefs.TryAdd((Token(member.Parent), reader.GetString(member.Name), Hex(reader, member.Signature)),
                               MetadataTokens.GetToken(handle));
        }
        for (int row = 1; row <= reader.GetTableRowCount(TableIndex.TypeSpec); row++)
        {
            TypeSpecificationHandle handle = MetadataTokens.TypeSpecificationHandle(row);
            _typeSpecs.TryAdd(Hex(reader, reader.GetTypeSpecification(handle).Signature), MetadataTokens.GetToken(handle));
        }
        for (int row = 1; row <= reader.GetTableRowCount(TableIndex.MethodSpec); row++)
        {
            MethodSpecificationHandle handle = MetadataTokens.MethodSpecificationHandle(row);
            MethodSpecification spec = reader.GetMethodSpecification(handle);
            _methodSpecs.TryAdd((Token(spec.Method), Hex(reader, spec.Signature)), MetadataTokens.GetToken(handle));
        }
        for (int row = 1; row <= reader.GetTableRowCount(TableIndex.StandAloneSig); row++)
        {
            StandaloneSignatureHandle handle = MetadataTokens.StandaloneSignatureHandle(row);
            _standAloneSigs.TryAdd(Hex(reader, reader.GetStandaloneSignature(handle).Signature),
                                   MetadataTokens.GetToken(handle));
        }
        if (reader.GetHeapSize(HeapIndex.UserString) > 1)
        {
            for (UserStringHandle handle = reader.GetNextHandle(default(UserStringHandle)); !handle.IsNil;
                 handle = reader.GetNextHandle(handle))
                _userStrings.TryAdd(reader.GetUserString(handle), MetadataTokens.GetToken(handle));
        }
        foreach (TypeDefinitionHandle type in reader.TypeDefinitions)
        {
            TypeDefinition definition = reader.GetTypeDefinition(type);
            string typeName = side.Keys.FullName(type);
            foreach (MethodDefinitionHandle method in definition.GetMethods())
                _methods.TryAdd(typeName + "::" + side.MethodKey(reader.GetMethodDefinition(method)), method);
            foreach (FieldDefinitionHandle field in definition.GetFields())
                _fields.TryAdd(typeName + "::" + reader.GetString(reader.GetFieldDefinition(field).Name), field);
        }
    }

    /// <summary>The loaded build.</summary>
    public BuildSide Side { get; }

    /// <summary>The module's simple name, for messages.</summary>
    public string Name => Side.Reader.GetString(Side.Reader.GetAssemblyDefinition().Name);

    public AssemblyReferenceHandle? AssemblyRef(string name) =>
        _assemblies.TryGetValue(name, out AssemblyReferenceHandle handle) ? handle : null;

    public int? TypeRef(int scope, string ns, string name) =>
        _typeRefs.TryGetValue((scope, ns, name), out int token) ? token : null;

    public int? MemberRef(int parent, string name, byte[] signature) =>
        _memberRefs.TryGetValue((parent, name, Convert.ToHexString(signature)), out int token) ? token : null;

    public int? TypeSpec(byte[] blob) => _typeSpecs.TryGetValue(Convert.ToHexString(blob), out int token) ? token : null;

    public int? MethodSpec(int method, byte[] blob) =>
        _methodSpecs.TryGetValue((method, Convert.ToHexString(blob)), out int token) ? token : null;

    public int? StandAloneSig(byte[] blob) =>
        _standAloneSigs.TryGetValue(Convert.ToHexString(blob), out int token) ? token : null;

    public int? UserString(string value) => _userStrings.TryGetValue(value, out int token) ? token : null;

    public TypeDefinitionHandle? TypeDef(string fullName) =>
        Side.Types.TryGetValue(fullName, out TypeDefinitionHandle handle) ? handle : null;

    /// <summary>A method by its type's full name and <see cref="BuildSide.MethodKey"/>.</summary>
    public MethodDefinitionHandle? Method(string typeFullName, string methodKey) =>
        _methods.TryGetValue(typeFullName + "::" + methodKey, out MethodDefinitionHandle handle) ? handle : null;

    public FieldDefinitionHandle? Field(string typeFullName, string name) =>
        _fields.TryGetValue(typeFullName + "::" + name, out FieldDefinitionHandle handle) ? handle : null;

    private static int Token(EntityHandle handle) => handle.IsNil ? 0 : MetadataTokens.GetToken(handle);

    private static string Hex(MetadataReader reader, BlobHandle blob) => Convert.ToHexString(reader.GetBlobBytes(blob));
}
