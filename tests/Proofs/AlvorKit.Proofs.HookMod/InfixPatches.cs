using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

/// <summary>Inner hooks of the infix proof (Interceptor.HookCall), around calls inside InfixTargets.</summary>
public static class InfixHooks
{
    /// <summary>Inner prefix: the call receives x + 100 (bound by the callee's parameter name).</summary>
    public static void AddHundred(ref int x) => x += 100;

    /// <summary>Inner prefix: skips the call; the target gets 7 in its place.</summary>
    public static bool SkipWithSeven(ref int __result)
    {
        __result = 7;
        return false;
    }

    /// <summary>Inner postfix: the call's result plus one.</summary>
    public static void PlusOne(ref int __result) => __result += 1;

    /// <summary>Inner postfix: the result made from the receiver and the argument (by index): Base * 1000 + x.</summary>
    public static void FromReceiver(InfixTargets.Counter __instance, int __0, ref int __result) =>
        __result = __instance.Base * 1000 + __0;

    /// <summary>Outer postfix (composed with an inner prefix of another owner): the target's result plus 1000.</summary>
    public static void OuterPlusThousand(ref int __result) => __result += 1000;
}

/// <summary>A patch class with an inner prefix alone: the second call of Scale in Twice receives 0.</summary>
[Patch(typeof(InfixTargets), nameof(InfixTargets.Twice))]
public static class InfixSecondCallPatch
{
    /// <summary>The second call's argument becomes 0.</summary>
    [PatchInnerPrefix(typeof(InfixTargets), nameof(InfixTargets.Scale), 2)]
    public static void ZeroSecond(ref int x) => x = 0;
}
