namespace AlvorKit.Proofs.Reports;

/// <summary>The "lifecycle" mode: install A on a hot method, replace it with B, remove it.</summary>
public sealed record LifecycleReport(
    int WarmSum,
    int Original,
    bool HandleNonZero,
    PatchStep Install,
    bool ReplacementIsA,
    PatchStep Replace,
    bool ReplacementIsB,
    PatchStep Remove,
    string WaitAfterRemoved);

/// <summary>The "inlining" mode: patch a method a tier-1 caller inlined, then remove it.</summary>
public sealed record InliningReport(
    bool Fallback,
    long WarmSum,
    long WarmMs,
    int Original,
    PatchStep Install,
    PatchStep Remove);

/// <summary>What one call of a dispatch shape's target showed: its result, and the location a
/// ref/out/receiver write should reach (null when the shape writes none).</summary>
public readonly record struct Observation(string Result, string? WriteBack = null);

/// <summary>One shape of the "dispatch" mode: installed, called, removed.</summary>
public sealed record DispatchShapeReport(
    Observation Original,
    bool OriginalOk,
    CommandOutcome Install,
    Polled<Observation> PatchedPoll,
    Observation Patched,
    string? Received,
    bool PatchedOk,
    bool ArgumentsExact,
    bool? WriteBackOk,
    PatchTelemetry Telemetry,
    CommandOutcome Remove,
    Polled<Observation> RestoredPoll,
    Observation Restored,
    bool RestoredOk,
    string FinalState);

/// <summary>The "dispatch" mode: every shape by name.</summary>
public sealed record DispatchReport(IReadOnlyDictionary<string, DispatchShapeReport> Shapes);

/// <summary>The "stress" mode: install/replace/remove cycles on four threads while a caller runs.</summary>
public sealed record StressReport(
    int Cycles,
    long PatchMs,
    long Calls,
    long Violations,
    long SeenOriginal,
    long SeenA,
    long SeenB,
    IReadOnlyDictionary<string, int> SyncStatuses,
    IReadOnlyDictionary<string, int> WaitStatuses,
    int Handles,
    IReadOnlyDictionary<string, int> FinalStates,
    Polled<int> Final,
    uint QueueDepth);
