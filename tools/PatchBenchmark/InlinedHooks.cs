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

    // The cross-module kind: the target and its twin in another assembly (PatchBenchmark.Engine).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HookedCrossCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Engine.EngineTargets.Tiny(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TwinCrossCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Engine.EngineTargets.Twin(i);
        return sum;
    }

    // What Install puts in Tiny's place: the same value from another method.
    public static int TinyReplacement(int x) => x * 3 + 1;

    private static readonly InlinedCounter Counter = new();

    // The same for an instance method of a class, called with callvirt (a getter's shape).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HookedInstanceCaller(int n)
    {
        InlinedCounter counter = Counter;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += counter.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TwinInstanceCaller(int n)
    {
        InlinedCounter counter = Counter;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += counter.Twin(i);
        return sum;
    }

    public static int ScaledReplacement(InlinedCounter self, int x) => x * self.Factor + 1;

    // Targets patched before their hot callers are first called (the firstcall kind): one hooked,
    // one replaced whole, with the same twin.
    public static int FirstHooked(int x) => x * 3 + 1;

    public static int FirstReplaced(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int FirstHookedCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += FirstHooked(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int FirstReplacedCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += FirstReplaced(i);
        return sum;
    }
}

// Targets whose callers keep a real call of the patched target (no carrier; docs/Limits.md,
// "Targets whose carrier is refused"): the cost of the call kept, against the twin still inlined.
public static class RefusedTargets
{
    // A class's overridable virtual method, which the caller devirtualizes (it made the object:
    // its exact type is known) and inlines while nothing is patched.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HookedVirtualCaller(int n)
    {
        var shape = new InlinedShape();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += shape.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TwinVirtualCaller(int n)
    {
        var shape = new InlinedShape();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += shape.Twin(i);
        return sum;
    }

    public static int ShapeReplacement(InlinedShape self, int x) => x * 3 + 1;

    // A method of a generic class over a value type (code of its own, not shared).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HookedGenericCaller(int n)
    {
        var box = new InlinedBox<int>();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += box.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TwinGenericCaller(int n)
    {
        var box = new InlinedBox<int>();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += box.Twin(i);
        return sum;
    }

}

public class InlinedShape
{
    public virtual int Scaled(int x) => x * 3 + 1;

    public virtual int Twin(int x) => x * 3 + 1;
}

public sealed class InlinedBox<T>
{
    public int Scaled(int x) => x * 3 + 1;

    public int Twin(int x) => x * 3 + 1;
}

public sealed class InlinedCounter
{
    public int Factor { get; } = 3;

    public int Scaled(int x) => x * Factor + 1;

    public int Twin(int x) => x * Factor + 1;
}

/// <summary>
/// Hooks and a whole-body replacement on a target the JIT inlines: HookedCaller against TwinCaller
/// (the same code calling an unhooked twin), timed in alternated pairs in this one process, in five
/// phases: nothing hooked; Tiny hooked with an empty prefix + postfix (Interceptor.Hook alone: the
/// profiler re-JITs HookedCaller, its known inliner, with IL calling a carrier of the woven body,
/// since the runtime never inlines the ReJIT'd Tiny); the hook removed; Tiny replaced whole
/// (Interceptor.Install, the same way); the replacement removed. Run with DOTNET_JitDisasm=HookedCaller
/// and DOTNET_JitStdOutFile to read each phase's caller code. Each sample is the calling thread's CPU
/// time on Linux (CLOCK_THREAD_CPUTIME_ID: time the thread waited for a core on a loaded machine is
/// not counted), wall-clock time elsewhere.
/// </summary>
public static partial class InlinedHooks
{
    private const int Inner = 1000;

    // The target, its replacement and the two callers of a kind: `static` (Tiny), `instance`
    // (InlinedCounter.Scaled, its caller's callvirt checking the receiver for null), `cross`
    // (PatchBenchmark.Engine's EngineTargets.Tiny, called from this assembly), and two whose
    // callers keep the call while it is patched: `virtual` (InlinedShape.Scaled) and `generic`
    // (InlinedBox<int>.Scaled).
    private sealed record Kind(MethodInfo Target, MethodInfo? Replacement, Func<int, int> Hooked, Func<int, int> Twin);

    public static int Run(int outer, int pairs, string kindName = "static")
    {
        if (kindName == "firstcall")
            return RunFirstCall(outer, pairs);
        using var interceptor = Interceptor.Open();
        using var owner = new PatchOwner("inlined hooks");
        Kind kind = kindName switch
        {
            "instance" => new(typeof(InlinedCounter).GetMethod(nameof(InlinedCounter.Scaled))!,
                Of(typeof(InlinedTargets), nameof(InlinedTargets.ScaledReplacement)),
                InlinedTargets.HookedInstanceCaller, InlinedTargets.TwinInstanceCaller),
            "virtual" => new(typeof(InlinedShape).GetMethod(nameof(InlinedShape.Scaled))!,
                Of(typeof(RefusedTargets), nameof(RefusedTargets.ShapeReplacement)),
                RefusedTargets.HookedVirtualCaller, RefusedTargets.TwinVirtualCaller),
            // No whole-body Install: the API refuses one replacement for every instantiation.
            "generic" => new(typeof(InlinedBox<int>).GetMethod(nameof(InlinedBox<int>.Scaled))!, null,
                RefusedTargets.HookedGenericCaller, RefusedTargets.TwinGenericCaller),
            "cross" => new(Of(typeof(Engine.EngineTargets), nameof(Engine.EngineTargets.Tiny)),
                Of(typeof(Engine.EngineTargets), nameof(Engine.EngineTargets.TinyReplacement)),
                InlinedTargets.HookedCrossCaller, InlinedTargets.TwinCrossCaller),
            "static" => new(Of(typeof(InlinedTargets), nameof(InlinedTargets.Tiny)),
                Of(typeof(InlinedTargets), nameof(InlinedTargets.TinyReplacement)),
                InlinedTargets.HookedCaller, InlinedTargets.TwinCaller),
            _ => throw new ArgumentException($"no kind {kindName} (static, instance, cross, virtual, generic, firstcall)", nameof(kindName)),
        };
        MethodInfo tiny = kind.Target;
        int expected = kind.Twin(Inner);

        Console.WriteLine($"Hooks on an inlined {kindName} target: hooked caller / twin caller, {pairs} alternated pairs of " +
                          $"{outer} x {Inner} calls; tiering {(TieringOn() ? "on" : "off")}, .NET {Environment.Version}, " +
                          $"{Environment.ProcessorCount} cores, {(OperatingSystem.IsLinux() ? "thread CPU time" : "wall-clock time")}");
        Console.WriteLine("| phase | median ratio | min | max | hooked caller ms (median) |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        Phase(kind, "nothing hooked", outer, pairs, expected);

        WovenPatch hook = interceptor.Hook(tiny, prefix: Of(typeof(Hooks), nameof(Hooks.EmptyPrefix)),
            postfix: Of(typeof(Hooks), nameof(Hooks.EmptyPostfix)), owner: owner);
        Phase(kind, "target hooked (empty prefix + postfix)", outer, pairs, expected);

        hook.Remove();
        Phase(kind, "hook removed", outer, pairs, expected);
        if (kind.Replacement is null)
            return 0;

        Patch replaced = interceptor.Install(tiny, kind.Replacement, owner);
        Phase(kind, "target replaced whole (Install)", outer, pairs, expected);

        replaced.Remove();
        Phase(kind, "replacement removed", outer, pairs, expected);
        return 0;
    }

    // The firstcall kind: each target patched before its caller is ever called, so the caller's
    // first compilation meets a target with a ReJIT version, which the runtime never inlines: no
    // known inliner. The profiler finds the caller as it is compiled and routes it to the carrier.
    // Phases: hooked before the first call; the hook removed; a second target replaced whole
    // before its caller's first call; that replacement removed (one target at a time: a target's
    // original version comes back at its removal only while no other method of its module is
    // patched). Each against the twin caller, as above.
    private static int RunFirstCall(int outer, int pairs)
    {
        using var interceptor = Interceptor.Open();
        using var owner = new PatchOwner("inlined hooks, first call");
        Console.WriteLine($"Hooks on inlined targets patched before their callers' first call: caller / twin caller, {pairs} " +
                          $"alternated pairs of {outer} x {Inner} calls; tiering {(TieringOn() ? "on" : "off")}, .NET {Environment.Version}, " +
                          $"{Environment.ProcessorCount} cores, {(OperatingSystem.IsLinux() ? "thread CPU time" : "wall-clock time")}");
        Console.WriteLine("| phase | median ratio | min | max | caller ms (median) |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        Func<int, int> twin = InlinedTargets.TwinCaller;
        int expected = twin(Inner);
        var hooked = new Kind(Of(typeof(InlinedTargets), nameof(InlinedTargets.FirstHooked)), null,
            InlinedTargets.FirstHookedCaller, twin);
        var replacedKind = new Kind(Of(typeof(InlinedTargets), nameof(InlinedTargets.FirstReplaced)),
            Of(typeof(InlinedTargets), nameof(InlinedTargets.TinyReplacement)), InlinedTargets.FirstReplacedCaller, twin);

        WovenPatch hook = interceptor.Hook(hooked.Target, prefix: Of(typeof(Hooks), nameof(Hooks.EmptyPrefix)),
            postfix: Of(typeof(Hooks), nameof(Hooks.EmptyPostfix)), owner: owner);
        Phase(hooked, "hooked before the caller's first call (empty prefix + postfix)", outer, pairs, expected);
        hook.Remove();
        Phase(hooked, "hook removed", outer, pairs, expected);

        Patch replaced = interceptor.Install(replacedKind.Target, replacedKind.Replacement!, owner);
        Phase(replacedKind, "replaced whole (Install) before the caller's first call", outer, pairs, expected);
        replaced.Remove();
        Phase(replacedKind, "replacement removed", outer, pairs, expected);
        return 0;
    }

    private static void Phase(Kind kind, string name, int outer, int pairs, int expected)
    {
        // Until both callers' code is final: batches with pauses for tiering's background work.
        for (int round = 0; round < 30; round++)
        {
            for (int i = 0; i < 100; i++)
            {
                Check(kind.Hooked(Inner), expected);
                Check(kind.Twin(Inner), expected);
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
                a = Time(kind.Hooked, outer);
                b = Time(kind.Twin, outer);
            }
            else
            {
                b = Time(kind.Twin, outer);
                a = Time(kind.Hooked, outer);
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
