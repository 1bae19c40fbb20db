using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Text;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>A body cannot be translated; the refusal says why.</summary>
internal sealed class TranslationRefusedException(ReloadRefusal refusal) : Exception(refusal.Message)
{
    public ReloadRefusal Refusal { get; } = refusal;
}

/// <summary>
/// Turns the tokens of one rebuilt body into the loaded module's: its own definitions by name
/// and signature, references to an existing equivalent row of the loaded module when there is
/// one (same scope and name, same parent, name and translated signature, same translated blob,
/// same string), and otherwise a relocation added to <paramref name="table"/> (a new TypeRef
/// through an AssemblyRef the loaded module has, a MemberRef, TypeSpec, MethodSpec,
/// StandAloneSig or user string). Signatures are rewritten by <see cref="SignatureRewriter"/>:
/// a class the loaded module does not reference yet is a TYPE_REF relocation named by tag 3.
/// </summary>
internal sealed class TokenTranslator(LoadedRows loaded, BuildSide rebuilt, RelocationTable table, string member)
{
    private readonly MetadataReader _reader = rebuilt.Reader;

    /// <summary>The operand of an instruction (or a clause's catch type) that names `token`.</summary>
    public Operand Translate(int token)
    {
        if ((token >> 24) == 0x70)
            return String(token);
        EntityHandle handle = MetadataTokens.EntityHandle(token);
        return handle.Kind switch
        {
            HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => Type(handle),
            HandleKind.MethodDefinition => Plans.Operand.Direct(MethodDef((MethodDefinitionHandle)handle)),
            HandleKind.FieldDefinition => Plans.Operand.Direct(FieldDef((FieldDefinitionHandle)handle)),
            HandleKind.MemberReference => MemberRef((MemberReferenceHandle)handle),
            HandleKind.MethodSpecification => MethodSpec((MethodSpecificationHandle)handle),
            HandleKind.StandaloneSignature => StandAloneSig(_reader.GetStandaloneSignature(
                (StandaloneSignatureHandle)handle).Signature, "calli signature"),
            _ => throw Untranslatable($"a {handle.Kind} token"),
        };
    }

    /// <summary>A locals signature: the loaded module's StandAloneSig with the same translated
    /// blob, or the relocation that makes one (not added to the table: it goes last).</summary>
    public Operand Locals(StandaloneSignatureHandle handle) =>
        StandAloneSig(_reader.GetStandaloneSignature(handle).Signature, "locals");

    /// <summary>A class of the rebuild as a token of the loaded module or a relocation.</summary>
    public Operand Type(EntityHandle handle)
    {
        switch (handle.Kind)
        {
            case HandleKind.TypeDefinition:
                return Plans.Operand.Direct(TypeDef((TypeDefinitionHandle)handle));
            case HandleKind.TypeReference:
                return TypeRef((TypeReferenceHandle)handle);
            case HandleKind.TypeSpecification:
                byte[] blob = SignatureRewriter.TypeSpec(
                    _reader.GetBlobReader(_reader.GetTypeSpecification((TypeSpecificationHandle)handle).Signature),
                    CodedClass);
                return loaded.TypeSpec(blob) is int existing
                    ? Plans.Operand.Direct(existing)
                    : Plans.Operand.Relocated(new RelocationRequest(RelocationKind.TypeSpec, blob, null, Parent.None,
                        $"TypeSpec {rebuilt.Display.Type(handle)}"));
            default:
                throw Untranslatable($"a {handle.Kind} where a type was expected");
        }
    }

    private Operand String(int token)
    {
        string value = _reader.GetUserString(MetadataTokens.UserStringHandle(token & 0xFFFFFF));
        if (loaded.UserString(value) is int existing)
            return Plans.Operand.Direct(existing);
        byte[] blob = Encoding.Unicode.GetBytes(value);
        return Plans.Operand.Relocated(new RelocationRequest(RelocationKind.UserString, blob, null, Parent.None,
            $"user string \"{Shorten(value)}\""));
    }

    private int TypeDef(TypeDefinitionHandle handle)
    {
        string name = rebuilt.Keys.FullName(handle);
        return loaded.TypeDef(name) is TypeDefinitionHandle type
            ? MetadataTokens.GetToken(type)
            : throw Missing($"the type {name}", rebuilt.IsGenerated(handle));
    }

    private int MethodDef(MethodDefinitionHandle handle)
    {
        MethodDefinition method = _reader.GetMethodDefinition(handle);
        TypeDefinitionHandle type = method.GetDeclaringType();
        return loaded.Method(rebuilt.Keys.FullName(type), rebuilt.MethodKey(method)) is MethodDefinitionHandle found
            ? MetadataTokens.GetToken(found)
            : throw Missing($"the method {rebuilt.MethodName(method)}",
                            rebuilt.IsGenerated(type) || BuildSide.IsGeneratedName(rebuilt.Name(method.Name)));
    }

    private int FieldDef(FieldDefinitionHandle handle)
    {
        FieldDefinition field = _reader.GetFieldDefinition(handle);
        TypeDefinitionHandle type = field.GetDeclaringType();
        string typeName = rebuilt.Keys.FullName(type), name = rebuilt.Name(field.Name);
        return loaded.Field(typeName, name) is FieldDefinitionHandle found
            ? MetadataTokens.GetToken(found)
            : throw Missing($"the field {typeName}.{name}",
                            rebuilt.IsGenerated(type) || BuildSide.IsGeneratedName(name));
    }

    private Operand TypeRef(TypeReferenceHandle handle)
    {
        TypeReference reference = _reader.GetTypeReference(handle);
        string ns = rebuilt.Name(reference.Namespace), name = rebuilt.Name(reference.Name);
        string description = $"TypeRef {rebuilt.Display.Type(handle)}";
        EntityHandle scope = reference.ResolutionScope;
        switch (scope.Kind)
        {
            case HandleKind.AssemblyReference:
            {
                string assembly = rebuilt.Name(_reader.GetAssemblyReference((AssemblyReferenceHandle)scope).Name);
                if (loaded.AssemblyRef(assembly) is not AssemblyReferenceHandle assemblyRef)
                    throw new TranslationRefusedException(new ReloadRefusal(ReloadRefusalReason.UntranslatableReference,
                        member, $"{ReloadRefusalReason.UntranslatableReference}: {member} — it now uses " +
                                $"{rebuilt.Display.Type(handle)} from {assembly}, which {loaded.Name} does not " +
                                "reference; restart to add the reference"));
                int scopeToken = MetadataTokens.GetToken(assemblyRef);
                return loaded.TypeRef(scopeToken, ns, name) is int existing
                    ? Plans.Operand.Direct(existing)
                    : Plans.Operand.Relocated(new RelocationRequest(RelocationKind.TypeRef, null,
                        ns.Length == 0 ? name : ns + "." + name, Parent.OfToken(scopeToken), description));
            }
            case HandleKind.TypeReference:
            {
                Operand enclosing = TypeRef((TypeReferenceHandle)scope);
                if (enclosing.Relocation is null && loaded.TypeRef(enclosing.Token, ns, name) is int existing)
                    return Plans.Operand.Direct(existing);
                Parent parent = enclosing.Relocation is { } request
                    ? Parent.OfRelocation(table.Reference(request))
                    : Parent.OfToken(enclosing.Token);
                return Plans.Operand.Relocated(new RelocationRequest(RelocationKind.TypeRef, null, name, parent, description));
            }
            case HandleKind.ModuleDefinition:
            {
                string full = ns.Length == 0 ? name : ns + "." + name;
                return loaded.TypeDef(full) is TypeDefinitionHandle own
                    ? Plans.Operand.Direct(MetadataTokens.GetToken(own))
                    : throw Missing($"the type {full}", generated: false);
            }
            default:
                throw Untranslatable($"{rebuilt.Display.Type(handle)}, a type of {scope.Kind}");
        }
    }

    private Operand MemberRef(MemberReferenceHandle handle)
    {
        MemberReference reference = _reader.GetMemberReference(handle);
        string name = rebuilt.Name(reference.Name);
        byte[] signature = SignatureRewriter.Signature(_reader.GetBlobReader(reference.Signature), CodedClass);
        EntityHandle parentHandle = reference.Parent;
        Operand parent = parentHandle.Kind switch
        {
            HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => Type(parentHandle),
            HandleKind.MethodDefinition => Plans.Operand.Direct(MethodDef((MethodDefinitionHandle)parentHandle)),
            _ => throw Untranslatable($"a MemberRef whose parent is a {parentHandle.Kind}"),
        };
        if (parent.Relocation is null && loaded.MemberRef(parent.Token, name, signature) is int existing)
            return Plans.Operand.Direct(existing);
        Parent relocationParent = parent.Relocation is { } request
            ? Parent.OfRelocation(table.Reference(request))
            : Parent.OfToken(parent.Token);
        return Plans.Operand.Relocated(new RelocationRequest(RelocationKind.MemberRef, signature, name, relocationParent,
            $"MemberRef {rebuilt.Display.Member(handle)}"));
    }

    private Operand MethodSpec(MethodSpecificationHandle handle)
    {
        MethodSpecification spec = _reader.GetMethodSpecification(handle);
        byte[] blob = SignatureRewriter.Signature(_reader.GetBlobReader(spec.Signature), CodedClass);
        Operand method = spec.Method.Kind switch
        {
            HandleKind.MethodDefinition => Plans.Operand.Direct(MethodDef((MethodDefinitionHandle)spec.Method)),
            HandleKind.MemberReference => MemberRef((MemberReferenceHandle)spec.Method),
            _ => throw Untranslatable($"a MethodSpec of a {spec.Method.Kind}"),
        };
        if (method.Relocation is null && loaded.MethodSpec(method.Token, blob) is int existing)
            return Plans.Operand.Direct(existing);
        Parent parent = method.Relocation is { } request
            ? Parent.OfRelocation(table.Reference(request))
            : Parent.OfToken(method.Token);
        return Plans.Operand.Relocated(new RelocationRequest(RelocationKind.MethodSpec, blob, null, parent,
            $"MethodSpec {rebuilt.Display.Member(handle)}"));
    }

    private Operand StandAloneSig(BlobHandle signature, string what)
    {
        byte[] blob = SignatureRewriter.Signature(_reader.GetBlobReader(signature), CodedClass);
        return loaded.StandAloneSig(blob) is int existing
            ? Plans.Operand.Direct(existing)
            : Plans.Operand.Relocated(new RelocationRequest(RelocationKind.StandAloneSignature, blob, null, Parent.None,
                $"{what}: StandAloneSig"));
    }

    /// <summary>A class inside a signature: the loaded module's TypeDef, TypeRef or TypeSpec, or
    /// (tag 3) a TYPE_REF relocation added to the table before the blob that names it.</summary>
    private int CodedClass(EntityHandle handle)
    {
        Operand type = Type(handle);
        if (type.Relocation is null)
            return CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.EntityHandle(type.Token));
        if (type.Relocation.Kind != RelocationKind.TypeRef)
            throw Untranslatable($"{rebuilt.Display.Type(handle)}, a new type specification inside a signature");
        return RelocationTable.SignatureReference(table.Reference(type.Relocation));
    }

    private TranslationRefusedException Missing(string what, bool generated) =>
        generated
            ? new TranslationRefusedException(GeneratedRefusal.For(member,
                $"it uses {what}, which the loaded assembly does not have"))
            : new TranslationRefusedException(new ReloadRefusal(ReloadRefusalReason.RudeEdit, member,
                $"{ReloadRefusalReason.RudeEdit}: {member} — it uses {what}, which the loaded assembly does not " +
                "have; restart to take it"));

    private TranslationRefusedException Untranslatable(string what) =>
        new(new ReloadRefusal(ReloadRefusalReason.UntranslatableReference, member,
            $"{ReloadRefusalReason.UntranslatableReference}: {member} — it refers to {what}, which a body " +
            "replacement cannot carry"));

    private static string Shorten(string value) => value.Length <= 40 ? value : value[..37] + "...";
}
