using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.IL;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// The view's entities named as people write them, for results and refusals: types without
/// arity suffixes (<c>Game.World</c>), methods with their parameter types
/// (<c>Game.Scoring.PointsFor(int)</c>), and what the compiler generated named after the user
/// method it belongs to (<c>Game.World.Update (a lambda: &lt;Update&gt;b__3_0)</c>), never the
/// generated name first. Also the readable difference between two bodies of a method.
/// </summary>
internal sealed class ViewNames(ReloadContext context)
{
    private readonly TypeNames _types = new(context);

    private MetadataView View => context.View;

    private DeltaGeneration? Pending => context.Pending;

    /// <summary>A MethodDef, FieldDef, TypeDef or reference of the view, named for people.</summary>
    public string Member(EntityHandle handle)
    {
        try
        {
            switch (handle.Kind)
            {
                case HandleKind.MethodDefinition:
                {
                    MethodDefinition method = View.MethodDef((MethodDefinitionHandle)handle, Pending);
                    TypeDefinitionHandle type = context.Placements.DeclaringType(handle);
                    string name = View.String(method.Name, Pending);
                    string parameters = Parameters(method.Signature);
                    if (name == ".ctor" && !context.Shapes.Name(type).StartsWith('<'))
                        return "new " + context.Shapes.DisplayName(type) + parameters;
                    if (name == ".cctor")
                        return context.Shapes.DisplayName(type) + " (static constructor)";
                    return UserFacing(type, name, name + parameters);
                }
                case HandleKind.FieldDefinition:
                {
                    FieldDefinition field = View.FieldDef((FieldDefinitionHandle)handle, Pending);
                    TypeDefinitionHandle type = context.Placements.DeclaringType(handle);
                    string name = View.String(field.Name, Pending);
                    return UserFacing(type, name, name);
                }
                case HandleKind.TypeDefinition:
                    return context.Shapes.DisplayName((TypeDefinitionHandle)handle);
                case HandleKind.MemberReference:
                {
                    MemberReference reference = View.MemberRef((MemberReferenceHandle)handle, Pending);
                    string name = View.String(reference.Name, Pending);
                    string owner = reference.Parent.Kind is HandleKind.TypeDefinition or HandleKind.TypeReference
                        or HandleKind.TypeSpecification
                        ? _types.Of(reference.Parent)
                        : "";
                    bool method = View.Blob(reference.Signature, Pending).ReadSignatureHeader().Kind != SignatureKind.Field;
                    return $"{owner}.{name}{(method ? Parameters(reference.Signature) : "")}";
                }
                case HandleKind.MethodSpecification:
                {
                    MethodSpecification spec = View.MethodSpec((MethodSpecificationHandle)handle, Pending);
                    BlobReader blob = View.Blob(spec.Signature, Pending);
                    ImmutableArray<string> arguments = new SignatureDecoder<string, object?>(_types, View.Baseline, null)
                        .DecodeMethodSpecificationSignature(ref blob);
                    string generic = Member(spec.Method);
                    int paren = generic.IndexOf('(', StringComparison.Ordinal);
                    return paren < 0 ? generic : $"{generic[..paren]}<{string.Join(", ", arguments)}>{generic[paren..]}";
                }
                default:
                    return _types.Of(handle);
            }
        }
        catch (BadImageFormatException)
        {
            return $"{handle.Kind} 0x{MetadataTokens.GetToken(handle):X8}";
        }
    }

    /// <summary>The name of a type or member inside an operand.</summary>
    public string Operand(int token)
    {
        if ((token >> 24) == 0x70)
        {
            string value = View.UserString(MetadataTokens.UserStringHandle(token & 0xFFFFFF), Pending);
            return "\"" + (value.Length <= 40 ? value : value[..37] + "...") + "\"";
        }
        EntityHandle handle = MetadataTokens.EntityHandle(token);
        return handle.Kind switch
        {
            HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => _types.Of(handle),
            HandleKind.StandaloneSignature => "(signature)",
            _ => Member(handle),
        };
    }

    /// <summary>The first differences between the body <paramref name="method"/> runs now and its
    /// new one in the pending delta, readable; null when the bodies cannot be read.</summary>
    public string? Difference(MethodDefinitionHandle method, DeltaGeneration pending, LoadedBody? original)
    {
        try
        {
            byte[]? before = View.GenerationOf(method) > 0
                ? Code(BodyRewriter.Read(View, method, null).Bytes)
                : original?.Code;
            if (before is null)
                return null;
            byte[] after = Code(BodyRewriter.Read(View, method, pending).Bytes);
            return BodyDifference.Describe(before, after, Operand);
        }
        catch (BadImageFormatException)
        {
            return null;
        }
    }

    private static byte[] Code(byte[] raw)
    {
        BodyHeader header = MethodBodyFormat.Header(raw);
        return raw.AsSpan(header.CodeStart, header.CodeSize).ToArray();
    }

    private string Parameters(BlobHandle signature)
    {
        BlobReader reader = View.Blob(signature, Pending);
        MethodSignature<string> decoded = new SignatureDecoder<string, object?>(_types, View.Baseline, null)
            .DecodeMethodSignature(ref reader);
        return "(" + string.Join(", ", decoded.ParameterTypes) + ")";
    }

    /// <summary>"World.Update(float)" for a user member; for a compiler-generated one, the user
    /// method it belongs to first, then what it is.</summary>
    private string UserFacing(TypeDefinitionHandle type, string name, string member)
    {
        // A generated type (<>c, <>c__DisplayClass3_0, <Update>d__3) stands for its enclosing
        // type's method; a generated member (<Update>b__3_0, <>9__3_0) for its type's.
        string typeName = context.Shapes.Name(type);
        TypeDefinitionHandle user = type;
        string? userMethod = null;
        if (typeName.StartsWith('<'))
        {
            TypeDefinitionHandle enclosing = context.Shapes.Enclosing(type);
            if (!enclosing.IsNil)
                user = enclosing;
            userMethod = GeneratedFor(typeName);
        }
        if (name.StartsWith('<'))
            userMethod ??= GeneratedFor(name);
        if (user == type && !name.StartsWith('<'))
            return context.Shapes.DisplayName(type) + "." + member;
        string owner = context.Shapes.DisplayName(user);
        string what = name.Contains(">b__", StringComparison.Ordinal) ? "a lambda"
            : name.Contains(">g__", StringComparison.Ordinal) ? "a local function"
            : typeName.Contains(">d__", StringComparison.Ordinal) ? "its state machine"
            : typeName.StartsWith("<>c", StringComparison.Ordinal) ? "a closure"
            : "generated";
        string raw = (user == type ? "" : typeName + ".") + name;
        return userMethod is { Length: > 0 }
            ? $"{owner}.{userMethod} ({what}: {raw})"
            : $"{owner} ({what}: {raw})";
    }

    // "<Update>b__3_0" -> "Update"; "<>c__DisplayClass3_0" -> null (no method name in it).
    private static string? GeneratedFor(string name)
    {
        int close = name.IndexOf('>', StringComparison.Ordinal);
        return close > 1 ? name[1..close] : null;
    }

    /// <summary>Type names for SRM's signature decoder: keywords, C#-like generics, no arity suffix.</summary>
    private sealed class TypeNames(ReloadContext context) : ISignatureTypeProvider<string, object?>
    {
        private MetadataView View => context.View;

        public string Of(EntityHandle handle) => handle.Kind switch
        {
            HandleKind.TypeDefinition => GetTypeFromDefinition(View.Baseline, (TypeDefinitionHandle)handle, 0),
            HandleKind.TypeReference => GetTypeFromReference(View.Baseline, (TypeReferenceHandle)handle, 0),
            HandleKind.TypeSpecification => GetTypeFromSpecification(View.Baseline, null, (TypeSpecificationHandle)handle, 0),
            _ => $"{handle.Kind} 0x{MetadataTokens.GetToken(handle):X8}",
        };

        public string GetPrimitiveType(PrimitiveTypeCode typeCode) => typeCode switch
        {
            PrimitiveTypeCode.Void => "void",
            PrimitiveTypeCode.Boolean => "bool",
            PrimitiveTypeCode.Char => "char",
            PrimitiveTypeCode.SByte => "sbyte",
            PrimitiveTypeCode.Byte => "byte",
            PrimitiveTypeCode.Int16 => "short",
            PrimitiveTypeCode.UInt16 => "ushort",
            PrimitiveTypeCode.Int32 => "int",
            PrimitiveTypeCode.UInt32 => "uint",
            PrimitiveTypeCode.Int64 => "long",
            PrimitiveTypeCode.UInt64 => "ulong",
            PrimitiveTypeCode.Single => "float",
            PrimitiveTypeCode.Double => "double",
            PrimitiveTypeCode.String => "string",
            PrimitiveTypeCode.Object => "object",
            PrimitiveTypeCode.IntPtr => "nint",
            PrimitiveTypeCode.UIntPtr => "nuint",
            PrimitiveTypeCode.TypedReference => "TypedReference",
            _ => typeCode.ToString(),
        };

        public string GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
            context.Shapes.DisplayName(handle);

        public string GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind)
        {
            TypeReference reference = View.TypeRef(handle, context.Pending);
            string name = Plain(View.String(reference.Name, context.Pending));
            if (reference.ResolutionScope.Kind == HandleKind.TypeReference)
                return GetTypeFromReference(reader, (TypeReferenceHandle)reference.ResolutionScope, 0) + "." + name;
            string ns = View.String(reference.Namespace, context.Pending);
            return ns is "System" && Keyword(name) is { } keyword ? keyword : name;
        }

        public string GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle,
                                               byte rawTypeKind)
        {
            BlobReader blob = View.Blob(View.TypeSpec(handle, context.Pending).Signature, context.Pending);
            return new SignatureDecoder<string, object?>(this, reader, genericContext).DecodeType(ref blob);
        }

        public string GetSZArrayType(string elementType) => elementType + "[]";

        public string GetArrayType(string elementType, ArrayShape shape) => elementType + "[" + new string(',', shape.Rank - 1) + "]";

        public string GetByReferenceType(string elementType) => "ref " + elementType;

        public string GetPointerType(string elementType) => elementType + "*";

        public string GetGenericInstantiation(string genericType, ImmutableArray<string> typeArguments) =>
            genericType + "<" + string.Join(", ", typeArguments) + ">";

        public string GetGenericTypeParameter(object? genericContext, int index) => "T" + (index == 0 ? "" : index.ToString(System.Globalization.CultureInfo.InvariantCulture));

        public string GetGenericMethodParameter(object? genericContext, int index) => "M" + (index == 0 ? "" : index.ToString(System.Globalization.CultureInfo.InvariantCulture));

        public string GetFunctionPointerType(MethodSignature<string> signature) =>
            "delegate*<" + string.Join(", ", signature.ParameterTypes.Append(signature.ReturnType)) + ">";

        public string GetModifiedType(string modifier, string unmodifiedType, bool isRequired) => unmodifiedType;

        public string GetPinnedType(string elementType) => elementType;

        private static string Plain(string name)
        {
            int tick = name.IndexOf('`', StringComparison.Ordinal);
            return tick > 0 ? name[..tick] : name;
        }

        private static string? Keyword(string name) => name switch
        {
            "Boolean" => "bool",
            "Char" => "char",
            "SByte" => "sbyte",
            "Byte" => "byte",
            "Int16" => "short",
            "UInt16" => "ushort",
            "Int32" => "int",
            "UInt32" => "uint",
            "Int64" => "long",
            "UInt64" => "ulong",
            "Single" => "float",
            "Double" => "double",
            "String" => "string",
            "Object" => "object",
            "Decimal" => "decimal",
            "Void" => "void",
            _ => null,
        };
    }
}
