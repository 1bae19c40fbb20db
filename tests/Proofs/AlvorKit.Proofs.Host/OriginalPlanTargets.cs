using System.Runtime.CompilerServices;

// Targets expose their state as fields: the proofs read and edit them directly.
#pragma warning disable CA1051, CA2211

namespace AlvorKit.Proofs.Host;

// Targets of the FromOriginal proofs: each edit of the original body has its own target, so a
// patch on one never changes another's result.
public static class OriginalTargets
{
    public static int Counter, GuardCounter, FinallyCount;

    public static int Bonus = 5;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Score(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Counted(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Redirected(int x) => x > 10 ? x * 2 : x + 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int PointsFor(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TriplePoints(int x) => x * 30;

    // The transpiler case: the call of PointsFor is swapped for TriplePoints.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Points(int x) => PointsFor(x) + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WithBonus(int x) => x + Bonus;

    public static int BigBonus() => 500;

    // A loop that branches back to offset 0, then a try/catch nested in a try/finally.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Guarded(int n)
    {
    top:
        n--;
        if (n > 10)
            goto top;
        int r;
        try
        {
            try
            {
                r = 100 / n;
            }
            catch (DivideByZeroException)
            {
                r = -1;
            }
        }
        finally
        {
            FinallyCount++;
        }
        return r;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Twice(int x) => x < 0 ? throw new InvalidOperationException("negative") : x * 2;

    // A try/finally, into whose try block a proof adds a try/catch of its own.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Nested(int x)
    {
        int r;
        try
        {
            r = Twice(x);
        }
        finally
        {
            FinallyCount++;
        }
        return r;
    }

    // A filter region (catch ... when).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Filtered(int n)
    {
        try
        {
            if (n < 0)
                throw new ArgumentException(n < -10 ? "far" : "near");
            return n;
        }
        catch (ArgumentException e) when (e.Message == "near")
        {
            return -100;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Tag<T>(T value) => "t:" + value;

    // Recursive and generic: the call is a MethodSpec Depth<!!0>.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Depth<T>(T value, int n) => n == 0 ? "d:" + value : Depth(value, n - 1);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool TryHalf(int x, out int half, ref int calls)
    {
        calls++;
        half = x / 2;
        return x % 2 == 0;
    }

    // Through a mod's public static method: the host does not reference AlvorKit.Proofs.GameMod.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WidgetScore(Widget widget, int x) => widget.Offset(x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchA() => 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchB() => 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchC() => 3;
}

// A method of a generic type.
public sealed class Holder<T>(T value)
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public string Show() => "h:" + value;
}

// A struct instance method (its receiver is a managed pointer).
public struct Tally
{
    public int Value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Add(int d)
    {
        Value += d;
        return Value * 2;
    }
}
