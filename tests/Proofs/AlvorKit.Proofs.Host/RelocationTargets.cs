using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

/// <summary>A struct argument of ManyArgumentsTargets.ThirtyThree.</summary>
public struct ManyPoint
{
    /// <summary>What the target adds.</summary>
    public int X { get; set; }
}

/// <summary>
/// The targets of the relocation proof (RelocationProof): a 33-parameter method whose woven
/// __args body boxes and unboxes every argument (the hook lives in AlvorKit.Proofs.HookMod), and
/// methods that generations with many relocations replace.
/// </summary>
public static class RelocationTargets
{
    /// <summary>The sum of what every argument contributes: integers as they are, doubles
    /// times ten, strings by length, the boxed ints, true as 1, the points' X, the day, the
    /// decimal's integral part, and the three by-reference arguments.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long ThirtyThree(
        int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7,
        long b0, long b1, long b2, long b3,
        double c0, double c1, double c2, double c3,
        string s0, string s1, string s2, string s3,
        object o0, object o1,
        bool f0, bool f1,
        ManyPoint p0, ManyPoint p1,
        DayOfWeek e0,
        decimal m0,
        byte y0, short h0,
        ref int r0, ref string r1, ref long r2) =>
        a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 +
        b0 + b1 + b2 + b3 +
        (long)(c0 * 10) + (long)(c1 * 10) + (long)(c2 * 10) + (long)(c3 * 10) +
        s0.Length + s1.Length + s2.Length + s3.Length +
        (int)o0 + (int)o1 +
        (f0 ? 1 : 0) + (f1 ? 1 : 0) +
        p0.X + p1.X +
        (int)e0 +
        (long)m0 +
        y0 + h0 +
        r0 + r1.Length + r2;

    /// <summary>ThirtyThree over fixed arguments: its digest * 100,000 + the caller's r0 after
    /// the call * 10 + the length of its r1 after the call.</summary>
    public static long CallThirtyThree()
    {
        int r0 = 1000;
        string r1 = "xyz";
        long r2 = 5000;
        long digest = ThirtyThree(1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40, 0.5, 1.5, 2.5, 3.5, "a", "bb", "ccc", "dddd",
            7, 8, true, false, new ManyPoint { X = 100 }, new ManyPoint { X = 200 }, DayOfWeek.Friday, 12.5m, 3, 4,
            ref r0, ref r1, ref r2);
        return digest * 100_000 + r0 * 10L + r1.Length;
    }

    /// <summary>Replaced by a plan that loads 1,000 distinct strings.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Thousand() => -1;

    /// <summary>Replaced by a raw generation whose one string relocation fills three ldstr.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Shared() => -2;

    /// <summary>A plan past the relocation bound is refused for it: it keeps this.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int OverPlan() => -3;

    /// <summary>A raw generation past the relocation bound is refused for it: it keeps this.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int OverRaw() => -4;

    /// <summary>A string's length (a MethodDef the raw generations call).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Length(string s) => s.Length;
}
