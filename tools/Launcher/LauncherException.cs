namespace AlvorKit.Interception.Launcher;

/// <summary>The launcher's own exit codes. Any other code `run` returns is the command's.</summary>
internal static class ExitCodes
{
    public const int Ok = 0;
    /// <summary>watch: MSBuild could not give the project's compiler arguments, or they do not parse.</summary>
    public const int BuildFailed = 1;
    /// <summary>No profiler library for this RID (or an unsupported RID).</summary>
    public const int ProfilerUnavailable = 2;
    /// <summary>Bad arguments, or a request the launcher refuses (a `*` module list).</summary>
    public const int Usage = 64;
    /// <summary>The command could not be started.</summary>
    public const int CommandNotStarted = 127;
}

/// <summary>An error the launcher reports on stderr and exits with.</summary>
internal sealed class LauncherException(int exitCode, string message) : Exception(message)
{
    public int ExitCode { get; } = exitCode;
}
