using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.CompilerServices;

namespace AlvorKit.Interception.Metadata;

/// <summary>Bytes compared by value, as a dictionary key.</summary>
internal readonly struct BlobKey(byte[] bytes) : IEquatable<BlobKey>
{
    public byte[] Bytes { get; } = bytes;

    public bool Equals(BlobKey other) => Bytes.AsSpan().SequenceEqual(other.Bytes);

    public override bool Equals(object? obj) => obj is BlobKey other && Equals(other);

    public override int GetHashCode()
    {
        var hash = new HashCode();
        hash.AddBytes(Bytes);
        return hash.ToHashCode();
    }
}

/// <summary>
/// The reference rows a module already has, by what they stand for in its own tokens, so that a
/// body written for it (a hot reload's translated body, a plan's lowered one) reuses a token
/// wherever the module has one and a relocation makes only what is new: AssemblyRefs by name,
/// TypeRefs by scope and name (and by name alone), MemberRefs by parent, name and signature,
/// TypeSpecs, MethodSpecs and StandAloneSigs by blob, user strings by value. Each table is
/// indexed the first time it is asked, once for the module's life: a loaded module has one
/// index (<see cref="Of"/>), shared by hot reload (HotReload/LoadedTarget.cs) and plans
/// (Plans/ModuleContext.cs).
/// </summary>
internal sealed class ReferenceIndex(MetadataReader reader)
{
    // Weak on the assembly: an index of a collectible copy must not keep its context from unloading.
    private static readonly ConditionalWeakTable<Assembly, ReferenceIndex> Loaded = new();

    private readonly Lock _gate = new();
    private Dictionary<(string Namespace, string Name), List<int>>? _typeRefsByName;
    private Dictionary<string, int>? _assemblies;
    private Dictionary<(int Scope, string Namespace, string Name), int>? _typeRefs;
    private Dictionary<(int Parent, string Name, BlobKey Signature), int>? _memberRefs;
    private Dictionary<BlobKey, int>? _typeSpecs;
    private Dictionary<(int Method, BlobKey Blob), int>? _methodSpecs;
    private Dictionary<BlobKey, int>? _standAloneSigs;
    private Dictionary<string, int>? _userStrings;

    public MetadataReader Reader => reader;

    /// <summary>The index of a loaded module (its metadata as the runtime loaded it).</summary>
    public static ReferenceIndex Of(Module module)
    {
        MetadataReader metadata = LoadedMetadata.Of(module);
        return Loaded.GetValue(module.Assembly, _ => new ReferenceIndex(metadata));
    }

    public int? AssemblyRef(string name)
    {
        lock (_gate)
        {
            _assemblies ??= Build(reader.AssemblyReferences.Select(h =>
                (reader.GetString(reader.GetAssemblyReference(h).Name), MetadataTokens.GetToken(h))),
                StringComparer.OrdinalIgnoreCase);
            return _assemblies.TryGetValue(name, out int token) ? token : null;
        }
    }

    public int? TypeRef(int scope, string ns, string name)
    {
        lock (_gate)
        {
            _typeRefs ??= Build(reader.TypeReferences.Select(h =>
            {
                TypeReference t = reader.GetTypeReference(h);
                return ((MetadataTokens.GetToken(t.ResolutionScope), reader.GetString(t.Namespace), reader.GetString(t.Name)),
                        MetadataTokens.GetToken(h));
            }));
            return _typeRefs.TryGetValue((scope, ns, name), out int token) ? token : null;
        }
    }

    /// <summary>The TypeRefs named `ns`.`name` (a nested type's namespace is empty), whatever
    /// their scope, in table order.</summary>
    public IReadOnlyList<int> TypeRefsNamed(string ns, string name)
    {
        lock (_gate)
        {
            if (_typeRefsByName is null)
            {
                _typeRefsByName = [];
                foreach (TypeReferenceHandle h in reader.TypeReferences)
                {
                    TypeReference r = reader.GetTypeReference(h);
                    var key = (reader.GetString(r.Namespace), reader.GetString(r.Name));
                    if (!_typeRefsByName.TryGetValue(key, out List<int>? list))
                        _typeRefsByName[key] = list = [];
                    list.Add(MetadataTokens.GetToken(h));
                }
            }
            return _typeRefsByName.TryGetValue((ns, name), out List<int>? found) ? found : [];
        }
    }

    public int? MemberRef(int parent, string name, byte[] signature)
    {
        lock (_gate)
        {
            _memberRefs ??= Build(reader.MemberReferences.Select(h =>
            {
                MemberReference m = reader.GetMemberReference(h);
                return ((MetadataTokens.GetToken(m.Parent), reader.GetString(m.Name), new BlobKey(reader.GetBlobBytes(m.Signature))),
                        MetadataTokens.GetToken(h));
            }));
            return _memberRefs.TryGetValue((parent, name, new BlobKey(signature)), out int token) ? token : null;
        }
    }

    public int? TypeSpec(byte[] blob)
    {
        lock (_gate)
        {
            _typeSpecs ??= Build(Rows(TableIndex.TypeSpec).Select(row =>
            {
                TypeSpecificationHandle h = MetadataTokens.TypeSpecificationHandle(row);
                return (new BlobKey(reader.GetBlobBytes(reader.GetTypeSpecification(h).Signature)), MetadataTokens.GetToken(h));
            }));
            return _typeSpecs.TryGetValue(new BlobKey(blob), out int token) ? token : null;
        }
    }

    public int? MethodSpec(int method, byte[] blob)
    {
        lock (_gate)
        {
            _methodSpecs ??= Build(Rows(TableIndex.MethodSpec).Select(row =>
            {
                MethodSpecificationHandle h = MetadataTokens.MethodSpecificationHandle(row);
                MethodSpecification s = reader.GetMethodSpecification(h);
                return ((MetadataTokens.GetToken(s.Method), new BlobKey(reader.GetBlobBytes(s.Signature))), MetadataTokens.GetToken(h));
            }));
            return _methodSpecs.TryGetValue((method, new BlobKey(blob)), out int token) ? token : null;
        }
    }

    public int? StandAloneSig(byte[] blob)
    {
        lock (_gate)
        {
            _standAloneSigs ??= Build(Rows(TableIndex.StandAloneSig).Select(row =>
            {
                StandaloneSignatureHandle h = MetadataTokens.StandaloneSignatureHandle(row);
                return (new BlobKey(reader.GetBlobBytes(reader.GetStandaloneSignature(h).Signature)), MetadataTokens.GetToken(h));
            }));
            return _standAloneSigs.TryGetValue(new BlobKey(blob), out int token) ? token : null;
        }
    }

    public int? UserString(string value)
    {
        lock (_gate)
        {
            if (_userStrings is null)
            {
                _userStrings = new Dictionary<string, int>(StringComparer.Ordinal);
                int size = reader.GetHeapSize(HeapIndex.UserString);
                UserStringHandle handle = MetadataTokens.UserStringHandle(1);
                while (!handle.IsNil && MetadataTokens.GetHeapOffset(handle) < size)
                {
                    _userStrings.TryAdd(reader.GetUserString(handle), MetadataTokens.GetToken(handle));
                    handle = reader.GetNextHandle(handle);
                }
            }
            return _userStrings.TryGetValue(value, out int token) ? token : null;
        }
    }

    private IEnumerable<int> Rows(TableIndex table) => Enumerable.Range(1, reader.GetTableRowCount(table));

    private static Dictionary<TKey, int> Build<TKey>(IEnumerable<(TKey Key, int Token)> rows,
                                                    IEqualityComparer<TKey>? comparer = null)
        where TKey : notnull
    {
        var map = new Dictionary<TKey, int>(comparer);
        foreach ((TKey key, int token) in rows)
            map.TryAdd(key, token);
        return map;
    }
}
