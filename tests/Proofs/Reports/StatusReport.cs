namespace AlvorKit.Proofs.Reports;

/// <summary>The "status" mode: the profiler files mapped into the process, and either the
/// opened library with its runtime status, or why it could not be opened.</summary>
public sealed record StatusReport(
    IReadOnlyList<string> ProfilerMappings,
    string? Library,
    uint? AbiVersion,
    uint? AbiMajor,
    string? StatusCall,
    RuntimeStatusReport? Status,
    string? Error,
    string? Message);

/// <summary>alvk_get_runtime_status.</summary>
public sealed record RuntimeStatusReport(
    uint Attached,
    string StartupStatus,
    string StartupStatusText,
    uint ProfilerInfoVersion,
    uint EventMaskLow,
    uint EventMaskHigh,
    uint RuntimeType,
    string RuntimeVersion,
    string RuntimeVersionString,
    string AllowlistKind,
    uint AllowlistCount,
    string Allowlist,
    uint AllocationProfiling,
    uint WorkerAlive,
    int WorkerInitHResult,
    uint QueueCapacity,
    uint QueueDepth,
    ulong CommandsCompleted);

/// <summary>The "submitstorm" mode: generation submits as fast as the queue takes them.</summary>
public sealed record SubmitStormReport(
    int Threads,
    int SubmitsPerThread,
    long Ms,
    IReadOnlyDictionary<string, long> Statuses,
    int DuplicateIds,
    bool Originals);
