using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

/// <summary>One postfix over ten targets: PatchAll applies them as one batch.</summary>
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T0))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T1))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T2))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T3))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T4))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T5))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T6))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T7))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T8))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T9))]
public static class TenTargetsPatch
{
    public static void Postfix(ref int __result) => __result += 1000;
}

/// <summary>The same ten targets and one more, Wide(long x), that `int x` cannot bind: PatchAll
/// refuses the whole class with a HookBindingException and changes nothing.</summary>
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T0))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T1))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T2))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T3))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T4))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T5))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T6))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T7))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T8))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.T9))]
[Patch(typeof(HookBatchTargets), nameof(HookBatchTargets.Wide))]
public static class BadBatchPatch
{
    public static int Seen { get; private set; }

    public static void Prefix(int x) => Seen = x;
}
