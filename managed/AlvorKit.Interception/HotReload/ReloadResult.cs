using System.Globalization;
using System.Text;

namespace AlvorKit.Interception.HotReload;

/// <summary>What one reload did as a whole.</summary>
public enum ReloadOutcome
{
    /// <summary>Every changed body runs from the target's next call (or went back to its original).</summary>
    Applied,

    /// <summary>The rebuild's bodies are the ones already running: nothing to do.</summary>
    NothingChanged,

    /// <summary>Refused before anything reached the profiler (rude edits, references the loaded
    /// module cannot take, an assembly that is not loaded or not patchable): nothing changed.</summary>
    Refused,

    /// <summary>The profiler refused or failed a body; the bodies of this reload already applied
    /// were rolled back, so the game runs what it ran before.</summary>
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

    /// <summary>It was applied in this reload, then rolled back because another method of the
    /// same reload failed.</summary>
    RolledBack,

    /// <summary>The profiler refused or failed its body (see the detail).</summary>
    Failed,
}

/// <summary>One method of a reload.</summary>
/// <param name="Member">The method, as people write it ("Game.World.Update()").</param>
/// <param name="State">What happened to it.</param>
/// <param name="Difference">The first difference from the body it ran before ("IL_0004: ldc.i4.1 → ldc.i4.2"), if known.</param>
/// <param name="Detail">For a failure: the status and what it was about.</param>
public sealed record MethodReload(string Member, MethodReloadState State, string? Difference = null, string? Detail = null);

/// <summary>Why a reload (or a method of it) was refused before anything was applied.</summary>
public enum ReloadRefusalReason
{
    /// <summary>A change to metadata a body replacement cannot carry (see <see cref="EditKind"/>).</summary>
    RudeEdit,

    /// <summary>A lambda, closure class or state machine of the rebuild has no counterpart of the
    /// same name and shape in the loaded assembly.</summary>
    GeneratedMemberDoesNotMap,

    /// <summary>No assembly of that name is loaded in this process.</summary>
    NotLoaded,

    /// <summary>The assembly is loaded but ALVORKIT_INTERCEPTION_MODULES does not allow patching it.</summary>
    NotAllowlisted,

    /// <summary>The file is not a .NET assembly, or not a rebuild of the loaded one.</summary>
    NotARebuild,

    /// <summary>A new body refers to something the loaded module cannot be given (such as an
    /// assembly it does not reference).</summary>
    UntranslatableReference,

    /// <summary>A new body needs more relocations, or is larger, than one generation carries.</summary>
    TooLarge,

    /// <summary>The profiler's validation refused a body before any was applied.</summary>
    ProfilerRefused,
}

/// <summary>One refusal.</summary>
/// <param name="Reason">Its kind.</param>
/// <param name="Member">The member it names ("Game.World.speed2"), or the assembly.</param>
/// <param name="Message">For people: what is refused and why.</param>
public sealed record ReloadRefusal(ReloadRefusalReason Reason, string Member, string Message);

/// <summary>What one <see cref="HotReloader.Apply"/> (or revert) did.</summary>
/// <param name="AssemblyName">The loaded assembly's simple name.</param>
/// <param name="RebuiltPath">The rebuilt file (null for a revert).</param>
/// <param name="Outcome">The reload as a whole.</param>
/// <param name="Methods">Every method whose running body this reload changed, tried to change, or rolled back.</param>
/// <param name="Refusals">Why it was refused (empty otherwise).</param>
/// <param name="CompareTime">Reading, comparing and translating the rebuild.</param>
/// <param name="ApplyTime">Validation, submission and the profiler's work until every body was requested.</param>
public sealed record ReloadResult(string AssemblyName, string? RebuiltPath, ReloadOutcome Outcome,
    IReadOnlyList<MethodReload> Methods, IReadOnlyList<ReloadRefusal> Refusals, TimeSpan CompareTime, TimeSpan ApplyTime)
{
    /// <summary>For the person watching: one line for the reload, then one per method or refusal.</summary>
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
                ReloadOutcome.NothingChanged => $"nothing changed (compare {Ms(CompareTime)} ms)",
                ReloadOutcome.Refused => $"refused, nothing changed (compare {Ms(CompareTime)} ms)",
                ReloadOutcome.Failed => $"failed, the bodies it ran before were put back ({times})",
                _ => $"{methods} back to the original in {Ms(ApplyTime)} ms",
            });
            foreach (MethodReload method in Methods)
            {
                text.AppendLine().Append("  ").Append(method.Member).Append(": ").Append(method.State switch
                {
                    MethodReloadState.Applied => method.Difference ?? "new body",
                    MethodReloadState.RestoredOriginal => "original body restored",
                    MethodReloadState.RolledBack => "rolled back (another method of this reload failed)",
                    _ => "failed: " + (method.Detail ?? "unknown"),
                });
            }
            foreach (ReloadRefusal refusal in Refusals)
                text.AppendLine().Append("  refused: ").Append(refusal.Message);
            return text.ToString();
        }
    }

    private static string Ms(TimeSpan time) =>
        time.TotalMilliseconds.ToString(time.TotalMilliseconds < 10 ? "0.#" : "0", CultureInfo.InvariantCulture);
}
