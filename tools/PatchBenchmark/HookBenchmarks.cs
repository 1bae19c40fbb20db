using System.Reflection;
using AlvorKit.Interception;
using BenchmarkDotNet.Attributes;

namespace AlvorKit.PatchBenchmark;

/// <summary>
/// Steady-state cost of a call through woven hooks against the unpatched original (the
/// baseline), in one run: an empty prefix + empty postfix called directly (public hooks), the
/// same through calli (non-public hooks), and a prefix reading an argument with a postfix
/// changing __result. Every target has the original's body; only the baseline is not hooked.
/// </summary>
// BenchmarkDotNet runs [Benchmark] methods on an instance of their class: they cannot be static.
#pragma warning disable CA1822
[MemoryDiagnoser]
#pragma warning disable CA1063 // BenchmarkDotNet derives from the class (it cannot be sealed); nothing here needs Dispose(bool)
public class HookBenchmarks : IDisposable
{
    private const int Calls = 1000;
    private Interceptor? _interceptor;
    private PatchOwner? _owner;

    [GlobalSetup]
    public void Setup()
    {
        _interceptor = Interceptor.Open();
        _owner = new PatchOwner("hook benchmark");
        HookAll(_interceptor, _owner);
    }

    [GlobalCleanup]
    public void Dispose()
    {
        _owner?.Dispose();
        _interceptor?.Dispose();
        _owner = null;
        _interceptor = null;
        GC.SuppressFinalize(this);
    }

    /// <summary>Hooks the three targets, checked in force (the working hooks change the result).</summary>
    public static IReadOnlyList<WovenPatch> HookAll(Interceptor interceptor, PatchOwner owner)
    {
        static MethodInfo Of(Type type, string name) =>
            type.GetMethod(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static)
            ?? throw new MissingMethodException(type.Name, name);
        WovenPatch[] patches =
        [
            interceptor.Hook(Of(typeof(HookTargets), nameof(HookTargets.EmptyHooks)),
                prefix: Of(typeof(Hooks), nameof(Hooks.EmptyPrefix)), postfix: Of(typeof(Hooks), nameof(Hooks.EmptyPostfix)), owner: owner),
            interceptor.Hook(Of(typeof(HookTargets), nameof(HookTargets.EmptyHooksCalli)),
                prefix: Of(typeof(HiddenHooks), "EmptyPrefix"), postfix: Of(typeof(HiddenHooks), "EmptyPostfix"), owner: owner),
            interceptor.Hook(Of(typeof(HookTargets), nameof(HookTargets.WorkingHooks)),
                prefix: Of(typeof(Hooks), nameof(Hooks.ReadingPrefix)), postfix: Of(typeof(Hooks), nameof(Hooks.ChangingPostfix)), owner: owner),
        ];
        if (HookTargets.WorkingHooks(1) != HookTargets.Original(1) + 1 || Hooks.Seen != 1)
            throw new InvalidOperationException("the working hooks are not in force");
        return patches;
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Calls)]
    public int Original()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += HookTargets.Original(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int EmptyHooks()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += HookTargets.EmptyHooks(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int EmptyHooksCalli()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += HookTargets.EmptyHooksCalli(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int WorkingHooks()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += HookTargets.WorkingHooks(i);
        return sum;
    }
}
