using AlvorKit.Interception.HarmonyLib;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HarmonyMod;

/// <summary>alpha's digit: the type on the class, the method on the hook (Harmony merges them).</summary>
[HarmonyPatch(typeof(HarmonyGame))]
public static class AlphaScore
{
    /// <summary>Appends 1.</summary>
    [HarmonyPatch(nameof(HarmonyGame.Score))]
    [HarmonyPostfix]
    public static void AppendOne(ref int __result) => __result = __result * 10 + 1;
}

/// <summary>beta's digit, which runs before alpha's (though installed after it).</summary>
[HarmonyPatch(typeof(HarmonyGame), nameof(HarmonyGame.Score))]
[HarmonyPatchCategory("beta")]
[HarmonyBefore("mod.alpha")]
public static class BetaScore
{
    /// <summary>Appends 2.</summary>
    public static void Postfix(ref int __result) => __result = __result * 10 + 2;
}
