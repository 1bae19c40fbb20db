using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// Transpilers composed with hooks, and reverse patches (the host's "transpile" mode, TranspileProof, with the
/// transpilers, hooks and stubs of AlvorKit.Proofs.HookMod), under default tiering with PGO and with tiered
/// compilation off. Every assertion is on a value a patched method returned (or what it threw): before, while
/// patched and after each removal.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class TranspileProofs
{
    // A reverse patch patches its stub: the stubs' assemblies are patchable in this mode.
    private const string Modules = "AlvorKit.Proofs.Host;AlvorKit.Proofs.HookMod;AlvorKit.Proofs.Replacements";

    private static readonly ConcurrentDictionary<string, Lazy<HookReport>> Runs = new();

    public static TheoryData<string> Tierings => PatchReports.TieringModes;

    private static HookReport Report(string tiering)
    {
        HookReport r = Runs.GetOrAdd(tiering, t => new Lazy<HookReport>(() =>
        {
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(Modules), PatchReports.Tiering(t),
                TimeSpan.FromSeconds(120), "transpile");
            Assert.True(run.ExitCode == 0, run.ToString());
            return run.Report<HookReport>();
        })).Value;
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    private static void NoScenarioFailed(HookReport r) =>
        Assert.True(!r.Steps.Any(s => s.Name.EndsWith(".failed", StringComparison.Ordinal)),
            string.Join("\n", r.Steps.Where(s => s.Name.EndsWith(".failed", StringComparison.Ordinal))));

    [Theory]
    [MemberData(nameof(Tierings))]
    public void APatchClassTranspilerAloneEditsTheOriginalUntilRemoved(string tiering)
    {
        HookReport r = Report(tiering);
        NoScenarioFailed(r);
        Assert.Equal(15, Value(r, "constant.before"));
        Assert.Equal(1, Value(r, "constant.transpilers"));
        Assert.Equal(1005, Value(r, "constant.transpiled")); // x + 1000
        Assert.Equal(15, Value(r, "constant.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TranspilersOfSeveralOwnersRunInOrderAndHooksAreWovenAroundTheirResult(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(5, Value(r, "digits.before"));
        Assert.Equal(51, Value(r, "digits.one"));
        Assert.Equal(521, Value(r, "digits.oneTwo"));   // "digit two" is High: its edit runs first
        Assert.Equal(6219, Value(r, "digits.all"));     // prefix x + 1 before, postfix appends 9 after
        Assert.Equal(619, Value(r, "digits.twoLeft"));  // rewoven without "digit two"
        Assert.Equal(51, Value(r, "digits.hooksLeft"));
        Assert.Equal(5, Value(r, "digits.allLeft"));
        string description = Step(r, "digits.description").Text!;
        Assert.Contains("transpiler 1: TranspileEdits.AppendTwo", description, StringComparison.Ordinal);
        Assert.Contains("transpiler 2: TranspileEdits.AppendOne", description, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void ATranspilerUsesThePlansLocalsAndLabelsAndTheOriginal(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(-3, Value(r, "clamp.negative.before"));
        Assert.Equal(4, Value(r, "clamp.positive.before"));
        Assert.Equal(0, Value(r, "clamp.negative.transpiled"));
        Assert.Equal(4, Value(r, "clamp.positive.transpiled"));
        Assert.Equal(-3, Value(r, "clamp.negative.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AFailingTranspilerIsRefusedAndTheBodyInForceStays(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(6, Value(r, "refused.before"));
        Assert.Equal(1006, Value(r, "refused.hooked"));

        HookThrown throwing = Threw(r, "refused.throwing");
        Assert.Equal("TranspilerException", throwing.Type);
        Assert.Equal("InvalidOperationException", throwing.InnerType);
        Assert.Equal("Throwing", throwing.Hook);
        Assert.Contains("the pattern this transpiler looks for is not in the body", throwing.Message, StringComparison.Ordinal);
        Assert.Equal(1006, Value(r, "refused.afterThrowing"));

        HookThrown invalid = Threw(r, "refused.invalid");
        Assert.Equal("TranspilerException", invalid.Type);
        Assert.Contains("not a valid method body: control runs off its end", invalid.Message, StringComparison.Ordinal);
        Assert.Equal(1006, Value(r, "refused.afterInvalid"));

        Assert.Equal(0, Value(r, "refused.patchesKept"));
        Assert.Equal(0, Value(r, "refused.setsOfRefusedOwner"));
        Assert.Equal(6, Value(r, "refused.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AReversePatchedStubRunsTheOriginalsOwnBodyWithPrivateMembersUntilRemoved(string tiering)
    {
        HookReport r = Report(tiering);
        NoScenarioFailed(r);
        Assert.Equal(-1, Value(r, "reverse.worth.before"));
        Assert.Equal(-1, Value(r, "reverse.bonus.before"));
        Assert.Equal(706, Value(r, "reverse.original.before"));
        Assert.Equal("Worth", Step(r, "reverse.worth.target").Text);      // the patch is on the stub

        Assert.Equal(706, Value(r, "reverse.worth.patched"));             // private _gold * 100 + private Bonus(3)
        Assert.Equal(7006, Value(r, "reverse.worthTranspiled.patched"));  // the transpiler made the 100 a 1000
        Assert.Equal(6, Value(r, "reverse.bonus.patched"));               // a private original
        Assert.Equal(12, Value(r, "reverse.rate.patched"));               // a private static field

        Assert.Equal(5706, Value(r, "reverse.original.hooked"));          // the original's postfix adds 5000
        Assert.Equal(706, Value(r, "reverse.worth.whileOriginalHooked")); // the stub has the original's own body

        Assert.Equal(-1, Value(r, "reverse.worth.removed"));
        Assert.Equal(-1, Value(r, "reverse.worthTranspiled.removed"));
        Assert.Equal(-1, Value(r, "reverse.bonus.removed"));
        Assert.Equal(-1, Value(r, "reverse.rate.removed"));
        Assert.Equal(706, Value(r, "reverse.original.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AReversePatchIsRefusedWhenItsStubCannotBePatchedOrCannotAccessTheBody(string tiering)
    {
        HookReport r = Report(tiering);
        HookThrown module = Threw(r, "access.notPatchable");
        Assert.Equal("ReversePatchException", module.Type);
        Assert.Equal("StubModuleNotPatchable", module.Kind);
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES", module.Message, StringComparison.Ordinal);
        Assert.Contains("System.Private.CoreLib", module.Message, StringComparison.Ordinal);

        Assert.Equal(-1, Value(r, "access.stub.before"));
        HookThrown access = Threw(r, "access.inaccessible");
        Assert.Equal("ReversePatchException", access.Type);
        Assert.Equal("InaccessibleMember", access.Kind);
        Assert.Equal("RateFactor", access.Hook); // the member
        Assert.Contains("IgnoresAccessChecksTo(\"AlvorKit.Proofs.Host\")", access.Message, StringComparison.Ordinal);
        Assert.Equal(-1, Value(r, "access.stub.afterRefusal"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void CoreClrDeniesAStubWithoutIgnoresAccessChecksToThePrivateField(string tiering)
    {
        // Forced past the library's check, the same body in an assembly without the attribute throws when the
        // stub is called, while HookMod's stub (with it) returned 12: the attribute is what CoreCLR honours.
        HookReport r = Report(tiering);
        HookThrown forced = Threw(r, "access.stub.forced");
        Assert.Equal("FieldAccessException", forced.Type);
        Assert.Equal(12, Value(r, "reverse.rate.patched"));
        Assert.Equal(-1, Value(r, "access.stub.removed"));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void PatchAllAppliesAPatchClassesReversePatchStubsUntilItsOwnerLeaves(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.Equal(-1, Value(r, "reverseClass.worth.before"));
        Assert.Equal(0, Value(r, "reverseClass.wovenSets"));     // no hooks in the class: no woven set
        Assert.Equal(2, Value(r, "reverseClass.ownerPatches"));  // the two stubs' generations, held by the owner
        Assert.Equal(706, Value(r, "reverseClass.worth.patched"));
        Assert.Equal(7006, Value(r, "reverseClass.edited.patched"));
        Assert.Equal(-1, Value(r, "reverseClass.worth.removed"));
        Assert.Equal(-1, Value(r, "reverseClass.edited.removed"));
    }
}
