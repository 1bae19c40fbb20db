using System.ComponentModel;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Launcher;

/// <summary>
/// `run`: starts the command with the launcher's standard streams and environment plus the
/// profiler's variables, waits for it and returns its exit code.
///
/// Signals. The launcher never dies before the command: SIGINT, SIGQUIT and SIGTERM are
/// caught. A Ctrl+C typed in a terminal reaches every process of the terminal's foreground
/// process group, the command included, so when the launcher is in that group it does not send
/// a second one; otherwise (no terminal, a background job, an IDE, `kill -INT` from a
/// script) it forwards SIGINT/SIGQUIT to the command. SIGTERM is always forwarded. On Windows
/// the console delivers Ctrl+C to the command itself; the launcher only keeps waiting.
/// </summary>
internal static partial class ChildRunner
{
    /// <summary>How to start `command` (its first word the program, the rest its arguments,
    /// passed on unchanged) with `variables` set in its environment (a null value removes one).</summary>
    internal static ProcessStartInfo StartInfo(IReadOnlyList<string> command, IReadOnlyList<Variable> variables)
    {
        var start = new ProcessStartInfo(command[0]) { UseShellExecute = false };
        foreach (string arg in command.Skip(1))
            start.ArgumentList.Add(arg);
        foreach (Variable v in variables)
        {
            if (v.Value is null)
                start.Environment.Remove(v.Name);
            else
                start.Environment[v.Name] = v.Value;
        }
        return start;
    }

    public static int Run(IReadOnlyList<string> command, IReadOnlyList<Variable> variables)
    {
        ProcessStartInfo start = StartInfo(command, variables);

        Process process;
        try
        {
            process = Process.Start(start)
                      ?? throw new LauncherException(ExitCodes.CommandNotStarted, $"cannot start '{command[0]}'.");
        }
        catch (Win32Exception e)
        {
            throw new LauncherException(ExitCodes.CommandNotStarted, $"cannot start '{command[0]}': {e.Message}");
        }

        using (process)
        using (Register(PosixSignal.SIGINT, process, fromTerminal: true))
        using (Register(PosixSignal.SIGQUIT, process, fromTerminal: true))
        using (OperatingSystem.IsWindows() ? null : Register(PosixSignal.SIGTERM, process, fromTerminal: false))
        {
            process.WaitForExit();
            return process.ExitCode; // on Unix, 128 + the signal when a signal ended it
        }
    }

    private static PosixSignalRegistration? Register(PosixSignal signal, Process child, bool fromTerminal)
    {
        try
        {
            return PosixSignalRegistration.Create(signal, context => OnSignal(context, child, fromTerminal));
        }
        catch (PlatformNotSupportedException)
        {
            return null; // a signal this OS does not map; the default applies
        }
    }

    private static void OnSignal(PosixSignalContext context, Process child, bool fromTerminal)
    {
        context.Cancel = true; // the launcher waits for the command instead of ending
        if (OperatingSystem.IsWindows())
            return;
        if (fromTerminal && InTerminalForegroundGroup())
            return; // the terminal already delivered it to the command
        try
        {
            if (!child.HasExited)
                _ = Kill(child.Id, NativeNumber(context.Signal));
        }
        catch (InvalidOperationException)
        {
            // exited meanwhile
        }
    }

    internal static int NativeNumber(PosixSignal signal) => signal switch
    {
        PosixSignal.SIGINT => 2,
        PosixSignal.SIGQUIT => 3,
        PosixSignal.SIGTERM => 15,
        _ => throw new ArgumentOutOfRangeException(nameof(signal)),
    };

    /// <summary>Whether this process is in the foreground process group of its controlling
    /// terminal, i.e. whether a Ctrl+C typed there reached the command too.</summary>
    internal static bool InTerminalForegroundGroup()
    {
        int fd = Open("/dev/tty", 0 /* O_RDONLY */);
        if (fd < 0)
            return false; // no controlling terminal
        try
        {
            int foreground = TcGetPgrp(fd);
            return foreground >= 0 && foreground == GetPgrp();
        }
        finally
        {
            _ = Close(fd);
        }
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    internal static partial int Kill(int pid, int signal);

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);

    [LibraryImport("libc", EntryPoint = "close", SetLastError = true)]
    private static partial int Close(int fd);

    [LibraryImport("libc", EntryPoint = "tcgetpgrp", SetLastError = true)]
    private static partial int TcGetPgrp(int fd);

    [LibraryImport("libc", EntryPoint = "getpgrp")]
    private static partial int GetPgrp();
}
