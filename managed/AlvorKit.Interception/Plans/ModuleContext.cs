using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// What a plan needs to know about its target's module, read from the module's metadata as the
/// runtime loaded it (Assembly.TryGetRawMetadata, no file access): which TypeRefs, AssemblyRefs
/// and user strings it already has. Built lazily, once per module.
/// </summary>
internal sealed unsafe class ModuleContext
{
    // Weak on the module and assembly: a plan built for a collectible copy must not keep its
    // AssemblyLoadContext from unloading.
    private static readonly ConditionalWeakTable<Module, ModuleContext> Contexts = new();
    private static readonly ConditionalWeakTable<Assembly, MetadataReader> Readers = new();

    private readonly Lock _gate = new();
    private Dictionary<(string Namespace, string Name), List<TypeReferenceHandle>>? _typeRefsByName;
    private readonly Dictionary<Type, int> _typeRefs = new();
    private readonly Dictionary<Type, int> _assemblyRefs = new();
    private Dictionary<string, int>? _userStrings;

    private ModuleContext(Module module)
    {
        Module = module;
        Reader = MetadataOf(module);
    }

    public Module Module { get; }

    public MetadataReader Reader { get; }

    /// <summary>A short name for messages: the module's assembly name.</summary>
    public string Name => Module.Assembly.GetName().Name ?? Module.Name;

    public static ModuleContext For(Module module) => Contexts.GetValue(module, m => new ModuleContext(m));

    /// <summary>The metadata of `module` as it was loaded (the manifest module of its assembly).</summary>
    public static MetadataReader MetadataOf(Module module)
    {
        Assembly assembly = module.Assembly;
        if (module != assembly.ManifestModule)
            throw new NotSupportedException($"{module.Name} is not the manifest module of {assembly.GetName().Name}; " +
                                            "multi-module assemblies are not supported.");
        return Readers.GetValue(assembly, a =>
        {
            if (!a.TryGetRawMetadata(out byte* blob, out int length))
                throw new NotSupportedException($"the metadata of {a.GetName().Name} is not available " +
                                                "(a dynamic or in-memory assembly without metadata?)");
            return new MetadataReader(blob, length);
        });
    }

    /// <summary>True when `type` is a TypeDef of this module that a token can name directly
    /// (not a constructed, array, pointer or by-ref type, nor a generic parameter).</summary>
    public bool Defines(Type type) =>
        type.Module == Module && !type.HasElementType && !type.IsGenericParameter && !type.IsConstructedGenericType &&
        !type.IsFunctionPointer;

    /// <summary>The token of a TypeRef this module already has for `type`, or 0.</summary>
    public int ExistingTypeRef(Type type)
    {
        lock (_gate)
        {
            if (_typeRefs.TryGetValue(type, out int known))
                return known;
            _typeRefsByName ??= IndexTypeRefs();
            int found = 0;
            string ns = type.IsNested ? "" : type.Namespace ?? "";
            if (_typeRefsByName.TryGetValue((ns, type.Name), out List<TypeReferenceHandle>? candidates))
            {
                foreach (TypeReferenceHandle h in candidates)
                {
                    int token = MetadataTokens.GetToken(h);
                    try
                    {
                        if (Module.ResolveType(token) == type)
                        {
                            found = token;
                            break;
                        }
                    }
                    catch (Exception e) when (e is TypeLoadException or ArgumentException or FileNotFoundException or BadImageFormatException)
                    {
                        // An unresolvable reference cannot be this type.
                    }
                }
            }
            _typeRefs[type] = found;
            return found;
        }
    }

    /// <summary>The token of an AssemblyRef of this module through which the runtime resolves
    /// `type` (following type forwarders, e.g. System.Runtime for System.Math), or 0.</summary>
    public int AssemblyRefReaching(Type type)
    {
        Type outermost = type;
        while (outermost.IsNested)
            outermost = outermost.DeclaringType!;
        lock (_gate)
        {
            if (_assemblyRefs.TryGetValue(outermost, out int known))
                return known;
        }
        int found = 0;
        int existing = ExistingTypeRef(outermost);
        if (existing != 0)
        {
            EntityHandle scope = Reader.GetTypeReference((TypeReferenceHandle)MetadataTokens.EntityHandle(existing)).ResolutionScope;
            if (scope.Kind == HandleKind.AssemblyReference)
                found = MetadataTokens.GetToken(scope);
        }
        if (found == 0)
        {
            string? home = outermost.Assembly.GetName().Name;
            AssemblyLoadContext context = AssemblyLoadContext.GetLoadContext(Module.Assembly) ?? AssemblyLoadContext.Default;
            // The assembly's own name first, then every other reference (facades that forward it).
            foreach (AssemblyReferenceHandle h in Reader.AssemblyReferences
                         .OrderBy(h => Reader.GetString(Reader.GetAssemblyReference(h).Name) == home ? 0 : 1))
            {
                try
                {
                    Assembly referenced = context.LoadFromAssemblyName(Reader.GetAssemblyReference(h).GetAssemblyName());
                    if (referenced.GetType(outermost.FullName!, throwOnError: false) == outermost)
                    {
                        found = MetadataTokens.GetToken(h);
                        break;
                    }
                }
                catch (Exception e) when (e is FileNotFoundException or FileLoadException or BadImageFormatException)
                {
                    // A reference that does not load cannot reach the type.
                }
            }
        }
        lock (_gate)
            _assemblyRefs[outermost] = found;
        return found;
    }

    /// <summary>The token (0x70xxxxxx) of a user string this module already has, or 0.</summary>
    public int ExistingUserString(string value)
    {
        lock (_gate)
        {
            if (_userStrings is null)
            {
                _userStrings = new Dictionary<string, int>(StringComparer.Ordinal);
                for (UserStringHandle h = Reader.GetNextHandle(MetadataTokens.UserStringHandle(0));
                     !h.IsNil;
                     h = Reader.GetNextHandle(h))
                    _userStrings.TryAdd(Reader.GetUserString(h), MetadataTokens.GetToken(h));
            }
            return _userStrings.GetValueOrDefault(value);
        }
    }

    private Dictionary<(string, string), List<TypeReferenceHandle>> IndexTypeRefs()
    {
        var index = new Dictionary<(string, string), List<TypeReferenceHandle>>();
        foreach (TypeReferenceHandle h in Reader.TypeReferences)
        {
            TypeReference r = Reader.GetTypeReference(h);
            var key = (Reader.GetString(r.Namespace), Reader.GetString(r.Name));
            if (!index.TryGetValue(key, out List<TypeReferenceHandle>? list))
                index[key] = list = [];
            list.Add(h);
        }
        return index;
    }
}
