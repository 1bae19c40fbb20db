using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

// Harmony-style patch classes over the host's HookTargets: [Patch] on the class names the
// target, static Prefix/Postfix/Finalizer methods are the hooks, their parameters are bound by
// name. HookProof applies each with Interceptor.PatchAll(Type, owner).

/// <summary>A bool prefix that skips the original for a negative x (and sets __result), and a
/// postfix that runs either way and says, through __runOriginal, whether the original ran.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Twice))]
public static class SkipPatch
{
    public static bool Prefix(int x, ref int __result)
    {
        if (x >= 0)
            return true;
        __result = -100;
        return false;
    }

    public static void Postfix(ref int __result, bool __runOriginal)
    {
        if (!__runOriginal)
            __result -= 1;
    }
}

/// <summary>A later prefix of Twice that only reads a value-type argument: Harmony runs it even
/// after SkipPatch's prefix returned false, so it counts both calls.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Twice))]
[PatchPriority(HookPriority.Low)]
public static class ObservingPrefixPatch
{
    public static int Runs { get; private set; }

    public static void Prefix(int x) => Runs += x == int.MinValue ? 0 : 1;
}

/// <summary>A later prefix of Twice that could change the outcome (ref __result): Harmony skips
/// it once SkipPatch's prefix returned false, so the skipped call keeps SkipPatch's -100 (with
/// it run, -100 + 1000); on the call that runs the original, the original's result replaces it.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Twice))]
[PatchPriority(HookPriority.Low)]
public static class AffectingPrefixPatch
{
    public static void Prefix(ref int __result) => __result += 1000;
}

/// <summary>A postfix that reads __result (kept in Seen) and changes it.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Plus))]
public static class ResultPatch
{
    public static int Seen { get; private set; }

    public static void Postfix(ref int __result)
    {
        Seen = __result;
        __result *= 100;
    }
}

/// <summary>A pass-through postfix: it takes the result first and returns the new one. Not
/// public, so the woven body calls it through calli.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.PassThrough))]
internal static class PassThroughPatch
{
    internal static int Postfix(int result, int x) => result + x * 1000;
}

/// <summary>__state from the prefix to the postfix.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Stateful))]
public static class StatePatch
{
    public static void Prefix(int x, out long __state) => __state = x * 7L;

    public static void Postfix(long __state, ref int __result) => __result += (int)__state;
}

/// <summary>A prefix that changes a ref argument before the original reads it.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.RefArgument))]
public static class RefArgumentPatch
{
    public static void Prefix(ref int x) => x = 40;
}

/// <summary>A prefix that rewrites the second argument through __args.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Args))]
public static class ArgsPatch
{
    public static void Prefix(object[] __args) => __args[1] = 9;
}

/// <summary>A postfix on a ref-returning target: __result is the returned reference.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Slot))]
public static class RefReturnPatch
{
    public static void Postfix(ref int __result) => __result += 50;
}

/// <summary>A postfix around a body with try/catch/finally: both of its returns reach it.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.Guarded))]
public static class GuardedPatch
{
    public static void Postfix(ref int __result) => __result += 1000;
}

/// <summary>A class receiver: the prefix changes a property the original then reads.</summary>
[Patch(typeof(HookCounter), nameof(HookCounter.Add))]
public static class ClassInstancePatch
{
    public static void Prefix(HookCounter __instance) => __instance.Bonus = 100;
}

/// <summary>A struct receiver by ref: the prefix changes the caller's struct itself.</summary>
[Patch(typeof(HookVector), nameof(HookVector.Scale))]
public static class StructInstancePatch
{
    public static void Prefix(ref HookVector __instance) => __instance.X = 10;
}

/// <summary>A generic method: the argument involving T is taken as object.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.CountOf))]
public static class GenericMethodPatch
{
    public static void Postfix(object items, ref int __result) => __result += items is Array ? 1000 : 0;
}

/// <summary>A method of a generic type: the receiver is taken as object.</summary>
[Patch(typeof(HookList<>), nameof(HookList<int>.Count))]
public static class GenericTypePatch
{
    public static void Postfix(object __instance, ref int __result) => __result += __instance is null ? 0 : 500;
}
