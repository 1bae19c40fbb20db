using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The methods the hook proof (HookProof) weaves prefixes, postfixes and finalizers around; the
/// hooks live in AlvorKit.Proofs.HookMod, which references this assembly (never the reverse).
/// Each target's body has an effect of its own the proof can see (a counter, a field, a
/// finally), so a patched call shows both that the original ran and what the hooks changed.
/// </summary>
public static class HookTargets
{
    /// <summary>How many times Twice's original body ran.</summary>
    public static int TwiceRuns { get; private set; }

    /// <summary>How many times Guarded's finally ran.</summary>
    public static int GuardedFinallies { get; private set; }

    /// <summary>The slots Slot returns references into.</summary>
    public static readonly int[] Slots = [0, 1, 2, 3];

    /// <summary>Prefix skip and run (the original counts its runs).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Twice(int x)
    {
        TwiceRuns++;
        return x * 2;
    }

    /// <summary>A postfix reads and changes __result.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Plus(int x) => x + 1;

    /// <summary>A pass-through postfix (it returns the new result).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int PassThrough(int x) => x + 2;

    /// <summary>__state from a prefix to a postfix.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Stateful(int x) => x * 3;

    /// <summary>A ref argument a prefix changes, and an out one the original writes.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int RefArgument(ref int x, out int doubled)
    {
        x += 1;
        doubled = x * 2;
        return x;
    }

    /// <summary>__args: a prefix rewrites an argument through the array.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Args(int tens, int units) => tens * 10 + units;

    /// <summary>A ref return: a postfix writes through the returned reference.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ref int Slot(int index) => ref Slots[index];

    /// <summary>A body with try/catch/finally, returning from the try and from the catch.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Guarded(int x)
    {
        try
        {
            if (x < 0)
                throw new ArgumentOutOfRangeException(nameof(x), x, "negative");
            return x * 2;
        }
        catch (ArgumentOutOfRangeException)
        {
            return -1;
        }
        finally
        {
            GuardedFinallies++;
        }
    }

    /// <summary>Throws for a positive x, from <see cref="FailObserved"/>: a finalizer observes it (rethrown as
    /// is, so its top frame stays the helper's; a <c>throw</c> would reset it to this method).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ThrowsObserved(int x) => x > 0 ? FailObserved(x) : x;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FailObserved(int x) => throw new InvalidOperationException($"observed {x}");

    /// <summary>Throws for a positive x: a finalizer swallows it (the target returns __result).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ThrowsSwallowed(int x) => x > 0 ? throw new InvalidOperationException($"swallowed {x}") : x;

    /// <summary>Throws for a positive x: a finalizer replaces it with another exception.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int ThrowsReplaced(int x) => x > 0 ? throw new InvalidOperationException($"replaced {x}") : x;

    /// <summary>A generic method: its hooks see the array as object.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CountOf<T>(T[] items) => items.Length;

    /// <summary>Owners compose here: each one's postfix appends its digit to the result.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Composed(int x) => x;

    /// <summary>Hooks, then a whole-body replacement, then their departures.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int WholeBody(int x) => x + 1;

    /// <summary>The whole-body replacement of WholeBody (Interceptor.Install).</summary>
    public static int WholeBodyReplacement(int x) => x + 1000;
}

/// <summary>A small hot method inlined into a hot caller: nothing here says NoInlining, so once
/// HotCaller is optimized it carries Small's body.</summary>
public static class HookInlining
{
    public static int Small(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HotCaller(int x) => Small(x) + 1;
}

/// <summary>A class instance target: a prefix changes a field of __instance.</summary>
public sealed class HookCounter
{
    public int Bonus { get; set; }

    public int Calls { get; private set; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Add(int x)
    {
        Calls++;
        return x + Bonus;
    }
}

/// <summary>A struct instance target: a prefix takes `ref HookVector __instance` and changes X,
/// which the original then reads (and the caller's copy keeps).</summary>
public struct HookVector
{
    public int X { get; set; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public readonly int Scale(int k) => X * k;
}

/// <summary>A method of a generic type: one generation covers every instantiation.</summary>
public sealed class HookList<T>
{
    private readonly List<T> _items = [];

    public void Add(T item) => _items.Add(item);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Count() => _items.Count;
}

/// <summary>Ten similar targets for PatchAll in one batch, and one whose parameter type no
/// `int x` hook can bind (the refused batch).</summary>
public static class HookBatchTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T0(int x) => x + 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T1(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T2(int x) => x + 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T3(int x) => x + 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T4(int x) => x + 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T5(int x) => x + 5;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T6(int x) => x + 6;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T7(int x) => x + 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T8(int x) => x + 8;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int T9(int x) => x + 9;

    /// <summary>Like the ten, but its parameter is a long: an `int x` hook does not bind.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Wide(long x) => x + 10;

    /// <summary>The ten, in order, for the proof to call.</summary>
    public static readonly Func<int, int>[] All = [T0, T1, T2, T3, T4, T5, T6, T7, T8, T9];
}
