namespace AlvorKit.Proofs.Reports;

/// <summary>One reload in the "hotreload" mode: the result's outcome, its methods
/// ("member|state|difference") and refusals (their messages), its summary, and the loaded
/// method's value afterwards, polled for the value the step should give.</summary>
public sealed record ReloadStep(
    string Outcome,
    IReadOnlyList<string> Methods,
    IReadOnlyList<string> Refusals,
    string Summary,
    Polled<int> Value);

/// <summary>The "hotreload" mode: an assembly built in the host (HotGame, v1 loaded from its
/// file), then rebuilds of it applied through Interceptor.Reload: a changed constant, the same
/// file again, a call to a framework method the module never referenced, a batch of two whose
/// second body the profiler fails (the first rolled back), a rude edit, the
/// original again, a rebuild of an assembly that is not loaded, one of an assembly loaded but
/// not allowlisted (HotGameOther), a rebuild dropped into a
/// watched folder, and RevertAll.</summary>
public sealed record HotReloadCoreReport(
    int Original,
    ReloadStep Constant,
    ReloadStep Same,
    ReloadStep NewCall,
    ReloadStep Failed,
    Polled<int> TwinAfterFailure,
    ReloadStep Rude,
    ReloadStep Back,
    ReloadStep NotLoaded,
    ReloadStep NotAllowlisted,
    ReloadStep Watched,
    string? ResultFile,
    ReloadStep Reverted,
    int PatchesHeldAtEnd);
