using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks on a static constructor, an iterator's and an async method's MoveNext, a finalizer and an event's add
/// accessor (the host's "memberkinds" mode, MemberKindProof, with the MemberKindPatches of
/// AlvorKit.Proofs.HookMod), under default tiering with PGO and with tiered compilation off. Each value is the
/// original's own result * 1000 + what the hooks counted during the call.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class MemberKindProofs
{
    private static HookReport Report(string tiering)
    {
        HookReport r = PatchReports.Get<HookReport>(tiering, "memberkinds");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    public static TheoryData<string, string, long, long> Cases
    {
        get
        {
            (string Call, long Original, long Hooked)[] cases =
            [
                ("iterator", 6_000, 6_003),   // 1 + 2 + 3; the postfix counted the 3 steps that produced an item
                ("async", 42_000, 42_002),    // 21 * 2; the prefix ran at both steps of the state machine
                ("event", 3_000, 3_003),      // 3 handlers; the prefix ran at each add
            ];
            var data = new TheoryData<string, string, long, long>();
            foreach (string tiering in PatchReports.Tierings)
                foreach ((string call, long original, long hooked) in cases)
                    data.Add(tiering, call, original, hooked);
            return data;
        }
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void StateMachinesAndEventAccessorsRunTheirHooksAndNotAfterRemoval(string tiering, string call, long original,
        long hooked)
    {
        HookReport r = Report(tiering);
        Assert.Equal(original, Value(r, $"{call}.before"));
        Assert.Equal(hooked, Value(r, $"{call}.hooked"));
        Assert.Equal(original, Value(r, $"{call}.removed"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStaticConstructorHookedBeforeItRanRunsItsPrefixOnce(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.DoesNotContain(r.Steps, s => s.Name.StartsWith("patchAll.", StringComparison.Ordinal));
        Assert.Equal(5, Value(r, "memberKinds.woven"));
        // LateInitialized.Value (7, the original's assignment) * 1000 + one prefix run.
        Assert.Equal(7_001, Value(r, "staticConstructor.hooked"));
        Assert.Equal(0, Value(r, "memberKinds.patchesAfterRemoval"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AFinalizersPrefixRunsForEveryFinalizedObjectOnlyWhileHooked(string tiering)
    {
        HookReport r = Report(tiering);
        // finalized * 1000 + finalized through the hook: collection decides how many, the hook must see each.
        long before = Value(r, "finalizer.before"), hooked = Value(r, "finalizer.hooked"), removed = Value(r, "finalizer.removed");
        Assert.True(before >= 1000 && before % 1000 == 0, $"before: {before}");
        Assert.True(hooked >= 1000 && hooked % 1000 == hooked / 1000, $"hooked: {hooked}");
        Assert.True(removed >= 1000 && removed % 1000 == 0, $"removed: {removed}");
    }
}
