namespace ReloadBenchmark;

/// <summary>One way of getting an edit into the running demo, started once and then edited.</summary>
internal interface ISide : IDisposable
{
    /// <summary>For the report.</summary>
    string Name { get; }

    /// <summary>How long the start took (after <see cref="Start"/>).</summary>
    StartTimes Started { get; }

    /// <summary>Builds and starts everything; throws <see cref="SideFailedException"/> with the
    /// processes' last lines when something does not come up.</summary>
    void Start();

    /// <summary>Saves PointsFor returning <paramref name="points"/> and waits for the first frame
    /// that shows it.</summary>
    EditSample Edit(int edit, int points, TimeSpan timeout);
}

/// <summary>A side that could not start, or stopped answering.</summary>
internal sealed class SideFailedException(string message) : Exception(message);

/// <summary>A side's start, in ms: from launching its tool to its being ready for edits, and
/// the build before that launch when the side needs one (ours: `dotnet build -c Release`, which
/// dotnet watch does within its own start).</summary>
internal sealed record StartTimes(double? ReadyMs, double? BuildBeforeMs);
