using System.Runtime.CompilerServices;
using AlvorKit.Proofs.R2R.Targets;

namespace AlvorKit.Proofs.R2R.CrossEarly;

public static class EarlyCallers
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Call(int x) => R2RTargets.Target(x) + 3;

    // R2RTargets.Helper over this assembly's type: its code is in this assembly's image.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallGeneric(int x) => R2RTargets.Helper<EarlyTag>(x);
}

/// <summary>A type argument of this assembly.</summary>
public struct EarlyTag;
