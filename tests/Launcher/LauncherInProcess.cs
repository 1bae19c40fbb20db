namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>The launcher's command line read and run in this process (Program.Run, what Main
/// runs), its stdout and stderr captured: for the tests of help, version and usage errors, which
/// need no process of their own. The commands' own work (run, env, watch) is replaced by an
/// action that records it was called and exits 0, so that a test can tell a refused command
/// line from one that would have started something.</summary>
internal static class LauncherInProcess
{
    public static ProcessResult Run(IReadOnlyList<string> args, out bool commandRan)
    {
        bool ran = false;
        var commandLine = new LauncherCommandLine(_ =>
        {
            ran = true;
            return 0;
        }, _ =>
        {
            ran = true;
            return 0;
        }, helpToFile: true);
        using var output = new StringWriter { NewLine = "\n" };
        using var error = new StringWriter { NewLine = "\n" };
        int code = Program.Run([.. args], output, error, commandLine);
        commandRan = ran;
        return new ProcessResult(code, output.ToString(), error.ToString());
    }

    /// <summary>As <see cref="Run(IReadOnlyList{string}, out bool)"/>, for a command line that must
    /// not start anything (help, version, a usage error).</summary>
    public static ProcessResult Run(IReadOnlyList<string> args)
    {
        ProcessResult r = Run(args, out bool commandRan);
        if (commandRan)
            throw new Xunit.Sdk.XunitException($"the command ran: {string.Join(' ', args)}\n{r}");
        return r;
    }
}
