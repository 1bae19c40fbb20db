using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using AlvorKit.Interception;

namespace AlvorKit.PatchBenchmark;

// A target the JIT inlines into its callers (`x * 3 + 1`, no attribute), its unhooked twin,
// and one hot caller of each. The callers are NoInlining so each has its own code to read in
// the JIT's listing.
public static class InlinedTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    public static int Twin(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HookedCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Tiny(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TwinCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Twin(i);
        return sum;
    }

    // What a carrier of Tiny's woven body looks like: HookWeaver's layout around Tiny's body
    // (a run-original flag, the prefix, the original, the postfix), as a method that is never
    // ReJIT'd. The experiment has the profiler re-JIT HookedCaller with IL that calls this in
    // place of Tiny, to see whether the JIT inlines it there.
    public static int TinyCarrier(int x)
    {
        bool runOriginal = true;
        Hooks.EmptyPrefix();
        int result = 0;
        if (runOriginal)
            result = x * 3 + 1;
        Hooks.EmptyPostfix();
        return result;
    }
}

/// <summary>
/// Hooks on a target the JIT inlines: HookedCaller against TwinCaller (the same code calling an
/// unhooked twin), timed in alternated pairs in this one process, in four phases: nothing hooked;
/// Tiny hooked with an empty prefix + postfix (the runtime re-JITs HookedCaller, which may no
/// longer inline the ReJIT'd Tiny); HookedCaller re-JIT'd with IL calling TinyCarrier (a never
/// ReJIT'd method with the woven body) in place of Tiny; and the hook removed. Run with
/// DOTNET_JitDisasm=HookedCaller and DOTNET_JitStdOutFile to read each phase's caller code.
/// Each sample is the calling thread's CPU time on Linux (CLOCK_THREAD_CPUTIME_ID: time the thread
/// waited for a core on a loaded machine is not counted), wall-clock time elsewhere.
/// </summary>
public static partial class InlinedHooks
{
    private const int Inner = 1000;

    public static int Run(int outer, int pairs)
    {
        using var interceptor = Interceptor.Open();
        using var owner = new PatchOwner("inlined hooks");
        MethodInfo tiny = Of(typeof(InlinedTargets), nameof(InlinedTargets.Tiny));
        MethodInfo caller = Of(typeof(InlinedTargets), nameof(InlinedTargets.HookedCaller));
        int expected = InlinedTargets.TwinCaller(Inner);

        Console.WriteLine($"Hooks on an inlined target: HookedCaller / TwinCaller, {pairs} alternated pairs of " +
                          $"{outer} x {Inner} calls; tiering {(TieringOn() ? "on" : "off")}, .NET {Environment.Version}, " +
                          $"{Environment.ProcessorCount} cores, {(OperatingSystem.IsLinux() ? "thread CPU time" : "wall-clock time")}");
        Console.WriteLine("| phase | median ratio | min | max | HookedCaller ms (median) |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        Phase("nothing hooked", outer, pairs, expected);

        WovenPatch hook = interceptor.Hook(tiny, prefix: Of(typeof(Hooks), nameof(Hooks.EmptyPrefix)),
            postfix: Of(typeof(Hooks), nameof(Hooks.EmptyPostfix)), owner: owner);
        Phase("Tiny hooked (empty prefix + postfix)", outer, pairs, expected);

        var plan = GenerationPlan.FromOriginal(caller);
        if (plan.ReplaceCalls(tiny, Of(typeof(InlinedTargets), nameof(InlinedTargets.TinyCarrier))) != 1)
            throw new InvalidOperationException("HookedCaller does not call Tiny once");
        Patch redirect = interceptor.Apply(plan, owner);
        Phase("HookedCaller re-JIT'd calling the carrier", outer, pairs, expected);

        redirect.Remove();
        Phase("carrier redirect removed (hook kept)", outer, pairs, expected);

        hook.Remove();
        Phase("hook removed", outer, pairs, expected);
        return 0;
    }

    private static void Phase(string name, int outer, int pairs, int expected)
    {
        // Until both callers' code is final: batches with pauses for tiering's background work.
        for (int round = 0; round < 30; round++)
        {
            for (int i = 0; i < 100; i++)
            {
                Check(InlinedTargets.HookedCaller(Inner), expected);
                Check(InlinedTargets.TwinCaller(Inner), expected);
            }
            Thread.Sleep(10);
        }
        var ratios = new double[pairs];
        var hooked = new double[pairs];
        for (int p = 0; p < pairs; p++)
        {
            // Alternate which goes first, so neither always runs in the other's wake.
            double a, b;
            if (p % 2 == 0)
            {
                a = Time(InlinedTargets.HookedCaller, outer);
                b = Time(InlinedTargets.TwinCaller, outer);
            }
            else
            {
                b = Time(InlinedTargets.TwinCaller, outer);
                a = Time(InlinedTargets.HookedCaller, outer);
            }
            ratios[p] = a / b;
            hooked[p] = a;
        }
        Array.Sort(ratios);
        Array.Sort(hooked);
        Console.WriteLine($"| {name} | {ratios[pairs / 2]:F2} | {ratios[0]:F2} | {ratios[^1]:F2} | {hooked[pairs / 2]:F1} |");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static double Time(Func<int, int> body, int outer)
    {
        double start = NowMs();
        int sink = 0;
        for (int i = 0; i < outer; i++)
            sink += body(Inner);
        double ms = NowMs() - start;
        GC.KeepAlive(sink);
        return ms;
    }

    private static double NowMs()
    {
        if (OperatingSystem.IsLinux() && ClockGetTime(ThreadCpuTimeClock, out TimeSpec now) == 0)
            return now.Seconds * 1e3 + now.Nanoseconds / 1e6;
        return Stopwatch.GetTimestamp() * 1e3 / Stopwatch.Frequency;
    }

    private const int ThreadCpuTimeClock = 3; // CLOCK_THREAD_CPUTIME_ID

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    private static void Check(int actual, int expected)
    {
        if (actual != expected)
            throw new InvalidOperationException($"HookedCaller returned {actual}, expected {expected}");
    }

    private static bool TieringOn() =>
        Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") != "0";

    private static MethodInfo Of(Type type, string name) =>
        type.GetMethod(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static)
        ?? throw new MissingMethodException(type.Name, name);
}
