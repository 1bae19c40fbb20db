using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;

namespace AlvorKit.PatchBenchmark;

/// <summary>Twin targets for the removal benchmark: the JIT inlines both into their loops; only
/// Patched is ever patched (to a replacement with the same body).</summary>
public static class RemovalTargets
{
    public static int Patched(int x) => x * 3 + 1;

    public static int Twin(int x) => x * 3 + 1;

    public static int Replacement(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long LoopPatched(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += Patched(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long LoopTwin(int n)
    {
        long sum = 0;
        for (int i = 0; i < n; i++)
            sum += Twin(i);
        return sum;
    }
}

/// <summary>
/// A caller's speed before a patch of the method it inlines, while it is patched and after the
/// patch was removed: the caller's loop against its never-patched twin, alternated in this one
/// process (rounds x calls), the median ratio per phase. Each phase first calls both loops until
/// their code is final (tiering: tier 1 after the call-counting delay).
/// </summary>
public static class RemovalBenchmark
{
    public static int Run(int rounds, int calls)
    {
        using var interceptor = Interceptor.Open();
        Settle(calls);
        double before = Ratio(rounds, calls);
        Patch patch = interceptor.Install(Method(nameof(RemovalTargets.Patched)), Method(nameof(RemovalTargets.Replacement)));
        Settle(calls);
        double during = Ratio(rounds, calls);
        patch.Remove();
        Settle(calls);
        double after = Ratio(rounds, calls);
        string tiering = Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") == "0" ? "off" : "on";
        Console.WriteLine($"| tiering {tiering} | {rounds} x {calls:N0} calls | before {before:F2}x | patched {during:F2}x | after removal {after:F2}x |");
        return 0;
    }

    private static void Settle(int calls)
    {
        for (int i = 0; i < 80; i++)
        {
            RemovalTargets.LoopPatched(calls / 100);
            RemovalTargets.LoopTwin(calls / 100);
            Thread.Sleep(20);
        }
    }

    // The median of `rounds` ratios patched-loop time / twin-loop time, the two alternated.
    private static double Ratio(int rounds, int calls)
    {
        var ratios = new double[rounds];
        for (int r = 0; r < rounds; r++)
        {
            bool twinFirst = r % 2 == 1;
            long a = 0, b = 0;
            if (twinFirst)
                b = Time(RemovalTargets.LoopTwin, calls);
            a = Time(RemovalTargets.LoopPatched, calls);
            if (!twinFirst)
                b = Time(RemovalTargets.LoopTwin, calls);
            ratios[r] = (double)a / b;
        }
        Array.Sort(ratios);
        return ratios[rounds / 2];
    }

    private static long Time(Func<int, long> loop, int calls)
    {
        long start = Stopwatch.GetTimestamp();
        GC.KeepAlive(loop(calls));
        return Stopwatch.GetTimestamp() - start;
    }

    private static MethodInfo Method(string name) =>
        typeof(RemovalTargets).GetMethod(name, BindingFlags.Public | BindingFlags.Static)
        ?? throw new MissingMethodException(nameof(RemovalTargets), name);
}
