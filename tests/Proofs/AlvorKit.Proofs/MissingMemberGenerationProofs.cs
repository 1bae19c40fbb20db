using System.Text.Json.Nodes;
using AlvorKit.Interception;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Generations that name a method or field that does not exist are refused on the worker,
/// before anything is published or requested: ALVK_E_MEMBER_NOT_FOUND with the failing
/// relocation, the target keeps returning what its current generation returns (no caller sees
/// MissingMethodException or MissingFieldException), and the chain goes on from there. A member
/// that exists only on a base type is no reason to refuse.
/// </summary>
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

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "members");

    [Theory]
    [MemberData(nameof(MissingCases))]
    public void AMissingMemberIsRejectedBeforeAnyReJITAndTheTargetKeepsItsGeneration(string name, string tiering)
    {
        uint failingIndex = Cases.Single(c => c.Case == name).FailingIndex;
        JsonNode r = Report(tiering)[name]!;
        Assert.Equal("6", r.Text("original"));
        GenerationProofs.AssertApplied(r["first"]!, "105", prior: 0);
        ulong first = r["first"]!.Value<ulong>("generation");

        JsonNode missing = r["missing"]!;
        string json = missing.ToJsonString();
        Assert.True(missing.Text("sync") == "Ok", $"the check runs on the worker: {json}");
        Assert.True(missing.Value<bool>("sameHandle"), json);
        Assert.True(missing.Text("wait") == "MemberNotFound", $"{name}: {json}");
        JsonNode g = missing["generationResult"]!;
        Assert.True(g.Text("state") == "Rejected" && g.Text("status") == "MemberNotFound",
            $"{name} should be rejected with MemberNotFound; the calls after it saw {missing["outcomes"]!.ToJsonString()}: {json}");
        Assert.True(g.Value<uint>("failingIndex") == failingIndex, $"failing index {failingIndex}: {json}");
        Assert.Equal(first, g.Value<ulong>("priorGeneration"));
        JsonNode failing = g["relocations"]!.AsArray()[(int)failingIndex]!;
        Assert.True(failing.Text("kind") == "MemberRef" && failing.Value<uint>("table") == GenerationProofs.MemberRef, json);

        // Every call after the wait runs the first generation: nothing threw, nothing changed.
        foreach (JsonNode? outcome in missing["outcomes"]!.AsArray())
            Assert.True(outcome!.GetValue<string>() == "105", $"a call after the refusal returned {outcome}: {json}");
        // No ReJIT was requested: the runtime asked for no body and compiled nothing since.
        JsonNode before = missing["telemetryBefore"]!, after = missing["telemetryAfter"]!;
        foreach (string field in new[] { "state", "getReJITParameters", "rejitStarted", "rejitFinished", "rejitErrors", "ownerCount" })
            Assert.True(JsonNode.DeepEquals(before[field], after[field]), $"{field}: {before[field]} became {after[field]}: {json}");
        Assert.Equal("Active", after.Text("state"));
        Assert.Equal("Active", missing["firstAfter"]!.Text("state"));

        // The chain goes on from the first generation, and removal restores the original.
        GenerationProofs.AssertApplied(r["next"]!, "205", prior: first);
        GenerationProofs.AssertRemoved(r["remove"]!, "6");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMissingMemberInAFirstGenerationLeavesTheOriginalAndTheRuntimeUntouched(string tiering)
    {
        JsonNode r = Report(tiering)["fresh"]!;
        string json = r.ToJsonString();
        Assert.Equal("6", r.Text("original"));
        Assert.True(r.Text("sync") == "Ok" && r.Text("wait") == "MemberNotFound", json);
        JsonNode g = r["generationResult"]!;
        Assert.True(g.Text("state") == "Rejected" && g.Text("status") == "MemberNotFound", json);
        Assert.Equal(0u, g.Value<uint>("failingIndex"));
        JsonNode t = r["telemetry"]!;
        Assert.True(t.Text("state") == "Rejected" && t.Text("lastStatus") == "MemberNotFound", json);
        Assert.True(t.Value<uint>("getReJITParameters") == 0 && t.Value<uint>("rejitStarted") == 0, json);
        foreach (JsonNode? outcome in r["outcomes"]!.AsArray())
            Assert.True(outcome!.GetValue<string>() == "6", $"a call returned {outcome}: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMissingMemberOfAnAssemblyNotYetLoadedIsNamedWhenTheCompilationFails(string tiering)
    {
        const int MissingMethod = unchecked((int)0x80131513); // COR_E_MISSINGMETHOD
        JsonNode r = Report(tiering)["lateAssembly"]!;
        string json = r.ToJsonString();
        Assert.Equal("6", r.Text("original"));
        GenerationProofs.AssertApplied(r["first"]!, "105", prior: 0);
        // Unknown to the check (the assembly was not loaded): requested, as before.
        Assert.True(!r.Value<bool>("loadedBefore") && r.Text("sync") == "Ok" && r.Text("wait") == "Ok", json);
        // The JIT loaded it, could not bind the member, and threw to the caller; the rollback
        // brought the first generation back.
        Assert.True(r["outcomes"]!.AsArray()[0]!.GetValue<string>() == "MissingMethodException", json);
        Assert.True(r.Value<bool>("restored") && r.Value<bool>("loadedAfter"), json);
        JsonNode g = r["generationResult"]!;
        Assert.True(g.Text("state") == "Failed" && g.Text("status") == "CompilationFailed", json);
        Assert.True(g.Value<int>("compilationHResult") == MissingMethod,
            $"compilationHResult 0x{g.Value<int>("compilationHResult"):X8}, expected COR_E_MISSINGMETHOD: {json}");
        Assert.Equal(1u, g.Value<uint>("failingIndex"));
        GenerationProofs.AssertRemoved(r["remove"]!, "6");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMemberDeclaredOnlyOnABaseTypeIsAcceptedAndRuns(string tiering)
    {
        JsonObject report = Report(tiering);
        // call GenMemberDerived::BaseTwice, a static method of its base class in the same module.
        JsonNode s = report["baseStatic"]!;
        Assert.Equal("6", s.Text("original"));
        GenerationProofs.AssertApplied(s["first"]!, "10", prior: 0);
        GenerationProofs.AssertRemoved(s["remove"]!, "6");
        // callvirt GenMemberDerived::ToString, declared on System.Object in another assembly.
        JsonNode v = report["baseVirtual"]!;
        Assert.Equal("original", v.Text("original"));
        GenerationProofs.AssertApplied(v["first"]!, "AlvorKit.Proofs.Host.GenMemberDerived", prior: 0);
        GenerationProofs.AssertRemoved(v["remove"]!, "original");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheManagedApiThrowsPatchExceptionNamingTheMissingMember(string tiering)
    {
        JsonNode r = Report(tiering)["managed"]!;
        string json = r.ToJsonString();
        Assert.Equal("6", r.Text("original"));
        Assert.True(r.Text("threw") == "PatchException", json);
        Assert.Equal("ALVK_E_MEMBER_NOT_FOUND", r.Text("statusName"));
        Assert.Equal((int)InterceptionStatus.MemberNotFound, r.Value<int>("statusCode"));
        Assert.Equal("Rejected", r.Text("generationState"));
        Assert.Equal(1, r.Value<int>("failingIndex"));
        Assert.Equal("call Math.AbsoluteValue(int) at IL_0001: MemberRef Math.AbsoluteValue(int)", r.Text("failingRelocation"));
        string message = r.Text("message");
        Assert.Contains("ALVK_E_MEMBER_NOT_FOUND", message);
        Assert.Contains("The failing relocation is #1: call Math.AbsoluteValue(int) at IL_0001: MemberRef Math.AbsoluteValue(int)", message);
        Assert.Contains("the target keeps its current body", message);
        foreach (JsonNode? outcome in r["outcomes"]!.AsArray())
            Assert.True(outcome!.GetValue<string>() == "6", $"a call returned {outcome}: {json}");
        Assert.Equal(0, r.Value<int>("livePatches"));
    }
}
