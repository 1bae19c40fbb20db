using System.Globalization;
using System.Text.RegularExpressions;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept watch` stopped by Ctrl+C (SIGINT) or SIGTERM at each moment of its
/// life: while MSBuild gives the compiler arguments, while the sources are first read, while it
/// warms up, while it waits for a game to answer the rehearsal, while it watches, while a save
/// compiles, while it waits for the game's result. Each time it says it stopped and exits 0,
/// nothing on stderr (no stack trace).</summary>
public sealed partial class WatchStopTests(SmallGame game) : IClassFixture<SmallGame>
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);

    // The start's times ("MSBuild N ms, sources read N ms") of the last watcher this class stopped
    // that printed them (the class's facts run one at a time).
    private static string? _lastStartTimes;

    [Theory]
    [InlineData("msbuild", Signals.Terminate)]
    [InlineData("msbuild", Signals.Interrupt)]
    [InlineData("first read", Signals.Terminate)]
    [InlineData("warm-up", Signals.Interrupt)]
    [InlineData("rehearsal", Signals.Terminate)]
    [InlineData("watching", Signals.Terminate)]
    [InlineData("compile", Signals.Terminate)]
    [InlineData("compile", Signals.Interrupt)]
    [InlineData("game result", Signals.Interrupt)]
    public void ASignalAtAnyMomentStopsItCleanly(string moment, int signal)
    {
        using var dir = new TempDir("watch-stop");
        string drop = dir.Sub("drop");
        string original = File.ReadAllText(game.Other);
        TimeSpan firstRead = TimeSpan.Zero;
        if (moment == "first read")
        {
            // Half into the first read, by how long this machine takes for MSBuild and for the
            // first read: a watcher's own account of its start, the last one this class saw, else
            // one started for it (stopped as it watches, which must be clean too).
            string? line = _lastStartTimes;
            if (line is null)
            {
                using StreamingProcess calibration = Start(drop, warmUp: 0);
                line = calibration.WaitFor(0, l => l.StartsWith("watch: Small: ", StringComparison.Ordinal), Wait,
                                           "with its start's times").Line;
                calibration.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching");
                Stop(calibration, signal, "calibration, watching");
            }
            Match times = StartTimes().Match(line);
            Assert.True(times.Success, line);
            firstRead = TimeSpan.FromMilliseconds(int.Parse(times.Groups[1].Value, CultureInfo.InvariantCulture) +
                                                  int.Parse(times.Groups[2].Value, CultureInfo.InvariantCulture) / 2);
        }

        using StreamingProcess watch = Start(drop, warmUp: moment is "warm-up" ? 100 : moment is "rehearsal" ? 1 : 0);
        // The line after which the moment begins, how long after it the signal goes, and a line
        // that would say the moment had passed before the signal (it must not be printed).
        (string after, TimeSpan delay, string? passed) = moment switch
        {
            "msbuild" => ("watch: reading the compiler arguments", TimeSpan.FromMilliseconds(200), "watch: Small: "),
            "first read" => ("watch: reading the compiler arguments", firstRead, null),
            "warm-up" => ("watch: the sources are the build's", TimeSpan.FromMilliseconds(300), "watch: warmed up"),
            "rehearsal" => ("watch: warmed up the compiler", TimeSpan.FromMilliseconds(300), "watch: no game answered"),
            "watching" => ("watch: watching ", TimeSpan.Zero, null),
            "compile" or "game result" => ("watch: watching ", TimeSpan.Zero, null),
            _ => throw new ArgumentOutOfRangeException(nameof(moment)),
        };
        int mark = watch.WaitFor(0, l => l.StartsWith(after, StringComparison.Ordinal), Wait, $"before the moment ({after})").Index;
        try
        {
            if (moment == "compile")
            {
                // A save that takes seconds to compile (thousands of methods added): the signal
                // lands half a second into it.
                File.WriteAllText(game.Other, BigOther());
                delay = TimeSpan.FromMilliseconds(500);
                passed = "watch: changed: Other.cs";
            }
            else if (moment == "game result")
            {
                // No game runs: the watcher waits 10 s for the result of its update.
                File.WriteAllText(game.Other, original.Replace("\"other\"", "\"stopped\"", StringComparison.Ordinal));
                mark = watch.WaitFor(mark, l => l == "watch: dropped Small.hotreload; waiting for the game's result", Wait,
                                     "dropping the update").Index;
                delay = TimeSpan.FromMilliseconds(300);
                passed = "watch: no result from the game";
            }
            Thread.Sleep(delay);
            Stop(watch, signal, moment);
        }
        finally
        {
            File.WriteAllText(game.Other, original);
        }
        if (passed is not null)
            Assert.False(watch.Lines.Skip(mark).Any(l => l.StartsWith(passed, StringComparison.Ordinal)),
                         $"the signal came after the moment ({moment}): '{passed}' was printed first\n{watch.Tail(20)}");
    }

    private StreamingProcess Start(string drop, int warmUp) =>
        StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--warm-up",
             warmUp.ToString(CultureInfo.InvariantCulture)],
            Processes.WithEmptyNuGetCache(), game.Folder);

    private static void Stop(StreamingProcess watch, int signal, string moment)
    {
        string name = signal == Signals.Terminate ? "SIGTERM" : "SIGINT";
        Assert.True(watch.Signal(signal, TimeSpan.FromSeconds(30)),
                    $"watch did not stop on {name} ({moment}, sent at {watch.InterruptedAt?.TotalSeconds:0.000} s)\n" +
                    $"{watch.Tail(20)}\n{watch.Diagnose()}");
        Assert.True(watch.ExitCode == 0, $"{name} ({moment}): exit code {watch.ExitCode}\n{watch.Tail(40)}");
        Assert.DoesNotContain(watch.Lines, l => l.StartsWith("stderr: ", StringComparison.Ordinal));
        Assert.Equal("watch: stopped", watch.Lines[^1]);
        if (watch.Lines.LastOrDefault(l => l.StartsWith("watch: Small: ", StringComparison.Ordinal) &&
                                           StartTimes().IsMatch(l)) is { } times)
            _lastStartTimes = times;
    }

    // Other.cs with 2,000 more methods: seconds to read, check and emit.
    private static string BigOther()
    {
        var text = new System.Text.StringBuilder("internal static class Other\n{\n    public static string Name() => \"other\";\n");
        for (int i = 0; i < 2000; i++)
            text.Append(CultureInfo.InvariantCulture,
                $"    public static int Work{i}(int x) {{ int s = 0; for (int i = 0; i < x; i++) {{ s += i * {i} + x / (i + 1); }} return s; }}\n");
        return text.Append("}\n").ToString();
    }

    [GeneratedRegex(@"MSBuild (\d+) ms, sources read (\d+) ms$")]
    private static partial Regex StartTimes();
}
