using System.Runtime.CompilerServices;

namespace AlvorKit.PatchBenchmark;

// Methods of one shape. The floor is what a patched call cannot beat (a ReJIT'd method is
// never inlined into its callers, so a patched call is at least one real call): a
// NoInlining method whose body is the replacement's. Two targets get patched with the same
// replacement, one on each dispatch path.
public static class Targets
{
    // The floor: one call, the replacement's body inside it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Floor(int x) => x * 3 + 2;

    // Patched on the direct-call path: its body becomes "ldarg.0; call Replacement; ret".
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int PatchedDirect(int x) => x * 3 + 1;

    // Patched on the calli path: "ldarg.0; ldc.i8 <entry>; conv.i; calli; ret".
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int PatchedCalli(int x) => x * 3 + 1;

    // The replacement of both (public static, so the direct call can name it).
    public static int Replacement(int x) => x * 3 + 2;

    // For the latency loop: a target that is never inlined, so every call reaches it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Latency(int x) => x + 1;

    public static int LatencyReplacement(int x) => x + 2;
}
