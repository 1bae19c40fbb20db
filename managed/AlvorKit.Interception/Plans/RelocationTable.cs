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

/// <summary>One relocation as alvk_relocation needs it (offsets into the pool).</summary>
internal sealed record RelocationSpec(RelocationKind Kind, uint ILOffset, uint ParentToken, uint ParentRelocation,
    uint NameOffset, uint NameLength, uint BlobOffset, uint BlobLength, string Description, Assembly? Referenced = null);

/// <summary>One IL map entry (COR_IL_MAP).</summary>
internal readonly record struct ILMapSpec(uint OldOffset, uint NewOffset, bool Accurate);

/// <summary>A plan lowered into exactly what alvk_generation_submit takes (Unverifiable:
/// submitted with ALVK_INSTALL_UNVERIFIABLE).</summary>
internal sealed record LoweredGeneration(byte[] Body, byte[] Pool, IReadOnlyList<RelocationSpec> Relocations,
    IReadOnlyList<ILMapSpec> ILMap, int MaxStack, bool Unverifiable = false);

/// <summary>
/// The relocations of one plan, in order (a parent always comes before its children). A
/// definition used only as a parent is added once and shared; every operand gets its own
/// relocation (one relocation fills one operand), reusing an identical parent-only one when
/// there is one.
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

    private readonly List<(RelocationRequest Request, uint ILOffset)> _entries = [];

    public int Count => _entries.Count;

    /// <summary>A relocation no instruction takes (a parent); its 1-based index.</summary>
    public int Reference(RelocationRequest request)
    {
        for (int i = 0; i < _entries.Count; i++)
        {
            if (_entries[i].Request.SameDefinition(request))
                return i + 1;
        }
        _entries.Add((request, NoOperand));
        return _entries.Count;
    }

    /// <summary>The relocation that fills the token operand at `ilOffset`.</summary>
    public void AtOperand(RelocationRequest request, uint ilOffset)
    {
        for (int i = 0; i < _entries.Count; i++)
        {
            if (_entries[i].ILOffset == NoOperand && _entries[i].Request.SameDefinition(request))
            {
                _entries[i] = (request, ilOffset);
                return;
            }
        }
        _entries.Add((request, ilOffset));
    }

    /// <summary>Every relocation that fills an operand in the code moves <paramref name="by"/>
    /// bytes further (the code moved down behind a prologue).</summary>
    public void Shift(int by)
    {
        for (int i = 0; i < _entries.Count; i++)
        {
            uint offset = _entries[i].ILOffset;
            if (offset < CatchType(0) && offset != LocalsSignature)
                _entries[i] = (_entries[i].Request, offset + (uint)by);
        }
    }

    /// <summary>The specs and the blob pool (names and blobs), with `extra` (the locals
    /// signature) last when there is one.</summary>
    public (List<RelocationSpec> Specs, byte[] Pool) Build((RelocationRequest Request, uint ILOffset)? extra)
    {
        var pool = new BlobBuilder();
        var specs = new List<RelocationSpec>();
        IEnumerable<(RelocationRequest Request, uint ILOffset)> all = _entries;
        if (extra is { } e)
            all = all.Append(e);
        foreach ((RelocationRequest r, uint offset) in all)
        {
            uint nameOffset = 0, nameLength = 0, blobOffset = 0, blobLength = 0;
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
            specs.Add(new RelocationSpec(r.Kind, offset, r.Parent.Token, (uint)r.Parent.Relocation, nameOffset,
                nameLength, blobOffset, blobLength, r.Description, r.Referenced));
        }
        return (specs, pool.ToArray());
    }
}
