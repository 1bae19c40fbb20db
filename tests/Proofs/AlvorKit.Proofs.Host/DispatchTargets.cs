using System.Runtime.CompilerServices;

// Dispatch targets: public fields are the ref, out and in locations and the receivers' state that
// the replacements must reach exactly.
#pragma warning disable CA1051, CA2211

namespace AlvorKit.Proofs.Host;

// Targets of the exact-dispatch matrix (one per shape) and their replacements. Each
// replacement writes the exact arguments it received into DispatchReplacements.Received.

public struct Vec2(double x, double y)
{
    public double X = x, Y = y;
    public override readonly string ToString() => $"({X},{Y})";
}

public struct Pair
{
    public long X;
    public float Y;
}

public struct Quad(double a, double b, double c, double d)
{
    public double A = a, B = b, C = c, D = d;
    public override readonly string ToString() => $"{A},{B},{C},{D}";
}

public sealed class Widget
{
    public int Base;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Offset(int x) => Base + x;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public Quad Span(double scale) => new(Base, Base * scale, Base + scale, scale);
}

public struct Accum
{
    public int Total;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int AddTo(int x)
    {
        Total += x;
        return Total;
    }
}

/// <summary>A virtual method with an <c>in</c> parameter: C# puts modreq(InAttribute) on it in the
/// signature, which no static replacement's <c>in</c> parameter has.</summary>
public class ScaledShape
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public virtual double Scaled(in Vec2 v) => v.X + v.Y;
}

/// <summary>An <c>init</c> setter: modreq(IsExternalInit) on its void return.</summary>
public sealed class Settings
{
    public int Raw;

    public int Level
    {
        get => Raw;
        [MethodImpl(MethodImplOptions.NoInlining)]
        init => Raw = value;
    }
}

public static class DispatchTargets
{
    public static readonly Widget TheWidget = new() { Base = 40 };
    public static readonly object PickA = new();
    public static readonly string PickB = "pick-b";
    public static int RefCell;
    public static string OutCell = "";
    public static Vec2 InCell = new(3, 4);
    public static int Stored;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Add(int a, int b) => a + b;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Bump(ref int value, int by)
    {
        value += by;
        return value;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool TryName(int id, out string name)
    {
        name = "orig" + id;
        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Length(in Vec2 v) => v.X + v.Y;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static Quad MakeQuad(double seed, int n) => new(seed, seed + n, seed * n, -seed);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static object Pick(object a, string b) => a;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Store(int value) => Stored = value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Sixteen(int a1, long a2, float a3, double a4, Vec2 a5, int a6, long a7, float a8,
        double a9, Vec2 a10, int a11, long a12, float a13, double a14, Vec2 a15, int a16) => a1 + a16;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Mixed(float f, double d, long l, Pair p, float g) => f + g;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Smalls(bool b, byte y, char c, short s, sbyte sb, ushort us) => b ? y : s;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static byte Narrow(short v, bool flag) => (byte)(flag ? 1 : v);

    /// <summary>Where its caller's code runs: the inlining case's target.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Where() => "original";
}

public static class DispatchReplacements
{
    public static string? Received;

    public static int Add(int a, int b)
    {
        Received = $"{a}|{b}";
        return a * b + 7;
    }

    public static int WidgetOffset(Widget self, int x)
    {
        Received = $"{ReferenceEquals(self, DispatchTargets.TheWidget)}|{self.Base}|{x}";
        return self.Base * 100 + x;
    }

    public static Quad WidgetSpan(Widget self, double scale)
    {
        Received = $"{ReferenceEquals(self, DispatchTargets.TheWidget)}|{self.Base}|{scale}";
        return new Quad(-1, self.Base, scale, 99);
    }

    public static int AccumAddTo(ref Accum self, int x)
    {
        Received = $"{self.Total}|{x}";
        self.Total += x * 10;
        return self.Total + 1;
    }

    public static int Bump(ref int value, int by)
    {
        Received = $"{value}|{by}|{Unsafe.AreSame(ref value, ref DispatchTargets.RefCell)}";
        value = value * 100 + by;
        return -value;
    }

    public static bool TryName(int id, out string name)
    {
        Unsafe.SkipInit(out name);
        Received = $"{id}|{Unsafe.AreSame(ref name, ref DispatchTargets.OutCell)}";
        name = "patched" + id;
        return true;
    }

    public static double Length(in Vec2 v)
    {
        Received = $"{v.X}|{v.Y}|{Unsafe.AreSame(ref Unsafe.AsRef(in v), ref DispatchTargets.InCell)}";
        return v.X * 10 + v.Y;
    }

    public static Quad MakeQuad(double seed, int n)
    {
        Received = $"{seed}|{n}";
        return new Quad(seed * n, n, seed, 42);
    }

    public static object Pick(object a, string b)
    {
        Received = $"{ReferenceEquals(a, DispatchTargets.PickA)}|{ReferenceEquals(b, DispatchTargets.PickB)}";
        return b;
    }

    public static void Store(int value)
    {
        Received = $"{value}";
        DispatchTargets.Stored = value * 3 + 1;
    }

    public static double Sixteen(int a1, long a2, float a3, double a4, Vec2 a5, int a6, long a7, float a8,
        double a9, Vec2 a10, int a11, long a12, float a13, double a14, Vec2 a15, int a16)
    {
        Received = $"{a1}|{a2}|{a3}|{a4}|{a5}|{a6}|{a7}|{a8}|{a9}|{a10}|{a11}|{a12}|{a13}|{a14}|{a15}|{a16}";
        return -(a1 * 100 + a16);
    }

    public static double Mixed(float f, double d, long l, Pair p, float g)
    {
        Received = $"{f}|{d}|{l}|{p.X}/{p.Y}|{g}";
        return d * 2;
    }

    public static int Smalls(bool b, byte y, char c, short s, sbyte sb, ushort us)
    {
        Received = $"{b}|{y}|{c}|{s}|{sb}|{us}";
        return c + sb;
    }

    public static byte Narrow(short v, bool flag)
    {
        Received = $"{v}|{flag}";
        return (byte)(v / 2 + (flag ? 1 : 0));
    }
}
