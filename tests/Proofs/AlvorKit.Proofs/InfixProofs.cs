using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// Inner prefixes and postfixes (infixes) around calls inside a target (the host's "infix" mode, InfixProof, with
/// the inner hooks of AlvorKit.Proofs.HookMod), under default tiering with PGO and with tiered compilation off.
/// Every assertion is on a value the hooked target returned: InfixTargets.Twice(2) = Scale(2) + Scale(3) = 20 + 30
/// = 50 and InfixTargets.Sum(5) = Add(5) + Add(1) = 105 + 101 = 206 unhooked, so each value says which call an inner
/// hook changed and how.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class InfixProofs
{
    private const long Original = 50;

    public static TheoryData<string> Tierings => PatchReports.TieringModes;

    private static HookReport Report(string tiering)
    {
        HookReport r = PatchReports.Get<HookReport>(tiering, "infix");
        Assert.True(r.Unavailable is null, r.Unavailable);
        Assert.True(!r.Steps.Any(s => s.Name.EndsWith(".failed", StringComparison.Ordinal)),
            string.Join("\n", r.Steps.Where(s => s.Name.EndsWith(".failed", StringComparison.Ordinal))));
        return r;
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnInnerPrefixChangesTheArgumentOfTheChosenCallOnlyUntilRemoved(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(Original, Value(r, "before"));
        Assert.Equal(1020 + 30, Value(r, "argument.hooked")); // Scale(2 + 100) + Scale(3): the second call untouched
        Assert.Equal(Original, Value(r, "argument.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AFalseInnerPrefixSkipsTheLastCallWithTheResultItSet(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(20 + 7, Value(r, "skip.hooked")); // Scale(3) skipped, 7 in its place
        Assert.Equal(Original, Value(r, "skip.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnInnerPostfixChangesTheResultOfTheChosenCallOrOfEveryCall(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(20 + 31, Value(r, "result.hooked")); // the second call only
        Assert.Equal(Original, Value(r, "result.removed"));
        Assert.Equal(21 + 31, Value(r, "every.hooked")); // occurrence 0: both calls
        Assert.Equal(Original, Value(r, "every.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnInnerPostfixSeesTheCallsReceiverAndArguments(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(105 + 101, Value(r, "receiver.before"));
        Assert.Equal(100 * 1000 + 5 + 101, Value(r, "receiver.hooked")); // Base * 1000 + x for the first call
        Assert.Equal(105 + 101, Value(r, "receiver.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void APatchClassInnerPrefixAttributeHooksTheNamedOccurrence(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(1, Value(r, "patchClass.innerPrefixes"));
        Assert.Equal(20 + 0, Value(r, "patchClass.hooked")); // Scale(0) for the second call
        Assert.Equal(Original, Value(r, "patchClass.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void InnerAndOuterHooksOfTwoOwnersComposeAndEachRemovalReweavesTheRest(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(1050, Value(r, "composed.inner"));
        Assert.Equal(2050, Value(r, "composed.both"));
        Assert.Equal(1050, Value(r, "composed.innerLeft")); // 50 + the outer postfix's 1000
        Assert.Equal(Original, Value(r, "composed.allLeft"));
        Assert.Contains("inner prefix (call 1 of InfixTargets.Scale", Step(r, "composed.description").Text, StringComparison.Ordinal);
        Assert.Equal(0, r.PatchesLeft);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnOccurrenceTheTargetDoesNotHaveIsRefusedAndTheBodyStays(string tiering)
    {
        HookReport r = Report(tiering);
        HookThrown thrown = Step(r, "refused.thrown").Threw ?? throw new Xunit.Sdk.XunitException("not refused");
        Assert.Equal("HookBindingException", thrown.Type);
        Assert.Equal("InnerCall", thrown.Kind);
        Assert.Contains("calls it 2 time(s)", thrown.Message, StringComparison.Ordinal);
        Assert.Equal(Original, Value(r, "refused.after"));
    }
}
