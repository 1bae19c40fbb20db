namespace AlvorKit.Proofs.Reports;

/// <summary>The "queuefull" mode: every command kind refused with QUEUE_FULL in a round that
/// provably kept the queue full, and what each refusal could have changed.</summary>
public sealed record QueueFullReport(
    uint QueueCapacity,
    uint AllocationProfiling,
    QueueFullSetup Setup,
    IReadOnlyDictionary<string, CommandProbe> Commands,
    CaptureEndProbe? CaptureEnd,
    QueueFullFinalValues FinalValues);

/// <summary>One saturation round: whether it was valid (the blocker ran, 63 fillers were
/// accepted, the next refused, and no command completed until after the probes) and its figures.</summary>
public sealed record SaturationRound(
    bool Valid,
    bool BlockerRunning,
    int FillersAccepted,
    string FillRefusedWith,
    ulong CompletedBefore,
    ulong CompletedAfterProbes,
    double FullAtMs,
    double ProbesDoneMs,
    string BlockerStatus,
    double BlockerMs);

/// <summary>The table full of ended patches and the probed patch P with its four generations.</summary>
public sealed record QueueFullSetup(
    ProbedSetup Probed,
    int EndedPatches,
    bool EndedAllRemoved,
    int EndedValue,
    SampledWindow Capture);

/// <summary>P as prepared: its install, its value, its current generation and all four.</summary>
public sealed record ProbedSetup(
    string Install,
    string Wait,
    Polled<int> Value,
    GenerationResultReport Current,
    IReadOnlyList<ulong> Generations);

/// <summary>The sampled window that gave a recorded FunctionID to describe.</summary>
public sealed record SampledWindow(string Begin, string End, uint Samples, bool FunctionId, string Describe);

/// <summary>One attempt at a command kind's round.</summary>
public sealed record CommandAttempt(SaturationRound Round, int Attempt, string Status);

/// <summary>A command kind's rounds until one was valid, and what the valid one showed (null
/// when none was).</summary>
public sealed record CommandProbe(IReadOnlyList<CommandAttempt> Attempts, ValidProbe? Valid);

/// <summary>What a refused command wrote to its outputs (null where the call has none).</summary>
public sealed class ProbeOutputs
{
    public bool? HandleWritten { get; set; }
    public bool? IdWritten { get; set; }
    public bool? OutWritten { get; set; }
    public ulong? Prior { get; set; }
}

/// <summary>The valid round of a command kind: its status, the state before and after the
/// probe and after the queue drained (After and AfterDrain only when they differ from Before),
/// P's wait, and the generation ID the next filler took.</summary>
public sealed record ValidProbe(
    ProbeOutputs Outputs,
    string Status,
    bool Unchanged,
    ProbeState Before,
    ProbeState? After,
    bool UnchangedAfterDrain,
    ProbeState? AfterDrain,
    string ProbedWait,
    NextGenerationCheck NextGeneration);

/// <summary>What a command could change: P (its telemetry fields commands set, its generation
/// records, its target's value), or a fresh target's value and the ended patches.</summary>
public sealed record ProbeState(int? Value, int? Fresh, int? FreshGeneration, ProbedPatchState? Patch, EndedPatches? Ended);

/// <summary>P's telemetry fields that commands set, and each generation record by ID.</summary>
public sealed record ProbedPatchState(
    string Telemetry,
    string State,
    string LastStatus,
    uint PendingCommands,
    uint CommandsCompleted,
    uint OwnerCount,
    ulong Replacement,
    ulong CurrentGeneration,
    ulong LatestGeneration,
    int RequestHResult,
    uint CalliSignatureToken,
    ulong CommandElapsedNs,
    IReadOnlyDictionary<string, string> Records);

/// <summary>How many ended handles still answer as removed patches, and the first few that do not.</summary>
public sealed record EndedPatches(int Handles, int Removed, IReadOnlyList<string> Others);

/// <summary>The ID one more filler took against the last filler's (expected: one more).</summary>
public sealed record NextGenerationCheck(string Fill, ulong Last, ulong Next, ulong Expected);

/// <summary>One attempt at the capture-end round.</summary>
public sealed record CaptureEndAttempt(SaturationRound Round, int Attempt, string Begin, string End, bool SummaryWritten);

/// <summary>The capture-end rounds, and the window afterwards (null when no round was valid).</summary>
public sealed record CaptureEndProbe(IReadOnlyList<CaptureEndAttempt> Attempts, CaptureWindowAfter? After);

/// <summary>The window after its end was refused: still open, still counting.</summary>
public sealed record CaptureWindowAfter(
    string ReadTypesWhileOpen,
    string BeginWhileOpen,
    string End,
    int MarkersAllocated,
    long MarkersCounted,
    ulong TotalObjects);

/// <summary>The fresh targets' values at the end.</summary>
public sealed record QueueFullFinalValues(int Fresh, int FreshGeneration);
