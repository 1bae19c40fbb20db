using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// 1,000 install/replace/remove cycles from four threads with their own owner IDs, while
/// a caller thread calls the target without pause: the caller only ever sees the original,
/// A or B, every command finishes, and the process ends with the original and an empty queue.
/// </summary>
public sealed class PatchStressProofs
{
    // An install holds the patch from the moment it is queued, so a join cannot lose a race
    // with another owner's removal: every command of every cycle succeeds.
    private static readonly HashSet<string> AllowedStatuses = ["Ok"];

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "stress");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CallersOnlySeeTheOriginalOrAReplacement(string tiering)
    {
        JsonObject r = Report(tiering);
        string json = r.ToJsonString();
        Assert.True(r.Value<int>("cycles") == 1000, $"cycles within the time bound: {json}");
        Assert.True(r.Value<long>("violations") == 0, json);
        Assert.True(r.Value<long>("calls") > 0, json);
        Assert.True(r.Value<long>("seenA") + r.Value<long>("seenB") > 0, $"the caller never saw a replacement: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryCommandFinished(string tiering)
    {
        JsonObject r = Report(tiering);
        string json = r.ToJsonString();
        foreach (string counts in new[] { "syncStatuses", "waitStatuses" })
        {
            JsonObject statuses = r[counts]!.AsObject();
            Assert.True(statuses.All(s => AllowedStatuses.Contains(s.Key)), $"{counts}: {json}");
            Assert.True(statuses["Ok"]?.GetValue<int>() > 0, $"{counts}: {json}");
        }
        JsonObject states = r["finalStates"]!.AsObject();
        Assert.True(states.Count == 1 && states["Removed"]?.GetValue<int>() == r.Value<int>("handles"), $"final states: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EverythingEndsWithTheOriginalAndAnEmptyQueue(string tiering)
    {
        JsonObject r = Report(tiering);
        PatchReports.AssertVisibleAtOnce(r["final"]!, 2);
        Assert.Equal(0u, r.Value<uint>("queueDepth"));
    }
}
