using System.Runtime.CompilerServices;

// Game-code shapes: the hooks bind these fields by name (___population, ___armor, ____hp...).
#pragma warning disable CA2211, CA1051, IDE0044

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The methods the parameter-binding proof (BindingProof) hooks; the hooks live in
/// AlvorKit.Proofs.HookMod (BindingPatches). Each returns a value the hooks change through what
/// they bind: the running instantiation of a generic target, fields of the receiver, its base
/// class and its type, renamed arguments, and a __state of compatible types.
/// </summary>
public class BindingCreature
{
    /// <summary>A static field (of the base class) the hooks change by reference.</summary>
    public static int Headcount { get => population; set => population = value; }

    /// <summary>The population (a protected static field of the base class).</summary>
    protected static int population;

    /// <summary>A private base-class field: the derived class's body cannot name it, so hooks are refused it.</summary>
    private int _secret = 1;

    /// <summary>The private field, read.</summary>
    public int Secret => _secret;

    /// <summary>A protected base-class field the hooks read.</summary>
    protected int armor = 3;
}

/// <summary>A receiver with private fields the hooks read and change (<c>___hp</c>, <c>___armor</c>...).</summary>
public sealed class BindingKnight : BindingCreature
{
    private int _hp;

    /// <summary>The knight's hit points, set for each observed call.</summary>
    public int Hp { get => _hp; set => _hp = value; }

    /// <summary>hp -= amount - armor; returns hp.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Hit(int amount) => _hp -= amount - armor;

    /// <summary>hp += amount + bonus; returns hp.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Heal(int amount, int bonus) => _hp += amount + bonus;

    /// <summary>A static target: hooks take static fields only.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Census(int extra) => Headcount + extra;

    /// <summary>A target whose hooks keep a __state (a list in the prefix, an enumerable in the postfix).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Sum(int a) => a;

    /// <summary>total *= factor; returns total (hooks take factor, total and the result as <c>ref object</c>).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Scale(int factor, ref int total) => total *= factor;

    /// <summary>A target whose hooks keep a value-type __state (an int in the prefix, object in the postfix).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Boxed(int a) => a;
}

/// <summary>A struct receiver whose field a prefix changes in place (<c>ref int ___value</c>).</summary>
/// <param name="start">The tally's start.</param>
public struct BindingTally(int start)
{
    private int _value = start;

    /// <summary>The tally.</summary>
    public readonly int Value => _value;

    /// <summary>value += by; returns value.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Next(int by) => _value += by;

    /// <summary>value *= 2; returns value (a prefix replaces the receiver through <c>ref object __instance</c>).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Grow() => _value *= 2;
}

/// <summary>A generic type: hooks ask for the running instantiation and for its fields.</summary>
public sealed class BindingBag<T>
{
    private T? _last;
    private int _size;

    /// <summary>Keeps the item; returns the new size.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Add(T item)
    {
        _last = item;
        return ++_size;
    }

    /// <summary>Keeps the item; returns the new size * 10 (hooks typed for one instantiation run only there).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Put(T item)
    {
        _last = item;
        return ++_size * 10;
    }

    /// <summary>The last item added.</summary>
    public T? Last => _last;

    /// <summary>1 (hooks given one instantiation of this method, such as BindingBag&lt;int&gt;.Tag, run only there).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Tag(T item) => item is null ? 0 : 1;
}

/// <summary>A generic method: hooks ask for the running instantiation.</summary>
public static class BindingPicker
{
    /// <summary>1 for a value, 0 for null.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Pick<T>(T value) => value is null ? 0 : 1;

    /// <summary>1 (a hook typed for Measure&lt;string&gt; runs only there).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Measure<T>(T value) => value is null ? 0 : 1;
}

/// <summary>A ref-returning target whose hooks supply the reference through <c>__resultRef</c>.</summary>
public static class BindingCells
{
    /// <summary>The cells Cell returns references into.</summary>
    public static readonly int[] All = [0, 1, 2, 3];

    /// <summary>A spare cell, outside All.</summary>
    public static readonly int[] Spare = [0];

    /// <summary>A reference to cell i (the last one for any i past it).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ref int Cell(int i) => ref All[Math.Min(i, All.Length - 1)];
}
