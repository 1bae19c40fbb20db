namespace AlvorKit.Interception.Internal;

/// <summary>
/// Marks the phases of a patch call (PatchAll: the class read, its targets found, its hooks bound, the bodies
/// woven, the plans lowered and checked, the targets described, the batch submitted, the worker's answer; a hot
/// reload: the update's file read, its delta read, laid out and translated, its bodies validated, the batch's
/// phases, the reload committed, its result written) for a benchmark that times them: whoever sets
/// <see cref="Sink"/> (by reflection: it is internal) is called with each phase's name as it ends. Unset, a mark costs one read of a static field.
/// </summary>
internal static class PhaseProbe
{
    /// <summary>Called with the name of each phase as it ends; null (the default): no marks.</summary>
    internal static Action<string>? Sink;

    /// <summary>The phase <paramref name="name"/> ended.</summary>
    internal static void Mark(string name) => Sink?.Invoke(name);
}
