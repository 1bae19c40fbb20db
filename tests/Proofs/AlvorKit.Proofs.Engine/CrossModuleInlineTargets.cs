namespace AlvorKit.Proofs.Engine;

/// <summary>A small public static method of another assembly than its caller's (the proof host's),
/// which the JIT inlines into that caller: a hooked engine getter called from a game's code.</summary>
public static class CrossModuleInlineTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    /// <summary>What replaces it: one more per call.</summary>
    public static int TinyReplacement(int x) => x * 3 + 2;

    /// <summary>The same from a struct: its signature names a type of this assembly, which the
    /// caller's module names by its own TypeRef, so no carrier is named from there.</summary>
    public static int Weigh(CrossModuleCell cell) => cell.Value * 3 + 1;

    /// <summary>What replaces Weigh: one more per call.</summary>
    public static int WeighReplacement(CrossModuleCell cell) => cell.Value * 3 + 2;
}

/// <summary>A value Weigh takes.</summary>
public struct CrossModuleCell
{
    public int Value { get; set; }
}

/// <summary>A public class of another assembly than its caller's, whose small instance method the
/// JIT inlines into that caller (called with callvirt).</summary>
public sealed class CrossModuleCounter(int factor)
{
    public int Factor { get; } = factor;

    public int Scaled(int x) => x * Factor + 1;

    /// <summary>What replaces Scaled: one more per call.</summary>
    public static int ScaledReplacement(CrossModuleCounter self, int x) => x * self.Factor + 2;
}
