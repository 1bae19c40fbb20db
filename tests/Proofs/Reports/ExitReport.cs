namespace AlvorKit.Proofs.Reports;

/// <summary>The "exit" mode's report, its last line before the process ends: the capture
/// window the worker resolves at exit, the queue then, and every (export, status) the calling
/// threads had met (with how often) when the report was built.</summary>
public sealed record ExitReport(
    string Variant,
    int Hammers,
    string CaptureBegin,
    string? CaptureEndReturnedBeforeExit,
    int FillersAccepted,
    string LastFill,
    uint QueueDepthAtExit,
    uint QueueCapacity,
    uint WorkerAliveAtExit,
    uint AllocationProfiling,
    IReadOnlyDictionary<string, long> CallsBeforeExit);
