using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace ReloadBenchmark;

/// <summary>
/// The SDK's own loop: `dotnet watch --non-interactive run -c Debug -- --loop-only` on the copy
/// (Hot Reload; the Debug build, no profiler, no interceptor). Per edit, besides save → frame:
/// dotnet watch's "changes applied in N ms", and whether the game was hot reloaded or restarted
/// (a restart prints LiveDemo's banner again, with a new process id).
/// </summary>
internal sealed partial class DotnetWatchSide(DemoCopy copy, int tickMs, string logs) : ISide
{
    private TimedProcess? _watch;
    private int? _pid;

    public string Name => "dotnet watch Hot Reload (Debug)";

    public List<string> Notes { get; } = [];

    public StartTimes Started { get; private set; } = new(null, null);

    public void Start()
    {
        long t0 = Stopwatch.GetTimestamp();
        ProcessStartInfo start = AlvorKitSide.Dotnet(copy.ProjectDirectory, "watch", "--non-interactive", "run",
            "--project", copy.Project, "-c", "Debug", "--",
            "--loop-only", "--tick-ms", tickMs.ToString(CultureInfo.InvariantCulture), "--frames", "100000000");
        start.Environment["DOTNET_WATCH_SUPPRESS_EMOJIS"] = "1";
        start.Environment["DOTNET_WATCH_RESTART_ON_RUDE_EDIT"] = "true"; // never a prompt
        _watch = new TimedProcess("dotnet watch", start, Path.Combine(logs, "dotnet-watch.log"));
        TimedLine? banner = _watch.WaitFor(0, l => FrameLine.BannerPid(l) is not null, TimeSpan.FromMinutes(5));
        if (banner is null)
            throw new SideFailedException($"dotnet watch did not start the game\n{_watch.Tail()}");
        _pid = FrameLine.BannerPid(banner.Value.Text);
        if (_watch.WaitFor(0, FrameLine.IsFrame, TimeSpan.FromSeconds(60)) is null)
            throw new SideFailedException($"the game drew no frame under dotnet watch\n{_watch.Tail()}");
        TimedLine? waiting = _watch.WaitFor(0, l => l.Contains("Waiting for changes", StringComparison.Ordinal), TimeSpan.FromSeconds(60));
        if (waiting is null)
            throw new SideFailedException($"dotnet watch never said it was waiting for changes\n{_watch.Tail()}");
        Started = new StartTimes(Clock.Ms(t0, waiting.Value.Timestamp), null);
        foreach (TimedLine line in _watch.Since(0))
            if (line.Text.StartsWith("dotnet watch", StringComparison.Ordinal) &&
                line.Text.Contains("Hot reload", StringComparison.OrdinalIgnoreCase))
                Notes.Add(line.Text.Trim());
    }

    public EditSample Edit(int edit, int points, TimeSpan timeout)
    {
        TimedProcess watch = _watch!;
        var sample = new EditSample(Name, edit, points);
        if (watch.HasExited)
            return sample with { Failure = "dotnet watch has exited" };
        int from = watch.Count;
        long t0 = Stopwatch.GetTimestamp();
        copy.SavePointsFor(points);
        TimedLine? frame = watch.WaitFor(from, l => FrameLine.Points(l) == points, timeout);
        // dotnet watch's own message about the edit comes around the frame (two processes, two pipes).
        TimedLine? applied = watch.WaitFor(from, l => HotReloadApplied().IsMatch(l), TimeSpan.FromSeconds(frame is null ? 1 : 3));
        List<TimedLine> since = watch.Since(from);
        int? newPid = since.Select(l => FrameLine.BannerPid(l.Text)).LastOrDefault(p => p is not null);
        bool restarted = newPid is not null && newPid != _pid;
        if (restarted)
            _pid = newPid;
        string? last = since.LastOrDefault(l => l.Text.StartsWith("dotnet watch", StringComparison.Ordinal)).Text;
        sample = sample with
        {
            ReportedHotReloadMs = applied is { } a
                ? double.Parse(HotReloadApplied().Match(a.Text).Groups[1].Value, CultureInfo.InvariantCulture)
                : null,
            How = restarted ? "restart" : applied is not null ? "hot reload" : "unknown",
            Note = last?.Trim(),
        };
        return frame is null
            ? sample with { Failure = $"no frame with +{points} within {timeout.TotalSeconds:0} s; dotnet watch: {last}" }
            : sample with { SaveToFrameMs = Clock.Ms(t0, frame.Value.Timestamp) };
    }

    public void Dispose()
    {
        _watch?.Stop(TimeSpan.Zero);
        _watch?.Dispose();
    }

    [GeneratedRegex(@"changes applied in (\d+(?:\.\d+)?) ?ms")]
    private static partial Regex HotReloadApplied();
}
