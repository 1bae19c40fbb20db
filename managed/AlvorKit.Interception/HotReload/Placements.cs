using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.Metadata;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// A module of this process that reloads write into: the module the runtime loaded (its
/// definitions are the view's baseline), or a side assembly a reload built for what its delta
/// added. A side assembly is named before it is loaded (its definitions' tokens are known while
/// it is built) and has its <see cref="Module"/> once loaded.
/// </summary>
internal sealed class ReloadModule
{
    private ReferenceIndex? _references;

    private ReloadModule(string name, bool isBaseline)
    {
        Name = name;
        IsBaseline = isBaseline;
    }

    /// <summary>The module the runtime loaded.</summary>
    public static ReloadModule Loaded(Module module) =>
        new(module.Assembly.GetName().Name ?? module.Name, isBaseline: true)
        {
            Module = module,
            Reader = LoadedMetadata.Of(module),
            _references = ReferenceIndex.Of(module),
        };

    /// <summary>A side assembly about to be built.</summary>
    public static ReloadModule Side(string name) => new(name, isBaseline: false);

    /// <summary>The assembly's simple name.</summary>
    public string Name { get; }

    public bool IsBaseline { get; }

    /// <summary>Null until a side assembly is loaded.</summary>
    public Module? Module { get; private set; }

    public Assembly? Assembly => Module?.Assembly;

    /// <summary>Its metadata as loaded (null until then).</summary>
    public MetadataReader? Reader { get; private set; }

    /// <summary>The reference rows it has: a loaded module's one index (plans share it), a side
    /// assembly's own (the rows its builder wrote).</summary>
    public ReferenceIndex References => _references ??= new ReferenceIndex(
        Reader ?? throw new InvalidOperationException($"{Name} is not loaded"));

    /// <summary>A side assembly's mirrors of the view's types, by the view's TypeDef token.</summary>
    public Dictionary<int, int> Mirrors { get; } = [];

    /// <summary>A side assembly once loaded, with the metadata it was built with.</summary>
    public void Loaded(Module module, MetadataReader reader)
    {
        Module = module;
        Reader = reader;
    }

    public override string ToString() => Name;
}

/// <summary>How a definition of the view is carried into the running process.</summary>
internal enum PlacementKind
{
    /// <summary>As itself: a type, or a method or field of a type that lives where it does
    /// (the baseline's own, or a type a delta added, in its side assembly).</summary>
    Itself,

    /// <summary>A method a delta added to a type that already lives somewhere: a static method of
    /// that type's mirror (same name and nesting) in the side assembly; an instance method takes
    /// its <c>this</c> as the first parameter, and its callers call it with <c>call</c>.</summary>
    Extension,

    /// <summary>A static field a delta added to a type that already lives somewhere: a static
    /// field of that type's mirror.</summary>
    MirrorStatic,

    /// <summary>An instance field a delta added to a class that already lives somewhere: kept per
    /// object in a ConditionalWeakTable of the mirror, read and written through three static
    /// accessors (get, set, address) that its users call in place of ldfld, stfld and ldflda.
    /// Existing objects read the field's default value; new objects run its initializer.</summary>
    Stored,
}

/// <summary>Where one definition of the view lives.</summary>
/// <param name="Kind">How it is carried.</param>
/// <param name="Home">The module that holds it.</param>
/// <param name="Token">Its token there: the definition itself, the mirror's static method or
/// field, or (Stored) the getter.</param>
/// <param name="Declaring">The view's type it belongs to (nil for a type).</param>
/// <param name="Instance">An Extension of an instance method.</param>
/// <param name="Setter">Stored: the setter's token.</param>
/// <param name="Address">Stored: the address accessor's token.</param>
/// <param name="Factory">An Extension of a constructor: its factory's token (0 otherwise).</param>
internal sealed record Placement(PlacementKind Kind, ReloadModule Home, int Token, TypeDefinitionHandle Declaring,
                                 bool Instance = false, int Setter = 0, int Address = 0, int Factory = 0);

/// <summary>
/// Where every definition of the view lives: the baseline's in the loaded module (by their own
/// tokens), every one a delta added in the side assembly of that delta, with how it is carried.
/// A reload's placements are pending until its batch is applied, then kept.
/// </summary>
internal sealed class PlacementMap(ReloadModule loaded, MetadataView view)
{
    private readonly Dictionary<int, Placement> _committed = [];
    private readonly Dictionary<int, Placement> _pending = [];
    // Members a delta added to a type that already lived somewhere, by type and name.
    private readonly Dictionary<(int Type, string Name), List<EntityHandle>> _addedMembers = [];
    private readonly List<((int Type, string Name) Key, EntityHandle Member)> _pendingMembers = [];
    private readonly Dictionary<int, TypeDefinitionHandle> _declaring = [];
    private readonly Dictionary<int, TypeDefinitionHandle> _pendingDeclaring = [];

    public ReloadModule Loaded => loaded;

    /// <summary>Where a TypeDef, MethodDef or FieldDef of the view lives.</summary>
    public Placement Of(EntityHandle definition)
    {
        int token = MetadataTokens.GetToken(definition);
        if (_pending.TryGetValue(token, out Placement? pending) || _committed.TryGetValue(token, out pending))
            return pending;
        if (!view.IsBaseline(definition))
            throw new BadImageFormatException($"{definition.Kind} 0x{token:X8} has no place in this process");
        return new Placement(PlacementKind.Itself, loaded, token, definition.Kind == HandleKind.TypeDefinition
            ? default
            : DeclaringType(definition));
    }

    /// <summary>The view's type a method or field belongs to.</summary>
    public TypeDefinitionHandle DeclaringType(EntityHandle member)
    {
        int token = MetadataTokens.GetToken(member);
        if (_pendingDeclaring.TryGetValue(token, out TypeDefinitionHandle type) || _declaring.TryGetValue(token, out type))
            return type;
        return member.Kind switch
        {
            HandleKind.MethodDefinition => view.Baseline.GetMethodDefinition((MethodDefinitionHandle)member).GetDeclaringType(),
            HandleKind.FieldDefinition => view.Baseline.GetFieldDefinition((FieldDefinitionHandle)member).GetDeclaringType(),
            _ => throw new BadImageFormatException($"a {member.Kind} has no declaring type"),
        };
    }

    /// <summary>Members added to <paramref name="type"/> (a type that lived before the delta that
    /// added them) named <paramref name="name"/>.</summary>
    public IEnumerable<EntityHandle> AddedMembers(TypeDefinitionHandle type, string name)
    {
        var key = (MetadataTokens.GetToken(type), name);
        if (_addedMembers.TryGetValue(key, out List<EntityHandle>? committed))
            foreach (EntityHandle member in committed)
                yield return member;
        foreach ((var k, EntityHandle member) in _pendingMembers)
        {
            if (k == key)
                yield return member;
        }
    }

    /// <summary>A pending placement of the reload being built.</summary>
    public void Place(EntityHandle definition, Placement placement, string? name = null)
    {
        _pending[MetadataTokens.GetToken(definition)] = placement;
        if (!placement.Declaring.IsNil)
            _pendingDeclaring[MetadataTokens.GetToken(definition)] = placement.Declaring;
        if (placement.Kind != PlacementKind.Itself && name is not null)
            _pendingMembers.Add(((MetadataTokens.GetToken(placement.Declaring), name), definition));
    }

    /// <summary>The declaring type of a member the pending delta adds as itself.</summary>
    public void Declare(EntityHandle member, TypeDefinitionHandle type) =>
        _pendingDeclaring[MetadataTokens.GetToken(member)] = type;

    /// <summary>The reload's batch was applied: its placements are kept.</summary>
    public void Commit()
    {
        foreach (var (token, placement) in _pending)
            _committed[token] = placement;
        foreach (var (token, type) in _pendingDeclaring)
            _declaring[token] = type;
        foreach (((int, string) key, EntityHandle member) in _pendingMembers)
        {
            if (!_addedMembers.TryGetValue(key, out List<EntityHandle>? list))
                _addedMembers[key] = list = [];
            list.Add(member);
        }
        Discard();
    }

    /// <summary>The reload was refused or failed: its placements are forgotten.</summary>
    public void Discard()
    {
        _pending.Clear();
        _pendingDeclaring.Clear();
        _pendingMembers.Clear();
    }
}
