using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>What a type of a side assembly is.</summary>
internal enum SideTypeKind
{
    /// <summary>&lt;Module&gt; and the IgnoresAccessChecksToAttribute the runtime reads.</summary>
    Helper,

    /// <summary>A type the delta added, copied with its members.</summary>
    Copy,

    /// <summary>The static holder of what the delta added to a type that already lived: same
    /// name and nesting, the type's generic parameters.</summary>
    Mirror,

    /// <summary>The per-object storage of a mirror's stored instance fields.</summary>
    Storage,
}

internal enum SideMemberRole
{
    Copy,
    Extension,
    MirrorStatic,
    StoredValue,
    Table,
    Getter,
    Setter,
    Address,
    StorageConstructor,
    StorageInitializer,
    AttributeConstructor,

    /// <summary>A constructor added to a type that lived: the static method that makes the
    /// object and runs the constructor's body (its Extension) on it.</summary>
    Factory,
}

internal sealed class SideType(SideTypeKind kind, TypeDefinitionHandle view, string ns, string name)
{
    public SideTypeKind Kind { get; } = kind;

    /// <summary>The view's type it copies or mirrors (nil for helpers; a storage class's mirror's type).</summary>
    public TypeDefinitionHandle View { get; } = view;

    public string Namespace { get; } = ns;

    public string Name { get; } = name;

    public SideType? Enclosing { get; set; }

    public List<SideType> Nested { get; } = [];

    public List<SideField> Fields { get; } = [];

    public List<SideMethod> Methods { get; } = [];

    public int Row { get; set; }

    /// <summary>A mirror's storage class, once it has stored fields.</summary>
    public SideType? Storage { get; set; }
}

internal sealed class SideField(SideMemberRole role, FieldDefinitionHandle view, string name)
{
    public SideMemberRole Role { get; } = role;

    public FieldDefinitionHandle View { get; } = view;

    public string Name { get; } = name;

    public int Row { get; set; }
}

internal sealed class SideMethod(SideMemberRole role, MethodDefinitionHandle view, string name)
{
    public SideMemberRole Role { get; } = role;

    public MethodDefinitionHandle View { get; } = view;

    public string Name { get; } = name;

    /// <summary>An accessor's stored value (in the mirror's storage class).</summary>
    public SideField? Stored { get; init; }

    /// <summary>An extension of an instance method.</summary>
    public bool Instance { get; init; }

    public int Row { get; set; }

    /// <summary>The parameters the delta added to the view's method (aggregate handles, in order).</summary>
    public List<ParameterHandle> Parameters { get; } = [];
}

/// <summary>
/// Where a delta's additions go in its side assembly, decided before anything is written:
/// every type the delta added is copied (nested where it was: in another added type, or in the
/// mirror of the type that already lived); every method, static field and instance field it
/// added to a type that already lived goes onto that type's mirror (<see cref="PlacementKind"/>);
/// rows are numbered in the order they will be written, and every addition is placed. What
/// this design cannot carry is refused here by name, before anything is built: a virtual or
/// abstract method added to a type that lived (its method table is laid out), a member added to
/// an interface, an instance field added to a struct or to a class with a fixed layout, an
/// explicit interface implementation added to a type that lived, P/Invoke and runtime-
/// implemented methods, and a constructor added to a generic type that lived.
/// A constructor added to a (non-generic) type that lived is two methods of its mirror: its
/// body as an Extension named <see cref="InitName"/> (the object as its explicit <c>this</c>),
/// and a factory named <see cref="FactoryName"/> that makes the object (uninitialized, as
/// <c>newobj</c> would allocate it; a struct's default value) and runs that body on it:
/// <c>newobj</c> of the constructor becomes <c>call</c> of the factory, a chained
/// <c>call</c> of it (<c>: this(...)</c>, <c>: base(...)</c>) a call of the body.
/// </summary>
internal sealed class SideLayout
{
    private readonly ReloadContext _context;
    private readonly ReloadModule _side;
    private readonly Dictionary<int, SideType> _copies = [];
    private readonly Dictionary<int, SideType> _mirrors = [];
    private readonly List<SideType> _roots = [];

    /// <summary>The name of an added constructor's body on the mirror (C# cannot write it).</summary>
    public const string InitName = "<init>";

    /// <summary>The name of an added constructor's factory on the mirror.</summary>
    public const string FactoryName = "<new>";

    private SideLayout(ReloadContext context, ReloadModule side)
    {
        _context = context;
        _side = side;
        ModuleType = new SideType(SideTypeKind.Helper, default, "", "<Module>");
        AccessAttribute = new SideType(SideTypeKind.Helper, default, "System.Runtime.CompilerServices",
                                       "IgnoresAccessChecksToAttribute");
        AccessAttribute.Methods.Add(new SideMethod(SideMemberRole.AttributeConstructor, default, ".ctor"));
        _roots.Add(ModuleType);
        _roots.Add(AccessAttribute);
    }

    public SideType ModuleType { get; }

    public SideType AccessAttribute { get; }

    /// <summary>Every type, in row order.</summary>
    public List<SideType> Types { get; } = [];

    /// <summary>Every field and method, in row order.</summary>
    public List<SideField> Fields { get; } = [];

    public List<SideMethod> Methods { get; } = [];

    /// <summary>Notices for additions that need no code (a static constructor added to a type
    /// that was initialized already).</summary>
    public List<ReloadNotice> Notices { get; } = [];

    /// <summary>Mirror TypeDef tokens by the view's type token.</summary>
    public Dictionary<int, int> MirrorTokens { get; } = [];

    /// <summary>Whether the delta adds anything a side assembly must hold.</summary>
    public bool IsEmpty => _copies.Count == 0 && _mirrors.Count == 0;

    public SideType? CopyOf(TypeDefinitionHandle type) => _copies.GetValueOrDefault(MetadataTokens.GetToken(type));

    public SideType? MirrorOf(TypeDefinitionHandle type) => _mirrors.GetValueOrDefault(MetadataTokens.GetToken(type));

    /// <summary>Lays the pending delta's additions out and places them.</summary>
    /// <exception cref="DeltaRefusedException">An addition this design cannot carry.</exception>
    public static SideLayout Plan(ReloadContext context, ReloadModule side, Func<EntityHandle, string> describe)
    {
        var layout = new SideLayout(context, side);
        layout.Collect(describe);
        layout.Number();
        layout.Place();
        return layout;
    }

    private void Collect(Func<EntityHandle, string> describe)
    {
        DeltaGeneration delta = _context.Pending!;
        ViewShapes shapes = _context.Shapes;
        // Every added member's type first: refusals and notices name members by it.
        foreach (Addition addition in delta.Additions)
        {
            if (addition.Parent.Kind == HandleKind.TypeDefinition)
                _context.Placements.Declare(addition.Member, (TypeDefinitionHandle)addition.Parent);
        }
        foreach (TypeDefinitionHandle type in delta.AddedTypes)
            _copies[MetadataTokens.GetToken(type)] = new SideType(SideTypeKind.Copy, type, shapes.Namespace(type), shapes.Name(type));
        foreach (TypeDefinitionHandle type in delta.AddedTypes)
        {
            SideType copy = _copies[MetadataTokens.GetToken(type)];
            TypeDefinitionHandle enclosing = shapes.Enclosing(type);
            if (enclosing.IsNil)
                _roots.Add(copy);
            else
                Nest(copy, CopyOf(enclosing) ?? Mirror(enclosing));
        }

        var methods = new Dictionary<int, SideMethod>();
        foreach (Addition addition in delta.Additions)
        {
            if (addition.Parent.Kind == HandleKind.MethodDefinition && addition.Member.Kind == HandleKind.Parameter)
            {
                if (methods.TryGetValue(MetadataTokens.GetToken(addition.Parent), out SideMethod? owner))
                    owner.Parameters.Add((ParameterHandle)addition.Member);
                continue;
            }
            if (addition.Parent.Kind != HandleKind.TypeDefinition)
                continue; // properties and events: the writer reads them from the delta
            var parent = (TypeDefinitionHandle)addition.Parent;
            if (CopyOf(parent) is { } copy)
            {
                if (addition.Member.Kind == HandleKind.MethodDefinition)
                {
                    var method = (MethodDefinitionHandle)addition.Member;
                    var side = new SideMethod(SideMemberRole.Copy, method, Name(method));
                    copy.Methods.Add(side);
                    methods[MetadataTokens.GetToken(method)] = side;
                }
                else if (addition.Member.Kind == HandleKind.FieldDefinition)
                {
                    var field = (FieldDefinitionHandle)addition.Member;
                    copy.Fields.Add(new SideField(SideMemberRole.Copy, field, Name(field)));
                }
                continue;
            }
            string member = describe(addition.Member);
            if (shapes.IsInterface(parent))
                throw Rude(member, $"a member added to the interface {shapes.DisplayName(parent)} (its implementers are laid out)");
            if (addition.Member.Kind == HandleKind.MethodDefinition)
                AddToLivingType(parent, (MethodDefinitionHandle)addition.Member, member, methods);
            else if (addition.Member.Kind == HandleKind.FieldDefinition)
                AddToLivingType(parent, (FieldDefinitionHandle)addition.Member, member);
        }
        foreach (MethodImplementationHandle handle in Rows(delta.Reader, TableIndex.MethodImpl, MetadataTokens.MethodImplementationHandle))
        {
            MethodImplementation impl = delta.Reader.GetMethodImplementation(handle);
            if (CopyOf(impl.Type) is null)
                throw Rude(describe(impl.MethodBody),
                           $"an explicit interface implementation added to {shapes.DisplayName(impl.Type)} (its method table is laid out)");
        }
    }

    private void AddToLivingType(TypeDefinitionHandle parent, MethodDefinitionHandle method, string member,
                                 Dictionary<int, SideMethod> methods)
    {
        MethodDefinition row = _context.View.MethodDef(method, _context.Pending);
        string name = Name(method);
        MethodAttributes attributes = row.Attributes;
        if (name == ".cctor")
        {
            Notices.Add(new ReloadNotice(ReloadNoticeKind.TakesEffectAtNextStart, member,
                $"{member}: a static constructor added to a type that was initialized already never runs in this " +
                "process; it takes effect at the next start"));
            return;
        }
        if (name == ".ctor")
        {
            if (_context.Shapes.GenericParams(parent).Count > 0)
                throw Rude(member, $"a constructor added to the generic type {_context.Shapes.DisplayName(parent)}, which " +
                                   "already lives: not carried (restart to take it)");
            var body = new SideMethod(SideMemberRole.Extension, method, InitName) { Instance = true };
            Mirror(parent).Methods.Add(body);
            Mirror(parent).Methods.Add(new SideMethod(SideMemberRole.Factory, method, FactoryName));
            methods[MetadataTokens.GetToken(method)] = body;
            return;
        }
        if ((attributes & (MethodAttributes.Virtual | MethodAttributes.Abstract)) != 0)
            throw Rude(member, "a virtual or abstract method added to a type that already lives (its method table is laid out)");
        if ((attributes & MethodAttributes.PinvokeImpl) != 0 ||
            (row.ImplAttributes & (MethodImplAttributes.InternalCall | MethodImplAttributes.Runtime)) != 0 ||
            row.RelativeVirtualAddress == 0)
            throw Rude(member, "a P/Invoke, extern or runtime-implemented method added to a type that already lives");
        bool instance = (attributes & MethodAttributes.Static) == 0;
        var side = new SideMethod(SideMemberRole.Extension, method, name) { Instance = instance };
        Mirror(parent).Methods.Add(side);
        methods[MetadataTokens.GetToken(method)] = side;
    }

    private void AddToLivingType(TypeDefinitionHandle parent, FieldDefinitionHandle field, string member)
    {
        FieldDefinition row = _context.View.FieldDef(field, _context.Pending);
        string name = Name(field);
        if ((row.Attributes & FieldAttributes.HasFieldRVA) != 0)
            throw Rude(member, "a field with initial data (RVA) added to a type that already lives");
        SideType mirror = Mirror(parent);
        if ((row.Attributes & FieldAttributes.Static) != 0)
        {
            mirror.Fields.Add(new SideField(SideMemberRole.MirrorStatic, field, name));
            return;
        }
        ViewShapes shapes = _context.Shapes;
        if (shapes.IsValueType(parent))
            throw Rude(member, $"an instance field added to the struct {shapes.DisplayName(parent)} (its layout is fixed)");
        TypeAttributes layout = shapes.Type(parent).Attributes & TypeAttributes.LayoutMask;
        if (layout != TypeAttributes.AutoLayout)
            throw Rude(member, $"an instance field added to {shapes.DisplayName(parent)}, whose layout is {layout}");
        SideType storage = mirror.Storage ??= StorageOf(mirror);
        var value = new SideField(SideMemberRole.StoredValue, field, name);
        storage.Fields.Add(value);
        mirror.Methods.Add(new SideMethod(SideMemberRole.Getter, default, name + StoredFields.GetterSuffix) { Stored = value });
        mirror.Methods.Add(new SideMethod(SideMemberRole.Setter, default, name + StoredFields.SetterSuffix) { Stored = value });
        mirror.Methods.Add(new SideMethod(SideMemberRole.Address, default, name + StoredFields.AddressSuffix) { Stored = value });
    }

    private static SideType StorageOf(SideType mirror)
    {
        var storage = new SideType(SideTypeKind.Storage, mirror.View, "", StoredFields.StorageName);
        storage.Fields.Add(new SideField(SideMemberRole.Table, default, StoredFields.TableField));
        storage.Methods.Add(new SideMethod(SideMemberRole.StorageConstructor, default, ".ctor"));
        storage.Methods.Add(new SideMethod(SideMemberRole.StorageInitializer, default, ".cctor"));
        Nest(storage, mirror);
        return storage;
    }

    private SideType Mirror(TypeDefinitionHandle type)
    {
        int token = MetadataTokens.GetToken(type);
        if (_mirrors.TryGetValue(token, out SideType? mirror))
            return mirror;
        ViewShapes shapes = _context.Shapes;
        TypeDefinitionHandle enclosing = shapes.Enclosing(type);
        mirror = new SideType(SideTypeKind.Mirror, type, enclosing.IsNil ? shapes.Namespace(type) : "", shapes.Name(type));
        _mirrors[token] = mirror;
        if (enclosing.IsNil)
            _roots.Add(mirror);
        else
            Nest(mirror, Mirror(enclosing));
        return mirror;
    }

    private static void Nest(SideType nested, SideType enclosing)
    {
        nested.Enclosing = enclosing;
        enclosing.Nested.Add(nested);
    }

    // Rows in the order the writer adds them: types depth first (an enclosing type before the
    // types nested in it), then each type's fields and methods in that order.
    private void Number()
    {
        void Visit(SideType type)
        {
            Types.Add(type);
            type.Row = Types.Count;
            foreach (SideType nested in type.Nested)
                Visit(nested);
        }
        foreach (SideType root in _roots)
            Visit(root);
        foreach (SideType type in Types)
        {
            foreach (SideField field in type.Fields)
            {
                Fields.Add(field);
                field.Row = Fields.Count;
            }
            foreach (SideMethod method in type.Methods)
            {
                Methods.Add(method);
                method.Row = Methods.Count;
            }
        }
        foreach (var (token, mirror) in _mirrors)
            MirrorTokens[token] = MetadataTokens.GetToken(MetadataTokens.TypeDefinitionHandle(mirror.Row));
    }

    private void Place()
    {
        PlacementMap placements = _context.Placements;
        foreach (SideType type in Types)
        {
            if (type.Kind == SideTypeKind.Copy)
            {
                placements.Place(type.View, new Placement(PlacementKind.Itself, _side, Token(TableIndex.TypeDef, type.Row), default));
                foreach (SideMethod m in type.Methods)
                    placements.Place(m.View, new Placement(PlacementKind.Itself, _side, Token(TableIndex.MethodDef, m.Row), type.View));
                foreach (SideField f in type.Fields)
                    placements.Place(f.View, new Placement(PlacementKind.Itself, _side, Token(TableIndex.Field, f.Row), type.View));
                continue;
            }
            if (type.Kind != SideTypeKind.Mirror)
                continue;
            foreach (SideMethod m in type.Methods.Where(m => m.Role == SideMemberRole.Extension))
            {
                SideMethod? factory = type.Methods.FirstOrDefault(f => f.Role == SideMemberRole.Factory && f.View == m.View);
                placements.Place(m.View, new Placement(PlacementKind.Extension, _side, Token(TableIndex.MethodDef, m.Row),
                                                       type.View, m.Instance,
                                                       Factory: factory is null ? 0 : Token(TableIndex.MethodDef, factory.Row)),
                                 m.Name);
            }
            foreach (SideField f in type.Fields)
                placements.Place(f.View, new Placement(PlacementKind.MirrorStatic, _side, Token(TableIndex.Field, f.Row),
                                                       type.View), f.Name);
            foreach (SideField value in type.Storage?.Fields.Where(f => f.Role == SideMemberRole.StoredValue) ?? [])
            {
                int Accessor(SideMemberRole role) =>
                    Token(TableIndex.MethodDef, type.Methods.Single(m => m.Role == role && m.Stored == value).Row);
                placements.Place(value.View, new Placement(PlacementKind.Stored, _side, Accessor(SideMemberRole.Getter),
                    type.View, Setter: Accessor(SideMemberRole.Setter), Address: Accessor(SideMemberRole.Address)), value.Name);
            }
        }
    }

    private static int Token(TableIndex table, int row) => MetadataTokens.GetToken(MetadataTokens.EntityHandle(table, row));

    private string Name(MethodDefinitionHandle method) =>
        _context.View.String(_context.View.MethodDef(method, _context.Pending).Name, _context.Pending);

    private string Name(FieldDefinitionHandle field) =>
        _context.View.String(_context.View.FieldDef(field, _context.Pending).Name, _context.Pending);

    internal static IEnumerable<T> Rows<T>(MetadataReader reader, TableIndex table, Func<int, T> handle)
    {
        int count = reader.GetTableRowCount(table);
        for (int row = 1; row <= count; row++)
            yield return handle(row);
    }

    private static DeltaRefusedException Rude(string member, string what) =>
        new(ReloadRefusalReason.RudeEdit, $"{ReloadRefusalReason.RudeEdit}: {member} — {what}", member);
}
