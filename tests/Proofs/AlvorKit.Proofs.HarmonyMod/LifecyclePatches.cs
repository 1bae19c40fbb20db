using System.Reflection;
using AlvorKit.Interception.HarmonyLib;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HarmonyMod;

/// <summary>Targets from TargetMethods; Prepare skips Skipped; Prepare and Cleanup log their calls.</summary>
[HarmonyPatch]
public static class TargetMethodsPatch
{
    /// <summary>Called without a target, then with each.</summary>
    public static bool Prepare(MethodBase original, Harmony harmony)
    {
        Entry.Log.Add($"Prepare({original?.Name ?? "null"}, {harmony.Id})");
        return original?.Name != nameof(HarmonyGame.Skipped);
    }

    /// <summary>Three targets.</summary>
    public static IEnumerable<MethodBase> TargetMethods()
    {
        Entry.Log.Add("TargetMethods");
        yield return typeof(HarmonyGame).GetMethod(nameof(HarmonyGame.Damage))!;
        yield return typeof(HarmonyGame).GetMethod(nameof(HarmonyGame.Heal))!;
        yield return typeof(HarmonyGame).GetMethod(nameof(HarmonyGame.Skipped))!;
    }

    /// <summary>+1000.</summary>
    public static void Postfix(ref int __result) => __result += 1000;

    /// <summary>Called per target and at the end.</summary>
    public static void Cleanup(Exception ex, MethodBase original) =>
        Entry.Log.Add($"Cleanup({original?.Name ?? "null"}, {ex?.GetType().Name ?? "null"})");
}

/// <summary>Prepare() returns false: the class patches nothing; its Cleanup still runs.</summary>
[HarmonyPatch(typeof(HarmonyGame), nameof(HarmonyGame.Disabled))]
public static class DisabledPatch
{
    /// <summary>Never.</summary>
    [HarmonyPrepare]
    public static bool ShouldPatch() => false;

    /// <summary>Would change the result.</summary>
    public static void Postfix(ref int __result) => __result = -1;

    /// <summary>Logs.</summary>
    [HarmonyCleanup]
    public static void Done() => Entry.Log.Add("Disabled.Cleanup");
}

/// <summary>In the category "late": only PatchCategory("late") and PatchAll take it.</summary>
[HarmonyPatch(typeof(HarmonyGame), nameof(HarmonyGame.Categorized))]
[HarmonyPatchCategory("late")]
public static class LatePatch
{
    /// <summary>+7000.</summary>
    public static void Postfix(ref int __result) => __result += 7000;
}

/// <summary>Every method of HarmonyWholeGame.</summary>
[HarmonyPatch(typeof(HarmonyWholeGame))]
[HarmonyPatchAll]
public static class WholeGamePatch
{
    /// <summary>+100 on any member.</summary>
    public static void Postfix(ref int __result) => __result += 100;
}

/// <summary>Hooks added with Harmony.Patch.</summary>
public static class ManualHooks
{
    /// <summary>Doubles the argument.</summary>
    public static void Doubling(ref int x) => x *= 2;

    /// <summary>+900.</summary>
    public static void Adding(ref int __result) => __result += 900;

    /// <summary>Takes the int argument x as a string: does not fit.</summary>
    public static void WrongType(string x) => _ = x;
}
