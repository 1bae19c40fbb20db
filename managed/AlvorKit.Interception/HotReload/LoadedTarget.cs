using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.Loader;
using System.Text;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Tokens of a module this process loaded, for a body the profiler will give one of its methods
/// (a ReJIT generation): the module's own rows where it has them (the baseline's rows pass as
/// they are; a side assembly's rows its builder wrote for the view), an existing reference row
/// with the same meaning, and otherwise a relocation added to <see cref="Table"/> that the
/// profiler emits on its worker. An assembly the module does not reference yet is an
/// ASSEMBLY_REF relocation naming the loaded assembly its load context binds that name to
/// (loaded now if it is not yet).
/// </summary>
internal sealed class LoadedTarget(ReloadContext context, ReloadModule module) : ReloadTarget(context, module)
{
    public RelocationTable Table { get; } = new();

    protected override int? Existing(EntityHandle view) =>
        Module.IsBaseline && View.IsBaseline(view) ? MetadataTokens.GetToken(view) : null;

    protected override int? Existing(UserStringHandle view) =>
        Module.IsBaseline && View.IsBaseline(view) ? MetadataTokens.GetToken(view) : null;

    protected override int? OwnMirror(TypeDefinitionHandle type) =>
        Module.Mirrors.TryGetValue(MetadataTokens.GetToken(type), out int token) ? token : null;

    protected override Operand AssemblyRef(AssemblyIdentity assembly)
    {
        if (Module.References.AssemblyRef(assembly.Name) is int existing)
            return Operand.Direct(existing);
        Assembly loaded = assembly.Loaded ?? Load(assembly);
        return Operand.Relocated(new RelocationRequest(RelocationKind.AssemblyRef, new byte[8], null, Parent.None,
            $"AssemblyRef {assembly.Name}")
        { Referenced = loaded });
    }

    // An assembly the module does not reference: the one its load context binds the name to.
    private Assembly Load(AssemblyIdentity assembly)
    {
        AssemblyLoadContext context = AssemblyLoadContext.GetLoadContext(Module.Assembly!) ?? AssemblyLoadContext.Default;
        try
        {
            return context.LoadFromAssemblyName(new AssemblyName(assembly.Name) { Version = assembly.Version });
        }
        catch (Exception e) when (e is FileNotFoundException or FileLoadException or BadImageFormatException)
        {
            throw new DeltaRefusedException(ReloadRefusalReason.UntranslatableReference,
                $"{ReloadRefusalReason.UntranslatableReference}: {Member} — it now uses the assembly {assembly.Name}, which " +
                $"{Module.Name} does not reference and its load context cannot load ({e.Message})", Member);
        }
    }

    protected override Operand TypeRef(Operand scope, string ns, string name, string description)
    {
        if (scope.Relocation is null && Module.References.TypeRef(scope.Token, ns, name) is int existing)
            return Operand.Direct(existing);
        return Operand.Relocated(new RelocationRequest(RelocationKind.TypeRef, null,
            ns.Length == 0 ? name : ns + "." + name, ParentOf(scope), description));
    }

    protected override Operand TypeSpec(byte[] blob, string description) =>
        Module.References.TypeSpec(blob) is int existing
            ? Operand.Direct(existing)
            : Operand.Relocated(new RelocationRequest(RelocationKind.TypeSpec, blob, null, Parent.None, description));

    protected override Operand MemberRef(Operand parent, string name, byte[] signature, string description)
    {
        if (parent.Relocation is null && Module.References.MemberRef(parent.Token, name, signature) is int existing)
            return Operand.Direct(existing);
        return Operand.Relocated(new RelocationRequest(RelocationKind.MemberRef, signature, name, ParentOf(parent), description));
    }

    protected override Operand MethodSpec(Operand method, byte[] blob, string description)
    {
        if (method.Relocation is null && Module.References.MethodSpec(method.Token, blob) is int existing)
            return Operand.Direct(existing);
        return Operand.Relocated(new RelocationRequest(RelocationKind.MethodSpec, blob, null, ParentOf(method), description));
    }

    protected override Operand StandAloneSig(byte[] blob, string description) =>
        Module.References.StandAloneSig(blob) is int existing
            ? Operand.Direct(existing)
            : Operand.Relocated(new RelocationRequest(RelocationKind.StandAloneSignature, blob, null, Parent.None, description));

    protected override Operand UserString(string value) =>
        Module.References.UserString(value) is int existing
            ? Operand.Direct(existing)
            : Operand.Relocated(new RelocationRequest(RelocationKind.UserString, Encoding.Unicode.GetBytes(value), null,
                Parent.None, $"user string \"{(value.Length <= 40 ? value : value[..37] + "...")}\""));

    protected override int Coded(Operand type, string description)
    {
        if (type.Relocation is null)
            return CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.EntityHandle(type.Token));
        if (type.Relocation.Kind != RelocationKind.TypeRef)
            throw Untranslatable($"{description}, a new type specification inside a signature");
        return RelocationTable.SignatureReference(Table.Reference(type.Relocation));
    }

    private Parent ParentOf(Operand operand) =>
        operand.Relocation is { } request ? Parent.OfRelocation(Table.Reference(request)) : Parent.OfToken(operand.Token);
}
