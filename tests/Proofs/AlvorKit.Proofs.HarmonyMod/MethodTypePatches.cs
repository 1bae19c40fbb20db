using AlvorKit.Interception.HarmonyLib;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HarmonyMod;

/// <summary>The constructor HarmonyUnit(int), named by MethodType.Constructor and its argument types.</summary>
[HarmonyPatch(typeof(HarmonyUnit), MethodType.Constructor, typeof(int))]
public static class UnitConstructorPatch
{
    /// <summary>+40 on the new unit's level.</summary>
    public static void Postfix(HarmonyUnit __instance) => __instance.Level += 40;
}

/// <summary>The getter of Boosted, named by MethodType.Getter.</summary>
[HarmonyPatch(typeof(HarmonyUnit), nameof(HarmonyUnit.Boosted), MethodType.Getter)]
public static class UnitGetterPatch
{
    /// <summary>+500.</summary>
    public static void Postfix(ref int __result) => __result += 500;
}

/// <summary>Swap(ref int), named by its argument type and ArgumentType.Ref (Swap(int) is left alone).</summary>
[HarmonyPatch(typeof(HarmonyUnit), nameof(HarmonyUnit.Swap), new[] { typeof(int) }, new[] { ArgumentType.Ref })]
public static class UnitRefPatch
{
    /// <summary>+10 on the argument before the original runs.</summary>
    public static void Prefix(ref int a) => a += 10;
}
