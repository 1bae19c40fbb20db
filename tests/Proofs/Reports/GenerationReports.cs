namespace AlvorKit.Proofs.Reports;

/// <summary>One relocation as the host built it.</summary>
public sealed record SubmittedRelocation(string Kind, uint IlOffset, uint ParentToken, uint ParentRelocation, string? Name, string? Blob);

/// <summary>A generation submitted and waited for: the call, and when it was accepted, the
/// first calls after the wait (polled for the value the generation returns), the generation's
/// settled result and the patch's telemetry.</summary>
public sealed record GenerationStep<T>(
    IReadOnlyList<SubmittedRelocation> Submitted,
    string Sync,
    bool HandleNonZero,
    ulong Generation,
    ulong Prior,
    string? Wait,
    Polled<T>? Result,
    GenerationResultReport? GenerationResult,
    TelemetryReport? Telemetry);

/// <summary>The last owner's removal: the target polled for its original, the last generation's
/// result, the patch's telemetry.</summary>
public sealed record RemoveStep<T>(CommandOutcome Command, Polled<T> Result, GenerationResultReport LastGeneration, TelemetryReport Telemetry);

/// <summary>Scenario a: an unmanaged calli, then the same plus one.</summary>
public sealed record CalliReport(
    int Original,
    GenerationStep<int> First,
    GenerationStep<int> Second,
    bool SameHandle,
    GenerationResultReport FirstAfterSecond,
    RemoveStep<int> Remove);

/// <summary>Scenario b: four kinds of relocation in one body.</summary>
public sealed record FourKindsReport(
    int Original,
    string ScaleName,
    string ScaleSignature,
    GenerationStep<int> First,
    GenerationStep<int> Second,
    RemoveStep<int> Remove);

/// <summary>One generation applied and removed.</summary>
public sealed record SingleGeneration(int Original, GenerationStep<int> First, RemoveStep<int> Remove);

/// <summary>Scenario c: a TypeRef into another assembly.</summary>
public sealed record CrossModuleReport(int Original, uint AssemblyRef, GenerationStep<int> First, RemoveStep<int> Remove);

/// <summary>Scenario d: a generic MemberRef instantiated by a MethodSpec.</summary>
public sealed record MvarReport(string Original, string MapSignature, GenerationStep<string> First, RemoveStep<string> Remove);

/// <summary>A replace on a generic target's patch.</summary>
public sealed record GenericReplace(string Sync, string Wait, string Result);

/// <summary>Scenario e: one generic target.</summary>
public sealed record GenericTargetReport(
    string Original,
    string Flags,
    GenerationStep<string> First,
    GenericReplace Replace,
    RemoveStep<string> Remove);

/// <summary>Generation 2 that the JIT rejects: the calls while it failed and the rollback.</summary>
public sealed record FailedGeneration(
    string Sync,
    bool SameHandle,
    ulong Generation,
    string? Wait,
    string? StateBeforeCalls,
    int Calls,
    IReadOnlyList<string> FirstOutcomes,
    IReadOnlyDictionary<string, int> Outcomes,
    long FailedAfterMs,
    GenerationResultReport GenerationResult,
    Polled<string> Restored,
    string WaitAfterRestore,
    GenerationResultReport SecondAfterRestore,
    GenerationResultReport FirstAfterRestore,
    TelemetryReport Telemetry);

/// <summary>Two bad generations back to back, the second naming the first.</summary>
public sealed record TwoFailures(
    string Sync3,
    string Sync4,
    string Wait,
    Polled<string> Restored,
    GenerationResultReport Third,
    GenerationResultReport Fourth);

/// <summary>Scenario f: generations that do not compile.</summary>
public sealed record CompilationFailureReport(
    string Original,
    GenerationStep<string> First,
    FailedGeneration Second,
    TwoFailures TwoFailures,
    RemoveStep<string> Remove);

/// <summary>A generation whose refusal is decided on the worker: its call, and when accepted,
/// the wait, the result and the telemetry; then what the target returns.</summary>
public sealed record WorkerRefusal(
    int Original,
    string Sync,
    ulong Generation,
    string? Wait,
    GenerationResultReport? GenerationResult,
    TelemetryReport? Telemetry,
    int TargetResult);

/// <summary>A submission refused at the call: what it gave back and what the target returns.</summary>
public sealed record StaleSubmission(string Sync, ulong Handle, ulong Generation, int TargetResult);

/// <summary>Scenario h: stale priors.</summary>
public sealed record StaleReport(
    int Original,
    GenerationStep<int> First,
    GenerationStep<int> Second,
    IReadOnlyDictionary<string, StaleSubmission> Refusals,
    TelemetryReport TelemetryBefore,
    TelemetryReport TelemetryAfter,
    GenerationResultReport SecondAfterRefusals,
    GenerationStep<int> Third,
    RemoveStep<int> Remove,
    StaleSubmission FirstNamingAPrior);

/// <summary>A malformed submission: the call's status and alvk_generation_validate's, the
/// failing index, what it did if it was wrongly accepted, and the target afterwards.</summary>
public sealed record BadSubmission(
    string Sync,
    ulong Handle,
    ulong Generation,
    string Validate,
    uint FailingIndex,
    string? Wait,
    GenerationResultReport? GenerationResult,
    int? AcceptedResult,
    int TargetResult,
    bool TargetUnchanged);

/// <summary>Submissions with null pointers.</summary>
public sealed record NullSubmissions(string NullGeneration, string NullHandle, string NullId);

/// <summary>A result read with no room for relocation results.</summary>
public sealed record NoRoomResult(string Call, uint RelocationCount);

/// <summary>alvk_generation_get_result for what it does not know.</summary>
public sealed record ResultQueries(
    string UnknownHandle,
    string ZeroHandle,
    string UnknownGeneration,
    string GenerationZero,
    string SmallStruct,
    NoRoomResult NoRelocationRoom);

/// <summary>Scenario i: every malformed submission, and the valid control.</summary>
public sealed record ValidationReport(
    int Original,
    IReadOnlyDictionary<string, BadSubmission> Submissions,
    NullSubmissions Nulls,
    ResultQueries Results,
    GenerationStep<int> Control,
    RemoveStep<int> ControlRemove);

/// <summary>A type-unsafe first generation: refused on the worker; the target before and after.</summary>
public sealed record TypeRefusal<T>(
    T Original,
    string Validate,
    string Sync,
    ulong Generation,
    string? Wait,
    GenerationResultReport? GenerationResult,
    TelemetryReport? Telemetry,
    T TargetResult);

/// <summary>An unverifiable body flagged ALVK_INSTALL_UNVERIFIABLE: accepted and run.</summary>
public sealed record FlaggedGeneration(
    string Sync,
    ulong Generation,
    string? Wait,
    Polled<long>? Result,
    GenerationResultReport? GenerationResult,
    TelemetryReport? Telemetry,
    RemoveStep<long>? Remove);

/// <summary>Scenario j: type-unsafe bodies.</summary>
public sealed record TypeSafetyReport(
    TypeRefusal<string> IntForString,
    TypeRefusal<double> StringForDouble,
    TypeRefusal<long> UnverifiableUnflagged,
    FlaggedGeneration UnverifiableFlagged);

/// <summary>The "generations" mode.</summary>
public sealed record GenerationsReport(
    CalliReport Calli,
    FourKindsReport FourKinds,
    CrossModuleReport CrossModule,
    SingleGeneration Fields,
    MvarReport Mvar,
    IReadOnlyDictionary<string, GenericTargetReport> GenericTargets,
    SingleGeneration Locals,
    CompilationFailureReport CompilationFailure,
    WorkerRefusal BodyIdentity,
    StaleReport Stale,
    ValidationReport Validation,
    TypeSafetyReport TypeSafety);

/// <summary>A generation naming a missing member, after one that applied.</summary>
public sealed record MissingMemberStep(
    IReadOnlyList<SubmittedRelocation> Submitted,
    string Sync,
    bool SameHandle,
    ulong Generation,
    string? Wait,
    IReadOnlyList<string> Outcomes,
    GenerationResultReport GenerationResult,
    TelemetryReport TelemetryBefore,
    TelemetryReport TelemetryAfter,
    GenerationResultReport FirstAfter);

/// <summary>One missing-member case: a generation that applies, the missing one, the next, removal.</summary>
public sealed record MissingMemberCase(
    string Original,
    GenerationStep<string> First,
    MissingMemberStep Missing,
    GenerationStep<string> Next,
    RemoveStep<string> Remove);

/// <summary>A missing member of an assembly not loaded yet: the JIT finds it missing.</summary>
public sealed record LateAssemblyReport(
    string Original,
    GenerationStep<string> First,
    bool LoadedBefore,
    string Sync,
    string? Wait,
    IReadOnlyList<string> Outcomes,
    bool Restored,
    bool LoadedAfter,
    GenerationResultReport GenerationResult,
    RemoveStep<string> Remove);

/// <summary>A missing member in a target's first generation.</summary>
public sealed record FreshMissingMember(
    string Original,
    string Sync,
    string? Wait,
    GenerationResultReport? GenerationResult,
    TelemetryReport? Telemetry,
    IReadOnlyList<string> Outcomes);

/// <summary>A member declared only on a base type: accepted and run.</summary>
public sealed record BaseMemberReport(string Original, GenerationStep<string> First, RemoveStep<string> Remove);

/// <summary>The managed API applying a plan that names a missing member.</summary>
public sealed record ManagedMissingMember(
    string Original,
    string? Threw,
    string? Message,
    string? StatusName,
    int? StatusCode,
    string? StatusEnum,
    string? GenerationState,
    string? GenerationStatus,
    int? FailingIndex,
    string? FailingRelocation,
    IReadOnlyList<string> Outcomes,
    int LivePatches);

/// <summary>The "members" mode.</summary>
public sealed record MembersReport(
    MissingMemberCase OwnType,
    MissingMemberCase OtherAssembly,
    MissingMemberCase MissingField,
    MissingMemberCase OtherSignature,
    LateAssemblyReport LateAssembly,
    FreshMissingMember Fresh,
    BaseMemberReport BaseStatic,
    BaseMemberReport BaseVirtual,
    ManagedMissingMember Managed);
