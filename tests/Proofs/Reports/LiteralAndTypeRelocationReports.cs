namespace AlvorKit.Proofs.Reports;

/// <summary>One plan with literal or type relocations applied through the managed API: what the target returned before,
/// the plan's listing, the first calls after Apply (polled for the expected value), the
/// generation's relocations, and the target after Remove. Threw: what Apply threw, if it did.</summary>
public sealed record LiteralTypePlanStep(
    string Original,
    string Listing,
    Polled<string>? Patched,
    ApiGeneration? Generation,
    int RelocationCount,
    Polled<string>? Removed,
    string? Threw);

/// <summary>The catch plan: the call that throws the new exception type (caught), the call that
/// throws another type (not caught: its exception reaches the caller), before and after.</summary>
public sealed record LiteralTypeCatchStep(LiteralTypePlanStep Plan, string OtherOriginal, string OtherPatched);

/// <summary>A generation with a bad class reference submitted through the C ABI: the dry run's
/// status and failing index, the submission's status, whether it made a patch handle.</summary>
public sealed record LiteralTypeRefusal(string DryRun, uint FailingIndex, string Sync, ulong Generation);

/// <summary>The refusals, submitted while a first generation is active: each refused, the
/// control (the same reference to an earlier TypeRef) accepted by the dry run, the target still
/// running the first generation, which stays Active, then removal.</summary>
public sealed record LiteralTypeRefusalReport(
    int Original,
    GenerationStep<int> First,
    IReadOnlyDictionary<string, LiteralTypeRefusal> Refusals,
    string ControlDryRun,
    IReadOnlyList<int> CallsAfter,
    GenerationResultReport FirstAfter,
    TelemetryReport TelemetryBefore,
    TelemetryReport TelemetryAfter,
    RemoveStep<int> Remove);

/// <summary>The "literaltyperelocations" mode: a brand-new string literal, a generic framework method
/// instantiated over a type the module never referenced, a catch of an exception type new to the
/// module, and refused class references.</summary>
public sealed record LiteralTypeReport(
    LiteralTypePlanStep Literal,
    LiteralTypePlanStep Instantiation,
    LiteralTypeCatchStep Catch,
    LiteralTypeRefusalReport Refusal);
