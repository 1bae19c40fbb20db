using System.Collections.Immutable;
using System.Reflection.Metadata;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Names for what a module's tokens refer to, independent of the token numbers: two builds of
/// one assembly give equal names to the same type, member, signature or instantiation, whatever
/// their tables' order. Scoped names (the comparison's keys) say where each class comes from
/// ("[System.Runtime]System.Math", "[*]Game.Player" for a type of the assembly itself); unscoped
/// names are for people ("Game.Player.Score(int)").
/// </summary>
internal sealed class MetadataNames(MetadataReader reader, bool scoped) : ISignatureTypeProvider<string, object?>
{
    /// <summary>The scope of the assembly's own types in scoped names.</summary>
    public const string OwnScope = "[*]";

    private readonly Dictionary<EntityHandle, string> _names = [];

    public MetadataReader Reader { get; } = reader;

    /// <summary>A TypeDef's full name without scope: "Ns.Outer+Inner".</summary>
    public string FullName(TypeDefinitionHandle handle)
    {
        TypeDefinition type = Reader.GetTypeDefinition(handle);
        string name = Reader.GetString(type.Name);
        TypeDefinitionHandle enclosing = type.GetDeclaringType();
        if (!enclosing.IsNil)
            return FullName(enclosing) + "+" + name;
        string ns = Reader.GetString(type.Namespace);
        return ns.Length == 0 ? name : ns + "." + name;
    }

    /// <summary>The type a TypeDef, TypeRef or TypeSpec token names.</summary>
    public string Type(EntityHandle handle) => Cached(handle, h => h.Kind switch
    {
        HandleKind.TypeDefinition => (scoped ? OwnScope : "") + FullName((TypeDefinitionHandle)h),
        HandleKind.TypeReference => Reference((TypeReferenceHandle)h),
        HandleKind.TypeSpecification => Reader.GetTypeSpecification((TypeSpecificationHandle)h).DecodeSignature(this, null),
        _ => throw new BadImageFormatException($"a {h.Kind} token where a type was expected"),
    });

    /// <summary>What any token of an IL operand, a signature or a clause refers to.</summary>
    public string Token(EntityHandle handle) => handle.Kind switch
    {
        HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => Type(handle),
        HandleKind.MethodDefinition or HandleKind.FieldDefinition or HandleKind.MemberReference
            or HandleKind.MethodSpecification => Member(handle),
        HandleKind.StandaloneSignature => Cached(handle, h =>
            Signature(Reader.GetStandaloneSignature((StandaloneSignatureHandle)h).DecodeMethodSignature(this, null))),
        HandleKind.ModuleReference => Cached(handle, h =>
            "[module " + Reader.GetString(Reader.GetModuleReference((ModuleReferenceHandle)h).Name) + "]"),
        _ => throw new BadImageFormatException($"a {handle.Kind} token in a method body"),
    };

    /// <summary>A method or field (definition, reference or generic instantiation) with its
    /// declaring type and signature.</summary>
    public string Member(EntityHandle handle) => Cached(handle, h =>
    {
        switch (h.Kind)
        {
            case HandleKind.MethodDefinition:
                return Method(h, []);
            case HandleKind.FieldDefinition:
                FieldDefinition field = Reader.GetFieldDefinition((FieldDefinitionHandle)h);
                return Type(field.GetDeclaringType()) + "::" + Reader.GetString(field.Name) + " : " +
                       field.DecodeSignature(this, null);
            case HandleKind.MemberReference:
                MemberReference reference = Reader.GetMemberReference((MemberReferenceHandle)h);
                return reference.GetKind() == MemberReferenceKind.Method
                    ? Method(h, [])
                    : Token(reference.Parent) + "::" + Reader.GetString(reference.Name) + " : " +
                      reference.DecodeFieldSignature(this, null);
            case HandleKind.MethodSpecification:
                MethodSpecification spec = Reader.GetMethodSpecification((MethodSpecificationHandle)h);
                return Method(spec.Method, spec.DecodeSignature(this, null));
            default:
                throw new BadImageFormatException($"a {h.Kind} token where a member was expected");
        }
    });

    /// <summary>A method (MethodDef or MemberRef), generic arguments in place of its arity when
    /// it is instantiated (a MethodSpec): "[*]Game.Player::Name&lt;int&gt;() : string".</summary>
    private string Method(EntityHandle method, ImmutableArray<string> instantiation)
    {
        string parent, name;
        MethodSignature<string> signature;
        if (method.Kind == HandleKind.MethodDefinition)
        {
            MethodDefinition definition = Reader.GetMethodDefinition((MethodDefinitionHandle)method);
            (parent, name) = (Type(definition.GetDeclaringType()), Reader.GetString(definition.Name));
            signature = definition.DecodeSignature(this, null);
        }
        else
        {
            MemberReference reference = Reader.GetMemberReference((MemberReferenceHandle)method);
            (parent, name) = (Token(reference.Parent), Reader.GetString(reference.Name));
            signature = reference.DecodeMethodSignature(this, null);
        }
        return Convention(signature.Header) + parent + "::" + name + Signature(signature, instantiation, false);
    }

    /// <summary>A method signature: calling convention, instance, generic arity (or the
    /// arguments of an instantiation), return and parameter types (a vararg sentinel as
    /// "...").</summary>
    public static string Signature(MethodSignature<string> signature, ImmutableArray<string> instantiation = default,
                                   bool convention = true)
    {
        IEnumerable<string> parameters = signature.ParameterTypes.Take(signature.RequiredParameterCount);
        if (signature.RequiredParameterCount < signature.ParameterTypes.Length)
            parameters = parameters.Append("...").Concat(signature.ParameterTypes.Skip(signature.RequiredParameterCount));
        return (convention ? Convention(signature.Header) : "") +
               (!instantiation.IsDefaultOrEmpty ? "<" + string.Join(", ", instantiation) + ">"
                : signature.Header.IsGeneric ? $"<{signature.GenericParameterCount}>" : "") +
               "(" + string.Join(", ", parameters) + ") : " + signature.ReturnType;
    }

    /// <summary>"instance ", "explicit ", a calling convention other than the default, or "".</summary>
    private static string Convention(SignatureHeader header) =>
        (header.IsInstance ? "instance " : "") + (header.HasExplicitThis ? "explicit " : "") +
        (header.CallingConvention == SignatureCallingConvention.Default
            ? ""
            : header.CallingConvention.ToString().ToLowerInvariant() + " ");

    /// <summary>A method's parameter list for people: "(int, string)", generic methods with their
    /// arity ("`1(!!0)").</summary>
    public string Parameters(MethodDefinition method)
    {
        MethodSignature<string> signature = method.DecodeSignature(this, null);
        return (signature.GenericParameterCount > 0 ? $"`{signature.GenericParameterCount}" : "") +
               "(" + string.Join(", ", signature.ParameterTypes) + ")";
    }

    /// <summary>The types of a locals signature (none when the body has no locals).</summary>
    public ImmutableArray<string> Locals(StandaloneSignatureHandle handle) => handle.IsNil
        ? []
        : Reader.GetStandaloneSignature(handle).DecodeLocalSignature(this, null);

    private string Reference(TypeReferenceHandle handle)
    {
        TypeReference reference = Reader.GetTypeReference(handle);
        string name = Reader.GetString(reference.Name);
        string ns = Reader.GetString(reference.Namespace);
        string local = ns.Length == 0 ? name : ns + "." + name;
        EntityHandle scope = reference.ResolutionScope;
        if (scope.Kind == HandleKind.TypeReference)
            return Reference((TypeReferenceHandle)scope) + "+" + local;
        if (!scoped)
            return local;
        string prefix = scope.Kind switch
        {
            HandleKind.AssemblyReference =>
                "[" + Reader.GetString(Reader.GetAssemblyReference((AssemblyReferenceHandle)scope).Name) + "]",
            HandleKind.ModuleReference =>
                "[module " + Reader.GetString(Reader.GetModuleReference((ModuleReferenceHandle)scope).Name) + "]",
            // The module itself, or nil (the type is found through the ExportedType table): this
            // assembly's own scope in both cases.
            _ => OwnScope,
        };
        return prefix + local;
    }

    private string Cached(EntityHandle handle, Func<EntityHandle, string> make)
    {
        if (!_names.TryGetValue(handle, out string? name))
            _names[handle] = name = make(handle);
        return name;
    }

    public string GetArrayType(string elementType, ArrayShape shape)
    {
        var dimensions = new string[shape.Rank];
        for (int i = 0; i < shape.Rank; i++)
        {
            int? lower = i < shape.LowerBounds.Length ? shape.LowerBounds[i] : null;
            int? size = i < shape.Sizes.Length ? shape.Sizes[i] : null;
            dimensions[i] = lower is null && size is null ? "" : $"{lower}..{size}";
        }
        return elementType + "[" + (shape.Rank == 1 && dimensions[0].Length == 0 ? "*" : string.Join(",", dimensions)) +
               "]";
    }

    public string GetByReferenceType(string elementType) => elementType + "&";

    public string GetFunctionPointerType(MethodSignature<string> signature) => "method " + Signature(signature);

    public string GetGenericInstantiation(string genericType, ImmutableArray<string> typeArguments) =>
        genericType + "<" + string.Join(", ", typeArguments) + ">";

    public string GetGenericMethodParameter(object? genericContext, int index) => "!!" + index;

    public string GetGenericTypeParameter(object? genericContext, int index) => "!" + index;

    public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) =>
        unmodifiedType + (isRequired ? " modreq(" : " modopt(") + modifier + ")";

    public string GetPinnedType(string elementType) => elementType + " pinned";

    public string GetPointerType(string elementType) => elementType + "*";

    public string GetPrimitiveType(PrimitiveTypeCode typeCode) => typeCode switch
    {
        PrimitiveTypeCode.Boolean => "bool",
        PrimitiveTypeCode.Byte => "byte",
        PrimitiveTypeCode.Char => "char",
        PrimitiveTypeCode.Double => "double",
        PrimitiveTypeCode.Int16 => "short",
        PrimitiveTypeCode.Int32 => "int",
        PrimitiveTypeCode.Int64 => "long",
        PrimitiveTypeCode.IntPtr => "nint",
        PrimitiveTypeCode.Object => "object",
        PrimitiveTypeCode.SByte => "sbyte",
        PrimitiveTypeCode.Single => "float",
        PrimitiveTypeCode.String => "string",
        PrimitiveTypeCode.TypedReference => "typedref",
        PrimitiveTypeCode.UInt16 => "ushort",
        PrimitiveTypeCode.UInt32 => "uint",
        PrimitiveTypeCode.UInt64 => "ulong",
        PrimitiveTypeCode.UIntPtr => "nuint",
        PrimitiveTypeCode.Void => "void",
        _ => throw new BadImageFormatException($"primitive type code {typeCode}"),
    };

    public string GetSZArrayType(string elementType) => elementType + "[]";

    public string GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
        Type(handle);

    public string GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) =>
        Type(handle);

    public string GetTypeFromSpecification(MetadataReader reader, object? genericContext,
                                           TypeSpecificationHandle handle, byte rawTypeKind) => Type(handle);
}
