using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// The game `watch -- [command]` started: the launcher's standard streams and environment plus the
/// profiler's and reload's variables, as `run` starts it. <see cref="Exited"/> is canceled when it
/// exits, which ends the watch. Ctrl+C, SIGQUIT and SIGTERM reach it as they reach `run`'s command
/// (a Ctrl+C typed in a terminal reaches it directly; a signal sent to the launcher alone is
/// forwarded), and they never end the launcher before it: <see cref="Stop"/> makes sure the game is
/// gone before watch exits, whatever ended the watch.
/// </summary>
internal sealed class WatchedGame : IDisposable
{
    // A game that got the stop signal has this long to exit by itself; one sent SIGTERM, this long
    // before it is killed.
    private static readonly TimeSpan SignalGrace = TimeSpan.FromSeconds(3);
    private static readonly TimeSpan TerminateGrace = TimeSpan.FromSeconds(5);

    private readonly Process _process;
    private readonly CancellationTokenSource _exited = new();
    private readonly List<PosixSignalRegistration> _signals = [];
    private volatile bool _signaled;

    private WatchedGame(Process process) => _process = process;

    /// <summary>The game's process id.</summary>
    public int Id => _process.Id;

    /// <summary>Canceled once the game has exited.</summary>
    public CancellationToken Exited => _exited.Token;

    /// <summary>Whether Ctrl+C, SIGQUIT or SIGTERM came to the launcher.</summary>
    public bool Signaled => _signaled;

    /// <summary>Starts <paramref name="command"/> with <paramref name="variables"/> set (a null value removed).</summary>
    /// <param name="onExit">Called with the exit code when the game exits, before <see cref="Exited"/> is canceled.</param>
    /// <exception cref="LauncherException">It could not be started (exit 127).</exception>
    public static WatchedGame Start(IReadOnlyList<string> command, IReadOnlyList<Variable> variables, Action<int> onExit)
    {
        ProcessStartInfo start = ChildRunner.StartInfo(command, variables);
        var process = new Process { StartInfo = start, EnableRaisingEvents = true };
        var game = new WatchedGame(process);
        process.Exited += (_, _) =>
        {
            onExit(process.ExitCode);
            game._exited.Cancel();
        };
        try
        {
            if (!process.Start())
                throw new LauncherException(ExitCodes.CommandNotStarted, $"watch: cannot start '{command[0]}'.");
        }
        catch (Win32Exception e)
        {
            process.Dispose();
            throw new LauncherException(ExitCodes.CommandNotStarted, $"watch: cannot start '{command[0]}': {e.Message}");
        }
        game.Register(PosixSignal.SIGINT, fromTerminal: true);
        game.Register(PosixSignal.SIGQUIT, fromTerminal: true);
        if (!OperatingSystem.IsWindows())
            game.Register(PosixSignal.SIGTERM, fromTerminal: false);
        return game;
    }

    /// <summary>Ends the game if it still runs (after the stop signal it got, it has a moment to exit
    /// by itself; then SIGTERM; then it is killed) and returns its exit code (on Unix, 128 + the
    /// signal when a signal ended it).</summary>
    public int Stop()
    {
        if (!_process.HasExited && !(_signaled && _process.WaitForExit(SignalGrace)))
        {
            if (!OperatingSystem.IsWindows())
                _ = ChildRunner.Kill(_process.Id, ChildRunner.NativeNumber(PosixSignal.SIGTERM));
            if (OperatingSystem.IsWindows() || !_process.WaitForExit(TerminateGrace))
                _process.Kill(entireProcessTree: true);
        }
        _process.WaitForExit();
        return _process.ExitCode;
    }

    public void Dispose()
    {
        try
        {
            Stop();
        }
        catch (InvalidOperationException)
        {
            // never started
        }
        foreach (PosixSignalRegistration registration in _signals)
            registration.Dispose();
        _process.Dispose();
        _exited.Dispose();
    }

    private void Register(PosixSignal signal, bool fromTerminal)
    {
        try
        {
            _signals.Add(PosixSignalRegistration.Create(signal, context => OnSignal(context, fromTerminal)));
        }
        catch (PlatformNotSupportedException)
        {
            // a signal this OS does not map
        }
    }

    // As `run` does (ChildRunner): the launcher outlives the game, and the game gets the signal once.
    private void OnSignal(PosixSignalContext context, bool fromTerminal)
    {
        context.Cancel = true;
        _signaled = true;
        if (OperatingSystem.IsWindows() || (fromTerminal && ChildRunner.InTerminalForegroundGroup()))
            return; // the console or the terminal delivered it to the game already
        try
        {
            if (!_process.HasExited)
                _ = ChildRunner.Kill(_process.Id, ChildRunner.NativeNumber(context.Signal));
        }
        catch (InvalidOperationException)
        {
            // exited meanwhile
        }
    }
}
