using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.Metadata;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Tokens of a side assembly being built: its own definitions (the types, mirrors and members
/// its layout placed), and every reference it needs made once in its metadata (assemblies by
/// name, types by scope and name, members, specifications and signatures by their blobs).
/// </summary>
internal sealed class SideTarget(ReloadContext context, ReloadModule side, MetadataBuilder metadata,
                                 IReadOnlyDictionary<int, int> mirrors) : ReloadTarget(context, side)
{
    private readonly Dictionary<string, AssemblyReferenceHandle> _assemblies = new(StringComparer.OrdinalIgnoreCase);
    private readonly Dictionary<(int Scope, string Namespace, string Name), int> _typeRefs = [];
    private readonly Dictionary<BlobKey, int> _typeSpecs = [];
    private readonly Dictionary<(int Parent, string Name, BlobKey Signature), int> _memberRefs = [];
    private readonly Dictionary<(int Method, BlobKey Blob), int> _methodSpecs = [];
    private readonly Dictionary<BlobKey, int> _signatures = [];

    /// <summary>The assemblies referenced so far (each gets IgnoresAccessChecksTo).</summary>
    public IEnumerable<string> ReferencedAssemblies => _assemblies.Keys;

    protected override int? Existing(EntityHandle view) => null;

    protected override int? Existing(UserStringHandle view) => null;

    protected override int? OwnMirror(TypeDefinitionHandle type) =>
        mirrors.TryGetValue(MetadataTokens.GetToken(type), out int token) ? token : null;

    protected override Operand AssemblyRef(AssemblyIdentity assembly)
    {
        if (!_assemblies.TryGetValue(assembly.Name, out AssemblyReferenceHandle handle))
        {
            handle = metadata.AddAssemblyReference(metadata.GetOrAddString(assembly.Name), assembly.Version,
                assembly.Culture.Length == 0 ? default : metadata.GetOrAddString(assembly.Culture),
                assembly.PublicKeyOrToken.Length == 0 ? default : metadata.GetOrAddBlob(assembly.PublicKeyOrToken),
                assembly.Flags & System.Reflection.AssemblyFlags.PublicKey, default);
            _assemblies[assembly.Name] = handle;
        }
        return Operand.Direct(MetadataTokens.GetToken(handle));
    }

    protected override Operand TypeRef(Operand scope, string ns, string name, string description)
    {
        var key = (scope.Token, ns, name);
        if (!_typeRefs.TryGetValue(key, out int token))
        {
            token = MetadataTokens.GetToken(metadata.AddTypeReference(MetadataTokens.EntityHandle(scope.Token),
                metadata.GetOrAddString(ns), metadata.GetOrAddString(name)));
            _typeRefs[key] = token;
        }
        return Operand.Direct(token);
    }

    protected override Operand TypeSpec(byte[] blob, string description)
    {
        var key = new BlobKey(blob);
        if (!_typeSpecs.TryGetValue(key, out int token))
            _typeSpecs[key] = token = MetadataTokens.GetToken(metadata.AddTypeSpecification(metadata.GetOrAddBlob(blob)));
        return Operand.Direct(token);
    }

    protected override Operand MemberRef(Operand parent, string name, byte[] signature, string description)
    {
        var key = (parent.Token, name, new BlobKey(signature));
        if (!_memberRefs.TryGetValue(key, out int token))
        {
            token = MetadataTokens.GetToken(metadata.AddMemberReference(MetadataTokens.EntityHandle(parent.Token),
                metadata.GetOrAddString(name), metadata.GetOrAddBlob(signature)));
            _memberRefs[key] = token;
        }
        return Operand.Direct(token);
    }

    protected override Operand MethodSpec(Operand method, byte[] blob, string description)
    {
        var key = (method.Token, new BlobKey(blob));
        if (!_methodSpecs.TryGetValue(key, out int token))
        {
            token = MetadataTokens.GetToken(metadata.AddMethodSpecification(MetadataTokens.EntityHandle(method.Token),
                metadata.GetOrAddBlob(blob)));
            _methodSpecs[key] = token;
        }
        return Operand.Direct(token);
    }

    protected override Operand StandAloneSig(byte[] blob, string description)
    {
        var key = new BlobKey(blob);
        if (!_signatures.TryGetValue(key, out int token))
            _signatures[key] = token = MetadataTokens.GetToken(metadata.AddStandaloneSignature(metadata.GetOrAddBlob(blob)));
        return Operand.Direct(token);
    }

    protected override Operand UserString(string value) =>
        Operand.Direct(MetadataTokens.GetToken(metadata.GetOrAddUserString(value)));

    protected override int Coded(Operand type, string description) =>
        CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.EntityHandle(type.Token));
}
