namespace AlvorKit.Proofs.Reports;

/// <summary>What the "hotreload" host mode is told to do, step by step (written by the proof,
/// read by the host): each step applies an update file (or reverts, or drops a file into a
/// watched folder), then polls every probe for the value the step expects.</summary>
/// <param name="Game">The game's build (version 0), loaded from its file by the host.</param>
/// <param name="Other">An assembly loaded too, but not allowlisted.</param>
/// <param name="Probes">The probes: static methods of the game returning strings ("Type.Method").</param>
/// <param name="Steps">In order.</param>
public sealed record HotReloadScript(string Game, string Other, IReadOnlyList<string> Probes,
                                     IReadOnlyList<HotReloadScriptStep> Steps);

/// <summary>One step: <paramref name="Action"/> is "apply" (the update file <paramref name="File"/>),
/// "rehearse" (that file as a rehearsal), "revert" (RevertAll) or "watch" (the file dropped into
/// a folder the game watches);
/// <paramref name="Expected"/> gives each probe's value after it (every probe, in order);
/// <paramref name="Pair"/> runs a thread that calls the pair probe the whole step and counts
/// the calls that saw one half of the update without the other.</summary>
public sealed record HotReloadScriptStep(string Name, string Action, string? File, IReadOnlyList<string> Expected,
                                         bool Changes, bool Pair = false);

/// <summary>One step as the host ran it: the result (outcome, "member|state|difference" per
/// method, refusal messages, notices, summary), what each probe gave, and for the pair step the
/// pair values seen in order and how many calls saw a mix.</summary>
public sealed record HotReloadStepReport(
    string Name,
    string Outcome,
    IReadOnlyList<string> Methods,
    IReadOnlyList<string> Refusals,
    IReadOnlyList<string> Notices,
    string Summary,
    IReadOnlyList<Polled<string>> Probes,
    string? ResultFile,
    IReadOnlyList<string> PairSeen,
    long PairMixed,
    long PairCalls);

/// <summary>The "hotreload" mode's report: every step in order, the side assemblies loaded, the
/// patches the reloader still holds at the end, and, after the reload's warm-up ran on the host's
/// thread, a relocation laid out for the validator: the validator's status and the methods the
/// JIT compiled on that thread for it; and the warm-up's real patch of AlvorKit's rehearsal method
/// (allowlisted as the launcher's watch allowlists it): what the method returned before the patch,
/// while patched and after the removal, as the warm-up saw it (null: it did not run), what the host's own call of it
/// returns afterwards, the profiler's live patches and the interceptor's held patches then, the
/// commands the profiler's worker finished during the warm-up, the difference the warm-up's update of
/// it reported (null: none), and what the reloader keeps after the warm-up: the modules whose reloads it
/// keeps (by simple name) and the bodies it holds as applied.</summary>
public sealed record HotReloadCoreReport(IReadOnlyList<HotReloadStepReport> Steps, IReadOnlyList<string> SideAssemblies,
                                         int PatchesHeldAtEnd, string LayoutAfterWarmUp, long LayoutCompiled,
                                         string? WarmUpOriginal, string? WarmUpPatched, string? WarmUpRestored, string RehearsalAfterWarmUp,
                                         uint LivePatchesAfterWarmUp, int PatchesHeldAfterWarmUp,
                                         ulong WarmUpCommands, string? WarmUpDifference,
                                         IReadOnlyList<string> ReloadedModulesAfterWarmUp, int AppliedBodiesAfterWarmUp);
