using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception.Metadata;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// What a plan needs to know about its target's module, read from the module's metadata as the
/// runtime loaded it (Metadata/LoadedMetadata.cs): which TypeRefs, AssemblyRefs and user strings
/// it already has, through the module's one <see cref="ReferenceIndex"/> (hot reload's too), and
/// which types they resolve to. Built lazily, once per module.
/// </summary>
internal sealed class ModuleContext
{
    // Weak on the module: a plan built for a collectible copy must not keep its
    // AssemblyLoadContext from unloading.
    private static readonly ConditionalWeakTable<Module, ModuleContext> Contexts = new();

    private readonly Lock _gate = new();
    private readonly ReferenceIndex _references;
    private readonly Dictionary<Type, int> _typeRefs = new();
    private readonly Dictionary<Type, int> _assemblyRefs = new();

    private ModuleContext(Module module)
    {
        Module = module;
        _references = ReferenceIndex.Of(module);
        Reader = _references.Reader;
    }

    public Module Module { get; }

    public MetadataReader Reader { get; }

    /// <summary>A short name for messages: the module's assembly name.</summary>
    public string Name => Module.Assembly.GetName().Name ?? Module.Name;

    public static ModuleContext For(Module module) => Contexts.GetValue(module, m => new ModuleContext(m));

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
            int found = 0;
            string ns = type.IsNested ? "" : type.Namespace ?? "";
            foreach (int token in _references.TypeRefsNamed(ns, type.Name))
            {
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
    public int ExistingUserString(string value) => _references.UserString(value) ?? 0;
}
