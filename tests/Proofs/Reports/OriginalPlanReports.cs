namespace AlvorKit.Proofs.Reports;

/// <summary>One FromOriginal plan applied through the managed API: the target's results before,
/// right after Apply and after Remove (each a few calls, joined), the generation's state after
/// the calls, the kinds of its relocations, the plan's listing, and what Apply threw, if it did.</summary>
public sealed record OriginalPlanStep(
    string Before,
    string After,
    string Removed,
    string State,
    IReadOnlyList<string> Relocations,
    string Listing,
    string? Threw);

/// <summary>ApplyMany over three targets: their results before, after the batch, after a batch
/// refused by the plans' own check and after one refused by the profiler's worker (each refusal:
/// the exception's status and every refused plan's index and reason), and after removal; then a
/// batch refused at the call by the profiler's validation of one plan's relocation (its status,
/// the refused plans, and that plan's reason's message).</summary>
public sealed record OriginalBatchReport(
    string Before,
    string Applied,
    string PlanRefusal,
    IReadOnlyList<string> PlanRefusals,
    string AfterPlanRefusal,
    string WorkerRefusal,
    IReadOnlyList<string> WorkerRefusals,
    string AfterWorkerRefusal,
    string Removed,
    string CallRefusal,
    IReadOnlyList<string> CallRefusals,
    string CallRefusalReason);

/// <summary>The "originalplans" mode: every FromOriginal step by name, whether the original
/// Guarded has a label on its first instruction (the loop back to offset 0), how many
/// instructions it has and its edited plan's IL map ("old->new"), whether the host's metadata
/// references the mod assembly before and after the mod's method was called through an
/// ASSEMBLY_REF relocation, a collectible mod's refusal, what FromOriginal and its edits refuse
/// ("Type: message" by case), and the ApplyMany batch.</summary>
public sealed record OriginalPlanReport(
    IReadOnlyDictionary<string, OriginalPlanStep> Steps,
    bool GuardedLoopsToStart,
    int GuardedInstructions,
    IReadOnlyList<string> GuardedILMap,
    bool ModReferencedBefore,
    bool ModReferencedAfter,
    string CollectibleRefusal,
    IReadOnlyDictionary<string, string> Refusals,
    OriginalBatchReport Batch);
