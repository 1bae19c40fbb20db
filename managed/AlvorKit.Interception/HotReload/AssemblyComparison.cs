namespace AlvorKit.Interception.HotReload;

/// <summary>Why two files were not compared.</summary>
public enum ComparisonRefusal
{
    /// <summary>They were compared.</summary>
    None,

    /// <summary>The rebuilt assembly's name is not the loaded one's: it is not a rebuild of it.</summary>
    AssemblyNameDiffers,

    /// <summary>A file is not a .NET assembly (no CLI metadata, no assembly definition, or not a
    /// readable PE image).</summary>
    NotAnAssembly,
}

/// <summary>What changed in a member, or between a member and its absence.</summary>
public enum EditKind
{
    /// <summary>A type of the rebuild has no counterpart in the loaded assembly.</summary>
    TypeAdded,

    /// <summary>A type of the loaded assembly has no counterpart in the rebuild.</summary>
    TypeRemoved,

    /// <summary>A type became another kind (class, struct, enum, interface, delegate).</summary>
    TypeKindChanged,

    /// <summary>A type's base type changed.</summary>
    BaseTypeChanged,

    /// <summary>A type's attributes (visibility, sealed, abstract, layout, ...) changed.</summary>
    TypeAttributesChanged,

    /// <summary>The interfaces a type implements changed.</summary>
    InterfacesChanged,

    /// <summary>A method of the rebuild has no counterpart by name in its type.</summary>
    MethodAdded,

    /// <summary>A method of the loaded assembly has no counterpart by name in its type.</summary>
    MethodRemoved,

    /// <summary>A method's name is still there but with another signature.</summary>
    SignatureChanged,

    /// <summary>A method's attributes or implementation flags (static, virtual, visibility,
    /// inlining, ...) changed.</summary>
    MethodAttributesChanged,

    /// <summary>A field of the rebuild has no counterpart by name in its type.</summary>
    FieldAdded,

    /// <summary>A field of the loaded assembly has no counterpart by name in its type.</summary>
    FieldRemoved,

    /// <summary>A field's type changed.</summary>
    FieldTypeChanged,

    /// <summary>A field's attributes (static, readonly, visibility, ...) changed.</summary>
    FieldAttributesChanged,

    /// <summary>A compiler-generated method's body changed (only in
    /// <see cref="AssemblyComparison.GeneratedChanges"/>; an ordinary method's body change is in
    /// <see cref="AssemblyComparison.Methods"/>).</summary>
    BodyChanged,
}

/// <summary>One change to the metadata of a type, method or field.</summary>
/// <param name="Kind">What changed.</param>
/// <param name="Member">The member, as people write it: "Game.Logic.Player.health2",
/// "Game.Logic.Player.Score(int)", "Game.Logic.Player+&lt;&gt;c".</param>
/// <param name="IsGenerated">True for a compiler-generated member (its name, or its declaring
/// type's, has a '&lt;': lambdas and their closure classes, async and iterator state machines).</param>
/// <param name="Detail">More about the change (the new signature, the old and new type), if any.</param>
public sealed record MemberEdit(EditKind Kind, string Member, bool IsGenerated, string? Detail = null)
{
    /// <summary>"Kind: Member", with the detail in parentheses when there is one.</summary>
    public string Message => Detail is null ? $"{Kind}: {Member}" : $"{Kind}: {Member} ({Detail})";

    /// <inheritdoc/>
    public override string ToString() => Message;
}

/// <summary>A method found in both builds (same type, name and signature) and whether its body
/// changed.</summary>
/// <param name="Member">The method, as people write it: "Game.Logic.Player.Score(int)".</param>
/// <param name="IsGenerated">True for a compiler-generated method (a lambda, a state machine's
/// MoveNext, a member of a closure class).</param>
/// <param name="BodyChanged">True when the bodies differ in what they do: IL, what its tokens refer
/// to, string literals, locals, max stack or exception clauses. Token numbering alone is no
/// change.</param>
/// <param name="Difference">The first difference found, when the body changed ("IL_0004: ldc.i4.2 →
/// ldc.i4.3").</param>
/// <param name="LoadedToken">The MethodDef token in the loaded assembly.</param>
/// <param name="RebuiltToken">The MethodDef token in the rebuild.</param>
public sealed record MethodComparison(string Member, bool IsGenerated, bool BodyChanged, string? Difference,
                                      int LoadedToken, int RebuiltToken)
{
    /// <inheritdoc/>
    public override string ToString() => BodyChanged ? $"{Member}: changed, {Difference}" : $"{Member}: unchanged";
}

/// <summary>
/// What a rebuilt assembly changes against the assembly loaded from a file: every method in both
/// with whether its body changed, the rude edits (changes to metadata a body replacement cannot
/// carry), and the changes to compiler-generated members, reported apart.
/// </summary>
public sealed class AssemblyComparison
{
    internal AssemblyComparison(string assemblyName, ComparisonRefusal refusal, string? refusalMessage,
                                IReadOnlyList<MethodComparison> methods, IReadOnlyList<MemberEdit> edits)
    {
        AssemblyName = assemblyName;
        Refusal = refusal;
        RefusalMessage = refusalMessage;
        Methods = methods;
        RudeEdits = edits.Where(e => !e.IsGenerated).ToArray();
        GeneratedChanges = edits.Where(e => e.IsGenerated).ToArray();
    }

    /// <summary>The loaded assembly's name.</summary>
    public string AssemblyName { get; }

    /// <summary>Why the files were not compared, or <see cref="ComparisonRefusal.None"/>.</summary>
    public ComparisonRefusal Refusal { get; }

    /// <summary>The refusal for people ("the rebuild is Other, not Game"), or null.</summary>
    public string? RefusalMessage { get; }

    /// <summary>True when the files were compared.</summary>
    public bool IsCompared => Refusal == ComparisonRefusal.None;

    /// <summary>Every method in both builds, in the loaded assembly's order; empty when refused.</summary>
    public IReadOnlyList<MethodComparison> Methods { get; }

    /// <summary>The methods whose bodies changed, ordinary and compiler-generated.</summary>
    public IEnumerable<MethodComparison> ChangedMethods => Methods.Where(m => m.BodyChanged);

    /// <summary>Changes to ordinary (not compiler-generated) types, methods and fields that a body
    /// replacement cannot carry.</summary>
    public IReadOnlyList<MemberEdit> RudeEdits { get; }

    /// <summary>Changes to compiler-generated members: added, removed, reshaped, or a generated
    /// method's body changed (<see cref="EditKind.BodyChanged"/>).</summary>
    public IReadOnlyList<MemberEdit> GeneratedChanges { get; }
}
