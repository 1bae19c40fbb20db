using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;

/// <summary>
/// Hot reload for a game that has no AlvorKit code: `alvorkit-intercept run --reload &lt;folder&gt;`
/// (and `watch -- &lt;command&gt;`) start the game with this assembly in DOTNET_STARTUP_HOOKS and the
/// folder in ALVORKIT_INTERCEPTION_RELOAD_FOLDER, both in the game's environment only. Before the
/// game's Main, the runtime calls <see cref="Initialize"/>: it opens the interceptor and watches
/// the folder for the rest of the process's life, as the game's own
/// <c>interceptor.Reload.WatchFolder(folder)</c> would, each result printed on stderr after
/// "alvorkit-reload: ". A game that calls WatchFolder on the same folder itself shares this watch
/// (HotReloader.WatchFolder): each update is applied once, and both callbacks hear of it.
/// <para>The runtime requires the name: a class StartupHook in no namespace, with a public static
/// void Initialize().</para>
/// </summary>
internal static class StartupHook
{
    /// <summary>The drop folder; set by the launcher for the game alone.</summary>
    public const string FolderVariable = "ALVORKIT_INTERCEPTION_RELOAD_FOLDER";

    private const string Prefix = "alvorkit-reload: ";

    // The interceptor and its watch, held for the life of the process: the watch applies updates
    // until the game exits. Typed IDisposable so that loading this class needs no AlvorKit
    // assembly yet.
    private static readonly List<IDisposable> Held = [];

    public static void Initialize()
    {
        string? folder = Environment.GetEnvironmentVariable(FolderVariable);
        if (string.IsNullOrEmpty(folder))
            return; // the hook without a folder (inherited by some other process): nothing to do
        // A process the game starts inherits its environment: it must not watch the same folder
        // too, and answer the watcher for an assembly it does not run.
        Environment.SetEnvironmentVariable(FolderVariable, null);

        // The game's deps.json need not list the AlvorKit assemblies: they are the ones beside
        // this hook, loaded into the game's default context when the game has none of its own.
        // A game that references AlvorKit.Interception uses its own copy, and this hook with it.
        string directory = Path.GetDirectoryName(typeof(StartupHook).Assembly.Location) ?? AppContext.BaseDirectory;
        AssemblyLoadContext.Default.Resolving += (context, name) => FromHookFolder(directory, context, name);
        try
        {
            Watch(folder);
        }
        catch (Exception e)
        {
            // An exception here would end the game before its Main: it runs without reload instead,
            // and says why.
            Console.Error.WriteLine($"{Prefix}not watching {folder}: {e.GetType().Name}: {e.Message}");
        }
    }

    // Compiled only when called, after the resolver above is in place: it is the first code that
    // needs AlvorKit.Interception.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Watch(string folder)
    {
        Interceptor interceptor = Interceptor.Open();
        IDisposable watch;
        try
        {
            watch = interceptor.Reload.WatchFolder(folder, Report);
        }
        catch
        {
            interceptor.Dispose();
            throw;
        }
        Held.Add(interceptor);
        Held.Add(watch);
        string state = interceptor.PatchingRefusal is { } refusal
            ? $"but the profiler refuses patch commands: {refusal}"
            : $"patchable: {interceptor.PatchableModules}";
        Console.Error.WriteLine($"{Prefix}watching {Path.GetFullPath(folder)} for updates ({state})");
    }

    // One write for the whole summary, so the game's own lines do not come between its lines.
    private static void Report(ReloadResult result) =>
        Console.Error.Write(string.Concat(result.Summary.Split('\n')
            .Select(line => Prefix + line.TrimEnd('\r') + Environment.NewLine)));

    private static Assembly? FromHookFolder(string directory, AssemblyLoadContext context, AssemblyName name)
    {
        if (name.Name is not { } simple || !simple.StartsWith("AlvorKit.", StringComparison.Ordinal))
            return null;
        string path = Path.Combine(directory, simple + ".dll");
        return File.Exists(path) ? context.LoadFromAssemblyPath(path) : null;
    }
}
