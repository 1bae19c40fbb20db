using System.Globalization;
using System.Text;

namespace AlvorKit.Interception.HotReload;

/// <summary>What one reload did as a whole.</summary>
public enum ReloadOutcome
{
    /// <summary>Every changed body runs from its next call (or went back to its original), all
    /// at once: one batch, one ReJIT request.</summary>
    Applied,

    /// <summary>The update changes no method body (it only adds members nothing calls yet, or
    /// only changes what takes effect at the next start): nothing to apply.</summary>
    NothingChanged,

    /// <summary>Refused before anything reached the profiler: nothing changed.</summary>
    Refused,

    /// <summary>The profiler refused or failed the batch: nothing of it was applied, and the game
    /// runs what it ran before.</summary>
    Failed,

    /// <summary><see cref="HotReloader.RevertAll"/>: every method applied from source runs its original.</summary>
    Reverted,
}

/// <summary>What happened to one method in a reload.</summary>
public enum MethodReloadState
{
    /// <summary>Its new body was applied.</summary>
    Applied,

    /// <summary>Its source is back to the original: the original body runs again.</summary>
    RestoredOriginal,

    /// <summary>The profiler refused or failed its body (see the detail); nothing of the reload was applied.</summary>
    Failed,
}

/// <summary>One method of a reload.</summary>
/// <param name="Member">The method, as people write it ("Game.World.Update()").</param>
/// <param name="State">What happened to it.</param>
/// <param name="Difference">What changed from the body it ran before
/// ("IL_0004: ldc.i4.s 100 → ldc.i4.s 120"), if known.</param>
/// <param name="Detail">For a failure: the status and what it was about.</param>
public sealed record MethodReload(string Member, MethodReloadState State, string? Difference = null, string? Detail = null);

/// <summary>Why a reload (or a method of it) was refused before anything was applied.</summary>
public enum ReloadRefusalReason
{
    /// <summary>A change this design cannot carry into a loaded module (see docs/HotReload.md):
    /// a virtual method or an interface member added to a type that lives, an instance field
    /// added to a struct, a table of metadata a module cannot take after loading.</summary>
    RudeEdit,

    /// <summary>No assembly of that name and build (MVID) is loaded in this process.</summary>
    NotLoaded,

    /// <summary>The assembly is loaded but ALVORKIT_INTERCEPTION_MODULES does not allow patching it.</summary>
    NotAllowlisted,

    /// <summary>The update is not an Edit and Continue delta of the loaded build (unreadable,
    /// malformed, or for another build).</summary>
    NotADelta,

    /// <summary>The update follows another generation than the one this process applied last
    /// (an update was lost, or one came twice).</summary>
    OutOfSequence,

    /// <summary>A new body refers to something the module it goes into cannot be given (an
    /// assembly its load context cannot load).</summary>
    UntranslatableReference,

    /// <summary>A new body needs more relocations, or is larger, than one generation carries.</summary>
    TooLarge,

    /// <summary>The profiler's validation refused a body before any was applied.</summary>
    ProfilerRefused,

    /// <summary>The runtime refused to load the assembly that carries the added members.</summary>
    SideAssemblyRefused,

    /// <summary>What was dropped into a watched folder is not read: a link, something other than
    /// a regular file (a FIFO, a device), or larger than the watch's limit.</summary>
    UnsafeFile,

    /// <summary>The reload stopped at an error this library did not expect; the message names it.
    /// The batch is all or nothing, so the game runs what it ran before.</summary>
    Unexpected,
}

/// <summary>One refusal.</summary>
/// <param name="Reason">Its kind.</param>
/// <param name="Member">The member it names ("Game.World.speed2"), or the assembly.</param>
/// <param name="Message">For people: what is refused and why.</param>
public sealed record ReloadRefusal(ReloadRefusalReason Reason, string Member, string Message);

/// <summary>What one <see cref="HotReloader.ApplyUpdate(ReloadDelta)"/> (or revert) did.</summary>
/// <param name="AssemblyName">The loaded assembly's simple name.</param>
/// <param name="Outcome">The reload as a whole.</param>
/// <param name="Methods">Every method whose running body this reload changed or tried to change.</param>
/// <param name="Refusals">Why it was refused (empty otherwise).</param>
/// <param name="CompareTime">Reading the delta, building the side assembly of what it adds, and
/// translating every changed body.</param>
/// <param name="ApplyTime">Validation, submission and the profiler's work until every body was requested.</param>
public sealed record ReloadResult(string AssemblyName, ReloadOutcome Outcome, IReadOnlyList<MethodReload> Methods,
    IReadOnlyList<ReloadRefusal> Refusals, TimeSpan CompareTime, TimeSpan ApplyTime)
{
    /// <summary>What applied only in part, or takes effect at the next start.</summary>
    public IReadOnlyList<ReloadNotice> Notices { get; init; } = [];

    /// <summary>The generation the module is at after this reload (how many updates it has
    /// applied), and the id of that generation (empty before the first).</summary>
    public int Generation { get; init; }

    /// <summary>The id of the newest generation applied (the delta's EncId).</summary>
    public Guid GenerationId { get; init; }

    /// <summary>The assembly that carries this reload's added members, if it added any.</summary>
    public string? SideAssembly { get; init; }

    /// <summary>For the person watching: one line for the reload, then one per method, notice or refusal.</summary>
    public string Summary
    {
        get
        {
            var text = new StringBuilder();
            int changed = Methods.Count(m => m.State is MethodReloadState.Applied or MethodReloadState.RestoredOriginal);
            string methods = changed == 1 ? "1 method" : $"{changed} methods";
            string times = $"compare {Ms(CompareTime)} ms, apply {Ms(ApplyTime)} ms";
            text.Append(AssemblyName).Append(": ").Append(Outcome switch
            {
                ReloadOutcome.Applied => $"{methods} changed, applied in {Ms(CompareTime + ApplyTime)} ms ({times})",
                ReloadOutcome.NothingChanged => $"no method body changed (compare {Ms(CompareTime)} ms)",
                ReloadOutcome.Refused => $"refused, nothing changed (compare {Ms(CompareTime)} ms)",
                ReloadOutcome.Failed => $"failed, nothing of it was applied ({times})",
                _ => $"{methods} back to the original in {Ms(ApplyTime)} ms",
            });
            if (SideAssembly is not null)
                text.Append("; added members in ").Append(SideAssembly);
            foreach (MethodReload method in Methods)
            {
                text.AppendLine().Append("  ").Append(method.Member).Append(": ").Append(method.State switch
                {
                    MethodReloadState.Applied => method.Difference ?? "new body",
                    MethodReloadState.RestoredOriginal => "original body restored",
                    _ => "failed: " + (method.Detail ?? "unknown"),
                });
            }
            foreach (ReloadNotice notice in Notices)
                text.AppendLine().Append("  note: ").Append(notice.Message);
            foreach (ReloadRefusal refusal in Refusals)
                text.AppendLine().Append("  refused: ").Append(refusal.Message);
            return text.ToString();
        }
    }

    private static string Ms(TimeSpan time) =>
        time.TotalMilliseconds.ToString(time.TotalMilliseconds < 10 ? "0.#" : "0", CultureInfo.InvariantCulture);
}
