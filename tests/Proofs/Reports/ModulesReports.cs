namespace AlvorKit.Proofs.Reports;

/// <summary>A step through the managed API: its value, or the exception it threw (with the
/// PatchException's status when it was one).</summary>
public sealed record Attempt<T>(T? Value, string? Threw, string? Message, string? Status, int? StatusCode, string? StatusEnum)
    where T : class;

/// <summary>A step whose success carries nothing to report.</summary>
public sealed record Done;

/// <summary>After a command on one copy: the patched copy polled for its value, the other copy
/// called 20 times, the patch's state, and the default copy called directly (when asked);
/// SamePatch and Generation only for a plan.</summary>
public sealed record CopyStep(
    Polled<int> Result,
    SteadyCalls? Other,
    string State,
    string LastStatus,
    int ModuleEpoch,
    int? Direct,
    bool? SamePatch,
    string? Generation);

/// <summary>20 calls of a copy: the last value, how many calls, whether every one gave the expected.</summary>
public sealed record SteadyCalls(int Value, int Calls, bool Ok);

/// <summary>Two copies of a method: different modules, one MVID, and their load contexts.</summary>
public sealed record CopiesReport(bool DistinctModules, bool SameMvid, IReadOnlyList<string?> Contexts);

/// <summary>What each copy returns before any patch.</summary>
public sealed record CopyValues(int Default, int Plugin);

/// <summary>Interceptor.Describe of both copies, compared.</summary>
public sealed record DescribedCopies(bool SameToken, bool SameMvid, bool SameBody, int DefaultEpoch, int PluginEpoch);

/// <summary>Interceptor.Describe of one copy.</summary>
public sealed record DescribedCopy(int Token, int Epoch);

/// <summary>The "modules plugin" mode: one assembly in the default context and a plugin's,
/// each copy patched on its own through the managed API.</summary>
public sealed record PluginPatternReport(
    Attempt<CopyStep> InstallBeforePluginLoads,
    Attempt<CopyStep> ReplaceAfterPluginLoads,
    Attempt<CopyStep> RemoveEarly,
    CopiesReport Copies,
    CopyValues Original,
    Attempt<DescribedCopies> Describe,
    Attempt<CopyStep> InstallDefault,
    Attempt<CopyStep> InstallPlugin,
    Attempt<CopyStep> PlanPlugin,
    Attempt<CopyStep> ReplaceDefault,
    Attempt<CopyStep> RemoveDefault,
    Attempt<CopyStep> RemovePlugin,
    int LivePatchesAtEnd);

/// <summary>The "modules collectible" mode: a collectible copy refused, the default copy patchable.</summary>
public sealed record CollectibleCopyReport(
    int DefaultOriginal,
    int CollectibleOriginal,
    CopiesReport Copies,
    string PatchableModules,
    Attempt<DescribedCopy> DescribeDefault,
    Attempt<Done> DescribeCollectible,
    Attempt<CopyStep> InstallDefault,
    Attempt<Done> InstallCollectible,
    Polled<int> CollectibleAfterRefusal,
    Attempt<Done> PlanCollectible,
    Polled<int> CollectibleAfterPlan,
    Attempt<CopyStep> RemoveDefault,
    int LivePatchesAtEnd);

/// <summary>alvk_module_identify's answer for one copy.</summary>
public sealed record ModuleIdentity(string Status, ulong ModuleId, uint Epoch, string Flags, uint Copies);

/// <summary>alvk_describe_module_method's module facts for one copy.</summary>
public sealed record ModuleDescription(string Status, ulong ModuleId, uint Epoch, string Flags);

/// <summary>A patch's state and module, from its telemetry.</summary>
public sealed record ModuleTelemetry(string Call, string State, string LastStatus, ulong ModuleId, uint ModuleEpoch);

/// <summary>Identifying each copy, and the refusals.</summary>
public sealed record RawIdentify(
    ModuleIdentity Default,
    ModuleIdentity Plugin,
    bool DistinctIds,
    bool DistinctEpochs,
    string MvidOnly,
    string BogusHandle,
    string BogusToken,
    string TypeToken,
    string OtherMvid);

/// <summary>Describing a method of one copy, and the refusals.</summary>
public sealed record RawDescribe(
    string ByMvid,
    ModuleDescription Default,
    ModuleDescription PluginLiveEpoch,
    bool SameHashes,
    string BogusModule,
    string ZeroModule,
    string StaleEpoch);

/// <summary>An install that names no loaded copy: its command, the patch's telemetry when the
/// call accepted it, and both copies afterwards.</summary>
public sealed record RawRefusal(CommandOutcome Command, ModuleTelemetry? Telemetry, Polled<int> Default, Polled<int> Plugin);

/// <summary>An install by module ID: its command, the patched copy, and the other copy.</summary>
public sealed record RawInstall(CommandOutcome Command, Polled<int> Result, Polled<int> Other);

/// <summary>A removal: its command, the copy it restored, the other copy, the patch's state.</summary>
public sealed record RawRemoval(CommandOutcome Command, Polled<int> Result, Polled<int> Other, string State);

/// <summary>Each copy patched by module ID.</summary>
public sealed record RawByCopy(
    RawInstall InstallDefault,
    RawInstall InstallPlugin,
    bool DistinctHandles,
    bool DefaultTelemetryModule,
    bool PluginTelemetryModule,
    bool DefaultTelemetryEpoch,
    bool PluginTelemetryEpoch,
    RawRemoval RemoveDefault,
    RawRemoval RemovePlugin);

/// <summary>A collectible copy: identified, refused, and stale once its context unloaded.</summary>
public sealed record RawCollectible(
    ModuleIdentity Identify,
    string Describe,
    RawCollectibleInstall Install,
    int Before,
    int After,
    string MvidOnly,
    bool ContextCollected,
    int Collections,
    string DescribeAfterUnload,
    CommandOutcome InstallAfterUnload,
    ModuleTelemetry InstallAfterUnloadState);

/// <summary>The install on the collectible copy and its patch's telemetry.</summary>
public sealed record RawCollectibleInstall(CommandOutcome Command, ModuleTelemetry State);

/// <summary>The "modules raw" mode: module identity through the raw ABI.</summary>
public sealed record ModulesRawReport(
    CopyValues Original,
    RawIdentify Identify,
    RawDescribe Describe,
    IReadOnlyDictionary<string, RawRefusal> Refused,
    RawByCopy ByCopy,
    RawCollectible Collectible);
