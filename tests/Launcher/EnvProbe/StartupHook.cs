using System.Reflection;

/// <summary>
/// A game's own startup hook, as a user puts it in DOTNET_STARTUP_HOOKS for the game: it writes
/// the name of the process it runs in to the file ALVK_PROBE_HOOK_LOG names, and throws in any
/// process but EnvProbe, as a hook that needs its game does. The launcher tests give it to the
/// launcher's environment: it must run in the game the launcher starts, and never in the launcher.
/// </summary>
internal static class StartupHook
{
    public static void Initialize()
    {
        string process = Assembly.GetEntryAssembly()?.GetName().Name ?? "(no entry assembly)";
        if (Environment.GetEnvironmentVariable("ALVK_PROBE_HOOK_LOG") is { Length: > 0 } log)
            File.AppendAllText(log, process + "\n");
        if (process != "EnvProbe")
            throw new InvalidOperationException($"EnvProbe's startup hook ran in {process}, a process it was not written for");
    }
}
