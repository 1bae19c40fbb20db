using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Method generations in a profiled process: complete IL bodies whose metadata comes through
/// relocations of every kind (StandAloneSig, TypeSpec, MemberRef, MethodSpec, TypeRef, the
/// locals signature) replace their targets, chain generation to generation reusing the
/// tokens they emitted, reach generic targets for value and reference instantiations, and
/// give the original back on removal.
/// </summary>
public sealed class GenerationProofs
{
    public const uint StandAloneSig = 0x11, TypeSpec = 0x1B, MemberRef = 0x0A, MethodSpec = 0x2B, TypeRef = 0x01;

    // SetILInstrumentedCodeMap without a debugger attached may refuse; that is reported, not fatal.
    private const int DebuggingDisabled = unchecked((int)0x80131380);

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "generations");

    public static TheoryData<string, string> GenericTargets => PatchReports.WithTierings(["pick", "first"]);

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void UnmanagedCalliReachesLibcAndTheNextGenerationReusesItsSignature(string tiering)
    {
        JsonNode r = Report(tiering)["calli"]!;
        Assert.Equal(-5, r.Value<int>("original"));
        JsonNode first = r["first"]!, second = r["second"]!;
        AssertApplied(first, 5, prior: 0);
        uint[] firstTokens = AssertRelocations(first["generationResult"]!, [("StandAloneSig", StandAloneSig)]);
        int ilMap = first["generationResult"]!.Value<int>("ilMapHResult");
        Assert.True(ilMap is 0 or DebuggingDisabled, $"ilMapHResult 0x{ilMap:X8}: {first.ToJsonString()}");

        AssertApplied(second, 6, prior: first.Value<ulong>("generation"));
        Assert.True(r.Value<bool>("sameHandle"), r.ToJsonString());
        AssertReused(second["generationResult"]!, firstTokens);
        Assert.Equal("Superseded", r["firstAfterSecond"]!.Text("state"));

        AssertRemoved(r["remove"]!, -5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FourKindsOfRelocationInOneBody(string tiering)
    {
        JsonNode r = Report(tiering)["fourKinds"]!;
        Assert.Equal(7, r.Value<int>("original"));
        // The explicit implementation of IGenScaler.Scale(in int): DEFAULT, 1 param, I4,
        // CMOD_REQD <InAttribute> BYREF I4.
        Assert.StartsWith("0001081F", r.Text("scaleSignature"));
        Assert.EndsWith("1008", r.Text("scaleSignature"));

        JsonNode first = r["first"]!, second = r["second"]!;
        AssertApplied(first, 42, prior: 0);
        uint[] tokens = AssertRelocations(first["generationResult"]!,
        [
            ("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef),
            ("MethodSpec", MethodSpec), ("MemberRef", MemberRef),
        ]);
        Assert.Equal(tokens.Length, tokens.Distinct().Count());

        AssertApplied(second, 43, prior: first.Value<ulong>("generation"));
        AssertReused(second["generationResult"]!, tokens);

        AssertRemoved(r["remove"]!, 7);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ATypeRefIntoAnotherAssemblyParentsAMemberRef(string tiering)
    {
        JsonNode r = Report(tiering)["crossModule"]!;
        Assert.Equal(-9, r.Value<int>("original"));
        Assert.Equal(0x23u, r.Value<uint>("assemblyRef") >> 24);
        AssertApplied(r["first"]!, 9, prior: 0);
        AssertRelocations(r["first"]!["generationResult"]!, [("TypeRef", TypeRef), ("MemberRef", MemberRef)]);
        AssertRemoved(r["remove"]!, -9);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FieldMemberRefsOfEveryAccessKindExecute(string tiering)
    {
        JsonNode r = Report(tiering)["fields"]!;
        Assert.Equal(4, r.Value<int>("original"));
        AssertApplied(r["first"]!, 13, prior: 0);
        AssertRelocations(r["first"]!["generationResult"]!, [("TypeSpec", TypeSpec), ("MemberRef", MemberRef),
            ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef)]);
        AssertRemoved(r["remove"]!, 4);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenericMemberRefIsInstantiatedByAMethodSpec(string tiering)
    {
        JsonObject report = Report(tiering);
        JsonNode r = report["mvar"]!;
        Assert.Equal("none", r.Text("original"));
        // GENERIC | HASTHIS, one generic parameter, one parameter, returning MVAR 0.
        Assert.StartsWith("3001011E00", r.Text("mapSignature"));
        AssertApplied(r["first"]!, "n5", prior: 0);
        uint[] tokens = AssertRelocations(r["first"]!["generationResult"]!,
            [("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MethodSpec", MethodSpec)]);

        // GenBox<int> and its constructor were emitted for another target of this module
        // epoch (fourKinds): the same tokens, reused.
        JsonArray mine = r["first"]!["generationResult"]!["relocations"]!.AsArray();
        uint[] kinds = AssertRelocations(report["fourKinds"]!["first"]!["generationResult"]!,
        [
            ("TypeSpec", TypeSpec), ("MemberRef", MemberRef), ("MemberRef", MemberRef), ("MemberRef", MemberRef),
            ("MethodSpec", MethodSpec), ("MemberRef", MemberRef),
        ]);
        Assert.Equal(kinds[0], tokens[0]);
        Assert.Equal(kinds[2], tokens[1]);
        Assert.True(mine[0]!.Value<uint>("reused") == 1 && mine[1]!.Value<uint>("reused") == 1, mine.ToJsonString());
        Assert.True(mine[2]!.Value<uint>("reused") == 0 && mine[3]!.Value<uint>("reused") == 0, mine.ToJsonString());

        AssertRemoved(r["remove"]!, "none");
    }

    [Theory]
    [MemberData(nameof(GenericTargets))]
    public void GenericTargetsChangeForValueAndReferenceInstantiations(string target, string tiering)
    {
        JsonNode r = Report(tiering)["genericTargets"]![target]!;
        JsonNode replace = r["replace"]!;
        Assert.True(replace.Text("sync") == "Ok" && replace.Text("wait") == "GenericTargetUnsupported"
            && replace.Text("result") == "2|b", $"a replace on a generic target: {replace.ToJsonString()}");
        Assert.Equal("1|a", r.Text("original"));
        Assert.Equal(target == "pick" ? "Generic" : "HasThis, DeclaringTypeGeneric", r.Text("flags"));
        AssertApplied(r["first"]!, "2|b", prior: 0);
        AssertRelocations(r["first"]!["generationResult"]!, []);
        AssertRemoved(r["remove"]!, "1|a");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void LocalsComeThroughTheHeaderRelocation(string tiering)
    {
        JsonNode r = Report(tiering)["locals"]!;
        Assert.Equal(21, r.Value<int>("original"));
        AssertApplied(r["first"]!, 42, prior: 0);
        AssertRelocations(r["first"]!["generationResult"]!, [("StandAloneSig", StandAloneSig)]);
        AssertRemoved(r["remove"]!, 21);
    }

    // The step of a generation that was accepted, requested and compiled: the target
    // returned `expected` on the first call after the wait, and the result says Active.
    internal static void AssertApplied<T>(JsonNode step, T expected, ulong prior)
    {
        string json = step.ToJsonString();
        PatchReports.AssertCommand(step);
        Assert.True(step.Value<bool>("handleNonZero"), json);
        Assert.True(step.Value<ulong>("generation") > prior, $"generation ids increase: {json}");
        AssertVisibleAtOnce(step["result"]!, expected);

        JsonNode g = step["generationResult"]!;
        json = g.ToJsonString();
        Assert.True(g.Text("call") == "Ok", json);
        Assert.True(g.Text("state") == "Active", $"state: {json}");
        Assert.True(g.Text("status") == "Ok", $"status: {json}");
        Assert.Equal(step.Value<ulong>("generation"), g.Value<ulong>("generation"));
        Assert.True(g.Value<ulong>("priorGeneration") == prior, $"priorGeneration {prior}: {json}");
        Assert.True(g.Value<int>("metadataHResult") >= 0, $"metadataHResult: {json}");
        Assert.True(g.Value<int>("compilationHResult") >= 0, $"compilationHResult: {json}");
        Assert.True(g.Value<ulong>("elapsedNs") > 0, $"elapsedNs: {json}");

        JsonNode t = step["telemetry"]!;
        json = t.ToJsonString();
        Assert.True(t.Text("state") == "Active" && t.Text("lastStatus") == "Ok", json);
        Assert.True(t.Value<uint>("pendingCommands") == 0 && t.Value<uint>("rejitErrors") == 0, json);
        foreach (string hr in new[] { "requestHResult", "setILHResult", "compilationHResult", "errorHResult", "metadataHResult" })
            Assert.True(t.Value<int>(hr) >= 0, $"{hr}: {json}");
    }

    // Relocation results in order: their kinds and token tables; the tokens.
    internal static uint[] AssertRelocations(JsonNode result, (string Kind, uint Table)[] expected)
    {
        string json = result.ToJsonString();
        JsonArray relocations = result["relocations"]!.AsArray();
        Assert.True(result.Value<uint>("relocationCount") == expected.Length, $"relocationCount: {json}");
        Assert.True(relocations.Count == expected.Length, json);
        var tokens = new uint[expected.Length];
        for (int i = 0; i < expected.Length; i++)
        {
            JsonNode r = relocations[i]!;
            Assert.True(r.Value<uint>("size") == 20, $"relocation {i} size: {json}");
            Assert.True(r.Text("kind") == expected[i].Kind, $"relocation {i}: expected {expected[i].Kind}: {json}");
            tokens[i] = r.Value<uint>("token");
            Assert.True(tokens[i] >> 24 == expected[i].Table && (tokens[i] & 0xFFFFFF) != 0,
                $"relocation {i}: token 0x{tokens[i]:X8} is not a {expected[i].Kind} (0x{expected[i].Table:X2}): {json}");
            Assert.True(r.Value<int>("hresult") >= 0, $"relocation {i} hresult: {json}");
        }
        return tokens;
    }

    // Every relocation of a later generation with the same inputs: the same token, reused.
    internal static void AssertReused(JsonNode result, uint[] tokens)
    {
        string json = result.ToJsonString();
        JsonArray relocations = result["relocations"]!.AsArray();
        Assert.True(relocations.Count == tokens.Length, json);
        for (int i = 0; i < tokens.Length; i++)
        {
            JsonNode r = relocations[i]!;
            Assert.True(r.Value<uint>("token") == tokens[i], $"relocation {i}: expected 0x{tokens[i]:X8}: {json}");
            Assert.True(r.Value<uint>("reused") == 1, $"relocation {i} not reused: {json}");
            Assert.True(r.Value<int>("hresult") == 0, $"relocation {i} hresult: {json}");
        }
    }

    // The last owner's removal: the original on the first call, the last generation superseded.
    internal static void AssertRemoved<T>(JsonNode step, T original)
    {
        PatchReports.AssertCommand(step);
        AssertVisibleAtOnce(step["result"]!, original);
        Assert.True(step["lastGeneration"]!.Text("state") == "Superseded", step.ToJsonString());
        Assert.True(step["telemetry"]!.Text("state") == "Removed", step.ToJsonString());
        Assert.Equal(0u, step["telemetry"]!.Value<uint>("ownerCount"));
    }

    internal static void AssertVisibleAtOnce<T>(JsonNode poll, T expected)
    {
        Assert.True(JsonNode.DeepEquals(poll["value"], JsonValue.Create(expected)), $"expected {expected}: {poll.ToJsonString()}");
        Assert.True(poll.Value<int>("calls") == 1, $"visible only after several calls: {poll.ToJsonString()}");
    }
}
