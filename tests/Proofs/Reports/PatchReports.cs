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
    TelemetryReport Telemetry,
    CommandOutcome Remove,
    Polled<Observation> RestoredPoll,
    Observation Restored,
    bool RestoredOk,
    string FinalState);

/// <summary>The "dispatch" mode: every shape by name.</summary>
/// <summary>The "dispatch" mode: every shape on the direct-call path (Shapes: the replacements
/// are in the targets' module, so the body calls their MethodDef) and on the calli path
/// (CalliShapes: the same requests without the replacement named as a method), and the
/// direct-call cases (Cases).</summary>
public sealed record DispatchReport(
    IReadOnlyDictionary<string, DispatchShapeReport> Shapes,
    IReadOnlyDictionary<string, DispatchShapeReport> CalliShapes,
    IReadOnlyDictionary<string, DispatchCaseReport> Cases,
    DirectRejectedReport Rejected);

/// <summary>One direct-call case: a replacement from another assembly (emitted AssemblyRef,
/// TypeRef chain, MemberRef), one the profiler must refuse to call directly, one the JIT inlines.
/// AssemblyRefInFile: whether the target's assembly file already references the replacement's
/// assembly (false: the profiler emitted the AssemblyRef). TokensEmitted: the runtime status's
/// metadata tokens emitted by the install. Patched: the target's value polled after the
/// install; Restored: after the removal.</summary>
public sealed record DispatchCaseReport(
    string Replacement,
    bool RequestedDirect,
    bool AssemblyRefInFile,
    CommandOutcome Install,
    Polled<string> Patched,
    TelemetryReport Telemetry,
    ulong TokensEmitted,
    CommandOutcome Remove,
    Polled<string> Restored);

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

/// <summary>A command on a patch and the target's result after it (no telemetry).</summary>
public sealed record CommandStep(CommandOutcome Command, Polled<int> Result);

/// <summary>The "owners" mode: two owners on one patch, a stranger, and the successor rule.</summary>
public sealed record OwnersReport(
    int Original,
    PatchStep FirstInstall,
    PatchStep SecondInstall,
    bool SecondInstallSameHandle,
    StrangerAttempt Stranger,
    PatchStep FirstRemove,
    PatchStep SecondRemove,
    EndedPatchCalls AfterEnd,
    SuccessorReport Successor);

/// <summary>An owner that holds nothing tries to remove and replace the patch.</summary>
public sealed record StrangerAttempt(string RemoveSync, string ReplaceSync, int Result, TelemetryReport Telemetry);

/// <summary>Commands on a patch after its last owner removed it.</summary>
public sealed record EndedPatchCalls(string RemoveAgain, string Replace, int Result);

/// <summary>Two owners again; the newest leaves, then the other.</summary>
public sealed record SuccessorReport(
    CommandOutcome Command,
    Polled<int> Result,
    Polled<int> JoinedResult,
    PatchStep NewestOwnerLeaves,
    Polled<int> FinalResult);

/// <summary>What the worker made of an install the call accepted.</summary>
public sealed record WorkerVerdict(string Wait, string State, string LastStatus, uint GetReJITParameters, uint RejitStarted);

/// <summary>A bad install: the call's status, the worker's verdict when the call accepted it,
/// the status that decided it, and what the target returned afterwards.</summary>
public sealed record BadInstall(string Sync, WorkerVerdict? Worker, string Status, int TargetResult, bool TargetUnchanged);

/// <summary>Every command on a handle the profiler never gave out.</summary>
public sealed record HandleRefusals(string Replace, string Remove, string Wait, string Telemetry);

/// <summary>Refusals against a live patch, and the patch afterwards.</summary>
public sealed record LiveRefusals(
    CommandOutcome Command,
    Polled<int> Patched,
    string RemoveByStranger,
    string ReplaceByStranger,
    string ReplaceOwnerZero,
    string ReplaceWithZero,
    string TelemetryNullOut,
    string TelemetrySmallStruct,
    BadInstall BadJoin,
    bool BadJoinSameHandle,
    int StillPatched,
    TelemetryReport Telemetry,
    CommandStep Remove,
    IReadOnlyDictionary<string, string> ReplaceWith);

/// <summary>The "badinput" mode: every refused patch input; and the managed API asked to make
/// a method its own replacement (Install(m, m), then Replace with m): the status each threw
/// ("none" if it did not), and what m returned after.</summary>
public sealed record BadInputReport(
    int Original,
    IReadOnlyDictionary<string, BadInstall> Installs,
    IReadOnlyDictionary<string, HandleRefusals> Handles,
    LiveRefusals Live,
    int FinalResult,
    string ManagedSelfInstall,
    string ManagedSelfReplace,
    int AfterManagedSelf);

/// <summary>A command by its ID: the call's status, the ID, and when the call accepted it,
/// alvk_command_wait's status and the command's result.</summary>
public sealed record WaitedCommand(string Sync, ulong Command, string? Wait, string? Result);

/// <summary>A refused call: its status and alvk_last_command afterwards.</summary>
public sealed record RefusedCall(string Status, ulong LastCommand);

/// <summary>A generation refused at the call: its status, the ID it gave, alvk_last_command.</summary>
public sealed record RefusedSubmission(string Status, ulong Id, ulong LastCommand);

/// <summary>The "commands" mode: command identity and generation IDs.</summary>
public sealed record CommandsReport(OwnCommandReport OwnCommand, GenerationIdsReport GenerationIds);

/// <summary>A replace and a rejected join on one patch, each waited for by its own ID.</summary>
public sealed record OwnCommandReport(
    int Original,
    WaitedCommand Install,
    Polled<int> AfterInstall,
    bool SameHandle,
    WaitedCommand Replace,
    WaitedCommand Join,
    bool DistinctIds,
    string PatchWait,
    Polled<int> AfterReplace,
    RefusedCall RefusedRemove,
    string UnknownZero,
    string UnknownFuture,
    WaitedCommand Remove,
    Polled<int> AfterRemove);

/// <summary>A chain of generations submitted until the queue refused some.</summary>
public sealed record GenerationIdsReport(
    int Original,
    RefusedSubmission StaleAtCall,
    int Accepted,
    int QueueFull,
    int Stale,
    int Other,
    int Gaps,
    int CommandsEnded,
    Polled<int> Last,
    WaitedCommand Remove,
    Polled<int> AfterRemove);

/// <summary>The runtime status's metadata and snapshot counters, and the process's RSS.</summary>
public sealed record MemoryCounters(
    ulong TokensEmitted,
    ulong BytesEmitted,
    ulong TokensReused,
    ulong SnapshotBytes,
    ulong SnapshotCount,
    long Rss);

/// <summary>The "memory" mode: many replacements of one patch, and new locals signatures.</summary>
public sealed record MemoryReport(int Replacements, ReplacesReport Replaces, SignaturesReport Signatures);

/// <summary>One patch replaced again and again.</summary>
public sealed record ReplacesReport(
    int Original,
    string Install,
    MemoryCounters Before,
    MemoryCounters After,
    int Failures,
    string Remove,
    int AfterRemove,
    MemoryCounters Final);

/// <summary>One generation with `Locals` int32 locals, and the counters after it.</summary>
public sealed record SignatureStep(
    int Locals,
    int BlobLength,
    string Submit,
    string Result,
    int Value,
    ulong TokensEmitted,
    ulong BytesEmitted,
    ulong TokensReused);

/// <summary>Generations with a new locals signature each, then the first again.</summary>
public sealed record SignaturesReport(
    int Original,
    MemoryCounters Before,
    IReadOnlyList<SignatureStep> Steps,
    string Remove,
    int AfterRemove);

/// <summary>The "dispatch" mode's direct body the JIT rejects (its MemberRef names no method
/// with its signature): the install's outcome, what the calls saw until the patch's dispatch
/// generation failed (outcome counts: values or exception names), the poll for the original
/// after the rollback, the generation's result and the telemetry.</summary>
public sealed record DirectRejectedReport(
    CommandOutcome Install,
    TelemetryReport InstalledTelemetry,
    IReadOnlyDictionary<string, int> Outcomes,
    GenerationResultReport Generation,
    Polled<string> Restored,
    TelemetryReport Telemetry,
    CommandOutcome Remove);

/// <summary>One step of the "dispatchapi" mode: the target's value polled after it, and the
/// patch's dispatch path, fallback and call token, and its ToString.</summary>
public sealed record DispatchApiStep(
    string Name,
    Polled<int> Result,
    string DispatchPath,
    string DispatchFallback,
    uint CallToken,
    string Description);

/// <summary>The "dispatchapi" mode: the managed API's dispatch paths, step by step.</summary>
public sealed record DispatchApiReport(IReadOnlyList<DispatchApiStep> Steps);
