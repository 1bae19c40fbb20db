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

    // Generic: crossgen2 precompiles its instantiation over another proof assembly's type into
    // that assembly's image (the target inlined), where the runtime looks it up.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Helper<T>(int x) => Target(x) + 6;

    // [NonVersionable]: the profiler refuses to patch it.
    [NonVersionable]
    public static int Fixed(int x) => x + 40;
}
