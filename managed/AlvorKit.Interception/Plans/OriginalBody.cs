using System.Reflection;
using System.Reflection.Emit;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// What a <see cref="GenerationPlan.FromOriginal"/> plan holds of its target's original body,
/// and its edits: the instruction list, the exception regions (the original's, then added
/// ones), the labels marked after the last instruction, the original's locals signature and
/// max stack, and how to resolve the original's tokens.
/// </summary>
internal sealed class OriginalBody(OriginalBodyReader reader)
{
    public OriginalBodyReader Reader { get; } = reader;

    public List<BodyInstruction> Instructions { get; } = [];

    public List<PlanExceptionRegion> Regions { get; } = [];

    /// <summary>Labels placed after the last instruction: an original region that ends with the
    /// body, and labels marked since the last instruction was emitted. The next Emit places
    /// them at its instruction; left pending, they are placed at the end of the body.</summary>
    public List<PlanLabel> Pending { get; } = [];

    /// <summary>How many locals the original has (its PlanLocals come first, same indices).</summary>
    public int LocalCount { get; init; }

    /// <summary>The original's StandAloneSig of its locals (0: none).</summary>
    public int LocalSignatureToken { get; init; }

    /// <summary>The original locals signature's entries (after its header and count), as is.</summary>
    public byte[] LocalEntries { get; init; } = [];

    public int MaxStack { get; init; }

    /// <summary>The original header's CorILMethod_InitLocals flag (false: [SkipLocalsInit]).</summary>
    public bool InitLocals { get; init; }

    public bool HasJmp => Instructions.Any(i => i.OpCode == OpCodes.Jmp);
}

/// <summary>A local of the original body (its reflection type, pinned or not).</summary>
internal sealed record OriginalLocal(Type Type, bool Pinned);

/// <summary>The generic context the original's tokens resolve in.</summary>
internal readonly record struct GenericContext(Type[]? TypeArguments, Type[]? MethodArguments)
{
    public static GenericContext Of(MethodBase target) => new(
        target.DeclaringType is { IsGenericType: true } d ? d.GetGenericArguments() : null,
        target.IsGenericMethod ? target.GetGenericArguments() : null);
}
