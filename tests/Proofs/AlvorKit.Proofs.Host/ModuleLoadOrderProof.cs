using System.Reflection;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Plugin;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// A module is patchable whenever it loaded (host mode "modules loadorder"): the plugin
/// assembly's default copy, loaded and run before the process's first command, and a copy
/// loaded from bytes into another AssemblyLoadContext after it (laid out as the file, not
/// mapped: the profiler reads that image's metadata through its section table).
/// </summary>
public static class ModuleLoadOrderProof
{
    private const int Input = 5;
    private const int Original = Input * 2;

    public static ModuleLoadOrderReport Run()
    {
        // Before any call into the profiler's ABI: the default copy loads and runs.
        int before = PluginTargets.Compute(Input);
        bool loadedEarly = AppDomain.CurrentDomain.GetAssemblies()
            .Any(a => a == typeof(PluginTargets).Assembly);

        using var interceptor = Interceptor.Open();
        MethodInfo defaultTarget = Compute(typeof(PluginTargets).Assembly);
        Func<int> defaultCall = () => PluginTargets.Compute(Input);
        LoadedCopyStep early = PatchAndRestore(interceptor, defaultTarget, defaultCall,
            nameof(CopyReplacements.ForDefault), Input + 1000, loadedEarly, null);

        byte[] bytes = File.ReadAllBytes(typeof(PluginTargets).Assembly.Location);
        Assembly fromBytes = new AssemblyLoadContext("bytes", isCollectible: false)
            .LoadFromStream(new MemoryStream(bytes));
        Func<int, int> callCopy = Compute(fromBytes).CreateDelegate<Func<int, int>>();
        LoadedCopyStep late = PatchAndRestore(interceptor, Compute(fromBytes), () => callCopy(Input),
            nameof(CopyReplacements.ForPlugin), Input + 2000, false, defaultCall);
        return new ModuleLoadOrderReport(before, early, late);
    }

    private static LoadedCopyStep PatchAndRestore(Interceptor interceptor, MethodInfo target, Func<int> call,
        string replacement, int patched, bool loadedBeforeFirstCommand, Func<int>? other)
    {
        Assembly copy = target.Module.Assembly;
        string? context = AssemblyLoadContext.GetLoadContext(copy)?.Name;
        bool fromBytes = string.IsNullOrEmpty(copy.Location);
        call(); // the copy has run before it is patched
        try
        {
            Patch patch = interceptor.Install(target, Patcher.Method(typeof(CopyReplacements), replacement));
            Polled<int> whilePatched = Patcher.PollFor(call, patched);
            int? otherValue = other?.Invoke();
            patch.Remove();
            Polled<int> restored = Patcher.PollFor(call, Original);
            return new LoadedCopyStep(loadedBeforeFirstCommand, fromBytes, context, whilePatched, restored, otherValue, null);
        }
        catch (Exception e)
        {
            return new LoadedCopyStep(loadedBeforeFirstCommand, fromBytes, context, null, null, null, $"{e.GetType().Name}: {e.Message}");
        }
    }

    private static MethodInfo Compute(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Compute))!;
}
