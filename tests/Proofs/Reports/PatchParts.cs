namespace AlvorKit.Proofs.Reports;

/// <summary>A command's synchronous status and, when it was accepted, what alvk_patch_wait
/// gave (null when the call refused it).</summary>
public sealed record CommandOutcome(string Sync, string? Wait);

/// <summary>A poll of a target: the value it waited for, the last value the target
/// returned, how many calls that took, and whether they match.</summary>
public sealed record Polled<T>(T Expected, T Actual, int Calls, bool Ok);

/// <summary>alvk_patch_get_telemetry: the call's status and the patch's telemetry (all zero
/// when the call failed).</summary>
public sealed record TelemetryReport(
    string Call,
    string State,
    string LastStatus,
    uint PendingCommands,
    uint CommandsCompleted,
    uint OwnerCount,
    uint Flags,
    ulong ModuleEpoch,
    uint MethodToken,
    uint CalliSignatureToken,
    uint GetReJITParameters,
    uint RejitStarted,
    uint RejitFinished,
    uint RejitErrors,
    uint InlinersRejitted,
    int RequestHResult,
    int SetILHResult,
    int CompilationHResult,
    int ErrorHResult,
    int MetadataHResult,
    ulong Replacement,
    ulong CommandElapsedNs,
    ulong CompileElapsedNs,
    string DispatchPath,
    string DispatchFallback,
    uint CallToken);

/// <summary>One command on a patch and what followed: the target's result, polled, and the
/// patch's telemetry.</summary>
public sealed record PatchStep(CommandOutcome Command, Polled<int> Result, TelemetryReport Telemetry);
