using System.Reflection;
using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

// The mixed stress mode's 50 targets: target i returns x + i, so a value tells which
// original ran; the replacements return x + 1,000,000 and x + 2,000,000, the generation
// bodies x + 3,000,000. Never inlined: the callers call each one through a delegate.
public static class MixedStressTargets
{
    public const int Count = 50;
    public const int ReplacementA = 1_000_000, ReplacementB = 2_000_000, Generation = 3_000_000;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T00(int x) => x + 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T01(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T02(int x) => x + 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T03(int x) => x + 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T04(int x) => x + 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T05(int x) => x + 5;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T06(int x) => x + 6;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T07(int x) => x + 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T08(int x) => x + 8;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T09(int x) => x + 9;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T10(int x) => x + 10;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T11(int x) => x + 11;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T12(int x) => x + 12;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T13(int x) => x + 13;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T14(int x) => x + 14;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T15(int x) => x + 15;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T16(int x) => x + 16;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T17(int x) => x + 17;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T18(int x) => x + 18;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T19(int x) => x + 19;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T20(int x) => x + 20;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T21(int x) => x + 21;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T22(int x) => x + 22;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T23(int x) => x + 23;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T24(int x) => x + 24;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T25(int x) => x + 25;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T26(int x) => x + 26;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T27(int x) => x + 27;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T28(int x) => x + 28;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T29(int x) => x + 29;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T30(int x) => x + 30;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T31(int x) => x + 31;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T32(int x) => x + 32;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T33(int x) => x + 33;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T34(int x) => x + 34;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T35(int x) => x + 35;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T36(int x) => x + 36;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T37(int x) => x + 37;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T38(int x) => x + 38;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T39(int x) => x + 39;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T40(int x) => x + 40;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T41(int x) => x + 41;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T42(int x) => x + 42;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T43(int x) => x + 43;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T44(int x) => x + 44;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T45(int x) => x + 45;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T46(int x) => x + 46;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T47(int x) => x + 47;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T48(int x) => x + 48;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T49(int x) => x + 49;

    public static int A(int x) => x + ReplacementA;

    public static int B(int x) => x + ReplacementB;

    /// <summary>Target i, by reflection.</summary>
    public static MethodInfo Method(int i) =>
        typeof(MixedStressTargets).GetMethod($"T{i:D2}", BindingFlags.Public | BindingFlags.Static)
        ?? throw new MissingMethodException(nameof(MixedStressTargets), $"T{i:D2}");

    /// <summary>Delegates to every target, in order.</summary>
    public static readonly Func<int, int>[] Calls =
    [
        T00,
        T01,
        T02,
        T03,
        T04,
        T05,
        T06,
        T07,
        T08,
        T09,
        T10,
        T11,
        T12,
        T13,
        T14,
        T15,
        T16,
        T17,
        T18,
        T19,
        T20,
        T21,
        T22,
        T23,
        T24,
        T25,
        T26,
        T27,
        T28,
        T29,
        T30,
        T31,
        T32,
        T33,
        T34,
        T35,
        T36,
        T37,
        T38,
        T39,
        T40,
        T41,
        T42,
        T43,
        T44,
        T45,
        T46,
        T47,
        T48,
        T49,
    ];
}
