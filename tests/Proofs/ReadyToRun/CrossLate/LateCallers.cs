using System.Runtime.CompilerServices;
using AlvorKit.Proofs.R2R.Targets;

namespace AlvorKit.Proofs.R2R.CrossLate;

public static class LateCallers
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Call(int x) => R2RTargets.Target(x) + 4;

    // R2RTargets.Helper over this assembly's type: its code is in this assembly's image.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallGeneric(int x) => R2RTargets.Helper<LateTag>(x);
}

/// <summary>A type argument of this assembly.</summary>
public struct LateTag;
