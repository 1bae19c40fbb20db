namespace AlvorKit.Interception;

/// <summary>The <see cref="HookMethod.Priority"/> of the hooks of a patch class (on the class) or of one hook (on
/// the method, which wins over the class's). Harmony's HarmonyPriority; values in <see cref="HookPriority"/>.</summary>
/// <param name="priority">The priority (higher runs earlier), a value such as <see cref="HookPriority.High"/>.</param>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
public sealed class PatchPriorityAttribute(int priority) : Attribute
{
    /// <summary>The priority.</summary>
    public int Priority { get; } = priority;
}

/// <summary>Owner names whose hooks the class's hooks (or this hook) run before: <see cref="HookMethod.Before"/>.
/// Harmony's HarmonyBefore (Harmony IDs are owner names here). On a method it wins over the class's.</summary>
/// <param name="owners">The owners (<see cref="PatchOwner.Name"/>) to run before.</param>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
public sealed class PatchBeforeAttribute(params string[] owners) : Attribute
{
    /// <summary>The owner names.</summary>
    public IReadOnlyList<string> Owners { get; } = owners ?? [];
}

/// <summary>Owner names whose hooks the class's hooks (or this hook) run after: <see cref="HookMethod.After"/>.
/// Harmony's HarmonyAfter. On a method it wins over the class's.</summary>
/// <param name="owners">The owners (<see cref="PatchOwner.Name"/>) to run after.</param>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
public sealed class PatchAfterAttribute(params string[] owners) : Attribute
{
    /// <summary>The owner names.</summary>
    public IReadOnlyList<string> Owners { get; } = owners ?? [];
}
