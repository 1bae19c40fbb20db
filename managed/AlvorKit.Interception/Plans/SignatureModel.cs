using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// A signature type independent of any module's tokens: decoded from a member's definition
/// (custom modifiers, VAR/MVAR and all) or built from a System.Type, then written into blobs
/// in the target module's terms by SignatureWriter.
/// </summary>
internal abstract record SigType
{
    public sealed record Primitive(PrimitiveTypeCode Code) : SigType;

    /// <summary>A class or value type named by a token (TypeDef or TypeRef in a blob).</summary>
    public sealed record Named(Type Type) : SigType;

    public sealed record GenericInstance(Type Definition, ImmutableArray<SigType> Arguments) : SigType;

    public sealed record SZArray(SigType Element) : SigType;

    public sealed record MDArray(SigType Element, ArrayShape Shape) : SigType;

    public sealed record Pointer(SigType Element) : SigType;

    public sealed record ByRef(SigType Element) : SigType;

    public sealed record Pinned(SigType Element) : SigType;

    /// <summary>VAR n: a generic parameter of the type.</summary>
    public sealed record TypeVar(int Index) : SigType;

    /// <summary>MVAR n: a generic parameter of the method.</summary>
    public sealed record MethodVar(int Index) : SigType;

    public sealed record Modified(Type Modifier, SigType Unmodified, bool Required) : SigType;

    public sealed record FunctionPointer(MethodSignature<SigType> Signature) : SigType;

    // Kept as int: the framework's dictionary over (a reference type, int) is precompiled, over
    // PrimitiveTypeCode (a byte enum) it is compiled at run time.
    private static readonly Dictionary<Type, int> Primitives = new()
    {
        [typeof(void)] = (int)PrimitiveTypeCode.Void, [typeof(bool)] = (int)PrimitiveTypeCode.Boolean,
        [typeof(char)] = (int)PrimitiveTypeCode.Char, [typeof(sbyte)] = (int)PrimitiveTypeCode.SByte,
        [typeof(byte)] = (int)PrimitiveTypeCode.Byte, [typeof(short)] = (int)PrimitiveTypeCode.Int16,
        [typeof(ushort)] = (int)PrimitiveTypeCode.UInt16, [typeof(int)] = (int)PrimitiveTypeCode.Int32,
        [typeof(uint)] = (int)PrimitiveTypeCode.UInt32, [typeof(long)] = (int)PrimitiveTypeCode.Int64,
        [typeof(ulong)] = (int)PrimitiveTypeCode.UInt64, [typeof(float)] = (int)PrimitiveTypeCode.Single,
        [typeof(double)] = (int)PrimitiveTypeCode.Double, [typeof(string)] = (int)PrimitiveTypeCode.String,
        [typeof(object)] = (int)PrimitiveTypeCode.Object, [typeof(IntPtr)] = (int)PrimitiveTypeCode.IntPtr,
        [typeof(UIntPtr)] = (int)PrimitiveTypeCode.UIntPtr, [typeof(TypedReference)] = (int)PrimitiveTypeCode.TypedReference,
    };

    /// <summary>The primitive code of `type`, if it has one in signatures.</summary>
    public static bool TryPrimitive(Type type, out PrimitiveTypeCode code)
    {
        bool found = Primitives.TryGetValue(type, out int value);
        code = (PrimitiveTypeCode)value;
        return found;
    }

    /// <summary>`type` as a signature type. A generic type definition stands for its
    /// instantiation over its own parameters (VAR 0..n), as it does inside its own members.</summary>
    public static SigType From(Type type)
    {
        if (type.IsByRef)
            return new ByRef(From(type.GetElementType()!));
        if (type.IsPointer)
            return new Pointer(From(type.GetElementType()!));
        if (type.IsFunctionPointer)
            return FromFunctionPointer(type);
        if (type.IsSZArray)
            return new SZArray(From(type.GetElementType()!));
        if (type.IsArray)
        {
            int rank = type.GetArrayRank();
            return new MDArray(From(type.GetElementType()!),
                new ArrayShape(rank, ImmutableArray<int>.Empty, Enumerable.Repeat(0, rank).ToImmutableArray()));
        }
        if (type.IsGenericParameter)
            return type.DeclaringMethod is not null
                ? new MethodVar(type.GenericParameterPosition)
                : new TypeVar(type.GenericParameterPosition);
        if (TryPrimitive(type, out PrimitiveTypeCode code))
            return new Primitive(code);
        if (type.IsGenericType)
            return new GenericInstance(type.GetGenericTypeDefinition(),
                type.GetGenericArguments().Select(From).ToImmutableArray());
        return new Named(type);
    }

    private static FunctionPointer FromFunctionPointer(Type type)
    {
        SignatureCallingConvention convention = SignatureCallingConvention.Default;
        if (type.IsUnmanagedFunctionPointer)
        {
            Type[] conventions = type.GetFunctionPointerCallingConventions();
            convention = conventions.Length == 0 ? SignatureCallingConvention.Unmanaged
                : conventions[0].Name switch
                {
                    "CallConvCdecl" => SignatureCallingConvention.CDecl,
                    "CallConvStdcall" => SignatureCallingConvention.StdCall,
                    "CallConvThiscall" => SignatureCallingConvention.ThisCall,
                    "CallConvFastcall" => SignatureCallingConvention.FastCall,
                    _ => SignatureCallingConvention.Unmanaged,
                };
        }
        Type[] parameters = type.GetFunctionPointerParameterTypes();
        return new FunctionPointer(new MethodSignature<SigType>(
            new SignatureHeader(SignatureKind.Method, convention, SignatureAttributes.None), From(type.GetFunctionPointerReturnType()),
            parameters.Length, 0, parameters.Select(From).ToImmutableArray()));
    }
}

/// <summary>Decodes a member's definition signature from its own module's metadata into
/// SigTypes, resolving that module's TypeDef/TypeRef tokens to runtime types.</summary>
internal sealed class SigTypeDecoder(Module module) : ISignatureTypeProvider<SigType, object?>
{
    public SigType GetPrimitiveType(PrimitiveTypeCode typeCode) => new SigType.Primitive(typeCode);

    public SigType GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
        new SigType.Named(module.ResolveType(MetadataTokens.GetToken(handle)));

    public SigType GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) =>
        new SigType.Named(module.ResolveType(MetadataTokens.GetToken(handle)));

    public SigType GetTypeFromSpecification(MetadataReader reader, object? genericContext,
        TypeSpecificationHandle handle, byte rawTypeKind) =>
        reader.GetTypeSpecification(handle).DecodeSignature(this, genericContext);

    public SigType GetSZArrayType(SigType elementType) => new SigType.SZArray(elementType);

    public SigType GetArrayType(SigType elementType, ArrayShape shape) => new SigType.MDArray(elementType, shape);

    public SigType GetByReferenceType(SigType elementType) => new SigType.ByRef(elementType);

    public SigType GetPointerType(SigType elementType) => new SigType.Pointer(elementType);

    public SigType GetPinnedType(SigType elementType) => new SigType.Pinned(elementType);

    public SigType GetGenericInstantiation(SigType genericType, ImmutableArray<SigType> typeArguments) =>
        new SigType.GenericInstance(((SigType.Named)genericType).Type, typeArguments);

    public SigType GetGenericMethodParameter(object? genericContext, int index) => new SigType.MethodVar(index);

    public SigType GetGenericTypeParameter(object? genericContext, int index) => new SigType.TypeVar(index);

    public SigType GetModifiedType(SigType modifier, SigType unmodifiedType, bool isRequired) =>
        new SigType.Modified(((SigType.Named)modifier).Type, unmodifiedType, isRequired);

    public SigType GetFunctionPointerType(MethodSignature<SigType> signature) => new SigType.FunctionPointer(signature);
}
