using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The 256-slot patch table full of ended patches (host mode "recycling"): eight targets
/// patched together and removed in reverse order, then one target installed and removed once
/// per remaining slot. Nine new installs recycle the oldest ended patches in the order they
/// ended (not in slot order); each recycled handle answers ALVK_E_UNKNOWN_PATCH from every
/// function that takes a handle, even with the new patch's owner; every other ended handle
/// still answers; the new patch behind the slot is untouched by the stale handle's calls.
/// </summary>
public sealed class RecyclingProofs
{
    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "recycling");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTableFillsWithEndedPatches(string tiering)
    {
        JsonObject r = Report(tiering);
        JsonNode phase1 = r["phase1"]!, phase2 = r["phase2"]!;
        string json = r.ToJsonString();
        for (int i = 0; i < 8; i++)
        {
            Assert.True(phase1.Text($"install{i}") == "Ok/Ok", json);
            Assert.True(phase1.Text($"remove{i}") == "Ok/Ok", json);
        }
        Assert.True(phase1["patchedValues"]!.Value<bool>("allExpected"), json);
        Assert.True(phase1["originalValues"]!.Value<bool>("allExpected"), json);
        Assert.Equal(8, phase1.Value<int>("distinctHandles"));
        Assert.Equal(248, phase2.Value<int>("cycles"));
        Assert.Empty(phase2["refusals"]!.AsObject());
        Assert.Equal(256, phase2.Value<int>("distinctHandles"));
        Assert.True(phase2["endedStates"]!.AsObject().Count == 1 && phase2["endedStates"]!.Value<int>("Removed") == 256, json);
        Assert.Equal(55, phase2.Value<int>("cycledValue"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RecyclingTakesTheOldestEndedPatchFirst(string tiering)
    {
        JsonArray recycles = Report(tiering)["recycles"]!.AsArray();
        Assert.Equal(9, recycles.Count);
        for (int step = 0; step < recycles.Count; step++)
        {
            JsonNode r = recycles[step]!;
            string json = r.ToJsonString();
            Assert.True(r.Text("install") == "Ok" && r.Text("wait") == "Ok", json);
            Assert.True(r.Value<int>("goneCount") == 1, $"step {step}: {json}");
            Assert.True(r.Value<bool>("goneIsOldest") && r.Value<int>("goneIndex") == step, $"step {step}: {json}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARecycledHandleIsUnknownToEveryFunctionThatTakesAHandle(string tiering)
    {
        foreach (JsonNode? r in Report(tiering)["recycles"]!.AsArray())
        {
            JsonObject calls = r!["staleCalls"]!.AsObject();
            Assert.Equal(8, calls.Count);
            foreach ((string call, JsonNode? status) in calls)
                Assert.True(status!.GetValue<string>() == "UnknownPatch", $"{call}: {calls.ToJsonString()}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheNewPatchBehindARecycledSlotIsUnaffected(string tiering)
    {
        foreach (JsonNode? r in Report(tiering)["recycles"]!.AsArray())
        {
            string json = r!.ToJsonString();
            Assert.True(r.Value<bool>("newHandleDiffersFromStale") && r.Value<bool>("newHandleWasNeverIssued"), json);
            PatchReports.AssertVisibleAtOnce(r["newValue"]!, 1005);
            Assert.True(r.Value<bool>("newUnchanged"), $"the stale handle's calls changed the new patch: {json}");
            Assert.Equal(1005, r.Value<int>("newValueAfter"));
            Assert.Equal("Active", r.Text("newGeneration"));
            PatchReports.AssertHealthyTelemetry(r["newTelemetry"]!, "Active");
            Assert.Equal(1u, r["newTelemetry"]!.Value<uint>("ownerCount"));
            Assert.Equal(1u, r["newTelemetry"]!.Value<uint>("commandsCompleted"));
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryOtherEndedPatchStillAnswersAndTheOriginalsComeBack(string tiering)
    {
        JsonObject r = Report(tiering);
        string json = r.ToJsonString();
        Assert.True(r.Value<bool>("othersStillAnswer"), json);
        Assert.Equal(256 - 9, r.Value<int>("othersCount"));
        foreach ((string handle, JsonNode? removal) in r["removals"]!.AsObject())
            Assert.True(removal!.GetValue<string>() == "Ok/Ok", $"{handle}: {json}");
        Assert.True(r["finalValues"]!.Value<bool>("allExpected"), json);
        PatchReports.AssertVisibleAtOnce(r["finalCycled"]!, 55);
    }
}
