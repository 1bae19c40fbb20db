using System.Runtime.CompilerServices;

namespace AlvorKit.PatchBenchmark;

// Small methods of one shape: one stays original, one gets patched, one is the replacement.
public static class Targets
{
    public static int Original(int x) => x * 3 + 1;

    public static int Patched(int x) => x * 3 + 1;

    public static int Replacement(int x) => x * 3 + 2;

    // For the latency loop: a target that is never inlined, so every call reaches it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Latency(int x) => x + 1;

    public static int LatencyReplacement(int x) => x + 2;
}
