using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

/// <summary>A void finalizer observes: the exception goes on with its own stack; on success
/// the finalizer runs too, with a null __exception.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.ThrowsObserved))]
public static class ObservingFinalizer
{
    public static int Observed { get; private set; }

    public static int Successes { get; private set; }

    public static void Finalizer(Exception? __exception)
    {
        if (__exception is null)
            Successes++;
        else
            Observed++;
    }
}

/// <summary>An Exception-returning finalizer that swallows (returns null): the target returns
/// the __result the finalizer set.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.ThrowsSwallowed))]
public static class SwallowingFinalizer
{
    public static Exception? Finalizer(Exception? __exception, ref int __result)
    {
        if (__exception is not InvalidOperationException)
            return __exception;
        __result = -42;
        return null;
    }
}

/// <summary>An Exception-returning finalizer that replaces the exception with another.</summary>
[Patch(typeof(HookTargets), nameof(HookTargets.ThrowsReplaced))]
public static class ReplacingFinalizer
{
    public static Exception? Finalizer(Exception? __exception) =>
        __exception is null ? null : new ArgumentException("replaced by the finalizer", __exception);
}
