using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Method generations in a profiled process: complete IL bodies whose metadata comes through
/// relocations of every kind (StandAloneSig, TypeSpec, MemberRef, MethodSpec, TypeRef, the
/// locals signature) replace their targets, chain generation to generation reusing the
/// tokens they emitted, reach generic targets for value and reference instantiations, and
/// give the original back on removal.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
[Trait("Platform", "all")]
public sealed class GenerationProofs
{
    public const uint StandAloneSig = 0x11, TypeSpec = 0x1B, MemberRef = 0x0A, MethodSpec = 0x2B, TypeRef = 0x01;

    // SetILInstrumentedCodeMap without a debugger attached may refuse; that is reported, not fatal.
    private const int DebuggingDisabled = unchecked((int)0x80131380);

    private static GenerationsReport Report(string tiering) => PatchReports.Get<GenerationsReport>(tiering, "generations");

    public static TheoryData<string, string> GenericTargets => PatchReports.WithTierings(["pick", "first"]);

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void UnmanagedCalliReachesLibcAndTheNextGenerationReusesItsSignature(string tiering)
    {
        CalliReport r = Report(tiering).Calli;
        Assert.Equal(-5, r.Original);
        GenerationStep<int> first = r.First, second = r.Second;
        GenerationResultReport firstResult = AssertApplied(first, 5, prior: 0);
        uint[] firstTokens = AssertRelocations(firstResult, [("StandAloneSig", StandAloneSig)]);
        int ilMap = firstResult.ILMapHResult;
        Assert.True(ilMap is 0 or DebuggingDisabled, $"ilMapHResult 0x{ilMap:X8}: {firstResult}");

        GenerationResultReport secondResult = AssertApplied(second, 6, prior: first.Generation);
        Assert.True(r.SameHandle, $"{r}");
        AssertReused(secondResult, firstTokens);
        Assert.Equal("Superseded", r.FirstAfterSecond.State);

        AssertRemoved(r.Remove, -5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FourKindsOfRelocationInOneBody(string tiering)
    {
        FourKindsReport r = Report(tiering).FourKinds;
        Assert.Equal(7, r.Original);
        // The explicit implementation of IGenScaler.Scale(in int): DEFAULT, 1 param, I4,
        // CMOD_REQD <InAttribute> BYREF I4.
        Assert.StartsWith("0001081F", r.ScaleSignature);
        Assert.EndsWith("1008", r.ScaleSignature);

        GenerationStep<int> first = r.First, second = r.Second;
        uint[] tokens = AssertRelocations(AssertApplied(first, 42, prior: 0),
        [
            ("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef),
            ("MethodSpec", MethodSpec), ("MemberRef", MemberRef),
        ]);
        Assert.Equal(tokens.Length, tokens.Distinct().Count());

        AssertReused(AssertApplied(second, 43, prior: first.Generation), tokens);

        AssertRemoved(r.Remove, 7);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ATypeRefIntoAnotherAssemblyParentsAMemberRef(string tiering)
    {
        CrossModuleReport r = Report(tiering).CrossModule;
        Assert.Equal(-9, r.Original);
        Assert.Equal(0x23u, r.AssemblyRef >> 24);
        AssertRelocations(AssertApplied(r.First, 9, prior: 0), [("TypeRef", TypeRef), ("MemberRef", MemberRef)]);
        AssertRemoved(r.Remove, -9);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FieldMemberRefsOfEveryAccessKindExecute(string tiering)
    {
        SingleGeneration r = Report(tiering).Fields;
        Assert.Equal(4, r.Original);
        AssertRelocations(AssertApplied(r.First, 13, prior: 0), [("TypeSpec", TypeSpec), ("MemberRef", MemberRef),
            ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef)]);
        AssertRemoved(r.Remove, 4);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenericMemberRefIsInstantiatedByAMethodSpec(string tiering)
    {
        GenerationsReport report = Report(tiering);
        MvarReport r = report.Mvar;
        Assert.Equal("none", r.Original);
        // GENERIC | HASTHIS, one generic parameter, one parameter, returning MVAR 0.
        Assert.StartsWith("3001011E00", r.MapSignature);
        GenerationResultReport result = AssertApplied(r.First, "n5", prior: 0);
        uint[] tokens = AssertRelocations(result,
            [("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MethodSpec", MethodSpec)]);

        // GenBox<int> and its constructor were emitted for another target of this module
        // epoch (fourKinds): the same tokens, reused.
        IReadOnlyList<RelocationResultReport> mine = result.Relocations;
        uint[] kinds = AssertRelocations(report.FourKinds.First.GenerationResult
            ?? throw new Xunit.Sdk.XunitException($"no generation result: {report.FourKinds.First}"),
        [
            ("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef),
            ("MethodSpec", MethodSpec), ("MemberRef", MemberRef),
        ]);
        Assert.Equal(kinds[0], tokens[0]);
        Assert.Equal(kinds[2], tokens[1]);
        Assert.True(mine[0].Reused == 1 && mine[1].Reused == 1, string.Join(", ", mine));
        Assert.True(mine[2].Reused == 0 && mine[3].Reused == 0, string.Join(", ", mine));

        AssertRemoved(r.Remove, "none");
    }

    [Theory]
    [MemberData(nameof(GenericTargets))]
    public void GenericTargetsChangeForValueAndReferenceInstantiations(string target, string tiering)
    {
        GenericTargetReport r = Report(tiering).GenericTargets[target];
        GenericReplace replace = r.Replace;
        Assert.True(replace.Sync == "Ok" && replace.Wait == "GenericTargetUnsupported" && replace.Result == "2|b",
            $"a replace on a generic target: {replace}");
        Assert.Equal("1|a", r.Original);
        Assert.Equal(target == "pick" ? "Generic" : "HasThis, DeclaringTypeGeneric", r.Flags);
        AssertRelocations(AssertApplied(r.First, "2|b", prior: 0), []);
        AssertRemoved(r.Remove, "1|a");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void LocalsComeThroughTheHeaderRelocation(string tiering)
    {
        SingleGeneration r = Report(tiering).Locals;
        Assert.Equal(21, r.Original);
        AssertRelocations(AssertApplied(r.First, 42, prior: 0), [("StandAloneSig", StandAloneSig)]);
        AssertRemoved(r.Remove, 21);
    }

    // The step of a generation that was accepted, requested and compiled: the target
    // returned `expected` on the first call after the wait, and the result says Active.
    // Returns the generation's result.
    internal static GenerationResultReport AssertApplied<T>(GenerationStep<T> step, T expected, ulong prior)
    {
        string json = ReportJson.Write(step);
        Assert.True(step.Sync == "Ok", $"sync status in {json}");
        Assert.True(step.Wait == "Ok", $"wait status in {json}");
        Assert.True(step.HandleNonZero, json);
        Assert.True(step.Generation > prior, $"generation ids increase: {json}");
        AssertVisibleAtOnce(step.Result ?? throw new Xunit.Sdk.XunitException($"no result: {json}"), expected);

        GenerationResultReport g = step.GenerationResult ?? throw new Xunit.Sdk.XunitException($"no generation result: {json}");
        json = ReportJson.Write(g);
        Assert.True(g.Call == "Ok", json);
        Assert.True(g.State == "Active", $"state: {json}");
        Assert.True(g.Status == "Ok", $"status: {json}");
        Assert.Equal(step.Generation, g.Generation);
        Assert.True(g.PriorGeneration == prior, $"priorGeneration {prior}: {json}");
        Assert.True(g.MetadataHResult >= 0, $"metadataHResult: {json}");
        Assert.True(g.CompilationHResult >= 0, $"compilationHResult: {json}");
        Assert.True(g.ElapsedNs > 0, $"elapsedNs: {json}");

        TelemetryReport t = step.Telemetry ?? throw new Xunit.Sdk.XunitException($"no telemetry: {json}");
        json = $"{t}";
        Assert.True(t.State == "Active" && t.LastStatus == "Ok", json);
        Assert.True(t.PendingCommands == 0 && t.RejitErrors == 0, json);
        foreach ((string name, int hr) in new[]
                 {
                     ("requestHResult", t.RequestHResult), ("setILHResult", t.SetILHResult),
                     ("compilationHResult", t.CompilationHResult), ("errorHResult", t.ErrorHResult),
                     ("metadataHResult", t.MetadataHResult),
                 })
            Assert.True(hr >= 0, $"{name}: {json}");
        return g;
    }

    // Relocation results in order: their kinds and token tables; the tokens.
    internal static uint[] AssertRelocations(GenerationResultReport result, (string Kind, uint Table)[] expected)
    {
        string json = ReportJson.Write(result);
        IReadOnlyList<RelocationResultReport> relocations = result.Relocations;
        Assert.True(result.RelocationCount == expected.Length, $"relocationCount: {json}");
        Assert.True(relocations.Count == expected.Length, json);
        var tokens = new uint[expected.Length];
        for (int i = 0; i < expected.Length; i++)
        {
            RelocationResultReport r = relocations[i];
            Assert.True(r.Size == 20, $"relocation {i} size: {json}");
            Assert.True(r.Kind == expected[i].Kind, $"relocation {i}: expected {expected[i].Kind}: {json}");
            tokens[i] = r.Token;
            Assert.True(tokens[i] >> 24 == expected[i].Table && (tokens[i] & 0xFFFFFF) != 0,
                $"relocation {i}: token 0x{tokens[i]:X8} is not a {expected[i].Kind} (0x{expected[i].Table:X2}): {json}");
            Assert.True(r.HResult >= 0, $"relocation {i} hresult: {json}");
        }
        return tokens;
    }

    // Every relocation of a later generation with the same inputs: the same token, reused.
    internal static void AssertReused(GenerationResultReport result, uint[] tokens)
    {
        string json = ReportJson.Write(result);
        IReadOnlyList<RelocationResultReport> relocations = result.Relocations;
        Assert.True(relocations.Count == tokens.Length, json);
        for (int i = 0; i < tokens.Length; i++)
        {
            RelocationResultReport r = relocations[i];
            Assert.True(r.Token == tokens[i], $"relocation {i}: expected 0x{tokens[i]:X8}: {json}");
            Assert.True(r.Reused == 1, $"relocation {i} not reused: {json}");
            Assert.True(r.HResult == 0, $"relocation {i} hresult: {json}");
        }
    }

    // The last owner's removal: the original on the first call, the last generation superseded.
    internal static void AssertRemoved<T>(RemoveStep<T> step, T original)
    {
        PatchReports.AssertCommand(step.Command);
        AssertVisibleAtOnce(step.Result, original);
        Assert.True(step.LastGeneration.State == "Superseded", ReportJson.Write(step));
        Assert.True(step.Telemetry.State == "Removed", ReportJson.Write(step));
        Assert.Equal(0u, step.Telemetry.OwnerCount);
    }

    internal static void AssertVisibleAtOnce<T>(Polled<T> poll, T expected) => PatchReports.AssertVisibleAtOnce(poll, expected);
}
