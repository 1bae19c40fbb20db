using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

/// <summary>The methods AlvorKit.Proofs.HarmonyMod patches through the Harmony-shaped surface (HarmonyProof): each
/// returns a value its hooks change recognizably.</summary>
public static class HarmonyGame
{
    /// <summary>Two Harmony IDs append a digit each: their order shows Before/After across IDs.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Score(int x) => x;

    /// <summary>A target TargetMethods returns (+1000 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Damage(int x) => x * 2;

    /// <summary>A target TargetMethods returns (+1000 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Heal(int x) => x + 1;

    /// <summary>A target TargetMethods returns that Prepare(original) skips.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Skipped(int x) => x - 1;

    /// <summary>The target of a class whose Prepare() returns false.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Disabled(int x) => x * 3;

    /// <summary>The target of a class in a category (+7000 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Categorized(int x) => x + 5;

    /// <summary>The target of a hook added with Harmony.Patch (+900 when hooked).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Manual(int x) => x + 9;
}

/// <summary>Whole-type patching (HarmonyPatchAll): every method it declares gets +100.</summary>
public static class HarmonyWholeGame
{
    /// <summary>One member.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int First(int x) => x + 1;

    /// <summary>Another member.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Second(int x) => x + 2;
}

/// <summary>Members Harmony names by method type and argument variation: a constructor by its argument types, a
/// property getter, and the ref overload of Swap.</summary>
public sealed class HarmonyUnit
{
    /// <summary>Level 1.</summary>
    public HarmonyUnit() => Level = 1;

    /// <summary>The given level (+40 when hooked).</summary>
    /// <param name="level">The level.</param>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public HarmonyUnit(int level) => Level = level;

    /// <summary>The level.</summary>
    public int Level { get; set; }

    /// <summary>Twice the level (+500 when hooked).</summary>
    public int Boosted => Level * 2;

    /// <summary>The ref overload: increments a and returns it (the prefix adds 10 first).</summary>
    /// <param name="a">The value.</param>
    /// <returns>The incremented value.</returns>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Swap(ref int a)
    {
        a += 1;
        return a;
    }

    /// <summary>The by-value overload: returns a (never hooked).</summary>
    /// <param name="a">The value.</param>
    /// <returns>The value.</returns>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Swap(int a) => a;
}
