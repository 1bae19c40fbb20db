namespace AlvorKit.Proofs.Reports;

/// <summary>The "apiconcurrency" mode: the managed API's commands from several threads and
/// without blocking. Every Polled is what a patched method returned against what it should.</summary>
public sealed record ApiConcurrencyReport(
    TwoThreadsReport TwoThreads,
    HeldGateReport HeldGate,
    AsyncCommandsReport Async,
    CancelReport Cancel,
    ApiStatusReport Status,
    ApiQueueFullReport QueueFull);

/// <summary>Two threads installing and removing on two targets (each side null if they did not
/// finish in time).</summary>
public sealed record TwoThreadsReport(bool Completed, ThreadRounds? Left, ThreadRounds? Right);

/// <summary>One thread's rounds: how many showed the patched and the original value.</summary>
public sealed record ThreadRounds(int Rounds, int PatchedValues, int OriginalValues, IReadOnlyList<string> Failures, int Final);

/// <summary>An install on Free while Held's gate is taken, then Held's once it is free.</summary>
public sealed record HeldGateReport(
    bool FreeCompletedWhileHeld,
    Polled<int> FreeValue,
    bool HeldCompletedWhileHeld,
    int HeldValueWhileHeld,
    bool HeldCompletedAfterRelease,
    Polled<int> HeldValue,
    int OwnerPatches,
    Polled<int> HeldAfterDispose,
    Polled<int> FreeAfterDispose);

/// <summary>InstallAsync, RemoveAsync, ReplaceAsync, ApplyAsync and DisposeAsync.</summary>
public sealed record AsyncCommandsReport(
    double ReturnedMs,
    bool IncompleteWhenReturned,
    int ValueBeforeCompletion,
    bool Installed,
    Polled<int> InstalledValue,
    string InstalledState,
    bool RemovedInstalled,
    Polled<int> RemovedValue,
    string RemovedState,
    Polled<int> SwappedFirst,
    Polled<int> SwappedSecond,
    Polled<int> SwappedRemoved,
    Polled<int> PlannedValue,
    string? PlannedGeneration,
    Polled<int> PlannedRemoved,
    Polled<int> ScopedValue,
    int ScopedDisposedPatches,
    Polled<int> ScopedDisposedValue,
    string Misfit);

/// <summary>A token fired before the command was queued, and after.</summary>
public sealed record CancelReport(
    string BeforeQueued,
    int BeforeQueuedValue,
    int BeforeQueuedOwnerPatches,
    bool AfterQueuedCompletedBeforeCancel,
    string AfterQueued,
    int AfterQueuedAttempts,
    Polled<int> AfterQueuedValue,
    IReadOnlyList<string> AfterQueuedOwnerPatches,
    Polled<int> AfterDisposeValue);

/// <summary>Statuses in caught exceptions, ExpectedReplacementSignature and ReadStatus.</summary>
public sealed record ApiStatusReport(
    string NotAllowed,
    string? NotAllowedType,
    string? NotAllowedName,
    string? NotAllowedMessage,
    string NotAllowedAsync,
    string Mismatch,
    bool? MismatchHasStatus,
    string ExpectedSignature,
    IReadOnlyList<string> ExpectedParameters,
    string ExpectedReturn,
    bool MatchedByLeftPatched,
    bool MatchedByMisfit,
    string InstanceSignature,
    string PatchingStatus,
    ReadStatusReport ReadStatus);

/// <summary>Interceptor.ReadStatus before an install and a remove, and the commands after.</summary>
public sealed record ReadStatusReport(
    string StartupStatus,
    bool PatchingEnabled,
    string PatchableModules,
    bool AllocationProfiling,
    bool WorkerAlive,
    int QueueCapacity,
    ulong CommandsBefore,
    ulong CommandsAfter);

/// <summary>An Install into a full queue, caught by its status (null when no round caught it).</summary>
public sealed record ApiQueueFullReport(
    string? ExceptionType,
    string? Message,
    string? Caught,
    int Rounds,
    int ValueAfterRefusal,
    int OwnerPatchesAfterRefusal,
    Polled<int> ValueAfterDrain,
    Polled<int> ValueAfterRemove);
