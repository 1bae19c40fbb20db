using System.Reflection;
using System.Reflection.Metadata;
using System.Text;

namespace AlvorKit.Interception.Plans;

/// <summary>A relocation's parent: an existing token of the target module, or (1-based) an
/// earlier relocation whose token the profiler hands on.</summary>
internal readonly record struct Parent(uint Token, int Relocation)
{
    public static readonly Parent None;

    public static Parent OfToken(int token) => new(unchecked((uint)token), 0);

    public static Parent OfRelocation(int index) => new(0, index);
}

/// <summary>What one relocation stands for, before it has an operand.</summary>
internal sealed record RelocationRequest(RelocationKind Kind, byte[]? Blob, string? Name, Parent Parent, string Description)
{
    /// <summary>For an ASSEMBLY_REF: the assembly whose manifest module's module_id the blob
    /// holds; the profiler's side fills the blob when the generation is submitted
    /// (alvk_module_identify needs the profiler, which a plan does not hold).</summary>
    public Assembly? Referenced { get; init; }

    public bool SameDefinition(RelocationRequest other) =>
        Kind == other.Kind && Name == other.Name && Parent == other.Parent && Referenced == other.Referenced &&
        (Blob ?? []).AsSpan().SequenceEqual(other.Blob ?? []);
}

/// <summary>One relocation as alvk_relocation needs it (offsets into the pool): the operand
/// ILOffset and, when more operands take the same token, SiteCount more operand offsets at
/// SitesOffset in the pool (little-endian uint32 each).</summary>
internal sealed record RelocationSpec(RelocationKind Kind, uint ILOffset, uint ParentToken, uint ParentRelocation,
    uint NameOffset, uint NameLength, uint BlobOffset, uint BlobLength, string Description, Assembly? Referenced = null,
    uint SitesOffset = 0, uint SiteCount = 0);

/// <summary>One IL map entry (COR_IL_MAP).</summary>
internal sealed record ILMapSpec(uint OldOffset, uint NewOffset, bool Accurate);

/// <summary>A plan lowered into exactly what alvk_generation_submit takes (Unverifiable:
/// submitted with ALVK_INSTALL_UNVERIFIABLE).</summary>
internal sealed record LoweredGeneration(byte[] Body, byte[] Pool, IReadOnlyList<RelocationSpec> Relocations,
    IReadOnlyList<ILMapSpec> ILMap, int MaxStack, bool Unverifiable = false);

/// <summary>
/// The relocations of one plan, in order (a parent always comes before its children). Identical
/// references (same kind, name, parent, blob and referenced assembly) share one relocation: the
/// first operand that takes it is its ILOffset, every later one a site of the same relocation,
/// and a definition used only as a parent is the same relocation too. The fat header's locals
/// signature is never a site (the ABI takes it only as an ILOffset).
/// </summary>
internal sealed class RelocationTable
{
    public const uint NoOperand = 0xFFFF_FFFF;
    public const uint LocalsSignature = 0xFFFF_FFFE;

    /// <summary>ALVK_RELOCATION_CATCH_TYPE(clause): the class token of EH clause `clause`.</summary>
    public static uint CatchType(int clause) => 0xFFFF_0000u + (uint)clause;

    /// <summary>The coded value that names relocation <paramref name="relocation"/> (1-based, an
    /// earlier TYPE_REF) inside a signature blob: tag 3 (ABI 3.3, ALVK_SIGNATURE_RELOCATION_TAG).</summary>
    public static int SignatureReference(int relocation) =>
        (relocation << 2) | (int)Native.AlvkConstants.SignatureRelocationTag;

    // Uses named in a shared relocation's description (the first, then up to this many more).
    private const int DescribedSites = 3;

    private sealed class Entry(RelocationRequest request, uint ilOffset)
    {
        public RelocationRequest Request { get; set; } = request;
        public uint ILOffset { get; set; } = ilOffset;
        public List<uint> Sites { get; } = [];
        public List<string> SiteDescriptions { get; } = [];

        // The first use's description; then, for a shared one, the next few uses' and how many more.
        public string Description()
        {
            if (Sites.Count == 0)
                return Request.Description;
            string more = Sites.Count > DescribedSites ? $"; and {Sites.Count - DescribedSites} more operands" : "";
            return string.Join("; ", SiteDescriptions.Prepend(Request.Description)) + more;
        }
    }

    private readonly List<Entry> _entries = [];
    // Each definition's first relocation (its 0-based index).
    private readonly Dictionary<Definition, int> _byDefinition = [];

    public int Count => _entries.Count;

    /// <summary>Operands filled beyond each relocation's first (the sites of all relocations).</summary>
    public int SiteCount { get; private set; }

    /// <summary>A relocation no instruction takes (a parent); its 1-based index.</summary>
    public int Reference(RelocationRequest request)
    {
        if (_byDefinition.TryGetValue(new Definition(request), out int i))
            return i + 1;
        Add(request, NoOperand);
        return _entries.Count;
    }

    /// <summary>The relocation that fills the token operand at `ilOffset`: the one of an
    /// identical reference when there is one (its operand, or one more site), else a new one.</summary>
    public void AtOperand(RelocationRequest request, uint ilOffset)
    {
        if (_byDefinition.TryGetValue(new Definition(request), out int i))
        {
            Entry e = _entries[i];
            if (e.ILOffset == NoOperand)
            {
                // A parent until now: the operand's use describes it.
                e.Request = request;
                e.ILOffset = ilOffset;
                return;
            }
            if (ilOffset != LocalsSignature && e.ILOffset != LocalsSignature)
            {
                e.Sites.Add(ilOffset);
                if (e.SiteDescriptions.Count < DescribedSites)
                    e.SiteDescriptions.Add(request.Description);
                SiteCount++;
                return;
            }
        }
        Add(request, ilOffset);
    }

    private void Add(RelocationRequest request, uint ilOffset)
    {
        _byDefinition.TryAdd(new Definition(request), _entries.Count);
        _entries.Add(new Entry(request, ilOffset));
    }

    /// <summary>Every relocation that fills an operand in the code moves <paramref name="by"/>
    /// bytes further (the code moved down behind a prologue).</summary>
    public void Shift(int by)
    {
        foreach (Entry e in _entries)
        {
            e.ILOffset = Shifted(e.ILOffset, by);
            for (int j = 0; j < e.Sites.Count; j++)
                e.Sites[j] = Shifted(e.Sites[j], by);
        }
    }

    private static uint Shifted(uint offset, int by) =>
        offset < CatchType(0) && offset != LocalsSignature ? offset + (uint)by : offset;

    /// <summary>The specs and the blob pool (names, blobs and sites), with `extra` (the locals
    /// signature) last when there is one.</summary>
    public (List<RelocationSpec> Specs, byte[] Pool) Build((RelocationRequest Request, uint ILOffset)? extra)
    {
        var pool = new BlobBuilder();
        var specs = new List<RelocationSpec>();
        IEnumerable<Entry> all = _entries;
        if (extra is { } x)
            all = all.Append(new Entry(x.Request, x.ILOffset));
        foreach (Entry e in all)
        {
            RelocationRequest r = e.Request;
            uint nameOffset = 0, nameLength = 0, blobOffset = 0, blobLength = 0, sitesOffset = 0;
            if (r.Name is not null)
            {
                byte[] name = Encoding.UTF8.GetBytes(r.Name);
                (nameOffset, nameLength) = ((uint)pool.Count, (uint)name.Length);
                pool.WriteBytes(name);
            }
            if (r.Blob is not null)
            {
                (blobOffset, blobLength) = ((uint)pool.Count, (uint)r.Blob.Length);
                pool.WriteBytes(r.Blob);
            }
            if (e.Sites.Count > 0)
            {
                sitesOffset = (uint)pool.Count;
                foreach (uint site in e.Sites)
                    pool.WriteUInt32(site); // little-endian
            }
            specs.Add(new RelocationSpec(r.Kind, e.ILOffset, r.Parent.Token, (uint)r.Parent.Relocation, nameOffset,
                nameLength, blobOffset, blobLength, e.Description(), r.Referenced, sitesOffset, (uint)e.Sites.Count));
        }
        return (specs, pool.ToArray());
    }

    // What makes two requests the same definition (RelocationRequest.SameDefinition), hashable. A class: the
    // framework's dictionary over a reference type is precompiled, over a value type of ours it is not.
    private sealed class Definition(RelocationRequest request) : IEquatable<Definition>
    {
        private readonly RelocationRequest _request = request;

        public bool Equals(Definition? other) => other is not null && _request.SameDefinition(other._request);

        public override bool Equals(object? obj) => obj is Definition d && Equals(d);

        public override int GetHashCode()
        {
            var hash = new HashCode();
            hash.Add(_request.Kind);
            hash.Add(_request.Name);
            hash.Add(_request.Parent);
            hash.Add(_request.Referenced);
            hash.AddBytes(_request.Blob ?? []);
            return hash.ToHashCode();
        }
    }
}
