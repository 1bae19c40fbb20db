namespace AlvorKit.Proofs.Reports;

/// <summary>What an exception said: its type and message, and the fields of the API's own
/// exception types (null where the exception has none).</summary>
public sealed record ThrownReport(
    string Threw,
    string Message,
    string? Reason,
    string? Kind,
    int? ParameterIndex,
    string? Expected,
    string? Actual,
    string? Status,
    string? StatusEnum,
    int? IlOffset,
    string? Instruction,
    string? Found,
    string? FoundType,
    string? ExpectedType,
    bool? DetectedByProfiler,
    string? GenerationState,
    string? GenerationStatus);

/// <summary>The managed API's PatchTelemetry.</summary>
public sealed record ApiTelemetry(
    string State,
    string LastStatus,
    int PendingCommands,
    int CommandsCompleted,
    int OwnerCount,
    int MethodToken,
    int GetReJITParameters,
    int RejitStarted,
    int RejitFinished,
    int RejitErrors,
    int RequestHResult,
    int CompilationHResult,
    int MetadataHResult,
    bool ReplacementNonZero,
    double CommandElapsedMs,
    double CompileElapsedMs,
    string Text);

/// <summary>One relocation of a generation, as GenerationInfo gives it.</summary>
public sealed record ApiRelocation(string Kind, uint Table, bool Reused, int HResult, string Description);

/// <summary>The managed API's GenerationInfo.</summary>
public sealed record ApiGeneration(
    ulong Id,
    ulong PriorId,
    string State,
    string Status,
    int CompilationHResult,
    IReadOnlyList<ApiRelocation> Relocations);

/// <summary>After an API call on a patch: the target polled for its value, the Patch's state,
/// and its telemetry; the other properties only where a scenario records them.</summary>
public sealed record ApiStep(
    Polled<int> Result,
    string State,
    bool IsInstalled,
    ApiTelemetry Telemetry,
    string? Owner = null,
    bool? Listed = null,
    string? Replacement = null,
    string? FirstPatchState = null,
    ulong? GenerationId = null,
    ApiGeneration? Generation = null,
    int? Zero = null,
    bool? SamePatch = null,
    int? Big = null);

/// <summary>The "api" mode: Interceptor.Open's facts or its exception; with patching refused,
/// what Install threw; with patching on, every scenario.</summary>
public sealed record ApiReport(ApiOpen? Open, ThrownReport? OpenFailure, ThrownReport? Refused, ApiScenarios? Scenarios);

/// <summary>The opened Interceptor.</summary>
public sealed record ApiOpen(
    string? ProfilerPath,
    string AbiVersion,
    bool PatchingEnabled,
    string? PatchingRefusal,
    string PatchableModules);

/// <summary>Every scenario of the "api" mode.</summary>
public sealed record ApiScenarios(
    ApiDescribe Describe,
    ApiLifecycle Lifecycle,
    InstanceTargetsReport InstanceTargets,
    OwnerScopeReport OwnerScope,
    TwoOwnersReport TwoOwners,
    MismatchReport Mismatch,
    SymbolicPlanReport Plan,
    PlanApplied CrossModulePlan,
    PlanApplied TypeOperands,
    ExceptionRegionReport ExceptionRegion,
    ApiGenericTargets GenericTargets,
    MixedReport Mixed,
    IReadOnlyDictionary<string, PlanAttempt> PlanRefusals,
    RejectedPlanReport RejectedPlan,
    ApiTypeSafety TypeSafety,
    int LivePatchesAtEnd);

/// <summary>Interceptor.Describe of a method, and the reflection facts to compare.</summary>
public sealed record ApiDescribe(
    int Token,
    int ReflectionToken,
    bool MvidMatches,
    string Traits,
    string StructTraits,
    int ParameterCount,
    int CodeSize,
    string SignatureHash,
    string BodyIdentity,
    int ModuleEpoch);

/// <summary>Install, Replace, Remove through the API.</summary>
public sealed record ApiLifecycle(
    int Original,
    ApiStep Install,
    ApiStep Replace,
    ApiStep Remove,
    string RemoveAgainState,
    ThrownReport? ReplaceAfterRemove,
    int AfterAll);

/// <summary>A class and a struct receiver.</summary>
public sealed record InstanceTargetsReport(
    int ClassOriginal,
    int StructOriginal,
    ApiStep Class,
    ApiStep Struct,
    Polled<int> ClassRemoved,
    Polled<int> StructRemoved);

/// <summary>One owner, two targets, while installed.</summary>
public sealed record OwnerScopeInstalled(Polled<int> Alpha, Polled<int> Beta, int OwnerPatches, string AlphaState, string BetaState);

/// <summary>One owner, two targets, once the owner is disposed.</summary>
public sealed record OwnerScopeDisposed(
    Polled<int> Alpha,
    Polled<int> Beta,
    int OwnerPatches,
    bool OwnerDisposed,
    string AlphaState,
    string BetaState,
    ApiTelemetry AlphaTelemetry,
    ApiTelemetry BetaTelemetry);

/// <summary>An owner scope.</summary>
public sealed record OwnerScopeReport(
    int AlphaOriginal,
    int BetaOriginal,
    OwnerScopeInstalled Installed,
    OwnerScopeDisposed Disposed,
    ThrownReport? InstallWithDisposedOwner,
    int AlphaAfter);

/// <summary>Two owners on one target.</summary>
public sealed record TwoOwnersReport(
    int Original,
    ApiStep First,
    ApiStep Second,
    bool SecondIsAnotherPatchObject,
    ThrownReport? SameOwnerAgain,
    ApiStep FirstDisposed,
    ApiStep SecondDisposed);

/// <summary>Mismatched replacements (each case null when it did not throw) and the live patch
/// they must not touch.</summary>
public sealed record MismatchReport(
    int GuardedOriginal,
    int UntouchedOriginal,
    Polled<int> GuardedPatched,
    IReadOnlyDictionary<string, ThrownReport?> Cases,
    ApiTelemetry TelemetryBefore,
    ApiTelemetry TelemetryAfter,
    bool TelemetryUnchanged,
    int GuardedAfter,
    int UntouchedAfter,
    int IntruderPatches,
    bool LivePatchesUnchanged);

/// <summary>A plan's patch removed.</summary>
public sealed record PlanRemoval(Polled<int> Result, int Zero, string State, ApiTelemetry Telemetry, ApiGeneration? LastGeneration);

/// <summary>A symbolic plan, a second chained after it, and removal.</summary>
public sealed record SymbolicPlanReport(int Original, string Listing, ApiStep First, ApiStep Second, PlanRemoval Remove);

/// <summary>A plan applied and removed.</summary>
public sealed record PlanApplied(int Original, string Listing, ApiStep Applied, Polled<int> Removed);

/// <summary>A plan with a catch region.</summary>
public sealed record ExceptionRegionReport(
    int ZeroOriginal,
    int FourOriginal,
    string Listing,
    ApiStep Zero,
    Polled<int> Four,
    Polled<int> ZeroRemoved);

/// <summary>Plans on generic targets.</summary>
public sealed record ApiGenericTargets(
    string PickOriginal,
    string PeekOriginal,
    ThrownReport? InstallRefused,
    Polled<string> Pick,
    string PeekListing,
    Polled<string> Peek,
    ApiGeneration? PeekGeneration,
    Polled<string> PickRemoved,
    Polled<string> PeekRemoved);

/// <summary>Exact dispatch and plans on one target.</summary>
public sealed record MixedReport(
    int Original,
    Polled<int> Install,
    ApiStep Plan,
    Polled<int> Replace,
    ApiStep PlanAgain,
    Polled<int> Removed,
    string State);

/// <summary>A plan edit: what it threw, or the listing when it threw nothing.</summary>
public sealed record PlanAttempt(ThrownReport? Thrown, string? Listing);

/// <summary>A plan the JIT rejects.</summary>
public sealed record RejectedPlanReport(
    string Original,
    bool Unverifiable,
    string? Applied,
    IReadOnlyList<string> Outcomes,
    string Restored,
    ApiGeneration? LastGeneration,
    string Removed);

/// <summary>A plan for the type check: what Apply threw (or the applied generation's state),
/// and what the target returns before and after.</summary>
public sealed record TypePlanReport<T>(T Original, ThrownReport? Thrown, string? Applied, T TargetResult, string Listing);

/// <summary>What an applied plan did: the target polled, and what it returned after removal.</summary>
public sealed record AppliedPlan<T>(Polled<T> Result, ApiGeneration? Generation, T Removed);

/// <summary>A plan with AllowUnverifiable (or a type-safe one): applied, or what it threw.</summary>
public sealed record AllowedPlanReport<T>(T Original, bool? IsUnverifiable, AppliedPlan<T>? Applied, ThrownReport? Thrown);

/// <summary>The stack-type check through the API.</summary>
public sealed record ApiTypeSafety(
    TypePlanReport<string> IntForString,
    TypePlanReport<double> StringForDouble,
    TypePlanReport<int> CallArgument,
    TypePlanReport<int> MergeDepth,
    bool PatchesUnchanged,
    TypePlanReport<string> ByProfiler,
    TypePlanReport<long> WidenRefused,
    AllowedPlanReport<long> Widen,
    TypePlanReport<int> FloatBitsRefused,
    AllowedPlanReport<int> FloatBits,
    AllowedPlanReport<int> UnrelatedClassesMerge,
    AllowedPlanReport<string> NullMeetsClassT);
