using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

// Three owners' postfixes on one target, each appending its digit to the result, so the value
// spells the order they ran in. HookProof installs alpha, then beta, then gamma.

/// <summary>Owner "alpha": normal priority.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Composed))]
public static class AlphaPatch
{
    public static void Postfix(ref int __result) => __result = __result * 10 + 1;
}

/// <summary>Owner "beta": high priority, so it runs before alpha although installed after it.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Composed))]
[PatchPriority(HookPriority.High)]
public static class BetaPatch
{
    public static void Postfix(ref int __result) => __result = __result * 10 + 2;
}

/// <summary>Owner "gamma": normal priority, installed last, but declared to run before alpha.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Composed))]
[PatchBefore("alpha")]
public static class GammaPatch
{
    public static void Postfix(ref int __result) => __result = __result * 10 + 3;
}

/// <summary>Hooks WholeBody, which then also gets a whole-body replacement.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.WholeBody))]
public static class WholeBodyPatch
{
    public static void Postfix(ref int __result) => __result *= 10;
}

/// <summary>No [Patch]: HookProof passes this postfix to Interceptor.Hook for the inlined
/// HookInlining.Small.</summary>
public static class InliningHooks
{
    public static void Postfix(ref int __result) => __result += 500;
}
