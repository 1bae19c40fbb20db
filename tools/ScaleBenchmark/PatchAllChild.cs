using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.ScaleBenchmark;

/// <summary>
/// In a profiled process: Interceptor.PatchAll of one Harmony-style patch class (HookPatches, a
/// postfix over the first 100 ScaleTargets) applied and removed round after round, beside
/// Interceptor.InstallMany of a whole-body replacement over the same targets. Each round reports
/// the time to PatchAll's return (every woven body applied, one batch), to every target's first
/// hooked call, and the owner's removal; the first round also binds and reads every original body
/// for the first time.
/// </summary>
internal static class PatchAllChild
{
    private const int Input = 5;

    internal static int Run(int rounds)
    {
        using var interceptor = Interceptor.Open();
        int n = HookPatches.Count;
        Func<int, int>[] calls = [.. Enumerable.Range(0, n).Select(i => typeof(ScaleTargets)
            .GetMethod($"T{i:D4}", BindingFlags.Public | BindingFlags.Static)!.CreateDelegate<Func<int, int>>())];
        foreach (Func<int, int> call in calls)
            for (int k = 0; k < 4; k++)
                call(Input);
        MethodInfo[] targets = [.. Enumerable.Range(0, n).Select(i =>
            typeof(ScaleTargets).GetMethod($"T{i:D4}", BindingFlags.Public | BindingFlags.Static)!)];
        MethodInfo replacement = typeof(PatchAllChild).GetMethod(nameof(Replacement), BindingFlags.NonPublic | BindingFlags.Static)!;

        var hooked = new List<(double ApplyMs, double FirstCallsMs, double RemoveMs)>();
        var installed = new List<(double ApplyMs, double FirstCallsMs, double RemoveMs)>();
        for (int round = 0; round < rounds; round++)
        {
            // The postfix adds 1,000,000 to what Tnnnn returns (x + n); the replacement returns x + 1,000,000.
            hooked.Add(Measure(calls, owner => interceptor.PatchAll(typeof(HookPatches), owner).Count, n, i => Input + i + 1_000_000));
            installed.Add(Measure(calls, owner => interceptor.InstallMany(targets.Select(t => ((MethodBase)t, replacement)), owner).Count,
                n, _ => Input + 1_000_000));
        }

        CultureInfo ic = CultureInfo.InvariantCulture;
        Console.WriteLine(string.Create(ic,
            $"PatchAll of one patch class over {n} targets (a postfix each), then the owner's removal, {rounds} rounds; " +
            $"beside it InstallMany of a whole-body replacement over the same targets (ms)"));
        Console.WriteLine();
        Console.WriteLine("| call | first round: apply | first calls | removal | later rounds, median: apply | first calls | removal |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|");
        Row("Interceptor.PatchAll (woven hooks)", hooked);
        Row("Interceptor.InstallMany (whole body)", installed);
        return 0;

        void Row(string name, List<(double ApplyMs, double FirstCallsMs, double RemoveMs)> r)
        {
            var later = r.Skip(1).ToList();
            Console.WriteLine(string.Create(ic,
                $"| {name} | {r[0].ApplyMs:F1} | {r[0].FirstCallsMs:F1} | {r[0].RemoveMs:F1} | " +
                $"{Median(later.Select(x => x.ApplyMs)):F1} | {Median(later.Select(x => x.FirstCallsMs)):F1} | {Median(later.Select(x => x.RemoveMs)):F1} |"));
        }
    }

    private static int Replacement(int x) => x + 1_000_000;

    // One round: apply through `apply` (which must report n patches), call every target once
    // (each first call compiles its new body) checking it returns `patched(i)`, remove, check the original.
    private static (double ApplyMs, double FirstCallsMs, double RemoveMs) Measure(Func<int, int>[] calls,
        Func<PatchOwner, int> apply, int n, Func<int, int> patched)
    {
        var owner = new PatchOwner("patch-all benchmark");
        long start = Stopwatch.GetTimestamp();
        int applied = apply(owner);
        double applyMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        int wrong = 0;
        for (int i = 0; i < calls.Length; i++)
            wrong += calls[i](Input) == patched(i) ? 0 : 1;
        double firstCallsMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds - applyMs;
        start = Stopwatch.GetTimestamp();
        owner.Dispose();
        double removeMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        for (int i = 0; i < calls.Length; i++)
            wrong += calls[i](Input) == Input + i ? 0 : 1;
        if (applied != n || wrong != 0)
            throw new InvalidOperationException($"{applied} of {n} applied, {wrong} calls returned the wrong value");
        return (applyMs, firstCallsMs, removeMs);
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN : sorted[sorted.Length / 2];
    }
}
