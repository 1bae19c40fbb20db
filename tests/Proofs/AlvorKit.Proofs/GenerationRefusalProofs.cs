using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Generations that must not take effect: one the JIT rejects (the prior generation comes
/// back), one built against another body (rejected on the worker), stale chains and every
/// malformed submission (refused at the call). The target keeps what it ran before.
/// </summary>
public sealed class GenerationRefusalProofs
{
    // input, status at the call (and from alvk_generation_validate), failing index.
    private static readonly (string Input, string Status, uint FailingIndex)[] Submissions =
    [
        ("badHeader", "MethodBodyMalformed", 0),
        ("relocationOffOperand", "RelocationNotOperand", 0),
        ("wrongTokenKind", "RelocationKindMismatch", 0),
        ("overlappingRelocations", "RelocationOverlap", 1),
        ("ehClauseOutOfRange", "MethodBodyMalformed", 0),
        ("ilMapOutOfOrder", "ILMapInvalid", 1),
        ("truncatedSignatureBlob", "SignatureMalformed", 0),
        ("oversizeBody", "LimitExceeded", 0),
        ("relocationSizeWrong", "RelocationMalformed", 0),
        ("nullBody", "NullArgument", 0),
        ("ownerZero", "InvalidOwner", 0),
        ("smallStruct", "StructSize", 0),
        ("unknownFlag", "InvalidFlags", 0),
        ("reservedNonZero", "InvalidFlags", 0),
        ("unknownOpcode", "ILMalformed", 0),
        ("unknownRelocationKind", "RelocationMalformed", 0),
        ("tooManyRelocations", "LimitExceeded", 0),
    ];

    public static TheoryData<string, string> SubmissionInputs => PatchReports.WithTierings(Submissions.Select(s => s.Input));

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "generations");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenerationTheJitRejectsFailsAndThePriorGenerationReturns(string tiering)
    {
        JsonNode r = Report(tiering)["compilationFailure"]!;
        Assert.Equal("-5", r.Text("original"));
        GenerationProofs.AssertApplied(r["first"]!, "5", prior: 0);

        JsonNode second = r["second"]!;
        string json = second.ToJsonString();
        Assert.True(second.Text("sync") == "Ok" && second.Text("wait") == "Ok", json);
        Assert.True(second.Value<bool>("sameHandle"), json);
        JsonNode failed = second["generationResult"]!;
        Assert.True(failed.Text("state") == "Failed",
            $"generation 2 should end Failed after the JIT rejected it; calls saw {second["outcomes"]!.ToJsonString()}: {json}");
        Assert.True(failed.Text("status") == "CompilationFailed", json);
        Assert.True(failed.Value<int>("compilationHResult") < 0, $"compilationHResult: {json}");
        Assert.True(second["restored"]!.Value<bool>("ok"), $"generation 1 did not come back: {json}");
        Assert.Equal("5", second["restored"]!.Text("value"));
        Assert.Equal("Failed", second["secondAfterRestore"]!.Text("state"));
        Assert.Equal("Active", second["firstAfterRestore"]!.Text("state"));

        PatchReports.AssertCommand(r["remove"]!);
        GenerationProofs.AssertVisibleAtOnce(r["remove"]!["result"]!, "-5");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABodyIdentityMismatchIsRejectedAndChangesNothing(string tiering)
    {
        JsonNode r = Report(tiering)["bodyIdentity"]!;
        string json = r.ToJsonString();
        Assert.Equal(6, r.Value<int>("original"));
        Assert.True(r.Text("sync") == "Ok", $"the identity is checked on the worker: {json}");
        Assert.True(r.Text("wait") == "BodyIdentityMismatch", json);
        JsonNode g = r["generationResult"]!;
        Assert.True(g.Text("state") == "Rejected" && g.Text("status") == "BodyIdentityMismatch", json);
        Assert.Equal(0u, g.Value<uint>("relocationCount"));
        Assert.True(r["telemetry"]!.Text("state") == "Rejected", json);
        Assert.True(r["telemetry"]!.Text("lastStatus") == "BodyIdentityMismatch", json);
        Assert.Equal(0u, r["telemetry"]!.Value<uint>("getReJITParameters"));
        Assert.Equal(6, r.Value<int>("targetResult"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStalePriorIsRefusedAtTheCallAndChangesNothing(string tiering)
    {
        JsonNode r = Report(tiering)["stale"]!;
        Assert.Equal(6, r.Value<int>("original"));
        GenerationProofs.AssertApplied(r["first"]!, 15, prior: 0);
        ulong second = r["second"]!.Value<ulong>("generation");
        GenerationProofs.AssertApplied(r["second"]!, 25, prior: r["first"]!.Value<ulong>("generation"));

        foreach ((string name, JsonNode? node) in r["refusals"]!.AsObject())
        {
            JsonNode refusal = node!;
            Assert.True(refusal.Text("sync") == "StaleGeneration", $"{name}: {refusal.ToJsonString()}");
            Assert.True(refusal.Value<int>("targetResult") == 25, $"{name}: {refusal.ToJsonString()}");
        }
        Assert.Equal(["priorInFuture", "priorIsFirst", "priorIsZero"], r["refusals"]!.AsObject().Select(p => p.Key).Order());
        JsonNode before = r["telemetryBefore"]!, after = r["telemetryAfter"]!;
        foreach (string field in new[] { "state", "lastStatus", "pendingCommands", "commandsCompleted", "ownerCount", "getReJITParameters", "rejitFinished" })
            Assert.True(JsonNode.DeepEquals(before[field], after[field]), $"{field}: {before[field]} became {after[field]}");
        Assert.Equal("Active", r["secondAfterRefusals"]!.Text("state"));

        // The chain is where it was: the next generation names the second.
        GenerationProofs.AssertApplied(r["third"]!, 35, prior: second);
        GenerationProofs.AssertRemoved(r["remove"]!, 6);

        JsonNode fresh = r["firstNamingAPrior"]!;
        Assert.True(fresh.Text("sync") == "StaleGeneration", fresh.ToJsonString());
        Assert.Equal(6, fresh.Value<int>("targetResult"));
    }

    [Theory]
    [MemberData(nameof(SubmissionInputs))]
    public void BadSubmissionGetsItsStatusAtTheCallAndChangesNothing(string input, string tiering)
    {
        (_, string status, uint failingIndex) = Submissions.Single(s => s.Input == input);
        JsonNode r = Report(tiering)["validation"]!["submissions"]![input]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("sync") == status, $"{input}: expected {status} at the call: {json}");
        Assert.Null(r["wait"]);
        Assert.True(r.Text("validate") == status, $"{input}: alvk_generation_validate: {json}");
        Assert.True(r.Value<uint>("failingIndex") == failingIndex, $"{input}: failing index {failingIndex}: {json}");
        Assert.True(r.Value<bool>("targetUnchanged"), $"{input} changed the target: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EverySubmissionWasTriedAndTheValidOneApplies(string tiering)
    {
        JsonNode r = Report(tiering)["validation"]!;
        Assert.Equal(Submissions.Select(s => s.Input).Order(), r["submissions"]!.AsObject().Select(s => s.Key).Order());
        Assert.Equal(-5, r.Value<int>("original"));
        foreach (string call in new[] { "nullGeneration", "nullHandle", "nullId" })
            Assert.True(r["nulls"]!.Text(call) == "NullArgument", $"{call}: {r["nulls"]!.ToJsonString()}");

        // Each refused input is one edit away from this accepted generation.
        GenerationProofs.AssertApplied(r["control"]!, 5, prior: 0);
        GenerationProofs.AssertRelocations(r["control"]!["generationResult"]!, [("StandAloneSig", GenerationProofs.StandAloneSig)]);
        GenerationProofs.AssertRemoved(r["controlRemove"]!, -5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ResultQueriesRefuseWhatTheyDoNotKnow(string tiering)
    {
        JsonNode results = Report(tiering)["validation"]!["results"]!;
        string json = results.ToJsonString();
        foreach ((string query, string status) in new[]
                 {
                     ("unknownHandle", "UnknownPatch"), ("zeroHandle", "UnknownPatch"),
                     ("unknownGeneration", "UnknownGeneration"), ("generationZero", "UnknownGeneration"),
                     ("smallStruct", "StructSize"),
                 })
            Assert.True(results.Text(query) == status, $"{query}: expected {status}: {json}");
        // No room for relocation results: the call succeeds and says how many there are.
        Assert.Equal("Ok", results["noRelocationRoom"]!.Text("call"));
        Assert.Equal(1u, results["noRelocationRoom"]!.Value<uint>("relocationCount"));
    }

    // Bodies valid as instruction streams but not type-safe, submitted raw through the ABI (no
    // managed check in between): the defect's int returned where a string is and string where
    // a double is, and a native int returned as an int64 (unverifiable, correct on 64-bit).
    private static readonly (string Body, string Original, uint Offset, string Found, string Expected)[] TypeUnsafe =
    [
        ("intForString", "\"name\"", 1, "Int32", "Object"),
        ("stringForDouble", "0.5", 5, "Object", "Float"),
        ("unverifiableUnflagged", "-1", 1, "NativeInt", "Int64"),
    ];

    public static TheoryData<string, string> TypeUnsafeBodies => PatchReports.WithTierings(TypeUnsafe.Select(t => t.Body));

    [Theory]
    [MemberData(nameof(TypeUnsafeBodies))]
    public void ATypeUnsafeBodySubmittedRawIsRejectedNamingTheInstructionAndTypes(string body, string tiering)
    {
        (_, string original, uint offset, string found, string expected) = TypeUnsafe.Single(t => t.Body == body);
        JsonNode r = Report(tiering)["typeSafety"]![body]!;
        string json = r.ToJsonString();
        Assert.True(r["original"]!.ToJsonString() == original, json);
        // A valid instruction stream: accepted at the call; the check needs the target's metadata.
        Assert.True(r.Text("validate") == "Ok" && r.Text("sync") == "Ok", json);
        Assert.True(r.Text("wait") == "StackTypeMismatch", $"the worker should refuse it: {json}");
        JsonNode g = r["generationResult"]!;
        Assert.True(g.Text("state") == "Rejected" && g.Text("status") == "StackTypeMismatch", json);
        Assert.True(g.Value<uint>("typeErrorOffset") == offset, $"offset {offset}: {json}");
        Assert.True(g.Text("typeFound") == found && g.Text("typeExpected") == expected, $"{found} for {expected}: {json}");
        Assert.True(g.Value<uint>("relocationCount") == 0, json);
        JsonNode t = r["telemetry"]!;
        Assert.True(t.Text("state") == "Rejected" && t.Text("lastStatus") == "StackTypeMismatch", json);
        Assert.True(t.Value<uint>("getReJITParameters") == 0, $"nothing reached the runtime: {json}");
        Assert.True(r["targetResult"]!.ToJsonString() == original, $"the target keeps its body: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUnverifiableBodyFlaggedAsSuchIsAcceptedAndRuns(string tiering)
    {
        JsonNode r = Report(tiering)["typeSafety"]!["unverifiableFlagged"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("sync") == "Ok" && r.Text("wait") == "Ok", json);
        JsonNode result = r["result"]!;
        Assert.True(result.Value<long>("value") == 1234 && result.Value<int>("calls") == 1, json);
        Assert.True(r["generationResult"]!.Text("state") == "Active", json);
        Assert.True(r["telemetry"]!.Value<uint>("flags") == 2, $"ALVK_INSTALL_UNVERIFIABLE: {json}");
        Assert.True(r["remove"]!["result"]!.Value<long>("value") == -1, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TwoBadGenerationsInARowRollBackToTheLastGoodOne(string tiering)
    {
        JsonNode r = Report(tiering)["compilationFailure"]!["twoFailures"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("sync3") == "Ok" && r.Text("sync4") == "Ok" && r.Text("wait") == "Ok", json);
        Assert.True(r["restored"]!.Value<bool>("ok"), $"generation 1 did not come back: {json}");
        Assert.True(r["fourth"]!.Text("state") == "Failed", json);
        Assert.True(r["fourth"]!.Text("status") == "CompilationFailed", json);
    }
}
