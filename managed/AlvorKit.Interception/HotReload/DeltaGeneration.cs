using System.Buffers.Binary;
using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>A member a delta adds to a type (EncLog AddMethod, AddField, AddProperty, AddEvent),
/// or a parameter it adds to a method (AddParameter): aggregate tokens of the parent and the new row.</summary>
internal readonly record struct Addition(EntityHandle Parent, EntityHandle Member);

/// <summary>
/// One metadata delta (an Edit and Continue generation, ECMA-335 II.22 with the EncLog and
/// EncMap tables), read against the module's view before it: which rows it updates and which it
/// adds, each by its aggregate token (the token the delta's own IL and metadata use), and which
/// type each added member belongs to. Reading refuses what is not a delta of that view: another
/// module's, an earlier or later generation's, rows that skip ahead, a table this design never
/// carries.
/// </summary>
internal sealed unsafe class DeltaGeneration
{
    // Tables whose rows a delta may add or update; the others are refused by name.
    private static readonly TableIndex[] Carried =
    [
        TableIndex.Module, TableIndex.TypeRef, TableIndex.TypeDef, TableIndex.Field, TableIndex.MethodDef,
        TableIndex.Param, TableIndex.InterfaceImpl, TableIndex.MemberRef, TableIndex.Constant,
        TableIndex.CustomAttribute, TableIndex.FieldMarshal, TableIndex.ClassLayout, TableIndex.FieldLayout,
        TableIndex.StandAloneSig, TableIndex.EventMap, TableIndex.Event, TableIndex.PropertyMap, TableIndex.Property,
        TableIndex.MethodSemantics, TableIndex.MethodImpl, TableIndex.ModuleRef, TableIndex.TypeSpec,
        TableIndex.EncLog, TableIndex.EncMap, TableIndex.AssemblyRef, TableIndex.NestedClass, TableIndex.GenericParam,
        TableIndex.MethodSpec, TableIndex.GenericParamConstraint,
        // Code access security, which .NET does not enforce: the compiler restates an unsafe
        // assembly's SkipVerification request in every delta. Read, and ignored.
        TableIndex.DeclSecurity,
    ];

    private readonly int[][] _aggregateRows = new int[MetadataTokens.TableCount][];

    private DeltaGeneration(MetadataReaderProvider provider, MetadataReader reader, byte[] il)
    {
        Provider = provider;
        Reader = reader;
        IL = il;
    }

    /// <summary>Owns the reader's memory.</summary>
    public MetadataReaderProvider Provider { get; }

    public MetadataReader Reader { get; }

    /// <summary>The IL delta: method bodies at the RVAs of this delta's MethodDef rows.</summary>
    public byte[] IL { get; }

    /// <summary>This generation's id (Module.EncId), and the id of the one it follows (EncBaseId;
    /// empty for the first).</summary>
    public Guid EncId { get; private set; }

    public Guid EncBaseId { get; private set; }

    /// <summary>Aggregate row counts after this delta, per table.</summary>
    public int[] RowCounts { get; } = new int[MetadataTokens.TableCount];

    /// <summary>MethodDef rows of earlier generations (or the baseline) with a new body here.</summary>
    public List<MethodDefinitionHandle> UpdatedMethods { get; } = [];

    /// <summary>Other rows of earlier generations this delta writes again (a type's, field's or
    /// parameter's metadata, custom attributes, property and event maps).</summary>
    public List<EntityHandle> UpdatedRows { get; } = [];

    /// <summary>TypeDef rows this delta adds.</summary>
    public List<TypeDefinitionHandle> AddedTypes { get; } = [];

    /// <summary>Members and parameters this delta adds, with their parents, in EncLog order.</summary>
    public List<Addition> Additions { get; } = [];

    /// <summary>Rows of a table this delta adds (aggregate rows, ascending).</summary>
    public IEnumerable<int> AddedRows(TableIndex table, int before)
    {
        foreach (int row in _aggregateRows[(int)table] ?? [])
        {
            if (row > before)
                yield return row;
        }
    }

    /// <summary>The delta's own (generation-relative) handle of an aggregate row it holds.</summary>
    public bool TryLocal(EntityHandle aggregate, out EntityHandle local)
    {
        local = default;
        if (!MetadataTokens.TryGetTableIndex(aggregate.Kind, out TableIndex table))
            return false;
        int[]? rows = _aggregateRows[(int)table];
        int at = rows is null ? -1 : Array.BinarySearch(rows, MetadataTokens.GetRowNumber(aggregate));
        if (at < 0)
            return false;
        local = MetadataTokens.EntityHandle(table, at + 1);
        return true;
    }

    /// <summary>The aggregate token of one of the delta's own rows.</summary>
    public EntityHandle Aggregate(EntityHandle local)
    {
        if (!MetadataTokens.TryGetTableIndex(local.Kind, out TableIndex table))
            throw new BadImageFormatException($"a {local.Kind} handle in a delta");
        int[]? rows = _aggregateRows[(int)table];
        int row = MetadataTokens.GetRowNumber(local);
        if (rows is null || row < 1 || row > rows.Length)
            throw new BadImageFormatException($"{table} row {row} is not in the delta's EncMap");
        return MetadataTokens.EntityHandle(table, rows[row - 1]);
    }

    /// <summary>
    /// Column <paramref name="column"/> (0-based) of one of the delta's own rows, for the tables
    /// whose rows SRM finds only by a lookup that compares the delta's own row numbers with the
    /// aggregate ones the columns hold (NestedClass, ClassLayout, FieldLayout, InterfaceImpl,
    /// PropertyMap, EventMap, MethodSemantics). A delta's tables use 4-byte indexes throughout
    /// (ECMA-335 II.24.2.6 with the minimal-delta #JTD stream); `sizes` gives each column's width.
    /// </summary>
    public uint Column(TableIndex table, int localRow, int column, ReadOnlySpan<int> sizes)
    {
        int rows = Reader.GetTableRowCount(table);
        if (localRow < 1 || localRow > rows)
            throw new BadImageFormatException($"{table} row {localRow} of {rows}");
        int rowSize = Reader.GetTableRowSize(table);
        int width = 0;
        foreach (int size in sizes)
            width += size;
        if (width != rowSize)
            throw new BadImageFormatException($"{table} rows are {rowSize} bytes, not the {width} of a minimal delta");
        int offset = 0;
        for (int i = 0; i < column; i++)
            offset += sizes[i];
        byte* row = Reader.MetadataPointer + Reader.GetTableMetadataOffset(table) + (localRow - 1) * rowSize + offset;
        return sizes[column] switch
        {
            2 => BinaryPrimitives.ReadUInt16LittleEndian(new ReadOnlySpan<byte>(row, 2)),
            4 => BinaryPrimitives.ReadUInt32LittleEndian(new ReadOnlySpan<byte>(row, 4)),
            _ => throw new ArgumentOutOfRangeException(nameof(sizes)),
        };
    }

    /// <summary>Reads <paramref name="metadata"/> as the next generation of <paramref name="view"/>.</summary>
    /// <exception cref="DeltaRefusedException">It is not.</exception>
    public static DeltaGeneration Read(MetadataView view, ReadOnlyMemory<byte> metadata, ReadOnlyMemory<byte> il)
    {
        MetadataReaderProvider provider = MetadataReaderProvider.FromMetadataImage(ImmutableArray.Create(metadata.Span));
        MetadataReader reader;
        try
        {
            reader = provider.GetMetadataReader();
        }
        catch (BadImageFormatException e)
        {
            provider.Dispose();
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta, $"the metadata delta cannot be read: {e.Message}");
        }
        var delta = new DeltaGeneration(provider, reader, il.ToArray());
        try
        {
            delta.Classify(view);
        }
        catch (BadImageFormatException e)
        {
            provider.Dispose();
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta, $"the metadata delta is malformed: {e.Message}");
        }
        catch (DeltaRefusedException)
        {
            provider.Dispose();
            throw;
        }
        return delta;
    }

    private void Classify(MetadataView view)
    {
        MetadataReader reader = Reader;
        if (reader.GetTableRowCount(TableIndex.EncMap) == 0 || reader.GetTableRowCount(TableIndex.EncLog) == 0)
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta,
                "the metadata has no EncLog or EncMap: it is a whole module, not a delta");
        ModuleDefinition module = reader.GetModuleDefinition();
        // The delta's heaps continue the view's: its handles are aggregate, read through the view.
        Guid mvid;
        try
        {
            mvid = view.GetGuid(module.Mvid, this);
            EncId = view.GetGuid(module.GenerationId, this);
            EncBaseId = module.BaseGenerationId.IsNil ? Guid.Empty : view.GetGuid(module.BaseGenerationId, this);
        }
        catch (BadImageFormatException e)
        {
            // Its heaps continue generations this view does not have.
            throw new DeltaRefusedException(ReloadRefusalReason.OutOfSequence,
                $"the delta follows a generation this process has not applied (it is at generation {view.Generation})",
                inner: e);
        }
        if (mvid != view.ModuleVersionId)
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta,
                $"the delta is for the module {mvid}, not the loaded {view.ModuleVersionId}");
        if (EncBaseId != view.EncId)
            throw new DeltaRefusedException(ReloadRefusalReason.OutOfSequence,
                view.EncId == Guid.Empty
                    ? $"the delta follows generation {EncBaseId}, and this process has applied none: its producer " +
                      "started from a later generation than this process (restart the watcher)"
                    : $"the delta follows generation {EncBaseId}, and this process is at {view.EncId}");

        // EncMap: the aggregate token of every row the delta holds, sorted by token; the delta's
        // own rows of a table are those tokens in order.
        var byTable = new List<int>[MetadataTokens.TableCount];
        int last = 0;
        foreach (EntityHandle handle in reader.GetEditAndContinueMapEntries())
        {
            int token = MetadataTokens.GetToken(handle);
            if (token <= last)
                throw new BadImageFormatException("the EncMap is not sorted");
            last = token;
            if (!MetadataTokens.TryGetTableIndex(handle.Kind, out TableIndex table))
                throw new BadImageFormatException($"an EncMap entry of {handle.Kind}");
            (byTable[(int)table] ??= []).Add(MetadataTokens.GetRowNumber(handle));
        }
        for (int t = 0; t < MetadataTokens.TableCount; t++)
        {
            var table = (TableIndex)t;
            int local = reader.GetTableRowCount(table);
            int[] rows = byTable[t] is { } list ? [.. list] : [];
            if (table is TableIndex.EncLog or TableIndex.EncMap)
            {
                RowCounts[t] = 0;
                continue;
            }
            if (table == TableIndex.Module)
            {
                // The module's one row is in every delta (its generation ids), and in no EncMap.
                if (local != 1 || rows.Length > 1)
                    throw new BadImageFormatException($"a delta with {local} Module rows");
                _aggregateRows[t] = [1];
                RowCounts[t] = 1;
                continue;
            }
            if (rows.Length != local)
                throw new BadImageFormatException($"{table}: {local} rows but {rows.Length} EncMap entries");
            if (local > 0 && Array.IndexOf(Carried, table) < 0)
                throw new DeltaRefusedException(ReloadRefusalReason.RudeEdit,
                    $"the delta writes the {table} table, which a loaded module cannot take (restart to take it)");
            _aggregateRows[t] = rows;
            int before = view.RowCount(table);
            int expected = before;
            foreach (int row in rows)
            {
                if (row <= before)
                    continue;
                if (row != ++expected)
                    throw new BadImageFormatException($"{table} row {row} skips ahead of the {before} rows before it");
            }
            RowCounts[t] = expected;
        }

        foreach (int row in _aggregateRows[(int)TableIndex.MethodDef] ?? [])
        {
            MethodDefinitionHandle handle = MetadataTokens.MethodDefinitionHandle(row);
            if (row <= view.RowCount(TableIndex.MethodDef))
            {
                TryLocal(handle, out EntityHandle local);
                if (reader.GetMethodDefinition((MethodDefinitionHandle)local).RelativeVirtualAddress != 0)
                    UpdatedMethods.Add(handle);
                else
                    UpdatedRows.Add(handle);
            }
        }
        for (int t = 0; t < MetadataTokens.TableCount; t++)
        {
            var table = (TableIndex)t;
            if (table is TableIndex.Module or TableIndex.MethodDef or TableIndex.EncLog or TableIndex.EncMap)
                continue;
            foreach (int row in _aggregateRows[t] ?? [])
            {
                if (row <= view.RowCount(table))
                    UpdatedRows.Add(MetadataTokens.EntityHandle(table, row));
            }
        }
        foreach (int row in AddedRows(TableIndex.TypeDef, view.RowCount(TableIndex.TypeDef)))
            AddedTypes.Add(MetadataTokens.TypeDefinitionHandle(row));

        // EncLog: an Add* entry names the parent; the entry after it is the row added to it.
        EntityHandle? parent = null;
        EditAndContinueOperation pending = EditAndContinueOperation.Default;
        foreach (EditAndContinueLogEntry entry in reader.GetEditAndContinueLogEntries())
        {
            if (parent is { } p)
            {
                Additions.Add(new Addition(p, entry.Handle));
                parent = null;
                if (!Fits(pending, entry.Handle.Kind))
                    throw new BadImageFormatException($"an EncLog {pending} followed by a {entry.Handle.Kind}");
                continue;
            }
            if (entry.Operation == EditAndContinueOperation.Default)
                continue;
            parent = entry.Handle;
            pending = entry.Operation;
        }
        if (parent is not null)
            throw new BadImageFormatException($"the EncLog ends with an {pending} and no row after it");
    }

    private static bool Fits(EditAndContinueOperation operation, HandleKind added) => (operation, added) switch
    {
        (EditAndContinueOperation.AddMethod, HandleKind.MethodDefinition) => true,
        (EditAndContinueOperation.AddField, HandleKind.FieldDefinition) => true,
        (EditAndContinueOperation.AddParameter, HandleKind.Parameter) => true,
        (EditAndContinueOperation.AddProperty, HandleKind.PropertyDefinition) => true,
        (EditAndContinueOperation.AddEvent, HandleKind.EventDefinition) => true,
        _ => false,
    };
}

/// <summary>A delta, or a part of it, cannot be applied; nothing was changed.</summary>
internal sealed class DeltaRefusedException(ReloadRefusalReason reason, string message, string? member = null,
                                              Exception? inner = null)
    : Exception(message.StartsWith(reason + ": ", StringComparison.Ordinal) ? message : $"{reason}: {message}", inner)
{
    public ReloadRefusalReason Reason { get; } = reason;

    /// <summary>The member it is about, as people write it; null: the delta as a whole.</summary>
    public string? Member { get; } = member;
}
