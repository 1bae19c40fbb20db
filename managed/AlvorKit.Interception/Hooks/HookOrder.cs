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
/// The order the hooks of one kind run in on one target: a hook runs before every hook of the owners its
/// Before names and after every hook of the owners its After names (constraints between hooks of the same
/// owner are ignored); among the hooks free to run next, the one of highest priority, then the earliest
/// installed, goes first. Cycles: every constraint that lies on a cycle (j before i while i also reaches j)
/// is dropped up front, and the remaining constraints order as above. This is NOT Harmony's PatchSorter,
/// which culls one dependency of a waiting patch at a time and places a patch as soon as it is freed:
/// with cycles, or with a constraint that frees a patch late, a Harmony port can order differently.
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
        // The constraints, without those on a cycle (j before i while i also reaches j).
        bool[,] edge = new bool[items.Count, items.Count];
        for (int j = 0; j < items.Count; j++)
        {
            for (int i = 0; i < items.Count; i++)
                edge[j, i] = i != j && MustPrecede(items[j], items[i]);
        }
        bool[,] reach = Closure(edge);
        var kept = new bool[items.Count, items.Count];
        for (int j = 0; j < items.Count; j++)
        {
            for (int i = 0; i < items.Count; i++)
                kept[j, i] = edge[j, i] && !reach[i, j];
        }
        var sorted = new int[items.Count];
        for (int n = 0; n < sorted.Length; n++)
        {
            int pick = remaining.FindIndex(i => !remaining.Any(j => kept[j, i]));
            sorted[n] = remaining[pick]; // the kept constraints form no cycle: one is always free
            remaining.RemoveAt(pick);
        }
        return sorted;
    }

    /// <summary>reach[a, b]: b can be reached from a through one or more edges.</summary>
    private static bool[,] Closure(bool[,] edge)
    {
        int n = edge.GetLength(0);
        var reach = (bool[,])edge.Clone();
        for (int k = 0; k < n; k++)
        {
            for (int a = 0; a < n; a++)
            {
                if (!reach[a, k])
                    continue;
                for (int b = 0; b < n; b++)
                    reach[a, b] |= reach[k, b];
            }
        }
        return reach;
    }

    /// <summary>Whether `a` must run before `b`.</summary>
    public static bool MustPrecede(HookOrderItem a, HookOrderItem b) =>
        a.Owner != b.Owner &&
        (a.Before.Contains(b.Owner, StringComparer.Ordinal) || b.After.Contains(a.Owner, StringComparer.Ordinal));
}
