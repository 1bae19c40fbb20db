using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace ReloadBenchmark;

/// <summary>
/// Ours: the copy's Release build of LiveDemo under the profiler in --reload mode (the profiler's
/// variables set directly, as `alvorkit-intercept run` sets them), and `alvorkit-intercept watch`
/// compiling an update of the copy on save and dropping LiveDemo.hotreload into the folder the
/// game watches. Per edit, besides save → frame: when the update appeared in the drop folder
/// (this harness's own FileSystemWatcher), the watcher's "compiled in N ms" and the game's
/// reload line.
/// </summary>
internal sealed partial class AlvorKitSide(DemoCopy copy, string drop, string launcher, string profiler, int tickMs,
                                           string logs) : ISide
{
    private TimedProcess? _game, _watcher;
    private FileSystemWatcher? _dropWatcher;
    private readonly ConcurrentQueue<long> _drops = new();

    public string Name => "AlvorKit reload (Release, profiler)";

    public List<string> Notes { get; } = [];

    /// <summary>More arguments for `alvorkit-intercept watch` (none: its defaults).</summary>
    public IReadOnlyList<string> WatchArguments { get; init; } = [];

    /// <summary>More environment variables for the watcher's process.</summary>
    public IReadOnlyDictionary<string, string> WatchEnvironment { get; init; } = new Dictionary<string, string>();

    public StartTimes Started { get; private set; } = new(null, null);

    public void Start()
    {
        long buildStart = Stopwatch.GetTimestamp();
        TimedProcess.RunToEnd("build (Release)", Dotnet(copy.ProjectDirectory, "build", copy.Project, "-c", "Release", "-nologo", "-v", "q"),
                              Path.Combine(logs, "alvorkit-build.log"), TimeSpan.FromMinutes(5));
        // The game watches private folders only.
        if (OperatingSystem.IsWindows())
            Directory.CreateDirectory(drop);
        else
            Directory.CreateDirectory(drop, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        double built = Clock.Ms(buildStart, Stopwatch.GetTimestamp());
        _dropWatcher = new FileSystemWatcher(drop) { NotifyFilter = NotifyFilters.FileName | NotifyFilters.LastWrite };
        _dropWatcher.Created += (_, e) => OnDrop(e.Name);
        _dropWatcher.Renamed += (_, e) => OnDrop(e.Name);
        _dropWatcher.Changed += (_, e) => OnDrop(e.Name);
        _dropWatcher.EnableRaisingEvents = true;

        ProcessStartInfo game = Dotnet(copy.ProjectDirectory,
            Path.Combine(copy.ProjectDirectory, "bin", "Release", "net10.0", "LiveDemo.dll"),
            "--reload", drop, "--tick-ms", tickMs.ToString(CultureInfo.InvariantCulture));
        game.Environment["CORECLR_ENABLE_PROFILING"] = "1";
        game.Environment["CORECLR_PROFILER"] = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";
        game.Environment["CORECLR_PROFILER_PATH"] = profiler;
        game.Environment["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = profiler;
        game.Environment["ALVORKIT_INTERCEPTION_MODULES"] = "LiveDemo";
        _game = new TimedProcess("game", game, Path.Combine(logs, "alvorkit-game.log"));
        if (_game.WaitFor(0, FrameLine.IsFrame, TimeSpan.FromSeconds(60)) is null)
            throw new SideFailedException($"the game drew no frame\n{_game.Tail()}");

        long watchStart = Stopwatch.GetTimestamp();
        ProcessStartInfo watch = Dotnet(copy.ProjectDirectory, [launcher, "watch", "--project", copy.Project, "--drop", drop, .. WatchArguments]);
        foreach ((string name, string value) in WatchEnvironment)
            watch.Environment[name] = value;
        _watcher = new TimedProcess("watch", watch, Path.Combine(logs, "alvorkit-watch.log"));
        TimedLine? watching = _watcher.WaitFor(0, l => l.StartsWith("watch: watching", StringComparison.Ordinal), TimeSpan.FromMinutes(3));
        if (watching is null)
            throw new SideFailedException($"`alvorkit-intercept watch` did not start watching\n{_watcher.Tail()}");
        Started = new StartTimes(Clock.Ms(watchStart, watching.Value.Timestamp), built);
        foreach (TimedLine line in _watcher.Since(0))
            if (line.Text.Contains("WARNING", StringComparison.Ordinal) || line.Text.Contains("warning:", StringComparison.Ordinal))
                Notes.Add("watch said: " + line.Text);
    }

    public EditSample Edit(int edit, int points, TimeSpan timeout)
    {
        TimedProcess game = _game!, watcher = _watcher!;
        var sample = new EditSample(Name, edit, points);
        if (game.HasExited)
            return sample with { Failure = "the game has exited" };
        int gameFrom = game.Count, watchFrom = watcher.Count;
        _drops.Clear();
        long t0 = Stopwatch.GetTimestamp();
        copy.SavePointsFor(points);
        TimedLine? frame = game.WaitFor(gameFrom, l => FrameLine.Points(l) == points, timeout);
        // The game prints its reload line, and the watcher the game's result, around that frame
        // (other threads, other processes): wait for both, so the next edit starts with both idle.
        TimeSpan afterFrame = frame is null ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(15);
        TimedLine? reloaded = game.WaitFor(gameFrom, l => l.StartsWith("reload: ", StringComparison.Ordinal), afterFrame);
        TimedLine? answered = watcher.WaitFor(watchFrom, l => l.StartsWith("game: ", StringComparison.Ordinal) ||
                                                             l.StartsWith("watch: no result", StringComparison.Ordinal) ||
                                                             l.Contains("build failed", StringComparison.Ordinal),
                                              afterFrame);
        long? dropped = _drops.Where(t => t >= t0).Select(t => (long?)t).FirstOrDefault();
        double? built = watcher.Since(watchFrom).Select(l => Number(BuiltIn(), l.Text)).FirstOrDefault(n => n is not null);
        string? reload = reloaded?.Text["reload: ".Length..];
        sample = sample with
        {
            SaveToDropMs = dropped is { } d ? Clock.Ms(t0, d) : null,
            ReportedBuildMs = built,
            ReportedCompareMs = reload is null ? null : Number(Compare(), reload),
            ReportedApplyMs = reload is null ? null : Number(Apply(), reload),
            Note = reload,
            How = "reload",
        };
        if (frame is null)
            return sample with
            {
                Failure = $"no frame with +{points} within {timeout.TotalSeconds:0} s" +
                          (answered is null ? "" : $"; watcher: {answered.Value.Text}") +
                          (reload is null ? "" : $"; game: {reload}"),
            };
        return sample with
        {
            SaveToFrameMs = Clock.Ms(t0, frame.Value.Timestamp),
            DropToFrameMs = dropped is { } d2 ? Clock.Ms(d2, frame.Value.Timestamp) : null,
        };
    }

    private void OnDrop(string? name)
    {
        if (string.Equals(name, "LiveDemo.hotreload", StringComparison.Ordinal))
            _drops.Enqueue(Stopwatch.GetTimestamp());
    }

    private static double? Number(Regex regex, string text)
    {
        Match m = regex.Match(text);
        return m.Success ? double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }

    internal static ProcessStartInfo Dotnet(string workingDirectory, params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { WorkingDirectory = workingDirectory };
        foreach (string arg in args)
            start.ArgumentList.Add(arg);
        foreach (string key in start.Environment.Keys.ToList())
            if (key.StartsWith("CORECLR_", StringComparison.Ordinal) || key.StartsWith("ALVORKIT_", StringComparison.Ordinal))
                start.Environment.Remove(key);
        return start;
    }

    public void Dispose()
    {
        _watcher?.Stop(TimeSpan.Zero);
        _game?.Stop(TimeSpan.FromSeconds(5));
        _watcher?.Dispose();
        _game?.Dispose();
        _dropWatcher?.Dispose();
    }

    // "watch: changed: Scoring.cs; update 3 compiled in 41 ms (1 method body, 1 edit)".
    [GeneratedRegex(@"^watch: changed: .*; update \d+ compiled in (\d+(?:\.\d+)?) ms")]
    private static partial Regex BuiltIn();

    // ReloadResult.Summary's first line: "LiveDemo: 1 method changed, applied in 55 ms (compare 45 ms, apply 10 ms)".
    [GeneratedRegex(@"\(compare (\d+(?:\.\d+)?) ms,")]
    private static partial Regex Compare();

    [GeneratedRegex(@", apply (\d+(?:\.\d+)?) ms\)")]
    private static partial Regex Apply();
}
