namespace AlvorKit.Proofs.Reports;

/// <summary>The "mixedstress" mode: mixed commands from many threads on many targets while
/// two threads call them. Kinds holds, per command kind, how often each outcome happened
/// ("calls", "accepted", "refused.QueueFull", ...); "reads" holds the read-only calls.</summary>
public sealed record MixedStressReport(
    int Threads,
    int CommandsPerThread,
    int Targets,
    double CommandsMs,
    double CleanupMs,
    IReadOnlyDictionary<string, IReadOnlyDictionary<string, long>> Kinds,
    IReadOnlyDictionary<string, int> Cleanup,
    long WorkerCommandsAccepted,
    ulong CompletedBefore,
    ulong CompletedAfter,
    ulong CompletedDelta,
    GenerationIdCounts GenerationIds,
    WaitChecks WaitChecks,
    CaptureCounts Captures,
    HandleChecks Handles,
    CallerCounts Callers,
    bool AllOriginalAtEnd,
    IReadOnlyDictionary<string, Polled<int>> NotOriginal,
    uint QueueDepth,
    uint QueueCapacity);

/// <summary>Generation IDs before and after the run, and what took them.</summary>
public sealed record GenerationIdCounts(
    ulong Before,
    ulong After,
    ulong Consumed,
    long AcceptedIdBearing,
    long RefusedAfterIdTaken,
    long DuplicatesReturned);

/// <summary>Waits after submits, against each generation's own record.</summary>
public sealed record WaitChecks(long WaitedSubmits, long Matched, long Mismatched, long Unverifiable, IReadOnlyList<string> Samples);

/// <summary>Capture windows opened and how their ends went.</summary>
public sealed record CaptureCounts(
    long WindowsOpened,
    long EndsAccepted,
    long EndsQueueFull,
    long EndsNotActiveAfterQueueFull,
    long EndsOther);

/// <summary>Per handle: its commands_completed against the commands accepted on it.</summary>
public sealed record HandleChecks(int Issued, int Checked, int Recycled, int Pending, IReadOnlyList<string> Mismatches);

/// <summary>What the calling threads saw.</summary>
public sealed record CallerCounts(
    long Calls,
    long Original,
    long ReplacementA,
    long ReplacementB,
    long Generation,
    long Violations,
    IReadOnlyList<string> FirstViolations);
