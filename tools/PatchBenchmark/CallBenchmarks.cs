using BenchmarkDotNet.Attributes;
using AlvorKit.Interception.Native;

namespace AlvorKit.PatchBenchmark;

/// <summary>
/// Steady-state cost of a patched call, side by side in one process, each row against the
/// floor (the baseline): a NoInlining method whose body is the replacement's body, which is
/// what a patched call costs at best (the runtime never inlines a ReJIT'd method into its
/// callers). PatchedDirect: a target patched on the direct-call path (its body calls the
/// replacement, which the JIT inlines into it). PatchedCalli: a target patched on the calli
/// path (its body calls the replacement's entry point, a precode jump, never inlined).
/// </summary>
[MemoryDiagnoser]
public class CallBenchmarks
{
    private const int Calls = 1000;
    private PatchSession? _session;
    private ulong _direct, _calli;

    [GlobalSetup]
    public void Setup()
    {
        _session = PatchSession.Open();
        (_direct, _calli) = _session.InstallBothPaths();
    }

    [GlobalCleanup]
    public void Cleanup() => _session!.RemoveBothPaths(_direct, _calli);

    [Benchmark(Baseline = true, OperationsPerInvoke = Calls)]
    public int Floor()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.Floor(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int PatchedDirect()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.PatchedDirect(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int PatchedCalli()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.PatchedCalli(i);
        return sum;
    }
}
