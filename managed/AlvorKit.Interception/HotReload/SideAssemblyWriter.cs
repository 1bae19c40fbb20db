using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Writes a side assembly as its <see cref="SideLayout"/> planned it: the delta's added types
/// with their members, fields, methods, parameters, generic parameters and constraints,
/// interfaces, explicit implementations, nesting, layouts, constants, properties, events and
/// custom attributes; the mirrors of the types that already lived, with the added methods as
/// static carriers, the added static fields, and the stored fields' accessors and storage; and
/// <c>[assembly: IgnoresAccessChecksTo]</c> for every assembly it references, so its code
/// reaches the game's non-public members as the code it came from did. Every member is public:
/// the loaded module's new bodies call into it from another assembly. Method bodies are the
/// delta's, rewritten for this assembly's tokens (<see cref="BodyRewriter"/>).
/// </summary>
internal sealed class SideAssemblyWriter
{
    private readonly ReloadContext _context;
    private readonly SideLayout _layout;
    private readonly MetadataBuilder _metadata = new();
    private readonly BlobBuilder _il = new();
    private readonly SideTarget _target;
    private readonly Dictionary<int, EntityHandle> _map = []; // view token -> this assembly's handle
    private readonly List<(EntityHandle Owner, int Coded, GenericParam Param)> _generics = [];

    private SideAssemblyWriter(ReloadContext context, ReloadModule side, SideLayout layout)
    {
        _context = context;
        _layout = layout;
        _target = new SideTarget(context, side, _metadata, layout.MirrorTokens);
        Side = side;
    }

    private ReloadModule Side { get; }

    private ViewShapes Shapes => _context.Shapes;

    private MetadataView View => _context.View;

    private DeltaGeneration Delta => _context.Pending!;

    /// <summary>The side assembly's image.</summary>
    public static byte[] Write(ReloadContext context, ReloadModule side, SideLayout layout) =>
        new SideAssemblyWriter(context, side, layout).Write();

    private byte[] Write()
    {
        _metadata.AddModule(0, _metadata.GetOrAddString(Side.Name + ".dll"), _metadata.GetOrAddGuid(Guid.NewGuid()),
                            default, default);
        _metadata.AddAssembly(_metadata.GetOrAddString(Side.Name), new Version(0, 0, 0, 0), default, default, 0,
                              AssemblyHashAlgorithm.None);
        foreach (SideType type in _layout.Types)
        {
            if (!type.View.IsNil && type.Kind == SideTypeKind.Copy)
                _map[MetadataTokens.GetToken(type.View)] = MetadataTokens.TypeDefinitionHandle(type.Row);
        }
        foreach (SideField field in _layout.Fields.Where(f => f.Role is SideMemberRole.Copy or SideMemberRole.MirrorStatic))
            _map[MetadataTokens.GetToken(field.View)] = MetadataTokens.FieldDefinitionHandle(field.Row);
        foreach (SideMethod method in _layout.Methods.Where(m => m.Role is SideMemberRole.Copy or SideMemberRole.Extension))
            _map[MetadataTokens.GetToken(method.View)] = MetadataTokens.MethodDefinitionHandle(method.Row);

        int nextField = 1, nextMethod = 1, parameter = 1;
        foreach (SideType type in _layout.Types)
        {
            TypeDefinitionHandle handle = _metadata.AddTypeDefinition(TypeFlags(type), _metadata.GetOrAddString(type.Namespace),
                _metadata.GetOrAddString(type.Name), BaseType(type), MetadataTokens.FieldDefinitionHandle(nextField),
                MetadataTokens.MethodDefinitionHandle(nextMethod));
            nextField += type.Fields.Count;
            nextMethod += type.Methods.Count;
            if (type.Kind is SideTypeKind.Copy or SideTypeKind.Mirror or SideTypeKind.Storage)
                Generics(handle, type.View);
        }
        foreach (SideType type in _layout.Types)
        {
            foreach (SideField f in type.Fields)
                AddField(type, f);
        }
        foreach (SideType type in _layout.Types)
        {
            foreach (SideMethod m in type.Methods)
                parameter = AddMethod(type, m, parameter);
        }
        WriteGenerics();
        WriteTypeRelations();
        WriteConstants();
        WritePropertiesAndEvents();
        WriteAttributes();

        var image = new BlobBuilder();
        new ManagedPEBuilder(PEHeaderBuilder.CreateLibraryHeader(), new MetadataRootBuilder(_metadata), _il,
                             flags: CorFlags.ILOnly).Serialize(image);
        return image.ToArray();
    }

    // ------------------------------------------------------------------ types

    private TypeAttributes TypeFlags(SideType type)
    {
        bool nested = type.Enclosing is not null;
        TypeAttributes visibility = nested ? TypeAttributes.NestedPublic : TypeAttributes.Public;
        return type.Kind switch
        {
            SideTypeKind.Helper when type == _layout.ModuleType => 0,
            SideTypeKind.Helper => TypeAttributes.NotPublic | TypeAttributes.Sealed | TypeAttributes.BeforeFieldInit,
            SideTypeKind.Copy => (Shapes.Type(type.View).Attributes & ~TypeAttributes.VisibilityMask) | visibility,
            SideTypeKind.Mirror => visibility | TypeAttributes.Abstract | TypeAttributes.Sealed | TypeAttributes.BeforeFieldInit,
            _ => visibility | TypeAttributes.Sealed | TypeAttributes.BeforeFieldInit,
        };
    }

    private EntityHandle BaseType(SideType type)
    {
        if (type == _layout.ModuleType)
            return default;
        if (type == _layout.AccessAttribute)
            return Handle(_target.CoreType("System", "Attribute"));
        if (type.Kind == SideTypeKind.Copy)
        {
            EntityHandle baseType = Shapes.Type(type.View).BaseType;
            return baseType.IsNil ? default : Handle(_target.Type(baseType));
        }
        return Handle(_target.CoreType("System", "Object"));
    }

    private void Generics(EntityHandle owner, EntityHandle view)
    {
        int coded = CodedIndex.TypeOrMethodDef(owner);
        foreach (GenericParam p in Shapes.GenericParams(view))
            _generics.Add((owner, coded, p));
    }

    private void WriteGenerics()
    {
        var constraints = new List<(GenericParameterHandle Parameter, EntityHandle Type)>();
        foreach ((EntityHandle owner, _, GenericParam p) in _generics.OrderBy(g => g.Coded).ThenBy(g => g.Param.Index))
        {
            GenericParameterHandle handle = _metadata.AddGenericParameter(owner, p.Attributes, _metadata.GetOrAddString(p.Name), p.Index);
            foreach (EntityHandle constraint in p.Constraints)
                constraints.Add((handle, Handle(_target.Type(constraint))));
        }
        foreach ((GenericParameterHandle parameter, EntityHandle type) in constraints.OrderBy(c => MetadataTokens.GetRowNumber(c.Parameter)))
            _metadata.AddGenericParameterConstraint(parameter, type);
    }

    private void WriteTypeRelations()
    {
        var interfaces = new List<(TypeDefinitionHandle Type, EntityHandle Interface)>();
        foreach (SideType type in _layout.Types)
        {
            var handle = MetadataTokens.TypeDefinitionHandle(type.Row);
            if (type.Enclosing is { } enclosing)
                _metadata.AddNestedType(handle, MetadataTokens.TypeDefinitionHandle(enclosing.Row));
            if (type.Kind != SideTypeKind.Copy)
                continue;
            foreach (EntityHandle i in Shapes.Interfaces(type.View))
                interfaces.Add((handle, Handle(_target.Type(i))));
            if (Shapes.Layout(type.View) is { } layout)
                _metadata.AddTypeLayout(handle, layout.Packing, layout.Size);
        }
        foreach (var (type, i) in interfaces.OrderBy(i => MetadataTokens.GetRowNumber(i.Type)).ThenBy(i => CodedIndex.TypeDefOrRefOrSpec(i.Interface)))
            _metadata.AddInterfaceImplementation(type, i);
        var impls = new List<(TypeDefinitionHandle Type, EntityHandle Body, EntityHandle Declaration)>();
        foreach (MethodImplementationHandle handle in SideLayout.Rows(Delta.Reader, TableIndex.MethodImpl,
                                                                       MetadataTokens.MethodImplementationHandle))
        {
            MethodImplementation impl = Delta.Reader.GetMethodImplementation(handle);
            SideType copy = _layout.CopyOf(impl.Type)!;
            impls.Add((MetadataTokens.TypeDefinitionHandle(copy.Row), Handle(_target.Method(impl.MethodBody, out _)),
                       Handle(_target.Method(impl.MethodDeclaration, out _))));
        }
        foreach (var (type, body, declaration) in impls.OrderBy(i => MetadataTokens.GetRowNumber(i.Type)))
            _metadata.AddMethodImplementation(type, body, declaration);
        foreach (SideField f in _layout.Fields.Where(f => f.Role == SideMemberRole.Copy))
        {
            if (Shapes.FieldOffset(f.View) is int offset)
                _metadata.AddFieldLayout(MetadataTokens.FieldDefinitionHandle(f.Row), offset);
        }
    }

    // ------------------------------------------------------------------ fields

    private void AddField(SideType type, SideField field)
    {
        switch (field.Role)
        {
            case SideMemberRole.Copy or SideMemberRole.MirrorStatic or SideMemberRole.StoredValue:
            {
                FieldDefinition row = View.FieldDef(field.View, Delta);
                FieldAttributes flags = (row.Attributes & ~FieldAttributes.FieldAccessMask) | FieldAttributes.Public;
                if (field.Role == SideMemberRole.MirrorStatic)
                    flags &= ~FieldAttributes.InitOnly; // its initializer is in a constructor that already ran
                _metadata.AddFieldDefinition(flags, _metadata.GetOrAddString(field.Name),
                                             _metadata.GetOrAddBlob(_target.TranslateSignature(row.Signature)));
                break;
            }
            case SideMemberRole.Table:
            {
                var blob = new BlobBuilder();
                blob.WriteByte(0x06);
                blob.WriteBytes(TableType(type.Enclosing!));
                _metadata.AddFieldDefinition(FieldAttributes.Public | FieldAttributes.Static | FieldAttributes.InitOnly,
                                             _metadata.GetOrAddString(field.Name), _metadata.GetOrAddBlob(blob));
                break;
            }
            default:
                throw new InvalidOperationException($"a field of role {field.Role}");
        }
    }

    // ------------------------------------------------------------------ methods

    private int AddMethod(SideType type, SideMethod method, int parameter)
    {
        int first = parameter;
        switch (method.Role)
        {
            case SideMemberRole.Copy:
            case SideMemberRole.Extension:
            {
                MethodDefinition row = View.MethodDef(method.View, Delta);
                string member = Describe(type, method.Name);
                _target.Member = member;
                MethodAttributes flags = method.Role == SideMemberRole.Copy
                    ? (row.Attributes & ~MethodAttributes.MemberAccessMask) | MethodAttributes.Public
                    : MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig |
                      (row.Attributes & MethodAttributes.SpecialName);
                byte[] signature = method is { Role: SideMemberRole.Extension, Instance: true }
                    ? _target.CarrierSignature(row.Signature, type.View)
                    : _target.TranslateSignature(row.Signature);
                int body = -1;
                if (row.RelativeVirtualAddress != 0)
                {
                    bool nullCheck = method is { Role: SideMemberRole.Extension, Instance: true } && !Shapes.IsValueType(type.View);
                    RawBody raw = BodyRewriter.Rewrite(BodyRewriter.Read(View, method.View, Delta), _target, nullCheck);
                    _il.Align(4);
                    body = _il.Count;
                    _il.WriteBytes(raw.Bytes);
                }
                _metadata.AddMethodDefinition(flags, row.ImplAttributes, _metadata.GetOrAddString(method.Name),
                    _metadata.GetOrAddBlob(signature), body, MetadataTokens.ParameterHandle(first));
                int shift = method is { Role: SideMemberRole.Extension, Instance: true } ? 1 : 0;
                var parameters = method.Parameters.Select(p => (Handle: p, Row: View.Param(p, Delta)))
                    .Select(p => (p.Handle, Sequence: p.Row.SequenceNumber == 0 ? 0 : p.Row.SequenceNumber + shift, p.Row))
                    .ToList();
                if (shift == 1)
                    parameters.Add((default, 1, default));
                foreach (var (handle, sequence, p) in parameters.OrderBy(p => p.Sequence))
                {
                    ParameterHandle added = handle.IsNil
                        ? _metadata.AddParameter(ParameterAttributes.None, _metadata.GetOrAddString("this"), 1)
                        : _metadata.AddParameter(p.Attributes, _metadata.GetOrAddString(View.String(p.Name, Delta)), sequence);
                    if (!handle.IsNil)
                        _map[MetadataTokens.GetToken(handle)] = added;
                    parameter++;
                }
                if (method.Role is SideMemberRole.Copy or SideMemberRole.Extension)
                    Generics(MetadataTokens.MethodDefinitionHandle(method.Row), method.View);
                return parameter;
            }
            case SideMemberRole.Getter or SideMemberRole.Setter or SideMemberRole.Address:
                return AddAccessor(type, method, parameter);
            case SideMemberRole.Factory:
                return AddFactory(type, method, parameter);
            case SideMemberRole.StorageConstructor:
            {
                byte[] code = Code(il =>
                {
                    il.WriteByte((byte)ILOpCode.Ldarg_0);
                    Call(il, ILOpCode.Call, _target.Reference(_target.CoreType("System", "Object"), ".ctor", [0x20, 0, 1]));
                    il.WriteByte((byte)ILOpCode.Ret);
                });
                _metadata.AddMethodDefinition(MethodAttributes.Public | MethodAttributes.HideBySig | MethodAttributes.SpecialName |
                                              MethodAttributes.RTSpecialName, MethodImplAttributes.IL,
                    _metadata.GetOrAddString(".ctor"), _metadata.GetOrAddBlob(new byte[] { 0x20, 0, 1 }), FatBody(1, code),
                    MetadataTokens.ParameterHandle(first));
                return parameter;
            }
            case SideMemberRole.StorageInitializer:
            {
                byte[] table = TableType(type.Enclosing!);
                Operand tableType = _target.Specification(table);
                byte[] code = Code(il =>
                {
                    Call(il, ILOpCode.Newobj, _target.Reference(tableType, ".ctor", [0x20, 0, 1]));
                    Call(il, ILOpCode.Stsfld, TableField(type.Enclosing!, table));
                    il.WriteByte((byte)ILOpCode.Ret);
                });
                _metadata.AddMethodDefinition(MethodAttributes.Private | MethodAttributes.Static | MethodAttributes.HideBySig |
                                              MethodAttributes.SpecialName | MethodAttributes.RTSpecialName,
                    MethodImplAttributes.IL, _metadata.GetOrAddString(".cctor"), _metadata.GetOrAddBlob(new byte[] { 0x00, 0, 1 }),
                    FatBody(1, code), MetadataTokens.ParameterHandle(first));
                return parameter;
            }
            case SideMemberRole.AttributeConstructor:
            {
                byte[] code = Code(il =>
                {
                    il.WriteByte((byte)ILOpCode.Ldarg_0);
                    Call(il, ILOpCode.Call, _target.Reference(_target.CoreType("System", "Attribute"), ".ctor", [0x20, 0, 1]));
                    il.WriteByte((byte)ILOpCode.Ret);
                });
                _metadata.AddMethodDefinition(MethodAttributes.Public | MethodAttributes.HideBySig | MethodAttributes.SpecialName |
                                              MethodAttributes.RTSpecialName, MethodImplAttributes.IL,
                    _metadata.GetOrAddString(".ctor"), _metadata.GetOrAddBlob(new byte[] { 0x20, 1, 1, 0x0E }), FatBody(1, code),
                    MetadataTokens.ParameterHandle(first));
                _metadata.AddParameter(ParameterAttributes.None, _metadata.GetOrAddString("assemblyName"), 1);
                return parameter + 1;
            }
            default:
                throw new InvalidOperationException($"a method of role {method.Role}");
        }
    }

    // <new>: a constructor added to a type that lived, as newobj would run it: the object made
    // (a class's uninitialized, as the runtime allocates it; a struct's default value), the
    // constructor's body (<init>, which runs the field initializers and the base constructor
    // first, as the compiler wrote it) run on it, the object returned.
    private int AddFactory(SideType mirror, SideMethod factory, int parameter)
    {
        MethodDefinition row = View.MethodDef(factory.View, Delta);
        SideMethod body = mirror.Methods.Single(m => m.Role == SideMemberRole.Extension && m.View == factory.View);
        _target.Member = Describe(mirror, factory.Name);
        byte[] signature = _target.FactorySignature(row.Signature, mirror.View);
        int count = ParameterCount(View.Blob(row.Signature, Delta));
        int bodyToken = MetadataTokens.GetToken(MetadataTokens.MethodDefinitionHandle(body.Row));
        Operand self = _target.Type(mirror.View);
        int offset;
        if (!Shapes.IsValueType(mirror.View))
        {
            Operand typeType = _target.CoreType("System", "Type");
            Operand handleType = _target.CoreType("System", "RuntimeTypeHandle");
            byte[] fromHandle = Blob(w =>
            {
                w.WriteByte(0x00);
                w.WriteCompressedInteger(1);
                w.WriteByte((byte)SignatureTypeKind.Class);
                w.WriteCompressedInteger(_target.CodedClass(typeType));
                w.WriteByte((byte)SignatureTypeKind.ValueType);
                w.WriteCompressedInteger(_target.CodedClass(handleType));
            });
            byte[] uninitialized = Blob(w =>
            {
                w.WriteByte(0x00);
                w.WriteCompressedInteger(1);
                w.WriteByte((byte)SignatureTypeCode.Object);
                w.WriteByte((byte)SignatureTypeKind.Class);
                w.WriteCompressedInteger(_target.CodedClass(typeType));
            });
            byte[] code = Code(il =>
            {
                Call(il, ILOpCode.Ldtoken, self);
                Call(il, ILOpCode.Call, _target.Reference(typeType, "GetTypeFromHandle", fromHandle));
                Call(il, ILOpCode.Call, _target.Reference(_target.CoreType("System.Runtime.CompilerServices", "RuntimeHelpers"),
                                                          "GetUninitializedObject", uninitialized));
                il.WriteByte((byte)ILOpCode.Dup);
                LoadArguments(il, count);
                il.WriteByte((byte)ILOpCode.Call);
                il.WriteInt32(bodyToken);
                il.WriteByte((byte)ILOpCode.Ret);
            });
            offset = FatBody(count + 2, code);
        }
        else
        {
            byte[] locals = Blob(w =>
            {
                w.WriteByte((byte)SignatureKind.LocalVariables);
                w.WriteCompressedInteger(1);
                _target.WriteThis(w, mirror.View);
            });
            int localsToken = MetadataTokens.GetToken(_metadata.AddStandaloneSignature(_metadata.GetOrAddBlob(locals)));
            byte[] code = Code(il =>
            {
                il.WriteByte((byte)ILOpCode.Ldloca_s);
                il.WriteByte(0);
                il.WriteUInt16(0x15FE); // initobj (FE 15)
                il.WriteInt32(self.Token);
                il.WriteByte((byte)ILOpCode.Ldloca_s);
                il.WriteByte(0);
                LoadArguments(il, count);
                il.WriteByte((byte)ILOpCode.Call);
                il.WriteInt32(bodyToken);
                il.WriteByte((byte)ILOpCode.Ldloc_0);
                il.WriteByte((byte)ILOpCode.Ret);
            });
            offset = FatBody(count + 1, code, localsToken);
        }
        _metadata.AddMethodDefinition(MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig,
            MethodImplAttributes.IL, _metadata.GetOrAddString(factory.Name), _metadata.GetOrAddBlob(signature), offset,
            MetadataTokens.ParameterHandle(parameter));
        return parameter;
    }

    private static int ParameterCount(BlobReader signature)
    {
        _ = signature.ReadSignatureHeader();
        return signature.ReadCompressedInteger();
    }

    private static void LoadArguments(BlobBuilder il, int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (i < 4)
            {
                il.WriteByte((byte)((int)ILOpCode.Ldarg_0 + i));
            }
            else if (i < 256)
            {
                il.WriteByte((byte)ILOpCode.Ldarg_s);
                il.WriteByte((byte)i);
            }
            else
            {
                il.WriteUInt16(0x09FE); // ldarg (FE 09)
                il.WriteUInt16((ushort)i);
            }
        }
    }

    private static byte[] Blob(Action<BlobBuilder> write)
    {
        var blob = new BlobBuilder();
        write(blob);
        return blob.ToArray();
    }

    // name<get, name<set, name<ref: the stored value of `this`, through the storage's table.
    private int AddAccessor(SideType mirror, SideMethod accessor, int parameter)
    {
        SideField value = accessor.Stored!;
        FieldDefinition row = View.FieldDef(value.View, Delta);
        ILOpCode opcode = accessor.Role switch
        {
            SideMemberRole.Getter => ILOpCode.Ldfld,
            SideMemberRole.Setter => ILOpCode.Stfld,
            _ => ILOpCode.Ldflda,
        };
        byte[] signature = _target.AccessorSignature(opcode, row.Signature, mirror.View);
        SideType storage = mirror.Storage!;
        byte[] table = TableType(mirror);
        Operand tableType = _target.Specification(table);
        byte[] getOrCreate = [0x20, 1, (byte)SignatureTypeCode.GenericTypeParameter, 1, (byte)SignatureTypeCode.GenericTypeParameter, 0];
        Operand storedField = StoredField(storage, value, row.Signature);
        byte[] code = Code(il =>
        {
            NullCheckThis(il);
            Call(il, ILOpCode.Ldsfld, TableField(mirror, table));
            il.WriteByte((byte)ILOpCode.Ldarg_0);
            Call(il, ILOpCode.Callvirt, _target.Reference(tableType, "GetOrCreateValue", getOrCreate));
            if (opcode == ILOpCode.Stfld)
                il.WriteByte((byte)ILOpCode.Ldarg_1);
            Call(il, opcode, storedField);
            il.WriteByte((byte)ILOpCode.Ret);
        });
        _metadata.AddMethodDefinition(MethodAttributes.Public | MethodAttributes.Static | MethodAttributes.HideBySig,
            MethodImplAttributes.IL, _metadata.GetOrAddString(accessor.Name), _metadata.GetOrAddBlob(signature),
            FatBody(2, code), MetadataTokens.ParameterHandle(parameter));
        _metadata.AddParameter(ParameterAttributes.None, _metadata.GetOrAddString("this"), 1);
        if (opcode == ILOpCode.Stfld)
            _metadata.AddParameter(ParameterAttributes.None, _metadata.GetOrAddString("value"), 2);
        return parameter + (opcode == ILOpCode.Stfld ? 2 : 1);
    }

    // ConditionalWeakTable<ThisType, Storage<...>>, as a type blob.
    private byte[] TableType(SideType mirror)
    {
        var blob = new BlobBuilder();
        blob.WriteByte((byte)SignatureTypeCode.GenericTypeInstance);
        blob.WriteByte((byte)SignatureTypeKind.Class);
        blob.WriteCompressedInteger(_target.CodedClass(_target.CoreType("System.Runtime.CompilerServices", "ConditionalWeakTable`2")));
        blob.WriteCompressedInteger(2);
        _target.WriteThis(blob, mirror.View);
        WriteOwnType(blob, mirror.Storage!);
        return blob.ToArray();
    }

    // A type of this assembly over its own generic parameters (a storage class), as a type blob.
    private void WriteOwnType(BlobBuilder blob, SideType type)
    {
        int arity = Shapes.GenericParams(type.View).Count;
        int coded = CodedIndex.TypeDefOrRefOrSpec(MetadataTokens.TypeDefinitionHandle(type.Row));
        if (arity == 0)
        {
            blob.WriteByte((byte)SignatureTypeKind.Class);
            blob.WriteCompressedInteger(coded);
            return;
        }
        blob.WriteByte((byte)SignatureTypeCode.GenericTypeInstance);
        blob.WriteByte((byte)SignatureTypeKind.Class);
        blob.WriteCompressedInteger(coded);
        blob.WriteCompressedInteger(arity);
        for (int i = 0; i < arity; i++)
        {
            blob.WriteByte((byte)SignatureTypeCode.GenericTypeParameter);
            blob.WriteCompressedInteger(i);
        }
    }

    // The storage's <table> field, from code of the mirror or of the storage itself.
    private Operand TableField(SideType mirror, byte[] table)
    {
        SideType storage = mirror.Storage!;
        SideField field = storage.Fields.Single(f => f.Role == SideMemberRole.Table);
        var signature = new BlobBuilder();
        signature.WriteByte(0x06);
        signature.WriteBytes(table);
        return OwnField(storage, field, signature.ToArray());
    }

    private Operand StoredField(SideType storage, SideField value, BlobHandle viewSignature) =>
        OwnField(storage, value, _target.TranslateSignature(viewSignature));

    // A field of a type of this assembly: its FieldDef, or a MemberRef on the type over its own
    // generic parameters when the type is generic.
    private Operand OwnField(SideType type, SideField field, byte[] signature)
    {
        if (Shapes.GenericParams(type.View).Count == 0)
            return Operand.Direct(MetadataTokens.GetToken(MetadataTokens.FieldDefinitionHandle(field.Row)));
        var blob = new BlobBuilder();
        WriteOwnType(blob, type);
        return _target.Reference(_target.Specification(blob.ToArray()), field.Name, signature);
    }

    private void NullCheckThis(BlobBuilder il)
    {
        il.WriteByte((byte)ILOpCode.Ldarg_0);
        il.WriteByte((byte)ILOpCode.Brtrue_s);
        il.WriteByte(6);
        Call(il, ILOpCode.Newobj, _target.CoreConstructor("System", "NullReferenceException"));
        il.WriteByte((byte)ILOpCode.Throw);
    }

    private static void Call(BlobBuilder il, ILOpCode opcode, Operand operand)
    {
        il.WriteByte((byte)opcode);
        il.WriteInt32(operand.Token);
    }

    private static byte[] Code(Action<BlobBuilder> write)
    {
        var code = new BlobBuilder();
        write(code);
        return code.ToArray();
    }

    private int FatBody(int maxStack, byte[] code, int locals = 0)
    {
        _il.Align(4);
        int offset = _il.Count;
        _il.WriteUInt16(locals == 0 ? (ushort)0x3003 : (ushort)0x3013); // fat, header size 3 dwords (, init locals)
        _il.WriteUInt16((ushort)maxStack);
        _il.WriteInt32(code.Length);
        _il.WriteInt32(locals);
        _il.WriteBytes(code);
        return offset;
    }

    // ------------------------------------------------------------------ constants, properties, events, attributes

    private void WriteConstants()
    {
        var constants = new List<(EntityHandle Parent, object? Value)>();
        foreach (ConstantHandle handle in SideLayout.Rows(Delta.Reader, TableIndex.Constant, MetadataTokens.ConstantHandle))
        {
            Constant constant = Delta.Reader.GetConstant(handle);
            if (!_map.TryGetValue(MetadataTokens.GetToken(constant.Parent), out EntityHandle parent))
                continue;
            constants.Add((parent, View.Blob(constant.Value, Delta).ReadConstant(constant.TypeCode)));
        }
        foreach (var (parent, value) in constants.OrderBy(c => CodedIndex.HasConstant(c.Parent)))
            _metadata.AddConstant(parent, value);
    }

    private void WritePropertiesAndEvents()
    {
        // Which added type a property or event belongs to: its map row's parent (column 0).
        int[] mapColumns = [4, 4];
        var properties = new List<(int TypeRow, PropertyDefinitionHandle View)>();
        var events = new List<(int TypeRow, EventDefinitionHandle View)>();
        foreach (Addition addition in Delta.Additions)
        {
            TableIndex map;
            if (addition.Member.Kind == HandleKind.PropertyDefinition)
                map = TableIndex.PropertyMap;
            else if (addition.Member.Kind == HandleKind.EventDefinition)
                map = TableIndex.EventMap;
            else
                continue;
            if (!Delta.TryLocal(addition.Parent, out EntityHandle local))
                continue; // a map of an earlier generation: its type is one that lived, whose metadata stays
            var type = MetadataTokens.TypeDefinitionHandle((int)Delta.Column(map, MetadataTokens.GetRowNumber(local), 0, mapColumns));
            if (_layout.CopyOf(type) is not { } copy)
                continue; // added to a type that lived: its accessors are carriers on the mirror
            if (addition.Member.Kind == HandleKind.PropertyDefinition)
                properties.Add((copy.Row, (PropertyDefinitionHandle)addition.Member));
            else
                events.Add((copy.Row, (EventDefinitionHandle)addition.Member));
        }
        foreach (var group in properties.GroupBy(p => p.TypeRow).OrderBy(g => g.Key))
        {
            PropertyDefinitionHandle first = default;
            foreach (var (_, view) in group)
            {
                Delta.TryLocal(view, out EntityHandle local);
                PropertyDefinition p = Delta.Reader.GetPropertyDefinition((PropertyDefinitionHandle)local);
                PropertyDefinitionHandle added = _metadata.AddProperty(p.Attributes,
                    _metadata.GetOrAddString(View.String(p.Name, Delta)),
                    _metadata.GetOrAddBlob(_target.TranslateSignature(p.Signature)));
                _map[MetadataTokens.GetToken(view)] = added;
                if (first.IsNil)
                    first = added;
            }
            _metadata.AddPropertyMap(MetadataTokens.TypeDefinitionHandle(group.Key), first);
        }
        foreach (var group in events.GroupBy(e => e.TypeRow).OrderBy(g => g.Key))
        {
            EventDefinitionHandle first = default;
            foreach (var (_, view) in group)
            {
                Delta.TryLocal(view, out EntityHandle local);
                EventDefinition e = Delta.Reader.GetEventDefinition((EventDefinitionHandle)local);
                EventDefinitionHandle added = _metadata.AddEvent(e.Attributes,
                    _metadata.GetOrAddString(View.String(e.Name, Delta)), Handle(_target.Type(e.Type)));
                _map[MetadataTokens.GetToken(view)] = added;
                if (first.IsNil)
                    first = added;
            }
            _metadata.AddEventMap(MetadataTokens.TypeDefinitionHandle(group.Key), first);
        }
        // MethodSemantics: Semantics (2), Method (4), Association (4: HasSemantics, tag 0 event, 1 property).
        int[] semanticsColumns = [2, 4, 4];
        var semantics = new List<(EntityHandle Association, MethodSemanticsAttributes Kind, MethodDefinitionHandle Method)>();
        for (int row = 1; row <= Delta.Reader.GetTableRowCount(TableIndex.MethodSemantics); row++)
        {
            uint association = Delta.Column(TableIndex.MethodSemantics, row, 2, semanticsColumns);
            EntityHandle view = (association & 1) == 0
                ? MetadataTokens.EventDefinitionHandle((int)(association >> 1))
                : MetadataTokens.PropertyDefinitionHandle((int)(association >> 1));
            var method = MetadataTokens.MethodDefinitionHandle((int)Delta.Column(TableIndex.MethodSemantics, row, 1, semanticsColumns));
            if (!_map.TryGetValue(MetadataTokens.GetToken(view), out EntityHandle owner) ||
                !_map.TryGetValue(MetadataTokens.GetToken(method), out EntityHandle carrier))
                continue;
            semantics.Add((owner, (MethodSemanticsAttributes)Delta.Column(TableIndex.MethodSemantics, row, 0, semanticsColumns),
                           (MethodDefinitionHandle)carrier));
        }
        foreach (var (association, kind, method) in semantics.OrderBy(s => CodedIndex.HasSemantics(s.Association)))
            _metadata.AddMethodSemantics(association, kind, method);
    }

    private void WriteAttributes()
    {
        var attributes = new List<(EntityHandle Parent, EntityHandle Constructor, byte[] Value)>();
        foreach (CustomAttributeHandle handle in Delta.Reader.CustomAttributes)
        {
            CustomAttribute attribute = Delta.Reader.GetCustomAttribute(handle);
            if (!_map.TryGetValue(MetadataTokens.GetToken(attribute.Parent), out EntityHandle parent))
                continue;
            _target.Member = "a custom attribute";
            attributes.Add((parent, Handle(_target.Method(attribute.Constructor, out _)), View.BlobBytes(attribute.Value, Delta)));
        }
        var constructor = MetadataTokens.MethodDefinitionHandle(_layout.AccessAttribute.Methods[0].Row);
        foreach (string assembly in _target.ReferencedAssemblies.ToList())
        {
            var value = new BlobBuilder();
            value.WriteUInt16(1);
            value.WriteSerializedString(assembly);
            value.WriteUInt16(0);
            attributes.Add((EntityHandle.AssemblyDefinition, constructor, value.ToArray()));
        }
        foreach (var (parent, ctor, value) in attributes.OrderBy(a => CodedIndex.HasCustomAttribute(a.Parent)))
            _metadata.AddCustomAttribute(parent, ctor, _metadata.GetOrAddBlob(value));
    }

    // ------------------------------------------------------------------ helpers

    private static EntityHandle Handle(Operand operand) => MetadataTokens.EntityHandle(operand.Token);

    private string Describe(SideType type, string member) =>
        (type.View.IsNil ? type.Name : Shapes.DisplayName(type.View)) + "." + member;
}
