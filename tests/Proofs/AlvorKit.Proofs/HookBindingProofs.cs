using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.HookSteps;

namespace AlvorKit.Proofs;

/// <summary>
/// What hook parameters bind, in a real profiled process (the host's "hookbinding" mode, BindingProof, with
/// the BindingPatches of AlvorKit.Proofs.HookMod), under default tiering with PGO and with tiered compilation
/// off. Every assertion is on a value a patched method returned: ".before" is the original's, ".hooked" what the
/// hooks made of it through what they bound, ".removed" the original's again.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class HookBindingProofs
{
    private static HookReport Report(string tiering)
    {
        HookReport r = PatchReports.Get<HookReport>(tiering, "hookbinding");
        Assert.True(r.Unavailable is null, r.Unavailable);
        return r;
    }

    // (call, original, hooked)
    public static TheoryData<string, string, long, long> Cases
    {
        get
        {
            (string Call, long Original, long Hooked)[] cases =
            [
                // __originalMethod is the running instantiation (+1000 int, +2000 string; the open definition
                // would add 9000); BindingBag's field postfix adds 100 * (4 int, 3 string) + 10 * ___size.
                ("original.bagInt", 1, 1_411),
                ("original.bagString", 1, 2_311),
                ("original.pickInt", 1, 1_001),
                ("original.pickString", 1, 2_001),
                // ref ___hp += ___armor (base, protected) * 100; the postfix returns ___hp + 10 000 and counts the
                // call in ___population (a static field of the base, by ref): returned * 100 + population.
                ("field.class", 4_300, 1_034_301),
                // ref ___value of a struct receiver += 1000 before the original adds 1: returned * 100 000 + value.
                ("field.struct", 600_006, 100_601_006),
                // A static target's static field by ref: population 10 + 5, then + 1.
                ("field.static", 11, 16),
                // amount (renamed heal, ref) = 2 * 10 + bonus (by position); __instance (renamed self) hp + 1;
                // the postfix's plus (renamed on the method) is bonus: 1 + 23 + 3 + 3000.
                ("rename", 5, 3_027),
                // A List<int> __state read as IEnumerable<int>: 4 + 100 * (4 + 4).
                ("state.compatible", 4, 804),
                // An int __state read as object (boxed): 4 + 7000.
                ("state.boxed", 4, 7_004),
                // Hooks typed for one instantiation run there only; the object-typed one everywhere (+ 1).
                ("instantiation.int", 10, 7_012),          // + 7 * 1000 + 1 (the receiver as BindingBag<int>) + 1
                ("instantiation.string", 103, 4_000_114),  // item "abc!" (ref string): + 4 * 100 000 + 1; Last "abc!"
                ("instantiation.long", 10, 11),            // a value-type instantiation no typed hook names
                ("instantiation.object", 102, 112),        // shared code with BindingBag<string>, but not string
                // A target named as one instantiation binds its hooks to it (Harmony's rule), whatever they take:
                // [Patch(typeof(BindingBag<int>), "Tag")] + 100; Hook(BindingBag<string>.Tag) + 1000.
                ("given.int", 1, 101),
                ("given.string", 1, 1_001),
                ("given.long", 1, 1),
                ("given.object", 1, 1),                    // shares BindingBag<string>'s code, but is not string
                ("instantiation.measureString", 1, 41),    // Measure<string>: + 4 * 10
                ("instantiation.measureObject", 1, 1),     // Measure<object> shares its code: not string
                ("instantiation.measureInt", 1, 1),
                // __resultRef: the prefix skips the original for 9 and supplies the spare cell (77, not cell 3).
                ("resultRef.skip", 3, 77),
                // The postfix redirects cell 1 to cell 2: the caller's write lands in cell 2 (cell 2 * 1000 + cell 1).
                ("resultRef.redirect", 2_500, 500_001),
                // ref object __instance on a struct: the prefix's new boxed receiver (105) is the one doubled.
                ("refObject.instance", 1_000_010, 21_000_210),
                // ref object over a by-value and a by-ref int argument (4, 12: 48) and over the int result (+ 500):
                // returned * 1000 + total.
                ("refObject.values", 6_006, 548_048),
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
    public void BoundParametersChangeWhatTheHookedCallsReturn(string tiering, string call, long original, long hooked)
    {
        HookReport r = Report(tiering);
        Assert.Equal(original, Value(r, $"{call}.before"));
        Assert.Equal(hooked, Value(r, $"{call}.hooked"));
        Assert.Equal(original, Value(r, $"{call}.removed"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryBindingPatchClassWovenAndRemovedAndTheOriginalMethodNamesTheInstantiation(string tiering)
    {
        HookReport r = Report(tiering);
        Assert.DoesNotContain(r.Steps, s => s.Name.StartsWith("patchAll.", StringComparison.Ordinal));
        Assert.Equal(18, Value(r, "binding.woven"));
        Assert.DoesNotContain(r.Steps, s => s.Name.StartsWith("hook.", StringComparison.Ordinal));
        Assert.Equal(0, Value(r, "binding.patchesAfterRemoval"));
        // The last calls observed while hooked: BindingBag<string>.Add and Pick<string>.
        Assert.Equal("AlvorKit.Proofs.Host.BindingBag`1[System.String].Add", Step(r, "OriginalInstantiationPatch.last").Text);
        Assert.Equal("Int32 Pick[String](System.String)", Step(r, "OriginalGenericMethodPatch.last").Text);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMissingOrInaccessibleFieldIsRefusedBeforeAnythingIsWoven(string tiering)
    {
        HookReport r = Report(tiering);
        HookThrown missing = Step(r, "refused.MissingFieldPatch").Threw ?? throw new Xunit.Sdk.XunitException("not refused");
        Assert.Equal(("HookBindingException", "UnknownField", 0), (missing.Type, missing.Kind, missing.ParameterIndex));
        Assert.Contains("'_hp'", missing.Message, StringComparison.Ordinal);
        HookThrown hidden = Step(r, "refused.PrivateBaseFieldPatch").Threw ?? throw new Xunit.Sdk.XunitException("not refused");
        Assert.Equal(("HookBindingException", "InaccessibleField"), (hidden.Type, hidden.Kind));
        // The refused classes changed nothing: Hit returns what FieldPatch alone makes of it.
        Assert.Equal(1_034_301, Value(r, "field.class.hooked"));
    }
}
