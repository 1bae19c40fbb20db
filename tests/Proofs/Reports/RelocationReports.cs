namespace AlvorKit.Proofs.Reports;

/// <summary>The relocation proof (RelocationProof): a hook with __args on a 33-parameter
/// method, a plan with 1,000 distinct relocations, one relocation filling three operands
/// through the raw C ABI, and the relocation bound for plans and raw generations; or why the
/// interceptor could not run it (Unavailable).</summary>
public sealed record RelocationReport(
    string? Unavailable,
    ManyArgumentsReport? ManyArguments,
    ThousandReport? Thousand,
    GenerationStep<int>? SharedSites,
    RemoveStep<int>? SharedSitesRemoved,
    RelocationBoundReport? Bound);

/// <summary>(a) ThirtyThree through CallThirtyThree before, hooked (polled for the value the
/// prefix's __args make) and after removal; the woven generation's relocation count and
/// state; what the hook threw, if it did.</summary>
public sealed record ManyArgumentsReport(
    long Before,
    Polled<long>? Hooked,
    int WovenRelocations,
    string? WovenState,
    Polled<long>? Removed,
    int PatchesLeft,
    string? Threw);

/// <summary>(b) A plan loading 1,000 distinct strings and summing their lengths: the plan's
/// relocation count, the value polled for, the generation's state, its relocation results
/// (how many, how many distinct user-string tokens), and the original after removal.</summary>
public sealed record ThousandReport(
    int Original,
    int PlanRelocations,
    Polled<int>? Applied,
    string? State,
    int ResultRelocations,
    int DistinctUserStrings,
    Polled<int>? Removed,
    string? Threw);

/// <summary>(c) The bound: a plan refused at its relocation past ALVK_MAX_RELOCATIONS (the
/// exception, the plan's count when it was refused, how many strings it took); a raw
/// generation with exactly the bound validated, one past it submitted; the target's value
/// after each refusal.</summary>
public sealed record RelocationBoundReport(
    int MaxRelocations,
    string? PlanThrew,
    string? PlanMessage,
    int PlanRelocationsWhenRefused,
    int StringsEmitted,
    int PlanTargetAfter,
    string RawAtBoundValidate,
    string RawPastBoundSubmit,
    bool RawPastBoundHandleZero,
    int RawTargetAfter);
