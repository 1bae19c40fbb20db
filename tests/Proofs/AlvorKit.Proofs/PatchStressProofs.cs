using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// 1,000 install/replace/remove cycles from four threads with their own owner IDs, while
/// a caller thread calls the target without pause: the caller only ever sees the original,
/// A or B, every command finishes, and the process ends with the original and an empty queue.
/// </summary>
[Trait("Feature", "Reliability and concurrency")]
[Trait("Sanitized", "yes")]
public sealed class PatchStressProofs
{
    // An install holds the patch from the moment it is queued, so a join cannot lose a race
    // with another owner's removal: every command of every cycle succeeds.
    private static readonly HashSet<string> AllowedStatuses = ["Ok"];

    private static StressReport Report(string tiering) => PatchReports.Get<StressReport>(tiering, "stress");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CallersOnlySeeTheOriginalOrAReplacement(string tiering)
    {
        StressReport r = Report(tiering);
        Assert.True(r.Cycles == 1000, $"cycles within the time bound: {r}");
        Assert.True(r.Violations == 0, $"{r}");
        Assert.True(r.Calls > 0, $"{r}");
        Assert.True(r.SeenA + r.SeenB > 0, $"the caller never saw a replacement: {r}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryCommandFinished(string tiering)
    {
        StressReport r = Report(tiering);
        foreach ((string name, IReadOnlyDictionary<string, int> statuses) in new[]
        {
            ("syncStatuses", r.SyncStatuses), ("waitStatuses", r.WaitStatuses),
        })
        {
            string counts = string.Join(", ", statuses);
            Assert.True(statuses.Keys.All(AllowedStatuses.Contains), $"{name}: {counts}");
            Assert.True(statuses.GetValueOrDefault("Ok") > 0, $"{name}: {counts}");
        }
        Assert.True(r.FinalStates.Count == 1 && r.FinalStates.GetValueOrDefault("Removed") == r.Handles,
            $"final states: {string.Join(", ", r.FinalStates)} of {r.Handles} handles");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EverythingEndsWithTheOriginalAndAnEmptyQueue(string tiering)
    {
        StressReport r = Report(tiering);
        PatchReports.AssertVisibleAtOnce(r.Final, 2);
        Assert.Equal(0u, r.QueueDepth);
    }
}
