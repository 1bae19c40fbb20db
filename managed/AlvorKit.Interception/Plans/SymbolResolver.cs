using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.InteropServices;
using System.Text;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Metadata;

namespace AlvorKit.Interception.Plans;

/// <summary>An instruction's token operand: a token the target module already has, or a
/// relocation the profiler fills.</summary>
internal readonly record struct Operand(int Token, RelocationRequest? Relocation)
{
    public static Operand Direct(int token) => new(token, null);

    public static Operand Relocated(RelocationRequest request) => new(0, request);

    /// <summary>The 4 bytes written at the operand: the token, or the nil token of the table the
    /// relocation makes (the profiler overwrites it).</summary>
    public int Placeholder => Relocation is null ? Token : Relocation.Kind switch
    {
        RelocationKind.StandAloneSignature => 0x1100_0000,
        RelocationKind.TypeSpec => 0x1B00_0000,
        RelocationKind.MemberRef => 0x0A00_0000,
        RelocationKind.MethodSpec => 0x2B00_0000,
        RelocationKind.UserString => 0x7000_0000,
        _ => 0x0100_0000,
    };
}

/// <summary>
/// Turns the symbols of a plan (types, methods, constructors, fields, calli signatures, string
/// literals) into tokens of the target module: MethodDefs, FieldDefs and TypeDefs of the module
/// are used directly; everything else becomes a relocation (TypeRef through an AssemblyRef the
/// module has, TypeSpec for constructed types, MemberRef on the declaring type, MethodSpec for
/// generic method instantiations, a user string for a literal the module lacks), with shared
/// parents added once to the table. A type of another assembly inside a signature blob is a
/// TypeRef relocation the blob names by a class reference (ABI 3.3), also added once.
/// </summary>
internal sealed class SymbolResolver
{
    private readonly ModuleContext _module;
    private readonly MethodBase _target;
    private readonly RelocationTable _table;
    private readonly SignatureWriter _writer;

    public SymbolResolver(ModuleContext module, MethodBase target, RelocationTable table)
    {
        _module = module;
        _target = target;
        _table = table;
        _writer = new SignatureWriter(module, target, SignatureTypeRef);
    }

    public SignatureWriter Writer => _writer;

    // ------------------------------------------------------------------ types

    /// <summary>An InlineType / InlineTok operand.</summary>
    public Operand Type(Type type, string use)
    {
        if (type.IsByRef)
            throw Refuse($"{use}: {Names.Of(type)} is a by-reference type; name its element type instead.");
        // A generic type definition (S<>) names the type itself only for ldtoken; anywhere else (box, ldobj,
        // unbox.any, castclass, a catch clause...) CoreCLR needs the instantiation in scope: a TypeSpec
        // GENERICINST over VAR 0..n (what SigType.From gives a definition), as C# emits for S<T> inside S<T>.
        // That reading is right only where VAR 0..n are the definition's own parameters: the target's
        // declaring type definition (or a type nested with it that has the same generic parameters).
        bool definitionAsSelf = type.IsGenericTypeDefinition && !use.StartsWith("ldtoken ", StringComparison.Ordinal);
        if (definitionAsSelf && !SharesTargetsTypeParameters(type))
            throw Refuse($"{use}: {Names.Of(type)} is a generic type definition, which outside ldtoken can only stand " +
                         $"for the target's own type instantiated over its generic parameters, and " +
                         $"{Names.Of(_target)} is not in {Names.Of(type)}'s generic context; name an instantiation " +
                         "(MakeGenericType) instead.");
        if (!definitionAsSelf && _module.Defines(type))
            return Operand.Direct(type.MetadataToken);
        if (definitionAsSelf || NeedsTypeSpec(type))
            return Operand.Relocated(new RelocationRequest(RelocationKind.TypeSpec,
                _writer.TypeSpec(SigType.From(type), use), null, Parent.None, $"{use}: TypeSpec {Names.Of(type)}"));
        return Operand.Relocated(TypeRef(type, use));
    }

    /// <summary>The 1-based relocation of a TypeRef for `type`, for a class reference inside a
    /// signature blob: added once, before the relocation whose blob names it.</summary>
    private int SignatureTypeRef(Type type, string use) => _table.Reference(TypeRef(type, use) with
    {
        Description = $"{use}: TypeRef {Names.Of(type)} (in a signature)",
    });

    /// <summary>Whether VAR 0..n inside the target's body are exactly `definition`'s generic parameters: it is
    /// the target's declaring type definition, or a type nested in it (or enclosing it) with the same number of
    /// generic parameters (nested types repeat their enclosing type's parameters).</summary>
    private bool SharesTargetsTypeParameters(Type definition)
    {
        if (_target.DeclaringType is not { IsGenericType: true } declaring)
            return false;
        declaring = declaring.GetGenericTypeDefinition();
        if (definition == declaring)
            return true;
        if (definition.GetGenericArguments().Length != declaring.GetGenericArguments().Length)
            return false;
        return Encloses(declaring, definition) || Encloses(definition, declaring);

        static bool Encloses(Type outer, Type inner)
        {
            for (Type? t = inner.DeclaringType; t is not null; t = t.DeclaringType)
                if (t == outer)
                    return true;
            return false;
        }
    }

    private static bool NeedsTypeSpec(Type type) =>
        type.IsConstructedGenericType || type.HasElementType || type.IsGenericParameter || type.IsFunctionPointer;

    /// <summary>A TypeRef for a type of another assembly (nested types through their enclosing TypeRef).</summary>
    private RelocationRequest TypeRef(Type type, string use)
    {
        if (type.IsNested)
        {
            int enclosing = _table.Reference(TypeRef(type.DeclaringType!, use));
            return new RelocationRequest(RelocationKind.TypeRef, null, type.Name, Parent.OfRelocation(enclosing),
                $"{use}: TypeRef {Names.Of(type)}");
        }
        string name = string.IsNullOrEmpty(type.Namespace) ? type.Name : $"{type.Namespace}.{type.Name}";
        int scope = _module.AssemblyRefReaching(type);
        if (scope != 0)
            return new RelocationRequest(RelocationKind.TypeRef, null, name, Parent.OfToken(scope),
                $"{use}: TypeRef {Names.Of(type)}");
        return new RelocationRequest(RelocationKind.TypeRef, null, name, Parent.OfRelocation(AssemblyRef(type, use)),
            $"{use}: TypeRef {Names.Of(type)} (in {type.Assembly.GetName().Name}, through a new AssemblyRef)");
    }

    /// <summary>The 1-based relocation of an ASSEMBLY_REF (ABI 3.6) to the assembly of `type`,
    /// which the module does not reference: added once per assembly, when the target's load
    /// context resolves that assembly's name to that very assembly (DirectCallRule). Its blob,
    /// the module_id of the assembly's manifest module, is filled when the plan is submitted.</summary>
    private int AssemblyRef(Type type, string use)
    {
        Assembly assembly = type.Assembly;
        if (DirectCallRule.WhyNotBound(_module.Module.Assembly, assembly) is { } why)
            throw Refuse(
                $"{use}: {Names.Of(type)} lives in {assembly.GetName().Name}, which {_module.Name} does not " +
                $"reference (none of its AssemblyRefs reaches the type), and a new AssemblyRef cannot name it: {why}.");
        return _table.Reference(new RelocationRequest(RelocationKind.AssemblyRef, new byte[8], null, Parent.None,
            $"{use}: AssemblyRef {assembly.GetName().Name} (new in {_module.Name})")
        {
            Referenced = assembly,
        });
    }

    /// <summary>The parent of a member of `declaring`: its TypeDef, or a TypeSpec (generic types,
    /// arrays) or TypeRef relocation added once.</summary>
    private Parent MemberParent(Type declaring, string use)
    {
        if (declaring.IsGenericType || declaring.HasElementType)
            return Parent.OfRelocation(_table.Reference(new RelocationRequest(RelocationKind.TypeSpec,
                _writer.TypeSpec(SigType.From(declaring), use), null, Parent.None,
                $"{use}: TypeSpec {Names.Of(declaring)} (parent)")));
        if (_module.Defines(declaring))
            return Parent.OfToken(declaring.MetadataToken);
        return Parent.OfRelocation(_table.Reference(TypeRef(declaring, use) with
        {
            Description = $"{use}: TypeRef {Names.Of(declaring)} (parent)",
        }));
    }

    // ---------------------------------------------------------------- members

    /// <summary>True when the target module defines `member` and a token can name it directly
    /// (a MethodDef or FieldDef of a non-generic type, not a generic method instantiation).</summary>
    private bool Defines(MemberInfo member) =>
        member.Module == _module.Module &&
        member.DeclaringType is not { IsGenericType: true } and not { HasElementType: true } &&
        member is not MethodInfo { IsGenericMethod: true, IsGenericMethodDefinition: false };

    /// <summary>An InlineMethod / InlineTok operand for a method or constructor.</summary>
    public Operand Method(MethodBase method, string use)
    {
        if (method is MethodInfo { IsGenericMethod: true, IsGenericMethodDefinition: false } instance)
        {
            MethodInfo definition = instance.GetGenericMethodDefinition();
            Parent parent = Defines(definition)
                ? Parent.OfToken(definition.MetadataToken)
                : Parent.OfRelocation(_table.Reference(MemberRef(definition, use) with
                {
                    Description = $"{use}: MemberRef {Names.Of(definition)} (parent)",
                }));
            return Operand.Relocated(new RelocationRequest(RelocationKind.MethodSpec,
                _writer.MethodSpec(instance.GetGenericArguments().Select(SigType.From).ToList(), use), null, parent,
                $"{use}: MethodSpec {Names.Of(instance)}"));
        }
        if (Defines(method))
            return Operand.Direct(method.MetadataToken);
        return Operand.Relocated(MemberRef(method, use));
    }

    /// <summary>An ldtoken operand for a definition over its own generic parameters (<see cref="Plans.OwnInstantiation"/>):
    /// the target's declaring type definition as a TypeSpec <c>GENERICINST</c> over VAR 0..n; the target as a
    /// MemberRef on that TypeSpec, or, a generic method, a MethodSpec over MVAR 0..n.</summary>
    public Operand OwnInstantiation(MemberInfo definition, string use)
    {
        switch (definition)
        {
            case Type { IsGenericTypeDefinition: true } type when SharesTargetsTypeParameters(type):
                return Operand.Relocated(new RelocationRequest(RelocationKind.TypeSpec,
                    _writer.TypeSpec(SigType.From(type), use), null, Parent.None,
                    $"{use}: TypeSpec {Names.Of(type)} over its own generic parameters"));
            case MethodBase method when method.Module == _target.Module && method.MetadataToken == _target.MetadataToken:
                if (method is MethodInfo { IsGenericMethodDefinition: true } generic)
                {
                    Parent parent = Defines(generic)
                        ? Parent.OfToken(generic.MetadataToken)
                        : Parent.OfRelocation(_table.Reference(MemberRef(generic, use) with
                        {
                            Description = $"{use}: MemberRef {Names.Of(generic)} (parent)",
                        }));
                    return Operand.Relocated(new RelocationRequest(RelocationKind.MethodSpec,
                        _writer.MethodSpec(generic.GetGenericArguments().Select(SigType.From).ToList(), use), null, parent,
                        $"{use}: MethodSpec {Names.Of(generic)} over its own generic parameters"));
                }
                if (method.DeclaringType is { IsGenericTypeDefinition: true })
                    return Operand.Relocated(MemberRef(method, use));
                break;
        }
        throw Refuse($"{use}: only the target's generic declaring type definition, or the generic target itself, can " +
                     $"be named over its own generic parameters; {definition.Name} is neither.");
    }

    private RelocationRequest MemberRef(MethodBase method, string use)
    {
        Type declaring = method.DeclaringType ?? throw Refuse(
            $"{use}: {method.Name} is a global function of {method.Module.Name}; only methods of types can be referenced.");
        if ((method.CallingConvention & CallingConventions.VarArgs) != 0)
            throw Refuse($"{use}: {Names.Of(method)} takes varargs, which plans do not support.");
        byte[] signature = declaring.HasElementType ? ArrayMethodSignature(method, use) : DefinitionSignature(method, use);
        return new RelocationRequest(RelocationKind.MemberRef, signature, method.Name, MemberParent(declaring, use),
            $"{use}: MemberRef {Names.Of(method)}");
    }

    /// <summary>An InlineField / InlineTok operand.</summary>
    public Operand Field(FieldInfo field, string use)
    {
        if (field.IsLiteral)
            throw Refuse($"{use}: {Names.Of(field)} is a constant, which has no storage; load its value with ldc or ldstr.");
        if (Defines(field))
            return Operand.Direct(field.MetadataToken);
        Type declaring = field.DeclaringType ?? throw Refuse(
            $"{use}: {field.Name} is a global field of {field.Module.Name}; only fields of types can be referenced.");
        MetadataReader reader = LoadedMetadata.Of(field.Module);
        FieldDefinition definition = reader.GetFieldDefinition(
            (FieldDefinitionHandle)MetadataTokens.EntityHandle(field.MetadataToken));
        SigType type = definition.DecodeSignature(new SigTypeDecoder(field.Module), null);
        return Operand.Relocated(new RelocationRequest(RelocationKind.MemberRef, _writer.Field(type, use), field.Name,
            MemberParent(declaring, use), $"{use}: MemberRef {Names.Of(field)}"));
    }

    /// <summary>The method's signature exactly as its definition has it (custom modifiers,
    /// VAR/MVAR), rewritten in the target module's tokens.</summary>
    private byte[] DefinitionSignature(MethodBase method, string use)
    {
        MetadataReader reader = LoadedMetadata.Of(method.Module);
        MethodDefinition definition = reader.GetMethodDefinition(
            (MethodDefinitionHandle)MetadataTokens.EntityHandle(method.MetadataToken));
        MethodSignature<SigType> s = definition.DecodeSignature(new SigTypeDecoder(method.Module), null);
        return _writer.Method(s.Header, s.GenericParameterCount, s.ReturnType, s.ParameterTypes, use);
    }

    // Methods the runtime gives arrays (Get, Set, Address, .ctor) have no metadata of their own.
    private byte[] ArrayMethodSignature(MethodBase method, string use) => _writer.Method(
        new SignatureHeader(SignatureKind.Method, SignatureCallingConvention.Default, SignatureAttributes.Instance), 0,
        SigType.From(ReplacementRules.ReturnTypeOf(method)),
        method.GetParameters().Select(p => SigType.From(p.ParameterType)).ToList(), use);

    // ------------------------------------------------------------ signatures

    /// <summary>A calli operand: a StandAloneSig relocation for the call site's signature.</summary>
    public Operand Calli(SignatureCallingConvention convention, bool hasThis, Type? returnType, Type[]? parameters,
        string use)
    {
        var header = new SignatureHeader(SignatureKind.Method, convention,
            hasThis ? SignatureAttributes.Instance : SignatureAttributes.None);
        byte[] blob = _writer.Method(header, 0, SigType.From(returnType ?? typeof(void)),
            (parameters ?? []).Select(SigType.From).ToList(), use);
        return Operand.Relocated(new RelocationRequest(RelocationKind.StandAloneSignature, blob, null, Parent.None,
            $"{use}: StandAloneSig {Describe(convention, returnType, parameters)}"));
    }

    public static SignatureCallingConvention Unmanaged(CallingConvention convention) => convention switch
    {
        CallingConvention.Cdecl => SignatureCallingConvention.CDecl,
        CallingConvention.StdCall => SignatureCallingConvention.StdCall,
        CallingConvention.ThisCall => SignatureCallingConvention.ThisCall,
        CallingConvention.FastCall => SignatureCallingConvention.FastCall,
        CallingConvention.Winapi => SignatureCallingConvention.Unmanaged,
        _ => throw new ArgumentOutOfRangeException(nameof(convention), convention, "not an unmanaged calling convention"),
    };

    private static string Describe(SignatureCallingConvention convention, Type? returnType, Type[]? parameters) =>
        $"{convention.ToString().ToLowerInvariant()} {Names.Of(returnType ?? typeof(void))}" +
        $"({string.Join(", ", (parameters ?? []).Select(Names.Of))})";

    // --------------------------------------------------------------- strings

    /// <summary>An ldstr operand: a user string the module already has, or a USER_STRING
    /// relocation (ABI 3.3) that defines the literal (its UTF-16LE code units).</summary>
    public Operand UserString(string value, string use)
    {
        int token = _module.ExistingUserString(value);
        if (token != 0)
            return Operand.Direct(token);
        return Operand.Relocated(new RelocationRequest(RelocationKind.UserString, Encoding.Unicode.GetBytes(value), null,
            Parent.None, $"{use}: user string ({value.Length} characters)"));
    }

    private PlanException Refuse(string message) => new(_target, $"Plan for {Names.Of(_target)}: {message}");
}
