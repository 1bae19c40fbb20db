using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>
/// A hook (prefix, postfix or finalizer) with its ordering: Harmony's HarmonyMethod. A
/// <see cref="MethodInfo"/> converts to one implicitly, with <see cref="HookPriority.Normal"/> and no
/// <see cref="Before"/>/<see cref="After"/>.
/// </summary>
/// <remarks>
/// Per kind, the hooks on a target run ordered by: <see cref="Before"/>/<see cref="After"/> first (a hook runs
/// before every hook of the owners its <see cref="Before"/> names, and after every hook of the owners its
/// <see cref="After"/> names), then <see cref="Priority"/> (higher first), then install order (earlier first).
/// This is Harmony's PatchSorter rule. Constraints that form a cycle cannot all hold: as Harmony does, one
/// dependency of the least important waiting hook is dropped at a time until the others can be met. Owner names
/// identify owners here (each interceptor's default owner has its own name: "default owner", "default owner #2"...).
/// </remarks>
public sealed class HookMethod
{
    /// <summary>A hook with <see cref="HookPriority.Normal"/> and no ordering constraints.</summary>
    /// <param name="method">A static, non-generic method; its parameters are bound by name (see
    /// <see cref="Interceptor.Hook"/>).</param>
    public HookMethod(MethodInfo method)
    {
        ArgumentNullException.ThrowIfNull(method);
        Method = method;
    }

    /// <summary>The hook's method.</summary>
    public MethodInfo Method { get; }

    /// <summary>The hook's priority among the hooks of its kind on the target (higher runs earlier;
    /// <see cref="HookPriority.Normal"/> by default).</summary>
    public int Priority { get; init; } = HookPriority.Normal;

    /// <summary>Owner names (<see cref="PatchOwner.Name"/>) whose hooks this one runs before.</summary>
    public IReadOnlyList<string> Before { get; init; } = [];

    /// <summary>Owner names (<see cref="PatchOwner.Name"/>) whose hooks this one runs after.</summary>
    public IReadOnlyList<string> After { get; init; } = [];

    /// <summary>The method as a hook with <see cref="HookPriority.Normal"/> and no ordering constraints.</summary>
    /// <param name="method">The hook's method.</param>
    public static implicit operator HookMethod(MethodInfo method) => new(method);

    /// <summary>The method as a hook (the same as the implicit conversion).</summary>
    /// <param name="method">The hook's method.</param>
    /// <returns>A hook with <see cref="HookPriority.Normal"/>.</returns>
    public static HookMethod FromMethodInfo(MethodInfo method) => new(method);

    /// <inheritdoc/>
    public override string ToString() =>
        $"{Internal.Names.Of(Method)} [priority {Priority}" +
        (Before.Count > 0 ? $", before {string.Join(", ", Before)}" : "") +
        (After.Count > 0 ? $", after {string.Join(", ", After)}" : "") + "]";
}
