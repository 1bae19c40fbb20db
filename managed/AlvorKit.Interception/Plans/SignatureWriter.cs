using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// Writes SigTypes into signature blobs (TypeSpec, MemberRef, MethodSpec, StandAloneSig, locals)
/// in the target module's terms. A class or value type a blob names is a TypeDef of the module,
/// a TypeRef the module already has, or else a class reference (ABI 3.3: a
/// TypeDefOrRefOrSpecEncoded with tag 3 whose row is the 1-based index of an earlier TypeRef
/// relocation, which `typeRefRelocation` adds to the plan's table) that the profiler replaces
/// with that relocation's token before it defines the blob.
/// </summary>
internal sealed class SignatureWriter(ModuleContext module, MethodBase target, Func<Type, string, int> typeRefRelocation)
{
    private const byte ElementClass = 0x12, ElementValueType = 0x11, ElementGenericInstance = 0x15;
    private const byte ModifierRequired = 0x1F, ModifierOptional = 0x20;

    public byte[] TypeSpec(SigType type, string use) =>
        Blob(b => Type(new BlobEncoder(b).TypeSpecificationSignature(), type, use));

    public byte[] MethodSpec(IReadOnlyList<SigType> arguments, string use) => Blob(b =>
    {
        GenericTypeArgumentsEncoder args = new BlobEncoder(b).MethodSpecificationSignature(arguments.Count);
        foreach (SigType a in arguments)
            Type(args.AddArgument(), a, use);
    });

    /// <summary>A method signature with `header` kept as it is (calling convention, HASTHIS,
    /// GENERIC and its parameter count).</summary>
    public byte[] Method(SignatureHeader header, int genericParameterCount, SigType returnType,
        IReadOnlyList<SigType> parameters, string use) => Blob(b =>
    {
        if (header.CallingConvention == SignatureCallingConvention.VarArgs)
            throw Refuse($"{use}: varargs signatures are not supported.");
        b.WriteByte(header.RawValue);
        if (header.IsGeneric)
            b.WriteCompressedInteger(genericParameterCount);
        new MethodSignatureEncoder(b, hasVarArgs: false).Parameters(parameters.Count,
            r => Return(r, returnType, use),
            ps =>
            {
                foreach (SigType p in parameters)
                    Parameter(ps.AddParameter(), p, use);
            });
    });

    public byte[] Field(SigType type, string use) => Blob(b =>
    {
        FieldTypeEncoder f = new BlobEncoder(b).Field();
        type = Modifiers(type, () => f.CustomModifiers(), use);
        if (type is SigType.ByRef byRef)
            Type(f.Type(isByRef: true), byRef.Element, use);
        else if (type is SigType.Primitive { Code: PrimitiveTypeCode.TypedReference })
            f.TypedReference();
        else
            Type(f.Type(), type, use);
    });

    public byte[] Locals(IReadOnlyList<SigType> locals, string use) => Blob(b =>
    {
        LocalVariablesEncoder encoder = new BlobEncoder(b).LocalVariableSignature(locals.Count);
        foreach (SigType local in locals)
        {
            LocalVariableTypeEncoder v = encoder.AddVariable();
            SigType t = Modifiers(local, () => v.CustomModifiers(), use);
            bool pinned = t is SigType.Pinned;
            if (t is SigType.Pinned p)
                t = p.Element;
            if (t is SigType.ByRef byRef)
                Type(v.Type(isByRef: true, isPinned: pinned), byRef.Element, use);
            else if (t is SigType.Primitive { Code: PrimitiveTypeCode.TypedReference })
                v.TypedReference();
            else
                Type(v.Type(isByRef: false, isPinned: pinned), t, use);
        }
    });

    private void Return(ReturnTypeEncoder r, SigType type, string use)
    {
        type = Modifiers(type, () => r.CustomModifiers(), use);
        switch (type)
        {
            case SigType.Primitive { Code: PrimitiveTypeCode.Void }:
                r.Void();
                break;
            case SigType.Primitive { Code: PrimitiveTypeCode.TypedReference }:
                r.TypedReference();
                break;
            case SigType.ByRef byRef:
                Type(r.Type(isByRef: true), byRef.Element, use);
                break;
            default:
                Type(r.Type(), type, use);
                break;
        }
    }

    private void Parameter(ParameterTypeEncoder p, SigType type, string use)
    {
        type = Modifiers(type, () => p.CustomModifiers(), use);
        switch (type)
        {
            case SigType.Primitive { Code: PrimitiveTypeCode.TypedReference }:
                p.TypedReference();
                break;
            case SigType.ByRef byRef:
                Type(p.Type(isByRef: true), byRef.Element, use);
                break;
            default:
                Type(p.Type(), type, use);
                break;
        }
    }

    /// <summary>Writes the leading custom modifiers of `type` (if any) and returns what they modify.</summary>
    private SigType Modifiers(SigType type, Func<CustomModifiersEncoder> start, string use)
    {
        if (type is not SigType.Modified)
            return type;
        CustomModifiersEncoder mods = start();
        while (type is SigType.Modified m)
        {
            // As CustomModifiersEncoder.AddModifier writes it, with a coded index that may be a
            // class reference.
            mods.Builder.WriteByte(m.Required ? ModifierRequired : ModifierOptional);
            mods.Builder.WriteCompressedInteger(Coded(m.Modifier, use));
            type = m.Unmodified;
        }
        return type;
    }

    private void Type(SignatureTypeEncoder e, SigType type, string use)
    {
        switch (type)
        {
            case SigType.Modified:
                SigType rest = Modifiers(type, () => e.CustomModifiers(), use);
                Type(e, rest, use);
                break;
            case SigType.Primitive { Code: PrimitiveTypeCode.Void or PrimitiveTypeCode.TypedReference } p:
                throw Refuse($"{use}: {p.Code} cannot appear inside another type.");
            case SigType.Primitive p:
                e.PrimitiveType(p.Code);
                break;
            case SigType.Named n when SigType.TryPrimitive(n.Type, out PrimitiveTypeCode code) &&
                                      code is not (PrimitiveTypeCode.Void or PrimitiveTypeCode.TypedReference):
                e.PrimitiveType(code);
                break;
            case SigType.Named n:
                // As SignatureTypeEncoder.Type writes it.
                e.Builder.WriteByte(n.Type.IsValueType ? ElementValueType : ElementClass);
                e.Builder.WriteCompressedInteger(Coded(n.Type, use));
                break;
            case SigType.GenericInstance g:
                // As SignatureTypeEncoder.GenericInstantiation writes it.
                e.Builder.WriteByte(ElementGenericInstance);
                e.Builder.WriteByte(g.Definition.IsValueType ? ElementValueType : ElementClass);
                e.Builder.WriteCompressedInteger(Coded(g.Definition, use));
                e.Builder.WriteCompressedInteger(g.Arguments.Length);
                var args = new GenericTypeArgumentsEncoder(e.Builder);
                foreach (SigType a in g.Arguments)
                    Type(args.AddArgument(), a, use);
                break;
            case SigType.SZArray a:
                Type(e.SZArray(), a.Element, use);
                break;
            case SigType.MDArray a:
                e.Array(out SignatureTypeEncoder element, out ArrayShapeEncoder shape);
                Type(element, a.Element, use);
                shape.Shape(a.Shape.Rank, a.Shape.Sizes, a.Shape.LowerBounds);
                break;
            case SigType.Pointer { Element: SigType.Primitive { Code: PrimitiveTypeCode.Void } }:
                e.VoidPointer();
                break;
            case SigType.Pointer ptr:
                Type(e.Pointer(), ptr.Element, use);
                break;
            case SigType.TypeVar v:
                e.GenericTypeParameter(v.Index);
                break;
            case SigType.MethodVar v:
                e.GenericMethodTypeParameter(v.Index);
                break;
            case SigType.FunctionPointer f:
                MethodSignature<SigType> s = f.Signature;
                e.FunctionPointer(s.Header.CallingConvention,
                        s.Header.IsInstance ? FunctionPointerAttributes.HasThis : FunctionPointerAttributes.None,
                        s.GenericParameterCount)
                    .Parameters(s.ParameterTypes.Length, r => Return(r, s.ReturnType, use), ps =>
                    {
                        foreach (SigType p in s.ParameterTypes)
                            Parameter(ps.AddParameter(), p, use);
                    });
                break;
            case SigType.ByRef:
                throw Refuse($"{use}: a by-reference type can only be a parameter, a local, a field or a return type.");
            case SigType.Pinned:
                throw Refuse($"{use}: only a local can be pinned.");
            default:
                throw Refuse($"{use}: {type} has no signature encoding.");
        }
    }

    /// <summary>The TypeDefOrRefOrSpecEncoded value that names `type` inside a blob: its TypeDef
    /// in this module, a TypeRef the module already has, or a class reference to a TypeRef
    /// relocation (row &lt;&lt; 2 | 3).</summary>
    private int Coded(Type type, string use)
    {
        if (module.Defines(type))
            return CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.EntityHandle(type.MetadataToken));
        int typeRef = module.ExistingTypeRef(type);
        if (typeRef != 0)
            return CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.EntityHandle(typeRef));
        return RelocationTable.SignatureReference(typeRefRelocation(type, use));
    }

    private PlanException Refuse(string message) => new(target, $"Plan for {Names.Of(target)}: {message}");

    private static byte[] Blob(Action<BlobBuilder> write)
    {
        var builder = new BlobBuilder();
        write(builder);
        return builder.ToArray();
    }
}
