namespace AlvorKit.Interception.Hooks;

/// <summary>One hook as the ordering sees it.</summary>
/// <param name="Priority">Higher runs earlier.</param>
/// <param name="Owner">Its owner's name (what other hooks' Before/After name).</param>
/// <param name="Before">Owner names whose hooks it runs before.</param>
/// <param name="After">Owner names whose hooks it runs after.</param>
/// <param name="Order">Install order (earlier first), then its place in its set.</param>
internal sealed record HookOrderItem(int Priority, string Owner, IReadOnlyList<string> Before,
    IReadOnlyList<string> After, (long Set, int Index) Order);

/// <summary>
/// The order the hooks of one kind run in on one target: Harmony's PatchSorter rule, so a port orders as it
/// did under Harmony. A hook runs after every hook of the owners its After names and before every hook of the
/// owners its Before names (constraints between hooks of the same owner are ignored). The hooks are taken in
/// priority order (higher first, then install order); a pass places each hook whose prerequisites are placed
/// (and, right after a hook others wait for, every waiting hook that became free, from the most important
/// one again), and leaves the others waiting. A pass that leaves hooks waiting on a cycle culls ONE
/// dependency: the first unplaced prerequisite of the least important waiting hook; then the waiting hooks
/// get another pass. (So a free hook of low priority can go before hooks of higher priority caught in a
/// cycle, as under Harmony.)
/// </summary>
internal static class HookOrder
{
    /// <summary>The positions of <paramref name="items"/> in the order they run.</summary>
    public static int[] Sort(IReadOnlyList<HookOrderItem> items)
    {
        List<int> byPriority = ByPriority(items);
        // after[i]: the hooks i waits for; waiters[i]: the hooks waiting for i (insertion ordered, as Harmony's).
        var after = new List<int>[items.Count];
        var waiters = new List<int>[items.Count];
        for (int i = 0; i < items.Count; i++)
        {
            after[i] = [];
            waiters[i] = [];
        }
        // Built as Harmony builds them: per hook in priority order, its Before, then its After.
        foreach (int node in byPriority)
        {
            foreach (int other in byPriority)
            {
                if (Names(items[node], items[node].Before, items[other]))
                    Depend(other, on: node);
            }
            foreach (int other in byPriority)
            {
                if (Names(items[node], items[node].After, items[other]))
                    Depend(node, on: other);
            }
        }

        var placed = new bool[items.Count];
        var result = new List<int>(items.Count);
        var waiting = new List<int>();
        List<int> queue = byPriority;
        while (queue.Count > 0)
        {
            foreach (int node in queue)
            {
                if (!after[node].All(p => placed[p]))
                {
                    waiting.Add(node);
                    continue;
                }
                Place(node);
                if (waiters[node].Count > 0)
                    PlaceFreed();
            }
            // A cycle (or nothing left): cull the first unplaced prerequisite of the least important waiting hook.
            for (int w = waiting.Count - 1; w >= 0; w--)
            {
                if (after[waiting[w]].FirstOrDefault(p => !placed[p], -1) is int cut and >= 0)
                {
                    after[waiting[w]].Remove(cut);
                    waiters[cut].Remove(waiting[w]);
                    break;
                }
            }
            queue = [.. waiting];
            waiting.Clear();
        }
        return [.. result];

        void Depend(int node, int on)
        {
            if (!after[node].Contains(on))
                after[node].Add(on);
            if (!waiters[on].Contains(node))
                waiters[on].Add(node);
        }

        void Place(int node)
        {
            result.Add(node);
            placed[node] = true;
        }

        // Every waiting hook whose prerequisites are now placed, scanning again from the first after each.
        void PlaceFreed()
        {
            for (int w = 0; w < waiting.Count;)
            {
                int node = waiting[w];
                if (after[node].All(p => placed[p]))
                {
                    waiting.RemoveAt(w);
                    Place(node);
                    w = 0;
                }
                else
                {
                    w++;
                }
            }
        }
    }

    /// <summary>The positions in priority order: higher first, then install order (earlier set, then its place
    /// in the set); equal keys keep their positions' order. A stable insertion sort written out: the few hooks
    /// of a target need no more, and it keeps the first call's path free of generic sorting code compiled at
    /// run time.</summary>
    private static List<int> ByPriority(IReadOnlyList<HookOrderItem> items)
    {
        var order = new List<int>(items.Count);
        for (int i = 0; i < items.Count; i++)
        {
            int at = order.Count;
            while (at > 0 && Precedes(items[i], items[order[at - 1]]))
                at--;
            order.Insert(at, i);
        }
        return order;

        static bool Precedes(HookOrderItem a, HookOrderItem b) =>
            a.Priority != b.Priority ? a.Priority > b.Priority
            : a.Order.Set != b.Order.Set ? a.Order.Set < b.Order.Set
            : a.Order.Index < b.Order.Index;
    }

    /// <summary>Whether `owners` (of hook `a`) names the owner of `b`, another owner's hook.</summary>
    private static bool Names(HookOrderItem a, IReadOnlyList<string> owners, HookOrderItem b) =>
        a.Owner != b.Owner && owners.Contains(b.Owner, StringComparer.Ordinal);

    /// <summary>Whether `a` must run before `b`.</summary>
    public static bool MustPrecede(HookOrderItem a, HookOrderItem b) =>
        a.Owner != b.Owner &&
        (a.Before.Contains(b.Owner, StringComparer.Ordinal) || b.After.Contains(a.Owner, StringComparer.Ordinal));
}
