using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Replacing a patch again and again does not make the profiler hold more: its snapshots stay
/// as they were, the dispatch signature is emitted once and then reused, and each new
/// signature a generation brings is counted (token and bytes) in the runtime status.
/// </summary>
public sealed class MemoryProofs
{
    private const int Replacements = 2000;

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "memory", Replacements.ToString());

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ReplacementsDoNotGrowWhatTheProfilerHolds(string tiering)
    {
        JsonNode r = Report(tiering)["replaces"]!;
        string json = r.ToJsonString();
        Assert.True(r.Text("install") == "Ok" && r.Value<int>("failures") == 0, json);
        JsonNode before = r["before"]!, after = r["after"]!;
        Assert.True(before.Value<ulong>("snapshotBytes") > 0, json);
        Assert.True(after.Value<ulong>("snapshotBytes") == before.Value<ulong>("snapshotBytes"), json);
        Assert.True(after.Value<ulong>("snapshotCount") == before.Value<ulong>("snapshotCount"), json);
        // One calli signature for the target, emitted at install, reused by every replacement.
        Assert.True(after.Value<ulong>("tokensEmitted") == before.Value<ulong>("tokensEmitted"), json);
        Assert.True(after.Value<ulong>("bytesEmitted") == before.Value<ulong>("bytesEmitted"), json);
        Assert.True(after.Value<ulong>("tokensReused") - before.Value<ulong>("tokensReused") == Replacements, json);
        Assert.True(r.Text("remove") == "Ok" && r.Value<int>("afterRemove") == 2, json);
        Assert.True(r["final"]!.Value<ulong>("snapshotBytes") == 0 && r["final"]!.Value<ulong>("snapshotCount") == 0,
            $"the removed patch left snapshots behind: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void NewSignaturesAreCountedAndKnownOnesReused(string tiering)
    {
        JsonNode r = Report(tiering)["signatures"]!;
        string json = r.ToJsonString();
        JsonArray steps = r["steps"]!.AsArray();
        Assert.Equal(17, steps.Count);
        JsonNode previous = r["before"]!;
        for (int i = 0; i < steps.Count; i++)
        {
            JsonNode step = steps[i]!;
            int locals = step.Value<int>("locals");
            Assert.True(step.Text("submit") == "Ok" && step.Text("result") == "Ok", json);
            Assert.True(step.Value<int>("value") == 5 + locals, json);
            ulong emitted = step.Value<ulong>("tokensEmitted") - previous.Value<ulong>("tokensEmitted");
            ulong bytes = step.Value<ulong>("bytesEmitted") - previous.Value<ulong>("bytesEmitted");
            ulong reused = step.Value<ulong>("tokensReused") - previous.Value<ulong>("tokensReused");
            if (i < 16)
                Assert.True(emitted == 1 && bytes == step.Value<ulong>("blobLength") && reused == 0, $"step {i}: {json}");
            else // the first signature again
                Assert.True(emitted == 0 && bytes == 0 && reused == 1, $"step {i}: {json}");
            previous = step;
        }
        Assert.True(r.Text("remove") == "Ok" && r.Value<int>("afterRemove") == 4, json);
    }
}
