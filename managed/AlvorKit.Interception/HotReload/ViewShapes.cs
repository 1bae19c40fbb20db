using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>A generic parameter of a type or method: its position, name, flags and the
/// constraint types (aggregate handles of the view).</summary>
internal sealed record GenericParam(int Index, string Name, GenericParameterAttributes Attributes,
                                    IReadOnlyList<EntityHandle> Constraints);

/// <summary>
/// The shape of the view's types and members, the same questions for a type the runtime loaded
/// and for one a delta added: the type a type is nested in, its generic parameters, whether it
/// is a value type or an interface, its layout and interfaces, and the members a delta added to
/// it. A delta's nesting, layout and interface rows are found by scanning the delta that added
/// the type (SRM's own lookups compare the delta's row numbers with aggregate ones).
/// </summary>
internal sealed class ViewShapes(MetadataView view)
{
    // Column widths of a minimal delta's rows (ECMA-335 II.22; every index 4 bytes).
    private static readonly int[] NestedClassColumns = [4, 4];
    private static readonly int[] ClassLayoutColumns = [2, 4, 4];
    private static readonly int[] FieldLayoutColumns = [4, 4];
    private static readonly int[] InterfaceImplColumns = [4, 4];

    public MetadataView View => view;

    /// <summary>The delta being read, not applied yet (its rows are newest); null between reloads.</summary>
    public DeltaGeneration? Pending { get; set; }

    /// <summary>The delta that added a row (the pending one included), or null for a row the
    /// runtime loaded.</summary>
    public DeltaGeneration? AddedBy(EntityHandle handle)
    {
        if (view.IsBaseline(handle))
            return null;
        TableIndex table = TableOf(handle);
        if (MetadataTokens.GetRowNumber(handle) <= view.RowCount(table))
            return view.AddedIn(handle);
        if (Pending is not null && MetadataTokens.GetRowNumber(handle) <= Pending.RowCounts[(int)table])
            return Pending;
        throw new BadImageFormatException($"{handle.Kind} 0x{MetadataTokens.GetToken(handle):X8} was added by no delta");
    }

    private static TableIndex TableOf(EntityHandle handle) =>
        MetadataTokens.TryGetTableIndex(handle.Kind, out TableIndex table)
            ? table
            : throw new BadImageFormatException($"a {handle.Kind} where a table row was expected");

    public TypeDefinition Type(TypeDefinitionHandle type) => view.TypeDef(type, Pending);

    public string Name(TypeDefinitionHandle type) => view.String(Type(type).Name, Pending);

    public string Namespace(TypeDefinitionHandle type) => view.String(Type(type).Namespace, Pending);

    /// <summary>The type <paramref name="type"/> is nested in, or nil.</summary>
    public TypeDefinitionHandle Enclosing(TypeDefinitionHandle type)
    {
        if (AddedBy(type) is not { } delta)
            return view.Baseline.GetTypeDefinition(type).GetDeclaringType();
        int rows = delta.Reader.GetTableRowCount(TableIndex.NestedClass);
        for (int row = 1; row <= rows; row++)
        {
            if (delta.Column(TableIndex.NestedClass, row, 0, NestedClassColumns) == MetadataTokens.GetRowNumber(type))
                return MetadataTokens.TypeDefinitionHandle((int)delta.Column(TableIndex.NestedClass, row, 1, NestedClassColumns));
        }
        return default;
    }

    /// <summary>"Namespace.Outer+Inner", as reflection writes a type's full name.</summary>
    public string FullName(TypeDefinitionHandle type)
    {
        TypeDefinitionHandle enclosing = Enclosing(type);
        if (!enclosing.IsNil)
            return FullName(enclosing) + "+" + Name(type);
        string ns = Namespace(type);
        return ns.Length == 0 ? Name(type) : ns + "." + Name(type);
    }

    /// <summary>"World.Update", without arity suffixes: how people name a type in messages.</summary>
    public string DisplayName(TypeDefinitionHandle type)
    {
        string name = Name(type);
        int tick = name.IndexOf('`', StringComparison.Ordinal);
        if (tick > 0)
            name = name[..tick];
        TypeDefinitionHandle enclosing = Enclosing(type);
        if (!enclosing.IsNil)
            return DisplayName(enclosing) + "." + name;
        string ns = Namespace(type);
        return ns.Length == 0 ? name : ns + "." + name;
    }

    /// <summary>The generic parameters of a type or method definition, in order.</summary>
    public IReadOnlyList<GenericParam> GenericParams(EntityHandle owner)
    {
        var result = new List<GenericParam>();
        if (AddedBy(owner) is not { } delta)
        {
            MetadataReader reader = view.Baseline;
            GenericParameterHandleCollection handles = owner.Kind == HandleKind.TypeDefinition
                ? reader.GetTypeDefinition((TypeDefinitionHandle)owner).GetGenericParameters()
                : reader.GetMethodDefinition((MethodDefinitionHandle)owner).GetGenericParameters();
            foreach (GenericParameterHandle handle in handles)
            {
                GenericParameter p = reader.GetGenericParameter(handle);
                result.Add(new GenericParam(p.Index, reader.GetString(p.Name), p.Attributes,
                    [.. p.GetConstraints().Select(c => reader.GetGenericParameterConstraint(c).Type)]));
            }
            return result;
        }
        MetadataReader own = delta.Reader;
        int rows = own.GetTableRowCount(TableIndex.GenericParam);
        for (int row = 1; row <= rows; row++)
        {
            GenericParameter p = own.GetGenericParameter(MetadataTokens.GenericParameterHandle(row));
            if (p.Parent != owner)
                continue;
            EntityHandle aggregate = delta.Aggregate(MetadataTokens.GenericParameterHandle(row));
            var constraints = new List<EntityHandle>();
            int constraintRows = own.GetTableRowCount(TableIndex.GenericParamConstraint);
            for (int c = 1; c <= constraintRows; c++)
            {
                GenericParameterConstraint constraint =
                    own.GetGenericParameterConstraint(MetadataTokens.GenericParameterConstraintHandle(c));
                if (constraint.Parameter == aggregate)
                    constraints.Add(constraint.Type);
            }
            result.Add(new GenericParam(p.Index, view.String(p.Name, Pending), p.Attributes, constraints));
        }
        result.Sort((a, b) => a.Index.CompareTo(b.Index));
        return result;
    }

    /// <summary>Whether a type definition derives from System.ValueType or System.Enum.</summary>
    public bool IsValueType(TypeDefinitionHandle type)
    {
        EntityHandle baseType = Type(type).BaseType;
        if (baseType.IsNil)
            return false;
        (string ns, string name) = baseType.Kind switch
        {
            HandleKind.TypeReference => (view.String(view.TypeRef((TypeReferenceHandle)baseType, Pending).Namespace, Pending),
                                         view.String(view.TypeRef((TypeReferenceHandle)baseType, Pending).Name, Pending)),
            HandleKind.TypeDefinition => (Namespace((TypeDefinitionHandle)baseType), Name((TypeDefinitionHandle)baseType)),
            _ => ("", ""),
        };
        return ns == "System" && name is "ValueType" or "Enum";
    }

    public bool IsInterface(TypeDefinitionHandle type) =>
        (Type(type).Attributes & TypeAttributes.ClassSemanticsMask) == TypeAttributes.Interface;

    /// <summary>An added type's packing and size (ClassLayout), if it has one.</summary>
    public (ushort Packing, uint Size)? Layout(TypeDefinitionHandle type)
    {
        if (AddedBy(type) is not { } delta)
        {
            TypeLayout layout = view.Baseline.GetTypeDefinition(type).GetLayout();
            return layout.IsDefault ? null : ((ushort)layout.PackingSize, (uint)layout.Size);
        }
        int rows = delta.Reader.GetTableRowCount(TableIndex.ClassLayout);
        for (int row = 1; row <= rows; row++)
        {
            if (delta.Column(TableIndex.ClassLayout, row, 2, ClassLayoutColumns) == MetadataTokens.GetRowNumber(type))
                return ((ushort)delta.Column(TableIndex.ClassLayout, row, 0, ClassLayoutColumns),
                        delta.Column(TableIndex.ClassLayout, row, 1, ClassLayoutColumns));
        }
        return null;
    }

    /// <summary>An added field's explicit offset (FieldLayout), if it has one.</summary>
    public int? FieldOffset(FieldDefinitionHandle field)
    {
        if (AddedBy(field) is not { } delta)
        {
            int offset = view.Baseline.GetFieldDefinition(field).GetOffset();
            return offset < 0 ? null : offset;
        }
        int rows = delta.Reader.GetTableRowCount(TableIndex.FieldLayout);
        for (int row = 1; row <= rows; row++)
        {
            if (delta.Column(TableIndex.FieldLayout, row, 1, FieldLayoutColumns) == MetadataTokens.GetRowNumber(field))
                return (int)delta.Column(TableIndex.FieldLayout, row, 0, FieldLayoutColumns);
        }
        return null;
    }

    /// <summary>The interfaces an added type declares (aggregate TypeDefOrRefOrSpec handles).</summary>
    public IReadOnlyList<EntityHandle> Interfaces(TypeDefinitionHandle type)
    {
        if (AddedBy(type) is not { } delta)
            return [.. view.Baseline.GetTypeDefinition(type).GetInterfaceImplementations()
                .Select(i => view.Baseline.GetInterfaceImplementation(i).Interface)];
        var result = new List<EntityHandle>();
        int rows = delta.Reader.GetTableRowCount(TableIndex.InterfaceImpl);
        for (int row = 1; row <= rows; row++)
        {
            if (delta.Column(TableIndex.InterfaceImpl, row, 0, InterfaceImplColumns) != MetadataTokens.GetRowNumber(type))
                continue;
            uint coded = delta.Column(TableIndex.InterfaceImpl, row, 1, InterfaceImplColumns);
            result.Add(DecodeTypeDefOrRef(coded));
        }
        return result;
    }

    /// <summary>The members and parameters the pending delta adds to <paramref name="parent"/>.</summary>
    public IEnumerable<EntityHandle> AddedTo(EntityHandle parent, HandleKind kind) =>
        (Pending?.Additions ?? []).Where(a => a.Parent == parent && a.Member.Kind == kind).Select(a => a.Member);

    private static EntityHandle DecodeTypeDefOrRef(uint coded)
    {
        int row = (int)(coded >> 2);
        return (coded & 3) switch
        {
            0 => MetadataTokens.TypeDefinitionHandle(row),
            1 => MetadataTokens.TypeReferenceHandle(row),
            2 => MetadataTokens.TypeSpecificationHandle(row),
            _ => throw new BadImageFormatException("a TypeDefOrRef coded index with tag 3"),
        };
    }
}
