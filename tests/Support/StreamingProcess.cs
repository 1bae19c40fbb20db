using System.Diagnostics;
using System.Runtime.InteropServices;

namespace AlvorKit.Tests.Support;

/// <summary>
/// A child process a test watches while it runs (a game loop, a watcher): every line it writes,
/// on stdout or stderr, is kept in order with a sequence number, and a test waits for a line that
/// satisfies a condition, after a mark, within a bounded time. The environment is
/// <see cref="ChildProcess"/>'s. Dispose kills the process and its tree if it still runs.
/// </summary>
public sealed class StreamingProcess : IDisposable
{
    private readonly Process _process;
    private readonly List<string> _lines = [];
    private readonly List<TimeSpan> _times = []; // when each line arrived, for a failure message
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly string _name;

    private StreamingProcess(Process process, string name)
    {
        _process = process;
        _name = name;
    }

    /// <summary>Starts `file args` (see <see cref="ChildProcess.StartInfo"/>); stdin stays open.</summary>
    public static StreamingProcess Start(string name, string file, IEnumerable<string> args,
        IReadOnlyDictionary<string, string?>? environment = null, string? workingDirectory = null)
    {
        // Interrupt stands for a Ctrl+C. A process that starts with SIGINT ignored keeps it ignored
        // (the runtime honours an inherited SIG_IGN), and every test run started as a background
        // job of a script inherits exactly that: so the child starts with SIGINT back at its default.
        ProcessStartInfo start = InterruptIgnoredHere()
            ? ChildProcess.StartInfo("/usr/bin/env", ["--default-signal=INT", file, .. args], environment, workingDirectory)
            : ChildProcess.StartInfo(file, args, environment, workingDirectory);
        var process = new Process { StartInfo = start };
        var streaming = new StreamingProcess(process, name);
        process.OutputDataReceived += (_, e) => streaming.Add(e.Data, "");
        process.ErrorDataReceived += (_, e) => streaming.Add(e.Data, "stderr: ");
        if (!process.Start())
            throw new InvalidOperationException($"{name}: {file} did not start");
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return streaming;
    }

    /// <summary>Whether this process has SIGINT ignored (Linux: bit 1 of SigIgn in /proc/self/status).</summary>
    private static bool InterruptIgnoredHere()
    {
        if (!OperatingSystem.IsLinux())
            return false;
        string? mask = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return mask is not null && (Convert.ToUInt64(mask["SigIgn:".Length..].Trim(), 16) & (1UL << (Signals.Interrupt - 1))) != 0;
    }

    /// <summary>The number of lines so far: a mark for <see cref="WaitFor"/>.</summary>
    public int Mark
    {
        get
        {
            lock (_lines)
                return _lines.Count;
        }
    }

    public bool HasExited => _process.HasExited;

    /// <summary>Every line so far (stderr lines start with "stderr: ").</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_lines)
                return [.. _lines];
        }
    }

    /// <summary>The first line at or after <paramref name="from"/> that satisfies
    /// <paramref name="match"/>, waiting up to <paramref name="timeout"/>; on a timeout or an
    /// exit first, a TimeoutException says what was awaited and shows the last lines.</summary>
    public (string Line, int Index) WaitFor(int from, Func<string, bool> match, TimeSpan timeout, string what)
    {
        DateTime deadline = DateTime.UtcNow + timeout;
        int next = from;
        lock (_lines)
        {
            while (true)
            {
                for (; next < _lines.Count; next++)
                {
                    if (match(_lines[next]))
                        return (_lines[next], next);
                }
                TimeSpan left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero || (_process.HasExited && _streamsClosed == 2))
                    throw new TimeoutException(
                        $"{_name}: no line {what} within {timeout.TotalSeconds:0.#} s" +
                        (_process.HasExited ? $" (it exited with {_process.ExitCode})" : "") + "\n" + Tail(40));
                Monitor.Wait(_lines, left < TimeSpan.FromMilliseconds(200) ? left : TimeSpan.FromMilliseconds(200));
            }
        }
    }

    private int _streamsClosed; // stdout and stderr: their last line has been read once both are closed

    /// <summary>The last <paramref name="count"/> lines, for a failure message.</summary>
    public string Tail(int count)
    {
        lock (_lines)
        {
            int first = Math.Max(0, _lines.Count - count);
            IEnumerable<string> lines = Enumerable.Range(first, _lines.Count - first)
                .Select(i => $"[{_times[i].TotalSeconds,7:0.000} s] {_lines[i]}");
            return $"--- last {_lines.Count - first} lines of {_name} (now {_clock.Elapsed.TotalSeconds:0.000} s)\n" +
                   string.Join('\n', lines);
        }
    }

    /// <summary>What Linux says of the process and its threads (signal masks, each thread's name and
    /// state), for a failure message when it did not answer a signal; empty elsewhere.</summary>
    public string Diagnose()
    {
        string proc = $"/proc/{_process.Id}";
        if (!OperatingSystem.IsLinux() || !Directory.Exists(proc))
            return "";
        try
        {
            var text = new System.Text.StringBuilder($"--- {proc}/status (signals):\n");
            foreach (string line in File.ReadLines($"{proc}/status").Where(l => l.StartsWith("Sig", StringComparison.Ordinal) ||
                         l.StartsWith("ShdPnd", StringComparison.Ordinal) || l.StartsWith("State", StringComparison.Ordinal)))
                text.Append(line).Append('\n');
            text.Append("--- threads (name, state, wchan):\n");
            foreach (string task in Directory.EnumerateDirectories($"{proc}/task"))
            {
                string name = File.ReadAllText($"{task}/comm").Trim();
                string state = File.ReadLines($"{task}/status").FirstOrDefault(l => l.StartsWith("State", StringComparison.Ordinal)) ?? "";
                string wchan = File.Exists($"{task}/wchan") ? File.ReadAllText($"{task}/wchan").Trim() : "";
                text.Append($"{Path.GetFileName(task)} {name} {state.Replace("State:", "", StringComparison.Ordinal).Trim()} {wchan}\n");
            }
            return text.ToString();
        }
        catch (IOException e)
        {
            return $"({proc}: {e.Message})";
        }
    }

    /// <summary>Writes a line to the process's stdin.</summary>
    public void WriteLine(string line)
    {
        _process.StandardInput.WriteLine(line);
        _process.StandardInput.Flush();
    }

    /// <summary>Sends SIGINT (a Ctrl+C) on Unix, and waits for the exit; false if it outlived <paramref name="timeout"/>.</summary>
    public bool Interrupt(TimeSpan timeout) => Signal(Signals.Interrupt, timeout);

    /// <summary>Sends <paramref name="signal"/> (<see cref="Signals"/>) on Unix, and waits for the
    /// exit; false if it outlived <paramref name="timeout"/>.</summary>
    public bool Signal(int signal, TimeSpan timeout)
    {
        if (!_process.HasExited && !OperatingSystem.IsWindows() && Signals.Send(_process.Id, signal) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            if (!_process.HasExited)
                throw new InvalidOperationException($"{_name}: kill({_process.Id}, {signal}) failed: errno {errno}");
        }
        lock (_lines)
            _interruptedAt = _clock.Elapsed;
        if (!_process.WaitForExit(timeout))
            return false;
        // With a timeout, WaitForExit does not wait for the redirected streams' last lines;
        // without one it does (the process has exited, so this returns once they are read).
        _process.WaitForExit();
        return true;
    }

    public int ExitCode => _process.ExitCode;

    private TimeSpan? _interruptedAt;

    /// <summary>When <see cref="Signal"/> sent its signal, on the clock <see cref="Tail"/> shows.</summary>
    public TimeSpan? InterruptedAt
    {
        get
        {
            lock (_lines)
                return _interruptedAt;
        }
    }

    private void Add(string? line, string prefix)
    {
        lock (_lines)
        {
            if (line is null)
                _streamsClosed++;
            else
            {
                _lines.Add(prefix + line);
                _times.Add(_clock.Elapsed);
            }
            Monitor.PulseAll(_lines);
        }
    }

    public void Dispose()
    {
        try
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                _process.WaitForExit(10_000);
            }
        }
        catch (InvalidOperationException)
        {
            // never started or already gone
        }
        _process.Dispose();
    }
}
