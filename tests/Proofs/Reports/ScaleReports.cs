namespace AlvorKit.Proofs.Reports;

/// <summary>alvk_runtime_status's patch table: its bound, the slots allocated, the live patches.</summary>
public sealed record ScaleCounts(uint Capacity, uint SlotsAllocated, uint LivePatches);

/// <summary>"scale batch": 1,000 distinct targets installed in one InstallMany, all called
/// patched, then removed and all called original.</summary>
public sealed record ScaleBatchReport(
    int Count,
    string Outcome,
    double InstallMs,
    int PatchesReturned,
    int DistinctHandles,
    IReadOnlyDictionary<string, int> States,
    int PatchedWrong,
    IReadOnlyList<string> FirstPatchedWrong,
    ScaleCounts Active,
    string Removal,
    int OriginalWrong,
    IReadOnlyList<string> FirstOriginalWrong,
    IReadOnlyDictionary<string, int> EndedStates,
    ScaleCounts AfterRemoval);

/// <summary>A batch the managed API refused before anything reached the profiler.</summary>
public sealed record ManagedBatchRefusal(
    string Exception,
    string? Status,
    int Count,
    IReadOnlyList<int> RefusedIndexes,
    IReadOnlyList<string> ReasonTypes,
    string Message,
    ScaleCounts After,
    int ValuesChanged);

/// <summary>A raw batch the worker rejected whole: the call, the command's result, and each
/// patch's state and last status, the ReJIT callbacks they saw, and the targets after.</summary>
public sealed record WorkerBatchRefusal(
    string Call,
    string Command,
    IReadOnlyList<string> States,
    IReadOnlyList<string> LastStatuses,
    uint GetReJitParameters,
    ScaleCounts After,
    int ValuesChanged);

/// <summary>A raw batch refused at the call: its status, each request's status, the command
/// it took (0: none) and the table before and after.</summary>
public sealed record BatchBadInput(
    string Call,
    IReadOnlyList<string> Statuses,
    ulong LastCommand,
    ScaleCounts Before,
    ScaleCounts After);

/// <summary>"scale refused": batches with one bad request, refused whole.</summary>
public sealed record ScaleRefusedReport(
    ManagedBatchRefusal Mismatch,
    ManagedBatchRefusal Duplicate,
    WorkerBatchRefusal Worker,
    IReadOnlyDictionary<string, BatchBadInput> BadInputs,
    int ValuesChanged);

/// <summary>"scale bound": one install at a time on distinct targets up to `Attempted`: how
/// many succeeded, the first refusal, the table then, and after removing them all.</summary>
public sealed record ScaleBoundReport(
    ScaleCounts Before,
    int Attempted,
    int Succeeded,
    int FirstRefusedIndex,
    string FirstRefusal,
    ScaleCounts AtEnd,
    int PatchedWrong,
    string Removed,
    ScaleCounts AfterRemoval,
    int OriginalWrong);
