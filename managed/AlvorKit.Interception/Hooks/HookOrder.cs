namespace AlvorKit.Interception.Hooks;

/// <summary>One hook as the ordering sees it.</summary>
/// <param name="Priority">Higher runs earlier.</param>
/// <param name="Owner">Its owner's name (what other hooks' Before/After name).</param>
/// <param name="Before">Owner names whose hooks it runs before.</param>
/// <param name="After">Owner names whose hooks it runs after.</param>
/// <param name="Order">Install order (earlier first), then its place in its set.</param>
internal readonly record struct HookOrderItem(int Priority, string Owner, IReadOnlyList<string> Before,
    IReadOnlyList<string> After, (long Set, int Index) Order);

/// <summary>
/// The order the hooks of one kind run in on one target (Harmony's PatchSorter rule, with HarmonyX's
/// cycle handling): a hook runs before every hook of the owners its Before names and after every hook
/// of the owners its After names (constraints between hooks of the same owner are ignored); among the
/// hooks free to run next, the one of highest priority, then the earliest installed, goes first. When
/// the constraints form a cycle, no hook is free: the first remaining hook by priority, then install
/// order, goes next (its constraints in the cycle are dropped), and the sort goes on.
/// </summary>
internal static class HookOrder
{
    /// <summary>The positions of <paramref name="items"/> in the order they run.</summary>
    public static int[] Sort(IReadOnlyList<HookOrderItem> items)
    {
        List<int> remaining = [.. Enumerable.Range(0, items.Count)
            .OrderByDescending(i => items[i].Priority)
            .ThenBy(i => items[i].Order.Set)
            .ThenBy(i => items[i].Order.Index)];
        var sorted = new int[items.Count];
        for (int n = 0; n < sorted.Length; n++)
        {
            int pick = remaining.FindIndex(i => !remaining.Any(j => j != i && MustPrecede(items[j], items[i])));
            if (pick < 0)
                pick = 0; // a cycle: priority, then install order
            sorted[n] = remaining[pick];
            remaining.RemoveAt(pick);
        }
        return sorted;
    }

    /// <summary>Whether `a` must run before `b`.</summary>
    public static bool MustPrecede(HookOrderItem a, HookOrderItem b) =>
        a.Owner != b.Owner &&
        (a.Before.Contains(b.Owner, StringComparer.Ordinal) || b.After.Contains(a.Owner, StringComparer.Ordinal));
}
