using System.Diagnostics;

namespace ReloadBenchmark;

/// <summary>One line a process wrote, with when the harness read it (Stopwatch ticks).</summary>
internal readonly record struct TimedLine(int Index, long Timestamp, string Stream, string Text);

/// <summary>
/// A process the harness started, its stdout and stderr read line by line as they come and each
/// line stamped on arrival, so an edit can wait for "the first line after the save that shows X".
/// Every line also goes to a log file. Stopping it kills its whole tree (this process started it).
/// </summary>
internal sealed class TimedProcess : IDisposable
{
    private readonly Process _process;
    private readonly List<TimedLine> _lines = [];
    private readonly object _gate = new(); // Monitor.Wait and PulseAll: a waiter sleeps until a line comes
    private readonly StreamWriter _log;

    public TimedProcess(string name, ProcessStartInfo start, string logPath)
    {
        Name = name;
        start.UseShellExecute = false;
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = true; // kept open: closing it ends LiveDemo's free loop
        _log = new StreamWriter(logPath) { AutoFlush = false };
        _log.WriteLine($"# {start.FileName} {string.Join(' ', start.ArgumentList)} (in {start.WorkingDirectory})");
        _process = new Process { StartInfo = start };
        _process.OutputDataReceived += (_, e) => Add("out", e.Data);
        _process.ErrorDataReceived += (_, e) => Add("err", e.Data);
        if (!_process.Start())
            throw new InvalidOperationException($"{name}: cannot start {start.FileName}");
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    public string Name { get; }

    public int Count
    {
        get
        {
            lock (_gate)
                return _lines.Count;
        }
    }

    public bool HasExited => _process.HasExited;

    /// <summary>Runs a command to its end (a build): throws <see cref="SideFailedException"/>
    /// with its last lines when it fails or takes longer than <paramref name="timeout"/>.</summary>
    public static void RunToEnd(string name, ProcessStartInfo start, string logPath, TimeSpan timeout)
    {
        // No MSBuild node or build server outlives the build holding its output pipe open (the
        // wait for its last line below would never end).
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        start.Environment["DOTNET_CLI_USE_MSBUILD_SERVER"] = "0";
        using var p = new TimedProcess(name, start, logPath);
        if (!p._process.WaitForExit(timeout))
            throw new SideFailedException($"{name}: still running after {timeout.TotalSeconds:0} s\n{p.Tail()}");
        p._process.WaitForExit(); // the last lines read
        if (p._process.ExitCode != 0)
            throw new SideFailedException($"{name}: exit code {p._process.ExitCode}\n{p.Tail()}");
    }

    /// <summary>The first line from index <paramref name="from"/> on that matches, waiting up to
    /// <paramref name="timeout"/> for it; null when none came or the process ended without it.</summary>
    public TimedLine? WaitFor(int from, Func<string, bool> match, TimeSpan timeout)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        lock (_gate)
        {
            int next = from;
            while (true)
            {
                for (; next < _lines.Count; next++)
                    if (match(_lines[next].Text))
                        return _lines[next];
                long left = deadline - Stopwatch.GetTimestamp();
                if (left <= 0 || (_process.HasExited && _exitSeen))
                    return null;
                Monitor.Wait(_gate, TimeSpan.FromSeconds(Math.Min(0.25, (double)left / Stopwatch.Frequency)));
            }
        }
    }

    /// <summary>The lines from index <paramref name="from"/> on, as they are now.</summary>
    public List<TimedLine> Since(int from)
    {
        lock (_gate)
            return _lines.Skip(from).ToList();
    }

    /// <summary>The last lines, for a failure message.</summary>
    public string Tail(int n = 15)
    {
        lock (_gate)
            return string.Join('\n', _lines.Skip(Math.Max(0, _lines.Count - n)).Select(l => $"  [{Name} {l.Stream}] {l.Text}"));
    }

    private bool _exitSeen;

    private void Add(string stream, string? text)
    {
        long now = Stopwatch.GetTimestamp();
        lock (_gate)
        {
            if (text is null)
            {
                _exitSeen |= stream == "out";
            }
            else
            {
                _lines.Add(new TimedLine(_lines.Count, now, stream, text));
                _log.WriteLine($"{Clock.Seconds(now):F3} {stream} {text}");
            }
            Monitor.PulseAll(_gate);
        }
    }

    /// <summary>Closes stdin (LiveDemo's free loop ends by itself), waits a little, then kills the tree.</summary>
    public void Stop(TimeSpan grace)
    {
        try
        {
            _process.StandardInput.Close();
        }
        catch (IOException)
        {
            // already gone
        }
        if (!_process.WaitForExit(grace))
            _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    public void Dispose()
    {
        if (!_process.HasExited)
            _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
        _process.Dispose();
        lock (_gate)
            _log.Dispose();
    }
}

/// <summary>Stopwatch ticks as seconds and milliseconds.</summary>
internal static class Clock
{
    public static double Seconds(long timestamp) => (double)timestamp / Stopwatch.Frequency;

    public static double Ms(long from, long to) => (double)(to - from) * 1000 / Stopwatch.Frequency;
}
