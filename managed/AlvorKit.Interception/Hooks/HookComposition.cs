using System.Globalization;
using System.Reflection;
using System.Text;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>One hook set as the composition sees it: its bound hooks, its owner's name, its install
/// order, a label for listings (the patch class, or "Hook call"), whether its hooks are called through
/// their entry points (the PreferCalli of the interceptor that added it), and its transpilers.</summary>
internal sealed record HookSetInfo(BoundSet Bound, string OwnerName, long Order, string Label, bool PreferCalli = false,
    IReadOnlyList<BoundTranspiler>? Transpilers = null)
{
    /// <summary>The set's inner prefixes and postfixes (<see cref="InfixWeaver"/>).</summary>
    public IReadOnlyList<BoundInfix> Infixes { get; init; } = [];
}

/// <summary>One hook in the composed order: the hook, the index of its set (its __state local), its owner,
/// its set's PreferCalli.</summary>
internal sealed record ComposedHook(BoundHook Hook, int Set, string OwnerName, bool PreferCalli);

/// <summary>
/// Every hook set on one target, ordered per kind (<see cref="HookOrder"/>): what the weaver turns
/// into one body. <see cref="StateTypes"/> has one entry per set (null: the set keeps no state).
/// </summary>
internal sealed record HookComposition(MethodBase Target, IReadOnlyList<ComposedHook> Prefixes,
    IReadOnlyList<ComposedHook> Postfixes, IReadOnlyList<ComposedHook> Finalizers, IReadOnlyList<Type?> StateTypes)
{
    /// <summary>Every set's transpilers, in the order they run (the same rule as the hooks of a kind): the
    /// first edits the original's instructions, each next one the previous one's output.</summary>
    public IReadOnlyList<ComposedTranspiler> Transpilers { get; init; } = [];

    /// <summary>Every set's inner hooks, woven around their calls after the transpilers (ordered per call site).</summary>
    public IReadOnlyList<ComposedInfix> Infixes { get; init; } = [];

    /// <summary>Whether the body has hooks to weave around the (transpiled) original.</summary>
    public bool HasHooks => Prefixes.Count + Postfixes.Count + Finalizers.Count > 0;

    public static HookComposition Compose(MethodBase target, IReadOnlyList<HookSetInfo> sets)
    {
        return new HookComposition(target, Kind(s => s.Prefixes), Kind(s => s.Postfixes), Kind(s => s.Finalizers),
            [.. sets.Select(s => s.Bound.StateType)])
        {
            Transpilers = TranspilerOrder(),
            Infixes = [.. sets.SelectMany(s => s.Infixes.Select((f, k) =>
                new ComposedInfix(f, s.OwnerName, s.Order, k, s.PreferCalli)))],
        };

        List<ComposedTranspiler> TranspilerOrder()
        {
            var transpilers = new List<ComposedTranspiler>();
            var items = new List<HookOrderItem>();
            for (int s = 0; s < sets.Count; s++)
            {
                IReadOnlyList<BoundTranspiler> list = sets[s].Transpilers ?? [];
                for (int k = 0; k < list.Count; k++)
                {
                    transpilers.Add(new ComposedTranspiler(list[k], sets[s].OwnerName));
                    HookMethod h = list[k].Hook;
                    items.Add(new HookOrderItem(h.Priority, sets[s].OwnerName, h.Before, h.After, (sets[s].Order, k)));
                }
            }
            return InOrder(HookOrder.Sort(items), transpilers);
        }

        List<ComposedHook> Kind(Func<BoundSet, IReadOnlyList<BoundHook>> of)
        {
            var hooks = new List<ComposedHook>();
            var items = new List<HookOrderItem>();
            for (int s = 0; s < sets.Count; s++)
            {
                IReadOnlyList<BoundHook> list = of(sets[s].Bound);
                for (int k = 0; k < list.Count; k++)
                {
                    hooks.Add(new ComposedHook(list[k], s, sets[s].OwnerName, sets[s].PreferCalli));
                    HookMethod h = list[k].Hook;
                    items.Add(new HookOrderItem(h.Priority, sets[s].OwnerName, h.Before, h.After, (sets[s].Order, k)));
                }
            }
            return InOrder(HookOrder.Sort(items), hooks);
        }
    }

    // The items at `order`'s positions (a loop: no generic LINQ over int positions compiled at run time).
    private static List<T> InOrder<T>(int[] order, List<T> items) where T : class
    {
        var result = new List<T>(order.Length);
        foreach (int i in order)
            result.Add(items[i]);
        return result;
    }

    public bool HasFinalizers => Finalizers.Count > 0;

    /// <summary>The composed order, one line per hook: kind, position, method, owner, priority.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"hooks on {Names.Of(Target)}:");
        for (int i = 0; i < Transpilers.Count; i++)
            Line("transpiler", i, Transpilers[i].Transpiler.Hook, Transpilers[i].OwnerName);
        Lines("prefix", Prefixes);
        Lines("postfix", Postfixes);
        Lines("finalizer", Finalizers);
        for (int i = 0; i < Infixes.Count; i++)
            Line($"{Infixes[i].Infix.Kind} (call {Infixes[i].Infix.Occurrence} of {Names.Of(Infixes[i].Infix.Callee)})", i,
                Infixes[i].Infix.Hook, Infixes[i].OwnerName);
        return text.ToString();

        void Lines(string kind, IReadOnlyList<ComposedHook> hooks)
        {
            for (int i = 0; i < hooks.Count; i++)
                Line(kind, i, hooks[i].Hook.Hook, hooks[i].OwnerName);
        }

        void Line(string kind, int i, HookMethod h, string owner)
        {
            text.Append(CultureInfo.InvariantCulture,
                $"\n  {kind} {i + 1}: {Names.Of(h.Method)} (owner '{owner}', priority {h.Priority}");
            if (h.Before.Count > 0)
                text.Append(", before ").AppendJoin(", ", h.Before);
            if (h.After.Count > 0)
                text.Append(", after ").AppendJoin(", ", h.After);
            text.Append(')');
        }
    }
}
