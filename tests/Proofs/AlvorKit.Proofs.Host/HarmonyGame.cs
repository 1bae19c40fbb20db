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
