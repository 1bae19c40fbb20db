namespace AlvorKit.Proofs.Reports;

/// <summary>The "sampling windows" mode (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled):
/// windows of known allocations of five proof-only types, with a sixth type allocated only
/// before each window opens and after it ends; a window with every stack and one with every
/// tenth; a window of large and pinned arrays.</summary>
public sealed record SampledWindowsReport(
    uint AllocationProfiling,
    string Profiling,
    IReadOnlyDictionary<string, long> ObjectSizes,
    IReadOnlyList<WorkloadSite> Sites,
    string OutsideType,
    ulong OutsideCountPerSide,
    IReadOnlyList<EstimatedWindow> Accuracy,
    EstimatedWindow Stacks,
    IReadOnlyList<Attribution> StackAttributions,
    EstimatedWindow EveryTenth,
    EstimatedWindow Heaps,
    HeapTruth HeapTruth,
    CaptureStateFigures StateAfter,
    long Ms);

/// <summary>Where the workload allocates a type: its method and the allocation statement's
/// line (CallerLineNumber).</summary>
public sealed record WorkloadSite(string Type, string Method, string File, int Line);

/// <summary>The large and pinned arrays a heaps window allocated, and their sizes as the GC
/// counted them (GC.GetAllocatedBytesForCurrentThread).</summary>
public sealed record HeapTruth(string LargeType, ulong LargeCount, long LargeSize, string PinnedType, ulong PinnedCount,
    long PinnedSize);

/// <summary>One window's AllocationReport in figures, with the truth of each type it was
/// meant to count.</summary>
public sealed record EstimatedWindow(
    string Label,
    string Mode,
    string Source,
    bool IsEstimate,
    bool OpenWhenBeginReturned,
    ulong SampledEvents,
    int SampleCount,
    ulong DroppedSamples,
    ulong TotalObjects,
    ulong TotalBytes,
    ulong LargeObjects,
    ulong LargeBytes,
    ulong PinnedObjects,
    ulong PinnedBytes,
    double? SamplingStartedMs,
    bool SessionStopPending,
    bool SessionRefused,
    bool ClosedBeforeSampling,
    int SessionHResult,
    uint StackEvery,
    long AllocatedBytes,
    ulong SampleWeightBytes,
    ulong TypeSamples,
    IReadOnlyList<EstimatedType> Types);

/// <summary>One type in a window: the truth (what the workload allocated, and the spread the
/// estimator has for it: sum p, sqrt(sum (1-p)/p) and sqrt(sum s^2 (1-p)/p) over the objects)
/// beside what the report says.</summary>
public sealed record EstimatedType(
    string Name,
    bool Present,
    ulong TruthCount,
    ulong TruthBytes,
    double ExpectedEvents,
    double CountSd,
    double BytesSd,
    ulong Count,
    ulong CountLow,
    ulong CountHigh,
    ulong Bytes,
    ulong BytesLow,
    ulong BytesHigh,
    ulong Samples,
    ulong ExactCount,
    ulong ExactBytes,
    bool IsEstimate,
    int Stacks,
    ulong StackWeightBytes,
    ulong MinStackWeight,
    ulong MaxStackWeight,
    ulong StackObjects);

/// <summary>AllocationCapture.GetState().</summary>
public sealed record CaptureStateFigures(
    string Phase,
    string Profiling,
    int SessionHResult,
    ulong SessionsStarted,
    ulong SessionsStopped,
    ulong StopHangs,
    ulong EventsInWindows,
    ulong EventsOutsideWindows,
    ulong WindowsOpened,
    ulong CurrentWindowEvents);

/// <summary>The "sampling cycles" mode: windows opened and closed in loops (plain Begin/End as
/// a game would, then Begin waiting for sampling), with the process's memory before and after
/// and what allocating outside any window delivered.</summary>
public sealed record SampledCyclesReport(
    int PlainWindows,
    int WaitingWindows,
    double PlainLoopMs,
    double WaitingLoopMs,
    double MaxPlainWindowMs,
    double MaxWaitingWindowMs,
    int WarmupClosedBeforeSampling,
    int PlainClosedBeforeSampling,
    int WaitingClosedBeforeSampling,
    int StopPending,
    int Refused,
    ulong PlainSampledEvents,
    ulong WaitingSampledEvents,
    long ManagedBefore,
    long ManagedAfter,
    long RssAnonBeforeKb,
    long RssAnonAfterKb,
    CaptureStateFigures StateBefore,
    CaptureStateFigures StateAfterCycles,
    CaptureStateFigures StateAfterOutside,
    long OutsideAllocatedBytes,
    int BeginsRefusedStopping);

/// <summary>The "sampling threads" mode: the process's first Begin timed on the calling
/// thread, then windows ended from another thread while several threads allocate.</summary>
public sealed record SampledThreadsReport(
    double FirstBeginMs,
    string FirstPhaseAtReturn,
    bool FirstWaited,
    double FirstWaitMs,
    int Threads,
    IReadOnlyList<CrossThreadEnd> Ends,
    long AllocatedBytes,
    CaptureStateFigures StateAfter,
    int BeginsRefusedStopping);

/// <summary>A window ended from a thread that neither opened it nor allocates.</summary>
public sealed record CrossThreadEnd(
    double EndMs,
    ulong SampledEvents,
    ulong EstimatedBytes,
    bool SessionStopPending,
    bool ClosedBeforeSampling,
    string? Error);

/// <summary>The "sampling exact" mode (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=exact): the
/// sampled workload at a small scale in a count-only and a sampled window.</summary>
public sealed record ExactProfilingReport(
    uint AllocationProfiling,
    string Profiling,
    bool IsEnabled,
    string StateProfiling,
    string PhaseAtBegin,
    bool WaitedAtOnce,
    double WaitMs,
    EstimatedWindow CountOnly,
    EstimatedWindow Sampled);

/// <summary>The "sampling flag" mode: a process started with a malformed
/// ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING.</summary>
public sealed record ProfilingFlagReport(
    uint Attached,
    string StartupStatus,
    uint AllocationProfiling,
    string Profiling,
    bool IsEnabled,
    string? BeginRefusal,
    string? BeginCall,
    string StateCall);
