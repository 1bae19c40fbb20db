using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>An assembly a reference names: what an AssemblyRef row holds, and the assembly when
/// it is loaded here (a relocation names a loaded one).</summary>
internal sealed record AssemblyIdentity(string Name, Version Version, string Culture, byte[] PublicKeyOrToken,
                                        AssemblyFlags Flags, Assembly? Loaded);

/// <summary>How a call site changes for the method it now calls.</summary>
internal enum CallShape
{
    /// <summary>The same instruction.</summary>
    AsIs,

    /// <summary>An instance method a reload added to a type that already lived: the instruction
    /// becomes <c>call</c> of the static method that carries it (<c>this</c> is its first argument).</summary>
    Static,
}

/// <summary>What the reloads know of the module they grow: its view, its shapes and where
/// every definition lives, and the delta being applied.</summary>
internal sealed class ReloadContext(MetadataView view, ViewShapes shapes, PlacementMap placements)
{
    private AssemblyIdentity? _coreLibrary;

    public MetadataView View => view;

    public ViewShapes Shapes => shapes;

    public PlacementMap Placements => placements;

    public DeltaGeneration? Pending => shapes.Pending;

    /// <summary>The assembly the loaded module takes System.Object from (System.Runtime, usually):
    /// where a side assembly's helpers name Object, Attribute, NullReferenceException and
    /// ConditionalWeakTable.</summary>
    public AssemblyIdentity CoreLibrary => _coreLibrary ??= FindCoreLibrary();

    private AssemblyIdentity FindCoreLibrary()
    {
        MetadataReader reader = view.Baseline;
        foreach (TypeReferenceHandle handle in reader.TypeReferences)
        {
            TypeReference type = reader.GetTypeReference(handle);
            if (type.ResolutionScope.Kind != HandleKind.AssemblyReference || reader.GetString(type.Name) != "Object" ||
                reader.GetString(type.Namespace) != "System")
                continue;
            AssemblyReference assembly = reader.GetAssemblyReference((AssemblyReferenceHandle)type.ResolutionScope);
            return new AssemblyIdentity(reader.GetString(assembly.Name), assembly.Version, reader.GetString(assembly.Culture),
                assembly.PublicKeyOrToken.IsNil ? [] : reader.GetBlobBytes(assembly.PublicKeyOrToken), assembly.Flags, null);
        }
        AssemblyName core = typeof(object).Assembly.GetName();
        return new AssemblyIdentity(core.Name!, core.Version!, "", core.GetPublicKeyToken() ?? [], 0, typeof(object).Assembly);
    }
}

/// <summary>
/// Turns the view's entities (aggregate tokens, as the deltas' IL and metadata name them) into
/// tokens of one module a body or a row is written into: a loaded module (<see cref="LoadedTarget"/>:
/// its own tokens, or relocations the profiler fills) or a side assembly being built
/// (<see cref="SideTarget"/>: rows it adds). The rules are the same for both: a definition of
/// the view lives where its <see cref="Placement"/> says, and is named there by its token or by
/// a reference to its module; a method, static field or instance field a delta added to a type
/// that already lived is its mirror's static method or field, or its accessors; references to
/// other assemblies are made anew by name.
/// </summary>
internal abstract class ReloadTarget(ReloadContext context, ReloadModule module)
{
    private readonly Dictionary<int, int> _canonicalTypes = [];
    private readonly Dictionary<string, int> _canonicalNames = new(StringComparer.Ordinal);

    protected ReloadContext Context => context;

    protected MetadataView View => context.View;

    protected DeltaGeneration? Pending => context.Pending;

    /// <summary>The module written into (a side assembly's before it is loaded).</summary>
    public ReloadModule Module => module;

    /// <summary>The member whose body or row is being translated, for messages.</summary>
    public string Member { get; set; } = "";

    // ------------------------------------------------------------------ what each target does

    /// <summary>The token of a view row that is valid in this module as it is (the loaded
    /// module's own rows; a side assembly's rows its builder wrote for the view), if any.</summary>
    protected abstract int? Existing(EntityHandle view);

    /// <summary>A user string of the view valid as it is here, if any.</summary>
    protected abstract int? Existing(UserStringHandle view);

    /// <summary>The mirror of a view type in this module, when this module is its home.</summary>
    protected abstract int? OwnMirror(TypeDefinitionHandle type);

    protected abstract Operand AssemblyRef(AssemblyIdentity assembly);

    protected abstract Operand TypeRef(Operand scope, string ns, string name, string description);

    protected abstract Operand TypeSpec(byte[] blob, string description);

    protected abstract Operand MemberRef(Operand parent, string name, byte[] signature, string description);

    protected abstract Operand MethodSpec(Operand method, byte[] blob, string description);

    protected abstract Operand StandAloneSig(byte[] blob, string description);

    protected abstract Operand UserString(string value);

    /// <summary>A type operand as a class reference inside a blob (TypeDefOrRefOrSpecEncoded).</summary>
    protected abstract int Coded(Operand type, string description);

    // ------------------------------------------------------------------ types

    /// <summary>A TypeDef, TypeRef or TypeSpec of the view.</summary>
    public Operand Type(EntityHandle type)
    {
        if (Existing(type) is int existing)
            return Operand.Direct(existing);
        switch (type.Kind)
        {
            case HandleKind.TypeDefinition:
            {
                var definition = (TypeDefinitionHandle)type;
                Placement placement = context.Placements.Of(definition);
                return ReferenceEquals(placement.Home, Module)
                    ? Operand.Direct(placement.Token)
                    : TypeIn(placement.Home, definition);
            }
            case HandleKind.TypeReference:
                return TypeReference((TypeReferenceHandle)type);
            case HandleKind.TypeSpecification:
            {
                TypeSpecification spec = View.TypeSpec((TypeSpecificationHandle)type, Pending);
                byte[] blob = SignatureRewriter.TypeSpec(View.Blob(spec.Signature, Pending), ClassIn);
                return TypeSpec(blob, "TypeSpec " + Describe(type));
            }
            default:
                throw Untranslatable($"a {type.Kind} where a type was expected");
        }
    }

    /// <summary>A type named like the view's type <paramref name="type"/> in
    /// <paramref name="home"/>: the type itself where it lives, or its mirror in a side assembly.</summary>
    protected Operand TypeIn(ReloadModule home, TypeDefinitionHandle type)
    {
        if (ReferenceEquals(home, Module) && OwnMirror(type) is int mirror)
            return Operand.Direct(mirror);
        TypeDefinitionHandle enclosing = context.Shapes.Enclosing(type);
        Operand scope = enclosing.IsNil ? AssemblyRef(IdentityOf(home)) : TypeIn(home, enclosing);
        string ns = enclosing.IsNil ? context.Shapes.Namespace(type) : "";
        return TypeRef(scope, ns, context.Shapes.Name(type), $"TypeRef {context.Shapes.FullName(type)} in {home.Name}");
    }

    /// <summary>The mirror of the view's type <paramref name="type"/> in <paramref name="home"/>.</summary>
    protected Operand MirrorIn(ReloadModule home, TypeDefinitionHandle type) =>
        ReferenceEquals(home, Module) && OwnMirror(type) is int mirror ? Operand.Direct(mirror) : TypeIn(home, type);

    private Operand TypeReference(TypeReferenceHandle handle)
    {
        TypeReference reference = View.TypeRef(handle, Pending);
        string ns = View.String(reference.Namespace, Pending), name = View.String(reference.Name, Pending);
        EntityHandle scope = reference.ResolutionScope;
        Operand scopeOperand = scope.Kind switch
        {
            HandleKind.AssemblyReference => AssemblyRef(IdentityOf((AssemblyReferenceHandle)scope)),
            HandleKind.TypeReference => TypeReference((TypeReferenceHandle)scope),
            _ => throw Untranslatable($"the type {ns}.{name}, whose scope is a {scope.Kind}"),
        };
        return TypeRef(scopeOperand, ns, name, $"TypeRef {(ns.Length > 0 ? ns + "." : "")}{name}");
    }

    /// <summary>A class of the view inside a blob.</summary>
    protected int ClassIn(EntityHandle type) => Coded(Type(type), Describe(type));

    // ------------------------------------------------------------------ methods

    /// <summary>A MethodDef, MemberRef or MethodSpec of the view, and how its call sites change.</summary>
    public Operand Method(EntityHandle method, out CallShape shape)
    {
        shape = CallShape.AsIs;
        if (Existing(method) is int existing)
            return Operand.Direct(existing);
        switch (method.Kind)
        {
            case HandleKind.MethodDefinition:
            {
                var definition = (MethodDefinitionHandle)method;
                Placement placement = context.Placements.Of(definition);
                if (ReferenceEquals(placement.Home, Module))
                {
                    shape = placement is { Kind: PlacementKind.Extension, Instance: true } ? CallShape.Static : CallShape.AsIs;
                    return Operand.Direct(placement.Token);
                }
                MethodDefinition row = View.MethodDef(definition, Pending);
                return PlacedMember(definition, placement, View.String(row.Name, Pending), row.Signature, parentSpec: null,
                                    out shape);
            }
            case HandleKind.MemberReference:
                return MemberReference((MemberReferenceHandle)method, out shape);
            case HandleKind.MethodSpecification:
            {
                MethodSpecification spec = View.MethodSpec((MethodSpecificationHandle)method, Pending);
                Operand generic = Method(spec.Method, out shape);
                byte[] blob = SignatureRewriter.Signature(View.Blob(spec.Signature, Pending), ClassIn);
                return MethodSpec(generic, blob, "MethodSpec " + Describe(method));
            }
            default:
                throw Untranslatable($"a {method.Kind} where a method was expected");
        }
    }

    /// <summary>The factory of a constructor a reload added to a type that already lived (what a
    /// <c>newobj</c> of it calls instead), or null for any other method.</summary>
    public Operand? Factory(EntityHandle method)
    {
        if (method.Kind != HandleKind.MethodDefinition || Existing(method) is not null)
            return null;
        var definition = (MethodDefinitionHandle)method;
        Placement placement = context.Placements.Of(definition);
        if (placement.Factory == 0)
            return null;
        if (ReferenceEquals(placement.Home, Module))
            return Operand.Direct(placement.Factory);
        byte[] signature = FactorySignature(View.MethodDef(definition, Pending).Signature, placement.Declaring);
        return MemberRef(MirrorIn(placement.Home, placement.Declaring), SideLayout.FactoryName, signature,
                         $"MemberRef {context.Shapes.DisplayName(placement.Declaring)}.{SideLayout.FactoryName}");
    }

    /// <summary>A constructor's signature as its factory's: static, returning the object.</summary>
    public byte[] FactorySignature(BlobHandle constructor, TypeDefinitionHandle declaring)
    {
        byte[] translated = TranslateSignature(constructor); // HASTHIS, count, VOID, parameters
        int countBytes = (translated[1] & 0x80) == 0 ? 1 : (translated[1] & 0xC0) == 0x80 ? 2 : 4;
        int parameters = 1 + countBytes + 1;
        if (translated[parameters - 1] != (byte)SignatureTypeCode.Void)
            throw new BadImageFormatException("a constructor whose signature does not return void");
        var writer = new BlobBuilder();
        writer.WriteByte(0x00); // DEFAULT: static
        writer.WriteBytes(translated, 1, countBytes);
        WriteThis(writer, declaring);
        writer.WriteBytes(translated, parameters, translated.Length - parameters);
        return writer.ToArray();
    }

    /// <summary>A FieldDef or MemberRef of the view, for <paramref name="opcode"/>; a field a
    /// delta added to a class that already lived is read and written through its accessors,
    /// and <paramref name="replacement"/> is then <c>call</c>.</summary>
    public Operand Field(EntityHandle field, ILOpCode opcode, out ILOpCode replacement)
    {
        replacement = opcode;
        if (Existing(field) is int existing)
            return Operand.Direct(existing);
        (EntityHandle definition, Placement? placement, Operand? parent) = field.Kind switch
        {
            HandleKind.FieldDefinition => ((EntityHandle)field, context.Placements.Of(field), (Operand?)null),
            HandleKind.MemberReference => AddedMemberOf((MemberReferenceHandle)field),
            _ => throw Untranslatable($"a {field.Kind} where a field was expected"),
        };
        if (placement is null)
            return MemberReference((MemberReferenceHandle)field, out _);
        FieldDefinition row = View.FieldDef((FieldDefinitionHandle)definition, Pending);
        string name = View.String(row.Name, Pending);
        if (placement.Kind == PlacementKind.Stored)
        {
            string accessor;
            (replacement, accessor) = opcode switch
            {
                ILOpCode.Ldfld => (ILOpCode.Call, name + StoredFields.GetterSuffix),
                ILOpCode.Stfld => (ILOpCode.Call, name + StoredFields.SetterSuffix),
                ILOpCode.Ldflda => (ILOpCode.Call, name + StoredFields.AddressSuffix),
                _ => throw Untranslatable($"{opcode} of the field {name} a reload added (only ldfld, stfld and ldflda)"),
            };
            int token = opcode switch { ILOpCode.Ldfld => placement.Token, ILOpCode.Stfld => placement.Setter, _ => placement.Address };
            if (ReferenceEquals(placement.Home, Module))
                return Operand.Direct(token);
            byte[] signature = AccessorSignature(opcode, row.Signature, placement.Declaring);
            return MemberRef(parent ?? MirrorIn(placement.Home, placement.Declaring), accessor, signature,
                             $"MemberRef {accessor}");
        }
        if (ReferenceEquals(placement.Home, Module) && parent is null)
            return Operand.Direct(placement.Token);
        Operand owner = parent ?? (placement.Kind == PlacementKind.MirrorStatic
            ? MirrorIn(placement.Home, placement.Declaring)
            : PlainOwner(placement));
        return MemberRef(owner, name, SignatureRewriter.Signature(View.Blob(row.Signature, Pending), ClassIn),
                         $"MemberRef {context.Shapes.DisplayName(placement.Declaring)}.{name}");
    }

    /// <summary>A method's token in a side assembly's own metadata where it is placed, or a reference to it.</summary>
    private Operand PlacedMember(MethodDefinitionHandle method, Placement placement, string name, BlobHandle signature,
                                 Operand? parentSpec, out CallShape shape)
    {
        shape = CallShape.AsIs;
        switch (placement.Kind)
        {
            case PlacementKind.Itself:
            {
                byte[] sig = SignatureRewriter.Signature(View.Blob(signature, Pending), ClassIn);
                return MemberRef(parentSpec ?? PlainOwner(placement), name, sig,
                                 $"MemberRef {context.Shapes.DisplayName(placement.Declaring)}.{name}");
            }
            case PlacementKind.Extension:
            {
                shape = placement.Instance ? CallShape.Static : CallShape.AsIs;
                byte[] sig = placement.Instance
                    ? CarrierSignature(signature, placement.Declaring)
                    : TranslateSignature(signature);
                string carrier = placement.Factory != 0 ? SideLayout.InitName : name;
                return MemberRef(parentSpec ?? MirrorIn(placement.Home, placement.Declaring), carrier, sig,
                                 $"MemberRef {context.Shapes.DisplayName(placement.Declaring)}.{carrier}");
            }
            default:
                throw Untranslatable($"the method {name} placed as a {placement.Kind}");
        }
    }

    // The owner of a member that lives as itself: its declaring type where that lives (a
    // non-generic type: a generic one's members are named through a TypeSpec by the IL).
    private Operand PlainOwner(Placement placement)
    {
        if (context.Shapes.GenericParams(placement.Declaring).Count > 0)
            throw Untranslatable($"a member of the generic type {context.Shapes.DisplayName(placement.Declaring)} named " +
                                 "without its instantiation");
        return Type(placement.Declaring);
    }

    private Operand MemberReference(MemberReferenceHandle handle, out CallShape shape)
    {
        shape = CallShape.AsIs;
        MemberReference reference = View.MemberRef(handle, Pending);
        string name = View.String(reference.Name, Pending);
        (EntityHandle added, Placement? placement, Operand? parent) = AddedMemberOf(handle);
        if (placement is not null && added.Kind == HandleKind.MethodDefinition)
        {
            MethodDefinition row = View.MethodDef((MethodDefinitionHandle)added, Pending);
            return PlacedMember((MethodDefinitionHandle)added, placement, name, row.Signature, parent, out shape);
        }
        EntityHandle parentHandle = reference.Parent;
        Operand parentOperand = parentHandle.Kind switch
        {
            HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => Type(parentHandle),
            HandleKind.MethodDefinition => Method(parentHandle, out _),
            _ => throw Untranslatable($"a MemberRef whose parent is a {parentHandle.Kind}"),
        };
        byte[] signature = SignatureRewriter.Signature(View.Blob(reference.Signature, Pending), ClassIn);
        return MemberRef(parentOperand, name, signature, $"MemberRef {Describe(handle)}");
    }

    /// <summary>For a MemberRef naming a member a delta added to a type that already lived: that
    /// member, its placement and its owner here (the mirror, instantiated as the reference's
    /// parent is); else nothing.</summary>
    private (EntityHandle Member, Placement? Placement, Operand? Parent) AddedMemberOf(MemberReferenceHandle handle)
    {
        MemberReference reference = View.MemberRef(handle, Pending);
        (TypeDefinitionHandle type, BlobHandle instance) = UnderlyingDefinition(reference.Parent);
        if (type.IsNil)
            return (default, null, null);
        string name = View.String(reference.Name, Pending);
        foreach (EntityHandle member in context.Placements.AddedMembers(type, name))
        {
            BlobHandle signature = member.Kind == HandleKind.MethodDefinition
                ? View.MethodDef((MethodDefinitionHandle)member, Pending).Signature
                : View.FieldDef((FieldDefinitionHandle)member, Pending).Signature;
            if (!SameSignature(signature, reference.Signature))
                continue;
            Placement placement = context.Placements.Of(member);
            Operand? parent = instance.IsNil
                ? null
                : TypeSpec(SignatureRewriter.GenericInstance(View.Blob(instance, Pending), ClassIn,
                                                             Coded(MirrorIn(placement.Home, type), "mirror")),
                           $"TypeSpec mirror of {context.Shapes.DisplayName(type)}");
            return (member, placement, parent);
        }
        return (default, null, null);
    }

    /// <summary>The view's TypeDef a MemberRef parent names, directly or as a generic instance
    /// (then with the instance's blob).</summary>
    private (TypeDefinitionHandle Type, BlobHandle Instance) UnderlyingDefinition(EntityHandle parent)
    {
        if (parent.Kind == HandleKind.TypeDefinition)
            return ((TypeDefinitionHandle)parent, default);
        if (parent.Kind != HandleKind.TypeSpecification)
            return (default, default);
        BlobHandle blob = View.TypeSpec((TypeSpecificationHandle)parent, Pending).Signature;
        BlobReader reader = View.Blob(blob, Pending);
        if (reader.RemainingBytes < 3 || reader.ReadByte() != 0x15)
            return (default, default);
        reader.ReadByte(); // CLASS or VALUETYPE
        EntityHandle generic = reader.ReadTypeHandle();
        return generic.Kind == HandleKind.TypeDefinition ? ((TypeDefinitionHandle)generic, blob) : (default, default);
    }

    /// <summary>Whether two signature blobs of the view name the same types (TypeRefs compared by
    /// scope and name: each delta makes its own rows for the same type).</summary>
    protected bool SameSignature(BlobHandle a, BlobHandle b)
    {
        if (a == b)
            return true;
        byte[] left = SignatureRewriter.Signature(View.Blob(a, Pending), Canonical);
        byte[] right = SignatureRewriter.Signature(View.Blob(b, Pending), Canonical);
        return left.AsSpan().SequenceEqual(right);
    }

    private int Canonical(EntityHandle type)
    {
        int token = MetadataTokens.GetToken(type);
        if (_canonicalTypes.TryGetValue(token, out int id))
            return id;
        string key = type.Kind == HandleKind.TypeReference ? "ref:" + Describe(type) : "tok:" + token;
        if (!_canonicalNames.TryGetValue(key, out id))
            _canonicalNames[key] = id = _canonicalNames.Count + 1;
        return _canonicalTypes[token] = id;
    }

    /// <summary>The explicit <c>this</c> of a method or accessor placed on the mirror of
    /// <paramref name="type"/>: the type itself (a managed pointer to it for a value type), over
    /// the mirror's own generic parameters.</summary>
    protected void ThisType(BlobBuilder writer, TypeDefinitionHandle type, bool byRefForValueTypes)
    {
        bool valueType = context.Shapes.IsValueType(type);
        if (valueType && byRefForValueTypes)
            writer.WriteByte((byte)SignatureTypeCode.ByReference);
        int arity = context.Shapes.GenericParams(type).Count;
        int coded = Coded(Type(type), context.Shapes.DisplayName(type));
        if (arity == 0)
        {
            writer.WriteByte(valueType ? (byte)SignatureTypeKind.ValueType : (byte)SignatureTypeKind.Class);
            writer.WriteCompressedInteger(coded);
            return;
        }
        writer.WriteByte((byte)SignatureTypeCode.GenericTypeInstance);
        writer.WriteByte(valueType ? (byte)SignatureTypeKind.ValueType : (byte)SignatureTypeKind.Class);
        writer.WriteCompressedInteger(coded);
        writer.WriteCompressedInteger(arity);
        for (int i = 0; i < arity; i++)
        {
            writer.WriteByte((byte)SignatureTypeCode.GenericTypeParameter);
            writer.WriteCompressedInteger(i);
        }
    }

    // ------------------------------------------------------------------ the rest

    /// <summary>A type of the core library (System.Object, System.Attribute, ...).</summary>
    public Operand CoreType(string ns, string name) =>
        TypeRef(AssemblyRef(context.CoreLibrary), ns, name, $"TypeRef {ns}.{name}");

    /// <summary>The parameterless instance constructor of a core library type.</summary>
    public Operand CoreConstructor(string ns, string name) =>
        MemberRef(CoreType(ns, name), ".ctor", [0x20, 0x00, (byte)SignatureTypeCode.Void], $"MemberRef {ns}.{name}..ctor");

    /// <summary>A member reference for code this module's builder writes itself.</summary>
    public Operand Reference(Operand parent, string name, byte[] signature) =>
        MemberRef(parent, name, signature, $"MemberRef {name}");

    /// <summary>A type specification for code this module's builder writes itself.</summary>
    public Operand Specification(byte[] blob) => TypeSpec(blob, "TypeSpec");

    /// <summary>A class operand inside a blob the builder writes itself.</summary>
    public int CodedClass(Operand type) => Coded(type, "class");

    /// <summary>A signature blob of the view (method, field, property, locals) in this module's tokens.</summary>
    public byte[] TranslateSignature(BlobHandle signature) =>
        SignatureRewriter.Signature(View.Blob(signature, Pending), ClassIn);

    /// <summary>An instance method's signature as its static carrier's on the mirror of <paramref name="declaring"/>.</summary>
    public byte[] CarrierSignature(BlobHandle signature, TypeDefinitionHandle declaring) =>
        SignatureRewriter.WithExplicitThis(View.Blob(signature, Pending), ClassIn,
                                           w => ThisType(w, declaring, byRefForValueTypes: true));

    /// <summary>A stored field's accessor signature (see <see cref="StoredFields"/>).</summary>
    public byte[] AccessorSignature(ILOpCode opcode, BlobHandle fieldSignature, TypeDefinitionHandle declaring) =>
        StoredFields.AccessorSignature(opcode, View.Blob(fieldSignature, Pending), ClassIn,
                                       w => ThisType(w, declaring, byRefForValueTypes: false));

    /// <summary>Writes the type an accessor's or carrier's <c>this</c> has.</summary>
    public void WriteThis(BlobBuilder writer, TypeDefinitionHandle declaring) =>
        ThisType(writer, declaring, byRefForValueTypes: false);

    /// <summary>A user string (ldstr).</summary>
    public Operand String(UserStringHandle value) =>
        Existing(value) is int existing ? Operand.Direct(existing) : UserString(View.UserString(value, Pending));

    /// <summary>A StandAloneSig of the view: a locals or calli signature.</summary>
    public Operand Signature(StandaloneSignatureHandle signature, string what)
    {
        if (Existing(signature) is int existing)
            return Operand.Direct(existing);
        byte[] blob = SignatureRewriter.Signature(View.Blob(View.StandAloneSig(signature, Pending).Signature, Pending), ClassIn);
        return StandAloneSig(blob, $"{what}: StandAloneSig");
    }

    /// <summary>An operand of ldtoken: a type, method or field.</summary>
    public Operand Token(EntityHandle handle) => handle.Kind switch
    {
        HandleKind.TypeDefinition or HandleKind.TypeReference or HandleKind.TypeSpecification => Type(handle),
        HandleKind.MethodDefinition or HandleKind.MethodSpecification => NoShapeChange(Method(handle, out CallShape s), s, handle),
        HandleKind.FieldDefinition => NoFieldChange(handle),
        HandleKind.MemberReference => AddedMemberOf((MemberReferenceHandle)handle).Placement is { } p && p.Kind != PlacementKind.Itself
            ? throw Untranslatable($"ldtoken of {Describe(handle)}, a member a reload added")
            : MemberReference((MemberReferenceHandle)handle, out _),
        _ => throw Untranslatable($"ldtoken of a {handle.Kind}"),
    };

    private Operand NoShapeChange(Operand operand, CallShape shape, EntityHandle handle) =>
        shape == CallShape.AsIs ? operand : throw Untranslatable($"ldtoken of {Describe(handle)}, an instance method a reload added");

    private Operand NoFieldChange(EntityHandle field)
    {
        Operand operand = Field(field, ILOpCode.Ldtoken, out ILOpCode replacement);
        return replacement == ILOpCode.Ldtoken ? operand : throw Untranslatable($"ldtoken of {Describe(field)}");
    }

    /// <summary>The assembly a side or loaded module is.</summary>
    protected static AssemblyIdentity IdentityOf(ReloadModule home)
    {
        if (home.Assembly is { } loaded)
        {
            AssemblyName name = loaded.GetName();
            return new AssemblyIdentity(name.Name!, name.Version ?? new Version(0, 0, 0, 0), name.CultureName ?? "",
                                        name.GetPublicKey() is { Length: > 0 } key ? key : [],
                                        name.GetPublicKey() is { Length: > 0 } ? AssemblyFlags.PublicKey : 0, loaded);
        }
        return new AssemblyIdentity(home.Name, new Version(0, 0, 0, 0), "", [], 0, null);
    }

    private AssemblyIdentity IdentityOf(AssemblyReferenceHandle handle)
    {
        AssemblyReference reference = View.AssemblyRef(handle, Pending);
        return new AssemblyIdentity(View.String(reference.Name, Pending), reference.Version,
                                    View.String(reference.Culture, Pending),
                                    reference.PublicKeyOrToken.IsNil ? [] : View.BlobBytes(reference.PublicKeyOrToken, Pending),
                                    reference.Flags, null);
    }

    /// <summary>A view entity for messages: its namespace-qualified name where it has one.</summary>
    protected string Describe(EntityHandle handle)
    {
        try
        {
            switch (handle.Kind)
            {
                case HandleKind.TypeDefinition:
                    return context.Shapes.DisplayName((TypeDefinitionHandle)handle);
                case HandleKind.TypeReference:
                {
                    TypeReference r = View.TypeRef((TypeReferenceHandle)handle, Pending);
                    string ns = View.String(r.Namespace, Pending);
                    string prefix = r.ResolutionScope.Kind == HandleKind.TypeReference
                        ? Describe(r.ResolutionScope) + "+"
                        : r.ResolutionScope.Kind == HandleKind.AssemblyReference
                            ? "[" + View.String(View.AssemblyRef((AssemblyReferenceHandle)r.ResolutionScope, Pending).Name, Pending) + "]"
                            : "";
                    return prefix + (ns.Length > 0 ? ns + "." : "") + View.String(r.Name, Pending);
                }
                case HandleKind.MemberReference:
                {
                    MemberReference m = View.MemberRef((MemberReferenceHandle)handle, Pending);
                    return Describe(m.Parent) + "." + View.String(m.Name, Pending);
                }
                case HandleKind.MethodDefinition:
                    return context.Shapes.DisplayName(context.Placements.DeclaringType(handle)) + "." +
                           View.String(View.MethodDef((MethodDefinitionHandle)handle, Pending).Name, Pending);
                case HandleKind.FieldDefinition:
                    return context.Shapes.DisplayName(context.Placements.DeclaringType(handle)) + "." +
                           View.String(View.FieldDef((FieldDefinitionHandle)handle, Pending).Name, Pending);
                case HandleKind.MethodSpecification:
                    return Describe(View.MethodSpec((MethodSpecificationHandle)handle, Pending).Method) + "<...>";
                default:
                    return $"{handle.Kind} 0x{MetadataTokens.GetToken(handle):X8}";
            }
        }
        catch (BadImageFormatException)
        {
            return $"{handle.Kind} 0x{MetadataTokens.GetToken(handle):X8}";
        }
    }

    protected DeltaRefusedException Untranslatable(string what) =>
        new(ReloadRefusalReason.UntranslatableReference,
            $"{ReloadRefusalReason.UntranslatableReference}: {Member} — it refers to {what}, which a reload cannot carry",
            Member);
}
