namespace ReloadBenchmark;

/// <summary>One edit on one side: what the harness saw (times from the save, in ms) and what the
/// tools reported. A null time was not observed; <see cref="Failure"/> says why when the edit
/// never showed.</summary>
internal sealed record EditSample(string Side, int Edit, int Points)
{
    /// <summary>Save → first frame line showing the new points.</summary>
    public double? SaveToFrameMs { get; init; }

    /// <summary>Ours: save → the update (LiveDemo.hotreload) appeared in the drop folder (harness's own watcher).</summary>
    public double? SaveToDropMs { get; init; }

    /// <summary>Ours: that drop → first frame with the new points.</summary>
    public double? DropToFrameMs { get; init; }

    /// <summary>Ours: the watcher's "compiled in N ms".</summary>
    public double? ReportedBuildMs { get; init; }

    /// <summary>Ours: the game's reload line, compare (read, diff, translate) time.</summary>
    public double? ReportedCompareMs { get; init; }

    /// <summary>Ours: the game's reload line, apply time.</summary>
    public double? ReportedApplyMs { get; init; }

    /// <summary>dotnet watch: its "changes applied in N ms".</summary>
    public double? ReportedHotReloadMs { get; init; }

    /// <summary>How the new body got there: "reload" (ours), "hot reload" or "restart" (dotnet watch).</summary>
    public string? How { get; init; }

    /// <summary>The reload's first line (ours) or dotnet watch's last message about the edit.</summary>
    public string? Note { get; init; }

    public string? Failure { get; init; }

    public bool Ok => Failure is null && SaveToFrameMs is not null;
}

/// <summary>Percentiles over a set of samples (linear interpolation between ranks).</summary>
internal static class Stats
{
    public static double Percentile(IReadOnlyList<double> xs, double q)
    {
        double[] sorted = [.. xs.Order()];
        double rank = q * (sorted.Length - 1);
        int lo = (int)Math.Floor(rank), hi = (int)Math.Ceiling(rank);
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
    }
}
