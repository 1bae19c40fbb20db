using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

/// <summary>__args on a 33-parameter target: the prefix rewrites value, reference, struct and
/// by-reference arguments through the array; the woven body boxes and unboxes every one.</summary>
[Patch(typeof(RelocationTargets), nameof(RelocationTargets.ThirtyThree))]
public static class ThirtyThreeArgsPatch
{
    /// <summary>a0 101, c0 10.0, s0 ten characters, o0 70, f1 true, p0.X 1000, and through
    /// their references r0 2000, r1 "uvwxyz1", r2 9000.</summary>
    public static void Prefix(object[] __args)
    {
        __args[0] = 101;
        __args[12] = 10.0;
        __args[16] = "aaaaaaaaaa";
        __args[20] = 70;
        __args[23] = true;
        __args[24] = new ManyPoint { X = 1000 };
        __args[30] = 2000;
        __args[31] = "uvwxyz1";
        __args[32] = 9000L;
    }
}
