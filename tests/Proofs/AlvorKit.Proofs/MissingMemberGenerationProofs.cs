using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Generations that name a method or field that does not exist are refused on the worker,
/// before anything is published or requested: ALVK_E_MEMBER_NOT_FOUND with the failing
/// relocation, the target keeps returning what its current generation returns (no caller sees
/// MissingMethodException or MissingFieldException), and the chain goes on from there. A member
/// that exists only on a base type is no reason to refuse.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
public sealed class MissingMemberGenerationProofs
{
    // case, the failing relocation's index.
    private static readonly (string Case, uint FailingIndex)[] Cases =
    [
        ("ownType", 0),        // a method name a TypeDef of the target's module does not have
        ("otherAssembly", 1),  // a method name System.Math lacks, through a TypeRef and a forwarder
        ("missingField", 0),   // ldsfld of a field the type does not have
        ("otherSignature", 0), // GenHelpers.Triple exists as int(int); the MemberRef says long(long)
    ];

    public static TheoryData<string, string> MissingCases => PatchReports.WithTierings(Cases.Select(c => c.Case));

    private static MembersReport Report(string tiering) => PatchReports.Get<MembersReport>(tiering, "members");

    private static MissingMemberCase Case(string name, string tiering)
    {
        MembersReport r = Report(tiering);
        return name switch
        {
            "ownType" => r.OwnType,
            "otherAssembly" => r.OtherAssembly,
            "missingField" => r.MissingField,
            "otherSignature" => r.OtherSignature,
            _ => throw new ArgumentOutOfRangeException(nameof(name), name, "not a missing-member case"),
        };
    }

    [Theory]
    [MemberData(nameof(MissingCases))]
    public void AMissingMemberIsRejectedBeforeAnyReJITAndTheTargetKeepsItsGeneration(string name, string tiering)
    {
        uint failingIndex = Cases.Single(c => c.Case == name).FailingIndex;
        MissingMemberCase r = Case(name, tiering);
        Assert.Equal("6", r.Original);
        GenerationProofs.AssertApplied(r.First, "105", prior: 0);
        ulong first = r.First.Generation;

        MissingMemberStep missing = r.Missing;
        string json = ReportJson.Write(missing);
        Assert.True(missing.Sync == "Ok", $"the check runs on the worker: {json}");
        Assert.True(missing.SameHandle, json);
        Assert.True(missing.Wait == "MemberNotFound", $"{name}: {json}");
        GenerationResultReport g = missing.GenerationResult;
        Assert.True(g.State == "Rejected" && g.Status == "MemberNotFound",
            $"{name} should be rejected with MemberNotFound; the calls after it saw {string.Join(", ", missing.Outcomes)}: {json}");
        Assert.True(g.FailingIndex == failingIndex, $"failing index {failingIndex}: {json}");
        Assert.Equal(first, g.PriorGeneration);
        RelocationResultReport failing = g.Relocations[(int)failingIndex];
        Assert.True(failing.Kind == "MemberRef" && failing.Table == GenerationProofs.MemberRef, json);

        // Every call after the wait runs the first generation: nothing threw, nothing changed.
        Assert.NotEmpty(missing.Outcomes);
        foreach (string outcome in missing.Outcomes)
            Assert.True(outcome == "105", $"a call after the refusal returned {outcome}: {json}");
        // No ReJIT was requested: the runtime asked for no body and compiled nothing since.
        TelemetryReport before = missing.TelemetryBefore, after = missing.TelemetryAfter;
        foreach ((string field, object a, object b) in new (string, object, object)[]
                 {
                     ("state", before.State, after.State), ("getReJITParameters", before.GetReJITParameters, after.GetReJITParameters),
                     ("rejitStarted", before.RejitStarted, after.RejitStarted), ("rejitFinished", before.RejitFinished, after.RejitFinished),
                     ("rejitErrors", before.RejitErrors, after.RejitErrors), ("ownerCount", before.OwnerCount, after.OwnerCount),
                 })
            Assert.True(Equals(a, b), $"{field}: {a} became {b}: {json}");
        Assert.Equal("Active", after.State);
        Assert.Equal("Active", missing.FirstAfter.State);

        // The chain goes on from the first generation, and removal restores the original.
        GenerationProofs.AssertApplied(r.Next, "205", prior: first);
        GenerationProofs.AssertRemoved(r.Remove, "6");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMissingMemberInAFirstGenerationLeavesTheOriginalAndTheRuntimeUntouched(string tiering)
    {
        FreshMissingMember r = Report(tiering).Fresh;
        string json = ReportJson.Write(r);
        Assert.Equal("6", r.Original);
        Assert.True(r.Sync == "Ok" && r.Wait == "MemberNotFound", json);
        GenerationResultReport g = r.GenerationResult ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(g.State == "Rejected" && g.Status == "MemberNotFound", json);
        Assert.Equal(0u, g.FailingIndex);
        TelemetryReport t = r.Telemetry ?? throw new Xunit.Sdk.XunitException(json);
        Assert.True(t.State == "Rejected" && t.LastStatus == "MemberNotFound", json);
        Assert.True(t.GetReJITParameters == 0 && t.RejitStarted == 0, json);
        foreach (string outcome in r.Outcomes)
            Assert.True(outcome == "6", $"a call returned {outcome}: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMissingMemberOfAnAssemblyNotYetLoadedIsNamedWhenTheCompilationFails(string tiering)
    {
        const int MissingMethod = unchecked((int)0x80131513); // COR_E_MISSINGMETHOD
        LateAssemblyReport r = Report(tiering).LateAssembly;
        string json = ReportJson.Write(r);
        Assert.Equal("6", r.Original);
        GenerationProofs.AssertApplied(r.First, "105", prior: 0);
        // Unknown to the check (the assembly was not loaded): requested, as before.
        Assert.True(!r.LoadedBefore && r.Sync == "Ok" && r.Wait == "Ok", json);
        // The JIT loaded it, could not bind the member, and threw to the caller; the rollback
        // brought the first generation back.
        Assert.True(r.Outcomes[0] == "MissingMethodException", json);
        Assert.True(r.Restored && r.LoadedAfter, json);
        GenerationResultReport g = r.GenerationResult;
        Assert.True(g.State == "Failed" && g.Status == "CompilationFailed", json);
        Assert.True(g.CompilationHResult == MissingMethod,
            $"compilationHResult 0x{g.CompilationHResult:X8}, expected COR_E_MISSINGMETHOD: {json}");
        Assert.Equal(1u, g.FailingIndex);
        GenerationProofs.AssertRemoved(r.Remove, "6");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMemberDeclaredOnlyOnABaseTypeIsAcceptedAndRuns(string tiering)
    {
        MembersReport report = Report(tiering);
        // call GenMemberDerived::BaseTwice, a static method of its base class in the same module.
        BaseMemberReport s = report.BaseStatic;
        Assert.Equal("6", s.Original);
        GenerationProofs.AssertApplied(s.First, "10", prior: 0);
        GenerationProofs.AssertRemoved(s.Remove, "6");
        // callvirt GenMemberDerived::ToString, declared on System.Object in another assembly.
        BaseMemberReport v = report.BaseVirtual;
        Assert.Equal("original", v.Original);
        GenerationProofs.AssertApplied(v.First, "AlvorKit.Proofs.Host.GenMemberDerived", prior: 0);
        GenerationProofs.AssertRemoved(v.Remove, "original");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheManagedApiThrowsPatchExceptionNamingTheMissingMember(string tiering)
    {
        ManagedMissingMember r = Report(tiering).Managed;
        string json = ReportJson.Write(r);
        Assert.Equal("6", r.Original);
        Assert.True(r.Threw == "PatchException", json);
        Assert.Equal("ALVK_E_MEMBER_NOT_FOUND", r.StatusName);
        Assert.Equal((int)InterceptionStatus.MemberNotFound, r.StatusCode);
        Assert.Equal("Rejected", r.GenerationState);
        Assert.Equal(1, r.FailingIndex);
        Assert.Equal("call Math.AbsoluteValue(int) at IL_0001: MemberRef Math.AbsoluteValue(int)", r.FailingRelocation);
        string message = r.Message ?? throw new Xunit.Sdk.XunitException($"no message: {json}");
        Assert.Contains("ALVK_E_MEMBER_NOT_FOUND", message);
        Assert.Contains("The failing relocation is #1: call Math.AbsoluteValue(int) at IL_0001: MemberRef Math.AbsoluteValue(int)", message);
        Assert.Contains("the target keeps its current body", message);
        foreach (string outcome in r.Outcomes)
            Assert.True(outcome == "6", $"a call returned {outcome}: {json}");
        Assert.Equal(0, r.LivePatches);
    }
}
