using System.Runtime.CompilerServices;
using AlvorKit.Proofs.R2R.Targets;

namespace AlvorKit.Proofs.R2R.CrossLate;

public static class LateCallers
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Call(int x) => R2RTargets.Target(x) + 4;
}
