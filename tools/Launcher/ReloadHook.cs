namespace AlvorKit.Interception.Launcher;

/// <summary>
/// Hot reload with no code in the game: `run --reload &lt;folder&gt;` (and `watch -- &lt;command&gt;`)
/// start the game with the launcher's startup hook (managed/AlvorKit.Interception.StartupHook,
/// beside the launcher) in DOTNET_STARTUP_HOOKS and the folder in
/// ALVORKIT_INTERCEPTION_RELOAD_FOLDER. Both are set in the game's environment only: the
/// launcher's own runtime runs no startup hook at all (StartupHookSupport is off in its project),
/// and MSBuild, which watch starts, gets none either.
/// </summary>
internal static class ReloadHook
{
    public const string HooksVariable = "DOTNET_STARTUP_HOOKS";
    public const string FolderVariable = "ALVORKIT_INTERCEPTION_RELOAD_FOLDER";
    public const string AssemblyFile = "AlvorKit.Interception.StartupHook.dll";

    /// <summary>
    /// The assembly whose one method the game's reload warm-up patches for real and unpatches
    /// before the first update (managed/AlvorKit.Interception.Rehearsal: a static method returning
    /// a constant, nothing else), beside the hook. Only watch adds it to the game's allowlist
    /// (<see cref="WatchModules"/>): run --reload does not (docs/HotReload.md, "Security: who can feed code into the game").
    /// </summary>
    public static string RehearsalModule => typeof(Rehearsal.RehearsalTarget).Assembly.GetName().Name!;

    /// <summary>watch's ALVORKIT_INTERCEPTION_MODULES: the game's assembly, then <see cref="RehearsalModule"/>.</summary>
    public static string WatchModules(string assemblyName) =>
        ModuleList.Normalize([assemblyName, RehearsalModule], isolatedProof: false)!;

    /// <summary>The hook beside the launcher (bin/, or the tool package's tools/net10.0/any/).</summary>
    /// <exception cref="LauncherException">It is not there (exit 2).</exception>
    public static string Locate(string? toolDirectory = null)
    {
        string path = Path.Combine(toolDirectory ?? AppContext.BaseDirectory, AssemblyFile);
        return File.Exists(path)
            ? path
            : throw new LauncherException(ExitCodes.ProfilerUnavailable,
                $"--reload: the startup hook {path} is missing; it ships beside the launcher (reinstall the tool, " +
                "or build tools/Launcher)");
    }

    /// <summary>The drop folder as the game gets it: a full path (the game may change its working
    /// directory), created private (mode 0700) when it is missing, because the game's watch
    /// refuses a folder other users can write to.</summary>
    public static string PrepareFolder(string folder)
    {
        string full = Path.GetFullPath(folder);
        if (!Directory.Exists(full))
        {
            if (OperatingSystem.IsWindows())
                Directory.CreateDirectory(full); // the game's watch sets its permissions
            else
                Directory.CreateDirectory(full, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
        return full;
    }

    /// <summary>The game's variables: the hook after those the user already gave the game (the
    /// runtime runs them in order; the platform's path separator between them), and the folder.</summary>
    /// <param name="folder">The drop folder, a full path.</param>
    /// <param name="hook">The hook's full path.</param>
    /// <param name="userHooks">DOTNET_STARTUP_HOOKS in the launcher's environment, if any.</param>
    public static IReadOnlyList<Variable> Variables(string folder, string hook, string? userHooks)
    {
        string hooks = string.IsNullOrEmpty(userHooks) ? hook
            : userHooks.Split(Path.PathSeparator).Contains(hook, StringComparer.Ordinal) ? userHooks // given already
            : userHooks.TrimEnd(Path.PathSeparator) + Path.PathSeparator + hook;
        return [new(HooksVariable, hooks), new(FolderVariable, folder)];
    }
}
