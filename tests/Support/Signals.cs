using System.Runtime.InteropServices;

namespace AlvorKit.Tests.Support;

/// <summary>kill(2), for a test that sends a process a signal (a Ctrl+C).</summary>
public static partial class Signals
{
    public const int Interrupt = 2;
    public const int Terminate = 15;

    public static int Send(int pid, int signal) => Kill(pid, signal);

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int Kill(int pid, int signal);
}
