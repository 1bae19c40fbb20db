using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// Decodes signature blobs of a target's module (a calli's StandAloneSig) into runtime types,
/// with the target's generic context standing for VAR and MVAR: what the stack-type check needs
/// of an original call site whose token the plan re-emits as is.
/// </summary>
internal sealed class OriginalSignatures(Module module, Type[]? typeArguments, Type[]? methodArguments)
    : ISignatureTypeProvider<Type, object?>
{
    /// <summary>The calli signature StandAloneSig `token` holds.</summary>
    public CalliSignature Calli(MetadataReader reader, int token)
    {
        StandaloneSignature signature =
            reader.GetStandaloneSignature((StandaloneSignatureHandle)MetadataTokens.EntityHandle(token));
        if (signature.GetKind() != StandaloneSignatureKind.Method)
            throw new BadImageFormatException($"StandAloneSig 0x{token:X8} is not a method signature");
        MethodSignature<Type> s = signature.DecodeMethodSignature(this, null);
        return new CalliSignature(s.Header.IsInstance, s.ReturnType, [.. s.ParameterTypes], s.Header.CallingConvention);
    }

    public Type GetPrimitiveType(PrimitiveTypeCode typeCode) => typeCode switch
    {
        PrimitiveTypeCode.Void => typeof(void),
        PrimitiveTypeCode.Boolean => typeof(bool),
        PrimitiveTypeCode.Char => typeof(char),
        PrimitiveTypeCode.SByte => typeof(sbyte),
        PrimitiveTypeCode.Byte => typeof(byte),
        PrimitiveTypeCode.Int16 => typeof(short),
        PrimitiveTypeCode.UInt16 => typeof(ushort),
        PrimitiveTypeCode.Int32 => typeof(int),
        PrimitiveTypeCode.UInt32 => typeof(uint),
        PrimitiveTypeCode.Int64 => typeof(long),
        PrimitiveTypeCode.UInt64 => typeof(ulong),
        PrimitiveTypeCode.Single => typeof(float),
        PrimitiveTypeCode.Double => typeof(double),
        PrimitiveTypeCode.String => typeof(string),
        PrimitiveTypeCode.IntPtr => typeof(IntPtr),
        PrimitiveTypeCode.UIntPtr => typeof(UIntPtr),
        PrimitiveTypeCode.TypedReference => typeof(TypedReference),
        _ => typeof(object),
    };

    public Type GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
        module.ResolveType(MetadataTokens.GetToken(handle), typeArguments, methodArguments);

    public Type GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) =>
        module.ResolveType(MetadataTokens.GetToken(handle), typeArguments, methodArguments);

    public Type GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle,
        byte rawTypeKind) => module.ResolveType(MetadataTokens.GetToken(handle), typeArguments, methodArguments);

    public Type GetSZArrayType(Type elementType) => elementType.MakeArrayType();

    public Type GetArrayType(Type elementType, ArrayShape shape) => elementType.MakeArrayType(shape.Rank);

    public Type GetByReferenceType(Type elementType) => elementType.MakeByRefType();

    public Type GetPointerType(Type elementType) => elementType.MakePointerType();

    public Type GetPinnedType(Type elementType) => elementType;

    public Type GetGenericInstantiation(Type genericType, ImmutableArray<Type> typeArguments) =>
        genericType.MakeGenericType([.. typeArguments]);

    public Type GetGenericMethodParameter(object? genericContext, int index) =>
        methodArguments is { } m && index < m.Length ? m[index]
            : throw new BadImageFormatException($"MVAR {index} outside a generic method");

    public Type GetGenericTypeParameter(object? genericContext, int index) =>
        typeArguments is { } t && index < t.Length ? t[index]
            : throw new BadImageFormatException($"VAR {index} outside a generic type");

    public Type GetModifiedType(Type modifier, Type unmodifiedType, bool isRequired) => unmodifiedType;

    // A function pointer is a native int on the stack.
    public Type GetFunctionPointerType(MethodSignature<Type> signature) => typeof(IntPtr);
}
