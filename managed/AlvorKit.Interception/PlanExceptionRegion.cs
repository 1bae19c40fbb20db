using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception;

/// <summary>The kind of a <see cref="PlanExceptionRegion"/> (ECMA-335 II.19).</summary>
public enum PlanRegionKind
{
    /// <summary>A typed catch handler.</summary>
    Catch,

    /// <summary>A filter (its filter block starts at <see cref="PlanExceptionRegion.FilterStart"/>)
    /// and its handler.</summary>
    Filter,

    /// <summary>A finally handler.</summary>
    Finally,

    /// <summary>A fault handler.</summary>
    Fault,
}

/// <summary>
/// One exception region of a plan, by labels: the try block runs from <see cref="TryStart"/> up
/// to (not including) <see cref="TryEnd"/>, the handler from <see cref="HandlerStart"/> up to
/// <see cref="HandlerEnd"/>. A <see cref="GenerationPlan.FromOriginal"/> plan carries the
/// original's regions this way, so they follow the instructions they enclose through every edit.
/// </summary>
public sealed class PlanExceptionRegion
{
    internal PlanExceptionRegion(PlanRegionKind kind, PlanLabel tryStart, PlanLabel tryEnd, PlanLabel handlerStart,
        PlanLabel handlerEnd, PlanLabel? filterStart, Type? catchType)
    {
        Kind = kind;
        TryStart = tryStart;
        TryEnd = tryEnd;
        HandlerStart = handlerStart;
        HandlerEnd = handlerEnd;
        FilterStart = filterStart;
        CatchType = catchType;
    }

    /// <summary>What kind of handler the region has.</summary>
    public PlanRegionKind Kind { get; }

    /// <summary>The first instruction of the try block.</summary>
    public PlanLabel TryStart { get; }

    /// <summary>The instruction after the try block.</summary>
    public PlanLabel TryEnd { get; }

    /// <summary>The first instruction of the handler.</summary>
    public PlanLabel HandlerStart { get; }

    /// <summary>The instruction after the handler.</summary>
    public PlanLabel HandlerEnd { get; }

    /// <summary>For <see cref="PlanRegionKind.Filter"/>: the first instruction of the filter block.</summary>
    public PlanLabel? FilterStart { get; }

    /// <summary>For <see cref="PlanRegionKind.Catch"/>: the exception type caught.</summary>
    public Type? CatchType { get; }

    /// <inheritdoc/>
    public override string ToString() => Kind switch
    {
        PlanRegionKind.Catch => $".try {TryStart}..{TryEnd} catch {Names.Of(CatchType)} {HandlerStart}..{HandlerEnd}",
        PlanRegionKind.Filter => $".try {TryStart}..{TryEnd} filter {FilterStart} handler {HandlerStart}..{HandlerEnd}",
        PlanRegionKind.Finally => $".try {TryStart}..{TryEnd} finally {HandlerStart}..{HandlerEnd}",
        _ => $".try {TryStart}..{TryEnd} fault {HandlerStart}..{HandlerEnd}",
    };
}
