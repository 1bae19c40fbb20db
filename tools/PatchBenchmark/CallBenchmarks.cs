using BenchmarkDotNet.Attributes;

namespace AlvorKit.PatchBenchmark;

/// <summary>
/// Steady-state cost of a call, side by side in one process: the unpatched original, the
/// same method patched (exact dispatch through calli), and the replacement called directly.
/// </summary>
[MemoryDiagnoser]
public class CallBenchmarks
{
    private const int Calls = 1000;
    private PatchSession? _session;
    private ulong _handle;

    [GlobalSetup]
    public void Setup()
    {
        _session = PatchSession.Open();
        _handle = _session.Install(PatchSession.Method(nameof(Targets.Patched)),
            PatchSession.Method(nameof(Targets.Replacement)), owner: 1);
        _session.Wait(_handle);
        if (Targets.Patched(1) != Targets.Replacement(1))
            throw new InvalidOperationException("the patch is not in force");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        PatchSession.Check(_session!.Library.PatchRemove(_handle, 1), "remove");
        _session.Wait(_handle);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Calls)]
    public int UnpatchedOriginal()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.Original(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int Patched()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.Patched(i);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Calls)]
    public int ReplacementDirect()
    {
        int sum = 0;
        for (int i = 0; i < Calls; i++)
            sum += Targets.Replacement(i);
        return sum;
    }
}
