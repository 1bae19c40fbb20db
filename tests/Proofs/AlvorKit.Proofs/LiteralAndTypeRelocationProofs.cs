using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Relocations of names the module lacks, in a profiled process: a plan that loads a string literal
/// the module does not have (a USER_STRING relocation), a plan that instantiates a framework
/// generic method over a type the module never referenced (a TypeRef relocation that the
/// MethodSpec, a MemberRef signature and the locals signature name by class references), and a plan
/// whose catch clause catches an exception type new to the module (a CATCH_TYPE relocation) and
/// only that type; each returns what the new body computes, and Remove gives the original back.
/// Through the C ABI, class references that do not name an earlier TypeRef relocation are refused
/// with ALVK_E_RELOCATION_MALFORMED and change nothing.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
[Trait("Platform", "all")]
public sealed class LiteralAndTypeRelocationProofs
{
    private const uint UserStringTable = 0x70;

    private static LiteralTypeReport Report(string tiering) => PatchReports.Get<LiteralTypeReport>(tiering, "literaltyperelocations");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABrandNewStringLiteralIsLoaded(string tiering)
    {
        LiteralTypePlanStep r = Report(tiering).Literal;
        string json = ReportJson.Write(r);
        string expected = new(['A', 'B', 'I', ' ', '3', '.', '3', ' ', 'l', 'i', 't', 'e', 'r', 'a', 'l', ' ', '\u2713']);
        AssertPatched(r, "original literal", expected);
        ApiRelocation literal = Assert.Single(r.Generation!.Relocations);
        Assert.True(literal.Kind == "UserString" && literal.Table == UserStringTable && literal.HResult >= 0, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenericMethodIsInstantiatedOverATypeTheModuleNeverReferenced(string tiering)
    {
        LiteralTypePlanStep r = Report(tiering).Instantiation;
        string json = ReportJson.Write(r);
        AssertPatched(r, "original instantiation", "SortVersion[]True");
        IReadOnlyList<ApiRelocation> relocations = r.Generation!.Relocations;
        // One TypeRef for SortVersion, made for a signature and shared by every blob and parent that names it.
        ApiRelocation sortVersion = Assert.Single(relocations,
            x => x.Kind == "TypeRef" && x.Description.Contains(": TypeRef SortVersion", StringComparison.Ordinal));
        Assert.True(sortVersion.Table == GenerationProofs.TypeRef, json);
        Assert.True(sortVersion.Description.Contains("(in a signature)", StringComparison.Ordinal), json);
        Assert.Contains(relocations, x => x.Kind == "MethodSpec" && x.Description.Contains("Empty", StringComparison.Ordinal));
        Assert.Contains(relocations, x => x.Kind == "MemberRef" && x.Description.Contains("op_Equality", StringComparison.Ordinal));
        Assert.Contains(relocations, x => x.Kind == "StandAloneSignature" && x.Description.StartsWith("locals", StringComparison.Ordinal));
        Assert.Equal(relocations.Count, r.RelocationCount);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACatchClauseCatchesAnExceptionTypeNewToTheModule(string tiering)
    {
        LiteralTypeCatchStep r = Report(tiering).Catch;
        string json = ReportJson.Write(r);
        AssertPatched(r.Plan, "original guarded", "CultureNotFoundException");
        // Only that type: another exception goes through the clause to the caller.
        Assert.True(r.OtherOriginal == "original other", json);
        Assert.True(r.OtherPatched == "InvalidOperationException", json);
        // The clause's class token is a relocation (the TypeRef the constructor's MemberRef also
        // has as parent, now filling the clause), not a token the module had.
        Assert.True(r.Plan.Generation!.Relocations.Count(x => x.Kind == "TypeRef" && x.Table == GenerationProofs.TypeRef &&
                                                              x.Description.StartsWith("catch CultureNotFoundException: TypeRef",
                                                                  StringComparison.Ordinal)) == 1, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABadClassReferenceIsRefusedAndChangesNothing(string tiering)
    {
        LiteralTypeRefusalReport r = Report(tiering).Refusal;
        string json = ReportJson.Write(r);
        Assert.Equal(6, r.Original);
        GenerationProofs.AssertApplied(r.First, 105, prior: 0);
        foreach ((string name, uint failing) in new[] { ("forward", 0u), ("itself", 1u), ("typeSpec", 2u), ("rowZero", 1u) })
        {
            Assert.True(r.Refusals.TryGetValue(name, out LiteralTypeRefusal? refusal), json);
            Assert.True(refusal.DryRun == "RelocationMalformed" && refusal.FailingIndex == failing,
                $"{name}: the dry run names relocation {failing}: {json}");
            Assert.True(refusal.Sync == "RelocationMalformed" && refusal.Generation == 0, $"{name}: {json}");
        }
        Assert.True(r.ControlDryRun == "Ok", $"the same reference to an earlier TypeRef is valid: {json}");
        foreach (int call in r.CallsAfter)
            Assert.True(call == 105, $"the first generation keeps running: {json}");
        Assert.True(r.FirstAfter.State == "Active", json);
        TelemetryReport before = r.TelemetryBefore, after = r.TelemetryAfter;
        Assert.True(before.State == after.State && before.RejitStarted == after.RejitStarted &&
                    before.GetReJITParameters == after.GetReJITParameters && before.OwnerCount == after.OwnerCount,
            $"nothing was requested: {json}");
        GenerationProofs.AssertRemoved(r.Remove, 6);
    }

    private static void AssertPatched(LiteralTypePlanStep r, string original, string expected)
    {
        string json = ReportJson.Write(r);
        Assert.True(r.Threw is null, $"Apply threw: {json}");
        Assert.True(r.Original == original, json);
        Assert.True(r.Patched is { Ok: true } && r.Patched.Actual == expected, $"the patched target returns {expected}: {json}");
        Assert.True(r.Generation is { State: "Active" }, $"the generation is active: {json}");
        Assert.True(r.Removed is { Ok: true } && r.Removed.Actual == original, $"remove restores {original}: {json}");
    }
}
