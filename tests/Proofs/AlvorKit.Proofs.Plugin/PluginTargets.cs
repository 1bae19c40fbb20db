using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Plugin;

/// <summary>Targets of the module-copy proofs (host mode "modules"). Every copy of this
/// assembly has these methods; each copy's are patched on their own.</summary>
public static class PluginTargets
{
    /// <summary>The original: twice its argument.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Compute(int x) => x * 2;

    /// <summary>A second target, for the raw-ABI proofs.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Offset(int x) => x + 3;
}
