using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// Prefixes, postfixes and finalizers woven around original bodies (the host's "hooks" mode,
/// HookProof, with the patch classes of AlvorKit.Proofs.HookMod), under default tiering with
/// PGO and with tiered compilation off. Every assertion is on a value a patched method returned
/// (or threw) before, while and after it was hooked; each ".before" value is the original's and
/// each ".removed" one must equal it.
/// </summary>
[Trait("Feature", "Hooks")]
[Trait("Sanitized", "yes")]
public sealed class HookProofs
{
    private static HookReport Report(string tiering)
    {
        HookReport r = PatchReports.Get<HookReport>(tiering, "hooks");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    // (call, original, hooked): every single-owner scenario's observed call.
    public static TheoryData<string, string, long, long> ValueCases
    {
        get
        {
            (string Call, long Original, long Hooked)[] cases =
            [
                ("twice.run", 8, 8),                   // the prefix returned true: the original ran
                ("twice.skip", -6, -101),              // false: skipped, __result -100 (the later ref __result prefix skipped), postfix saw !__runOriginal
                ("plus", 5, 500),                      // postfix read 5 and multiplied it
                ("passThrough", 5, 3005),              // pass-through postfix: result + x * 1000 (calli, non-public)
                ("state", 6, 20),                      // __state 2 * 7 from prefix to postfix
                ("refArgument", 2_002_004, 41_041_082), // the prefix set ref x = 40: returned 41, x 41, out 82
                ("args", 12, 19),                      // __args[1] = 9
                ("refReturn", 2_002, 52_052),          // postfix wrote through the returned reference
                ("guarded.try", 6, 1_006),             // return inside try, finally ran, postfix after it
                ("guarded.catch", -1, 999),            // return inside catch
                ("observed.success", 0, 0),
                ("swallowed.success", 0, 0),
                ("swallowed.throw", long.MinValue, -42), // swallowed: the finalizer's __result
                ("replaced.success", 0, 0),
                ("classInstance", 3, 103),             // prefix set __instance.Bonus = 100
                ("structInstance", 12_004, 30_010),    // ref __instance: X = 10 seen by the original and kept
                ("genericMethod.string", 3, 1_003),    // CountOf<string>: a shared instantiation
                ("genericMethod.int", 2, 1_002),       // CountOf<int>: a value-type instantiation
                ("genericType.string", 1, 501),        // HookList<string>.Count
                ("genericType.int", 2, 502),           // HookList<int>.Count
            ];
            var data = new TheoryData<string, string, long, long>();
            foreach (string tiering in PatchReports.Tierings)
                foreach ((string call, long original, long hooked) in cases)
                    data.Add(tiering, call, original, hooked);
            return data;
        }
    }

    [Theory]
    [MemberData(nameof(ValueCases))]
    public void HookedCallsReturnWhatTheHooksMadeAndTheOriginalAfterRemoval(string tiering, string call, long original, long hooked)
    {
        HookReport r = Report(tiering);
        Assert.DoesNotContain(r.Steps, s => s.Name.StartsWith("patchAll.", StringComparison.Ordinal));
        if (original == long.MinValue)
            Assert.Equal("InvalidOperationException", Threw(r, $"{call}.before").Type);
        else
            Assert.Equal(original, Value(r, $"{call}.before"));
        Assert.Equal(hooked, Value(r, $"{call}.hooked"));
        if (original == long.MinValue)
            Assert.Equal("InvalidOperationException", Threw(r, $"{call}.removed").Type);
        else
            Assert.Equal(original, Value(r, $"{call}.removed"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheOriginalStillRunsUnderTheHooks(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(17, Value(r, "values.woven"));
        Assert.Equal(1, Value(r, "twice.hookedRuns"));          // run, not skip
        // Harmony's prefix rule: the observing prefix ran on both calls; the affecting one was
        // skipped after the false (twice.skip stays -101, not 899).
        Assert.Equal(2, Value(r, "twice.observingPrefixRuns"));
        Assert.Equal(5, Value(r, "plus.seen"));                 // the postfix read the original's result
        Assert.Equal(2, Value(r, "guarded.hookedFinallies"));    // both calls ran the original's finally
        Assert.Equal(1, Value(r, "classInstance.hookedCalls"));
        Assert.Equal(0, Value(r, "values.patchesAfterRemoval"));  // the owner's removal released every woven body
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FinalizersObserveSwallowAndReplace(string tiering)
    {
        HookReport r = Report(tiering);
        // Observed: the same exception, rethrown with its own stack: its top frame stays the helper that threw
        // it (a `throw` in the woven body would reset it to ThrowsObserved), as before hooking.
        HookThrown before = Threw(r, "observed.throw.before"), hooked = Threw(r, "observed.throw.hooked");
        Assert.Equal(("InvalidOperationException", "observed 5"), (hooked.Type, hooked.Message));
        Assert.Contains("HookTargets.FailObserved", before.TopFrame, StringComparison.Ordinal);
        Assert.Contains("HookTargets.FailObserved", hooked.TopFrame, StringComparison.Ordinal);
        Assert.Equal(before.TopFrame, hooked.TopFrame);
        Assert.Equal(1, Value(r, "observed.observed"));
        Assert.Equal(1, Value(r, "observed.successes"));        // it ran on success too, __exception null
        Assert.Equal("InvalidOperationException", Threw(r, "observed.throw.removed").Type);

        // Replaced: another exception, carrying the original as its inner one.
        HookThrown replaced = Threw(r, "replaced.throw.hooked");
        Assert.Equal(("ArgumentException", "InvalidOperationException"), (replaced.Type, replaced.InnerType));
        Assert.StartsWith("replaced by the finalizer", replaced.Message, StringComparison.Ordinal);
        HookThrown replacedBefore = Threw(r, "replaced.throw.before"), replacedAfter = Threw(r, "replaced.throw.removed");
        Assert.Equal(("InvalidOperationException", "replaced 5"), (replacedBefore.Type, replacedBefore.Message));
        Assert.Equal(("InvalidOperationException", "replaced 5"), (replacedAfter.Type, replacedAfter.Message));
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheInliningCallerIsUpdatedWithoutBeingPatched(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(15, Value(r, "inlining.before"));
        Assert.Equal(515, Value(r, "inlining.hooked"));
        Assert.Equal("1 calls", Step(r, "inlining.hooked").Text);
        // HotCaller had inlined Small: the hook's ReJIT re-JITted it too.
        Assert.True(Value(r, "inlining.inlinersRejitted") >= 1, $"inliners re-JITted: {Value(r, "inlining.inlinersRejitted")}");
        Assert.Equal(15, Value(r, "inlining.removed"));
        Assert.Equal("1 calls", Step(r, "inlining.removed").Text);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void OwnersComposeInPriorityAndBeforeOrderAndLeaveOneByOne(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Null(r.Steps.FirstOrDefault(s => s.Name == "composed.failed")?.Threw);
        // Each postfix appends its digit: the value spells the order the owners' hooks ran in.
        Assert.Equal(5, Value(r, "composed.before"));
        Assert.Equal(51, Value(r, "composed.alpha"));
        Assert.Equal(521, Value(r, "composed.alphaBeta"));     // beta (High) before alpha, installed earlier
        Assert.Equal(5_231, Value(r, "composed.all"));         // gamma [PatchBefore("alpha")] between them
        Assert.Equal(523, Value(r, "composed.alphaLeft"));     // recomposed: alpha's hook gone, the others run
        Assert.Equal(53, Value(r, "composed.betaLeft"));
        Assert.Equal(5, Value(r, "composed.allLeft"));         // the last removal: the original
        string description = Step(r, "composed.description").Text!;
        int b = description.IndexOf("beta", StringComparison.Ordinal), g = description.IndexOf("gamma", StringComparison.Ordinal),
            a = description.IndexOf("alpha", StringComparison.Ordinal);
        Assert.True(b >= 0 && b < g && g < a, description);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AWholeBodyReplacementSetAfterTheHooksWinsUntilItLeaves(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Null(r.Steps.FirstOrDefault(s => s.Name == "wholeBody.failed")?.Threw);
        Assert.Equal(8, Value(r, "wholeBody.before"));
        Assert.Equal(80, Value(r, "wholeBody.hooked"));
        Assert.Equal(1_007, Value(r, "wholeBody.installed"));
        Assert.Equal(80, Value(r, "wholeBody.installRemoved"));
        Assert.Equal(8, Value(r, "wholeBody.hooksRemoved"));
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PatchAllAppliesTenTargetsInOneBatchOrNone(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(55, Value(r, "batch.before"));

        // One binding cannot be made (Wide's long x for an int x): the whole class is refused.
        HookThrown refused = Threw(r, "batch.refused");
        Assert.Equal("HookBindingException", refused.Type);
        Assert.Equal("Wide", refused.Target);
        Assert.Equal(0, refused.ParameterIndex);
        Assert.Equal("Prefix", refused.Hook);
        Assert.Equal(55, Value(r, "batch.afterRefusal"));
        Assert.Equal(11, Value(r, "batch.wideAfterRefusal"));
        Assert.Equal(Value(r, "batch.patchesBeforeRefusal"), Value(r, "batch.patchesAfterRefusal")); // nothing held

        Assert.Null(r.Steps.FirstOrDefault(s => s.Name == "batch.failed")?.Threw);
        Assert.Equal(10, Value(r, "batch.applied"));
        Assert.Equal(10, Value(r, "batch.installed"));
        Assert.Equal(10, Value(r, "batch.distinctTargets"));
        // The worker's commands during PatchAll: each target described once (a describe is a worker command),
        // then the ten woven bodies in ONE submission; ten Applies would take twenty (a describe and a submit each).
        Assert.Equal(10 + 1, Value(r, "batch.commands"));
        for (int k = 0; k < 10; k++)
            Assert.Equal(1 + k + 1_000, Value(r, $"batch.T{k}"));
        Assert.Equal(55, Value(r, "batch.removed"));
        Assert.Equal(0, r.PatchesLeft);
    }
}
