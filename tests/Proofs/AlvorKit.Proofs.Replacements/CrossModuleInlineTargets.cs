namespace AlvorKit.Proofs.Replacements;

/// <summary>A small public static method of another assembly than its caller's (the proof host's),
/// which the JIT inlines into that caller: a hooked engine getter called from a game's code.</summary>
public static class CrossModuleInlineTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    /// <summary>What replaces it: one more per call.</summary>
    public static int TinyReplacement(int x) => x * 3 + 2;
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
