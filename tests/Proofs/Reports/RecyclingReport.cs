namespace AlvorKit.Proofs.Reports;

/// <summary>T0..T7 each polled for its expected value: the polls, and whether all matched.</summary>
public sealed record TargetValues(IReadOnlyList<Polled<int>> Polls, bool AllExpected);

/// <summary>Phase 1 of "recycling": eight targets patched together ("sync/wait" per index),
/// then removed in reverse order.</summary>
public sealed record RecyclingPhase1(
    IReadOnlyList<string> Installs,
    TargetValues PatchedValues,
    int DistinctHandles,
    IReadOnlyList<string> Removes,
    TargetValues OriginalValues);

/// <summary>Phase 2: one install and removal per remaining slot; the refused ones by index.</summary>
public sealed record RecyclingPhase2(
    int Cycles,
    IReadOnlyDictionary<string, string> Refusals,
    int DistinctHandles,
    IReadOnlyDictionary<string, int> EndedStates,
    int CycledValue);

/// <summary>One install that recycled an ended patch's slot, and its stale handle's calls.</summary>
public sealed record Recycle(
    string Install,
    string Wait,
    Polled<int> NewValue,
    bool NewHandleDiffersFromStale,
    bool NewHandleWasNeverIssued,
    int GoneCount,
    bool GoneIsOldest,
    int GoneIndex,
    IReadOnlyDictionary<string, string> StaleCalls,
    bool NewUnchanged,
    TelemetryReport NewTelemetry,
    int NewValueAfter,
    string NewGeneration);

/// <summary>The "recycling" mode: the patch table full of ended patches, recycled oldest first.</summary>
public sealed record RecyclingReport(
    RecyclingPhase1 Phase1,
    RecyclingPhase2 Phase2,
    IReadOnlyList<Recycle> Recycles,
    bool OthersStillAnswer,
    int OthersCount,
    IReadOnlyDictionary<string, string> Removals,
    TargetValues FinalValues,
    Polled<int> FinalCycled);
