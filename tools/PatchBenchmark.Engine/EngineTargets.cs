namespace AlvorKit.PatchBenchmark.Engine;

// A target the JIT inlines into callers of another assembly (`x * 3 + 1`), its unhooked twin, and
// what Install puts in its place.
public static class EngineTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    public static int Twin(int x) => x * 3 + 1;

    public static int TinyReplacement(int x) => x * 3 + 1;
}
