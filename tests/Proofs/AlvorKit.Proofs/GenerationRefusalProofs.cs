using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Generations that must not take effect: one the JIT rejects (the prior generation comes
/// back), one built against another body (rejected on the worker), stale chains and every
/// malformed submission (refused at the call). The target keeps what it ran before.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
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

    private static GenerationsReport Report(string tiering) => PatchReports.Get<GenerationsReport>(tiering, "generations");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenerationTheJitRejectsFailsAndThePriorGenerationReturns(string tiering)
    {
        CompilationFailureReport r = Report(tiering).CompilationFailure;
        Assert.Equal("-5", r.Original);
        GenerationProofs.AssertApplied(r.First, "5", prior: 0);

        FailedGeneration second = r.Second;
        string json = ReportJson.Write(second);
        Assert.True(second.Sync == "Ok" && second.Wait == "Ok", json);
        Assert.True(second.SameHandle, json);
        GenerationResultReport failed = second.GenerationResult;
        Assert.True(failed.State == "Failed",
            $"generation 2 should end Failed after the JIT rejected it; calls saw {ReportJson.Write(second.Outcomes)}: {json}");
        Assert.True(failed.Status == "CompilationFailed", json);
        Assert.True(failed.CompilationHResult < 0, $"compilationHResult: {json}");
        Assert.True(second.Restored.Ok, $"generation 1 did not come back: {json}");
        Assert.Equal("5", second.Restored.Actual);
        Assert.Equal("Failed", second.SecondAfterRestore.State);
        Assert.Equal("Active", second.FirstAfterRestore.State);

        PatchReports.AssertCommand(r.Remove.Command);
        GenerationProofs.AssertVisibleAtOnce(r.Remove.Result, "-5");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABodyIdentityMismatchIsRejectedAndChangesNothing(string tiering)
    {
        WorkerRefusal r = Report(tiering).BodyIdentity;
        string json = ReportJson.Write(r);
        Assert.Equal(6, r.Original);
        Assert.True(r.Sync == "Ok", $"the identity is checked on the worker: {json}");
        Assert.True(r.Wait == "BodyIdentityMismatch", json);
        GenerationResultReport g = r.GenerationResult ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(g.State == "Rejected" && g.Status == "BodyIdentityMismatch", json);
        Assert.Equal(0u, g.RelocationCount);
        TelemetryReport t = r.Telemetry ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(t.State == "Rejected", json);
        Assert.True(t.LastStatus == "BodyIdentityMismatch", json);
        Assert.Equal(0u, t.GetReJITParameters);
        Assert.Equal(6, r.TargetResult);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStalePriorIsRefusedAtTheCallAndChangesNothing(string tiering)
    {
        StaleReport r = Report(tiering).Stale;
        Assert.Equal(6, r.Original);
        GenerationProofs.AssertApplied(r.First, 15, prior: 0);
        ulong second = r.Second.Generation;
        GenerationProofs.AssertApplied(r.Second, 25, prior: r.First.Generation);

        foreach ((string name, StaleSubmission refusal) in r.Refusals)
        {
            Assert.True(refusal.Sync == "StaleGeneration", $"{name}: {refusal}");
            Assert.True(refusal.TargetResult == 25, $"{name}: {refusal}");
        }
        Assert.Equal(["priorInFuture", "priorIsFirst", "priorIsZero"], r.Refusals.Keys.Order());
        TelemetryReport before = r.TelemetryBefore, after = r.TelemetryAfter;
        foreach ((string field, object a, object b) in new (string, object, object)[]
                 {
                     ("state", before.State, after.State), ("lastStatus", before.LastStatus, after.LastStatus),
                     ("pendingCommands", before.PendingCommands, after.PendingCommands),
                     ("commandsCompleted", before.CommandsCompleted, after.CommandsCompleted),
                     ("ownerCount", before.OwnerCount, after.OwnerCount),
                     ("getReJITParameters", before.GetReJITParameters, after.GetReJITParameters),
                     ("rejitFinished", before.RejitFinished, after.RejitFinished),
                 })
            Assert.True(Equals(a, b), $"{field}: {a} became {b}");
        Assert.Equal("Active", r.SecondAfterRefusals.State);

        // The chain is where it was: the next generation names the second.
        GenerationProofs.AssertApplied(r.Third, 35, prior: second);
        GenerationProofs.AssertRemoved(r.Remove, 6);

        StaleSubmission fresh = r.FirstNamingAPrior;
        Assert.True(fresh.Sync == "StaleGeneration", $"{fresh}");
        Assert.Equal(6, fresh.TargetResult);
    }

    [Theory]
    [MemberData(nameof(SubmissionInputs))]
    public void BadSubmissionGetsItsStatusAtTheCallAndChangesNothing(string input, string tiering)
    {
        (_, string status, uint failingIndex) = Submissions.Single(s => s.Input == input);
        BadSubmission r = Report(tiering).Validation.Submissions[input];
        string json = ReportJson.Write(r);
        Assert.True(r.Sync == status, $"{input}: expected {status} at the call: {json}");
        Assert.Null(r.Wait);
        Assert.True(r.Validate == status, $"{input}: alvk_generation_validate: {json}");
        Assert.True(r.FailingIndex == failingIndex, $"{input}: failing index {failingIndex}: {json}");
        Assert.True(r.TargetUnchanged, $"{input} changed the target: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EverySubmissionWasTriedAndTheValidOneApplies(string tiering)
    {
        ValidationReport r = Report(tiering).Validation;
        Assert.Equal(Submissions.Select(s => s.Input).Order(), r.Submissions.Keys.Order());
        Assert.Equal(-5, r.Original);
        foreach ((string call, string status) in new[]
                 {
                     ("nullGeneration", r.Nulls.NullGeneration), ("nullHandle", r.Nulls.NullHandle), ("nullId", r.Nulls.NullId),
                 })
            Assert.True(status == "NullArgument", $"{call}: {r.Nulls}");

        // Each refused input is one edit away from this accepted generation.
        GenerationProofs.AssertRelocations(GenerationProofs.AssertApplied(r.Control, 5, prior: 0),
            [("StandAloneSig", GenerationProofs.StandAloneSig)]);
        GenerationProofs.AssertRemoved(r.ControlRemove, -5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ResultQueriesRefuseWhatTheyDoNotKnow(string tiering)
    {
        ResultQueries results = Report(tiering).Validation.Results;
        string json = ReportJson.Write(results);
        foreach ((string query, string actual, string status) in new[]
                 {
                     ("unknownHandle", results.UnknownHandle, "UnknownPatch"), ("zeroHandle", results.ZeroHandle, "UnknownPatch"),
                     ("unknownGeneration", results.UnknownGeneration, "UnknownGeneration"),
                     ("generationZero", results.GenerationZero, "UnknownGeneration"),
                     ("smallStruct", results.SmallStruct, "StructSize"),
                 })
            Assert.True(actual == status, $"{query}: expected {status}, got {actual}: {json}");
        // No room for relocation results: the call succeeds and says how many there are.
        Assert.Equal("Ok", results.NoRelocationRoom.Call);
        Assert.Equal(1u, results.NoRelocationRoom.RelocationCount);
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
        TypeSafetyReport report = Report(tiering).TypeSafety;
        switch (body)
        {
            case "intForString":
                AssertTypeRefused(report.IntForString, original, offset, found, expected);
                break;
            case "stringForDouble":
                AssertTypeRefused(report.StringForDouble, original, offset, found, expected);
                break;
            default:
                AssertTypeRefused(report.UnverifiableUnflagged, original, offset, found, expected);
                break;
        }
    }

    // `original` is the JSON of what the target returns (before, and after the refusal).
    private static void AssertTypeRefused<T>(TypeRefusal<T> r, string original, uint offset, string found, string expected)
    {
        string json = ReportJson.Write(r);
        Assert.True(ReportJson.Write(r.Original) == original, json);
        // A valid instruction stream: accepted at the call; the check needs the target's metadata.
        Assert.True(r.Validate == "Ok" && r.Sync == "Ok", json);
        Assert.True(r.Wait == "StackTypeMismatch", $"the worker should refuse it: {json}");
        GenerationResultReport g = r.GenerationResult ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(g.State == "Rejected" && g.Status == "StackTypeMismatch", json);
        Assert.True(g.TypeErrorOffset == offset, $"offset {offset}: {json}");
        Assert.True(g.TypeFound == found && g.TypeExpected == expected, $"{found} for {expected}: {json}");
        Assert.True(g.RelocationCount == 0, json);
        TelemetryReport t = r.Telemetry ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(t.State == "Rejected" && t.LastStatus == "StackTypeMismatch", json);
        Assert.True(t.GetReJITParameters == 0, $"nothing reached the runtime: {json}");
        Assert.True(ReportJson.Write(r.TargetResult) == original, $"the target keeps its body: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUnverifiableBodyFlaggedAsSuchIsAcceptedAndRuns(string tiering)
    {
        FlaggedGeneration r = Report(tiering).TypeSafety.UnverifiableFlagged;
        string json = ReportJson.Write(r);
        Assert.True(r.Sync == "Ok" && r.Wait == "Ok", json);
        Polled<long> result = r.Result ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(result.Actual == 1234 && result.Calls == 1, json);
        Assert.True(r.GenerationResult?.State == "Active", json);
        Assert.True(r.Telemetry?.Flags == 2, $"ALVK_INSTALL_UNVERIFIABLE: {json}");
        Assert.True(r.Remove?.Result.Actual == -1, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TwoBadGenerationsInARowRollBackToTheLastGoodOne(string tiering)
    {
        TwoFailures r = Report(tiering).CompilationFailure.TwoFailures;
        string json = ReportJson.Write(r);
        Assert.True(r.Sync3 == "Ok" && r.Sync4 == "Ok" && r.Wait == "Ok", json);
        Assert.True(r.Restored.Ok, $"generation 1 did not come back: {json}");
        Assert.True(r.Fourth.State == "Failed", json);
        Assert.True(r.Fourth.Status == "CompilationFailed", json);
    }
}
