using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Install, replace and remove on a hot method in a profiled process: what the target
/// returns after each step, and the telemetry that accounts for it.
/// </summary>
public sealed class PatchLifecycleProofs
{
    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "lifecycle");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachStepChangesWhatTheTargetReturns(string tiering)
    {
        JsonObject r = Report(tiering);
        Assert.Equal(6, r.Value<int>("original"));
        Assert.True(r.Value<bool>("handleNonZero"));
        foreach ((string step, int expected) in new[] { ("install", 105), ("replace", 1005), ("remove", 6) })
        {
            PatchReports.AssertCommand(r[step]!);
            PatchReports.AssertVisibleAtOnce(r[step]!["result"]!, expected);
        }
        Assert.Equal("Ok", r.Text("waitAfterRemoved"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TelemetryAccountsForEveryStep(string tiering)
    {
        JsonObject r = Report(tiering);
        JsonNode install = r["install"]!["telemetry"]!, replace = r["replace"]!["telemetry"]!,
            remove = r["remove"]!["telemetry"]!;
        PatchReports.AssertHealthyTelemetry(install, "Active");
        PatchReports.AssertHealthyTelemetry(replace, "Active");
        PatchReports.AssertHealthyTelemetry(remove, "Removed");

        Assert.True(r["install"]!.Value<bool>("replacementIsA"), install.ToJsonString());
        Assert.True(r["replace"]!.Value<bool>("replacementIsB"), replace.ToJsonString());
        Assert.Equal(0ul, remove.Value<ulong>("replacement"));
        Assert.Equal([1u, 1u, 0u], new[] { install, replace, remove }.Select(t => t.Value<uint>("ownerCount")));
        Assert.Equal([1u, 2u, 3u], new[] { install, replace, remove }.Select(t => t.Value<uint>("commandsCompleted")));
        foreach (string counter in new[] { "getReJITParameters", "rejitStarted", "rejitFinished" })
        {
            uint[] counts = [install.Value<uint>(counter), replace.Value<uint>(counter), remove.Value<uint>(counter)];
            // Install, replace and the restore each ReJIT the target (removal re-JITs the
            // original IL), so every step adds callbacks.
            Assert.True(counts[0] < counts[1] && counts[1] < counts[2], $"{counter} after each step: {string.Join(", ", counts)}");
        }
        foreach (JsonNode t in new[] { install, replace, remove })
        {
            Assert.True(t.Value<ulong>("compileElapsedNs") >= t.Value<ulong>("commandElapsedNs"), t.ToJsonString());
            Assert.Equal(install.Value<uint>("calliSignatureToken"), t.Value<uint>("calliSignatureToken"));
            Assert.Equal(0u, t.Value<uint>("flags"));
        }
    }
}
