using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// A loaded module's metadata as its reloads have grown it: the metadata the runtime loaded (the
/// baseline, read in place through Assembly.TryGetRawMetadata) followed by every delta applied
/// since, in order. Rows and heap entries are named by aggregate tokens and offsets, the way
/// the deltas' own IL and metadata name them; a row reads from the newest generation that holds
/// it. Built once per loaded module copy and kept: a reload reads only the delta it applies.
/// </summary>
internal sealed class MetadataView
{
    private readonly List<DeltaGeneration> _deltas = [];
    private readonly int[] _baselineCounts = new int[MetadataTokens.TableCount];
    private readonly int[] _counts = new int[MetadataTokens.TableCount];
    // The newest generation (1-based index into _deltas) of each row a delta wrote.
    private readonly Dictionary<int, int> _newest = [];
    // The generation (1-based) that added each row past the baseline.
    private readonly Dictionary<int, int> _added = [];
    private MetadataAggregator? _aggregator; // null until the first delta

    public MetadataView(MetadataReader baseline)
    {
        Baseline = baseline;
        for (int t = 0; t < MetadataTokens.TableCount; t++)
            _counts[t] = _baselineCounts[t] = baseline.GetTableRowCount((TableIndex)t);
        ModuleVersionId = baseline.GetGuid(baseline.GetModuleDefinition().Mvid);
    }

    public MetadataReader Baseline { get; }

    public Guid ModuleVersionId { get; }

    /// <summary>The newest generation applied (its EncId); empty before the first.</summary>
    public Guid EncId => _deltas.Count == 0 ? Guid.Empty : _deltas[^1].EncId;

    /// <summary>How many generations were applied.</summary>
    public int Generation => _deltas.Count;

    public IReadOnlyList<DeltaGeneration> Deltas => _deltas;

    /// <summary>Rows of a table, baseline and deltas.</summary>
    public int RowCount(TableIndex table) => _counts[(int)table];

    /// <summary>Rows of a table in the module as the runtime loaded it.</summary>
    public int BaselineRowCount(TableIndex table) => _baselineCounts[(int)table];

    /// <summary>Whether a row is one the runtime loaded (not added by a delta).</summary>
    public bool IsBaseline(EntityHandle handle) =>
        MetadataTokens.TryGetTableIndex(handle.Kind, out TableIndex table) &&
        MetadataTokens.GetRowNumber(handle) <= _baselineCounts[(int)table];

    /// <summary>Adds an applied generation.</summary>
    public void Add(DeltaGeneration delta)
    {
        _deltas.Add(delta);
        for (int t = 0; t < MetadataTokens.TableCount; t++)
        {
            if ((TableIndex)t is TableIndex.EncLog or TableIndex.EncMap)
                continue;
            foreach (int row in delta.AddedRows((TableIndex)t, 0))
            {
                int token = MetadataTokens.GetToken(MetadataTokens.EntityHandle((TableIndex)t, row));
                _newest[token] = _deltas.Count;
                if (row > _counts[t])
                    _added[token] = _deltas.Count;
            }
            _counts[t] = Math.Max(_counts[t], delta.RowCounts[t]);
        }
        _aggregator = new MetadataAggregator(Baseline, [.. _deltas.Select(d => d.Reader)]);
    }

    /// <summary>The reader and generation-relative handle of a row; `pending` is a delta being
    /// read that is not applied yet (its rows are newest).</summary>
    public (MetadataReader Reader, EntityHandle Local) Row(EntityHandle aggregate, DeltaGeneration? pending = null)
    {
        if (pending is not null && pending.TryLocal(aggregate, out EntityHandle inPending))
            return (pending.Reader, inPending);
        if (_newest.TryGetValue(MetadataTokens.GetToken(aggregate), out int generation) &&
            _deltas[generation - 1].TryLocal(aggregate, out EntityHandle local))
            return (_deltas[generation - 1].Reader, local);
        if (!IsBaseline(aggregate))
            throw new BadImageFormatException($"{aggregate.Kind} 0x{MetadataTokens.GetToken(aggregate):X8} is in no generation");
        return (Baseline, aggregate);
    }

    /// <summary>The delta that added a row past the baseline (null for a baseline row).</summary>
    public DeltaGeneration? AddedIn(EntityHandle aggregate) =>
        _added.TryGetValue(MetadataTokens.GetToken(aggregate), out int generation) ? _deltas[generation - 1] : null;

    /// <summary>The generation (0: the baseline) whose delta last wrote a row.</summary>
    public int GenerationOf(EntityHandle aggregate) =>
        _newest.TryGetValue(MetadataTokens.GetToken(aggregate), out int generation) ? generation : 0;

    public string String(StringHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, Handle local) = Heap(handle, pending);
        return reader.GetString((StringHandle)local);
    }

    public BlobReader Blob(BlobHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, Handle local) = Heap(handle, pending);
        return reader.GetBlobReader((BlobHandle)local);
    }

    public byte[] BlobBytes(BlobHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, Handle local) = Heap(handle, pending);
        return reader.GetBlobBytes((BlobHandle)local);
    }

    public string UserString(UserStringHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, Handle local) = Heap(handle, pending);
        return reader.GetUserString((UserStringHandle)local);
    }

    /// <summary>Whether a user string is one of the loaded module's (its token is valid there).</summary>
    public bool IsBaseline(UserStringHandle handle) =>
        MetadataTokens.GetHeapOffset(handle) < Baseline.GetHeapSize(HeapIndex.UserString);

    /// <summary>A GUID of the view. The compiler writes each delta's #GUID heap whole (every GUID of
    /// the generations before it, then its own), so the newest generation reads any index as is.</summary>
    public Guid GetGuid(GuidHandle handle, DeltaGeneration? pending = null) =>
        (pending?.Reader ?? (_deltas.Count > 0 ? _deltas[^1].Reader : Baseline)).GetGuid(handle);

    private (MetadataReader Reader, Handle Local) Heap(Handle handle, DeltaGeneration? pending)
    {
        if (pending is null)
        {
            if (_aggregator is null)
                return (Baseline, handle);
            Handle local = _aggregator.GetGenerationHandle(handle, out int generation);
            return (generation == 0 ? Baseline : _deltas[generation - 1].Reader, local);
        }
        var aggregator = new MetadataAggregator(Baseline, [.. _deltas.Select(d => d.Reader), pending.Reader]);
        Handle inPending = aggregator.GetGenerationHandle(handle, out int g);
        return (g == 0 ? Baseline : g <= _deltas.Count ? _deltas[g - 1].Reader : pending.Reader, inPending);
    }

    // ------------------------------------------------------------ rows, by kind

    public TypeDefinition TypeDef(TypeDefinitionHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetTypeDefinition((TypeDefinitionHandle)local);
    }

    public MethodDefinition MethodDef(MethodDefinitionHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetMethodDefinition((MethodDefinitionHandle)local);
    }

    public FieldDefinition FieldDef(FieldDefinitionHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetFieldDefinition((FieldDefinitionHandle)local);
    }

    public TypeReference TypeRef(TypeReferenceHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetTypeReference((TypeReferenceHandle)local);
    }

    public MemberReference MemberRef(MemberReferenceHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetMemberReference((MemberReferenceHandle)local);
    }

    public TypeSpecification TypeSpec(TypeSpecificationHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetTypeSpecification((TypeSpecificationHandle)local);
    }

    public MethodSpecification MethodSpec(MethodSpecificationHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetMethodSpecification((MethodSpecificationHandle)local);
    }

    public StandaloneSignature StandAloneSig(StandaloneSignatureHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetStandaloneSignature((StandaloneSignatureHandle)local);
    }

    public AssemblyReference AssemblyRef(AssemblyReferenceHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetAssemblyReference((AssemblyReferenceHandle)local);
    }

    public Parameter Param(ParameterHandle handle, DeltaGeneration? pending = null)
    {
        (MetadataReader reader, EntityHandle local) = Row(handle, pending);
        return reader.GetParameter((ParameterHandle)local);
    }
}
