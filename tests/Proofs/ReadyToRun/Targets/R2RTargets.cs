using System.Runtime.CompilerServices;
using System.Runtime.Versioning;

namespace AlvorKit.Proofs.R2R.Targets;

public static class R2RTargets
{
    // Small: crossgen2 inlines it into its callers here, and (with --opt-cross-module) into
    // the callers of the other two proof assemblies.
    public static int Target(int x) => x * 2;

    // Runs from its ReadyToRun code before the patch.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Caller(int x) => Target(x) + 1;

    // First called only after the patch.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int LateCaller(int x) => Target(x) + 2;

    // [NonVersionable]: the profiler refuses to patch it.
    [NonVersionable]
    public static int Fixed(int x) => x + 40;
}
