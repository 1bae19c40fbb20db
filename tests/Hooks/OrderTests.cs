using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;

namespace AlvorKit.Hooks.Tests;

/// <summary>Per kind: Harmony's PatchSorter: Before/After, then priority (higher first), then install order;
/// on a cycle, one dependency of the least important waiting hook is culled.</summary>
public sealed class OrderTests
{
    private static HookOrderItem Item(string owner, int priority = HookPriority.Normal, long order = 0,
        string[]? before = null, string[]? after = null) =>
        new(priority, owner, before ?? [], after ?? [], (order, 0));

    private static string[] Sorted(params HookOrderItem[] items) => [.. HookOrder.Sort(items).Select(i => items[i].Owner)];

    [Fact]
    public void HigherPriorityRunsFirstThenInstallOrder()
    {
        Assert.Equal(["high", "a", "b", "low"], Sorted(
            Item("a", order: 1), Item("low", HookPriority.Low, order: 0), Item("b", order: 2),
            Item("high", HookPriority.High, order: 3)));
    }

    [Fact]
    public void BeforeAndAfterWinOverPriority()
    {
        Assert.Equal(["first-by-constraint", "high"], Sorted(
            Item("high", HookPriority.First, order: 0), Item("first-by-constraint", HookPriority.Last, order: 1, before: ["high"])));
        Assert.Equal(["b", "a"], Sorted(Item("a", HookPriority.High, order: 0, after: ["b"]), Item("b", order: 1)));
    }

    [Fact]
    public void ConstraintsChainThroughOtherHooks()
    {
        // c after b, b after a: a b c whatever the priorities.
        Assert.Equal(["a", "b", "c"], Sorted(
            Item("c", HookPriority.First, order: 0, after: ["b"]), Item("b", HookPriority.High, order: 1, after: ["a"]),
            Item("a", HookPriority.Last, order: 2)));
    }

    [Fact]
    public void ACycleCullsOneDependencyOfTheLeastImportantWaitingHookAsHarmonyDoes()
    {
        // a before b, b before a, z free: Harmony's PatchSorter places z (free) in the first pass, then culls a's
        // wait for b (a is the least important waiting hook): a, then b, freed by it. So z, a, b.
        Assert.Equal(["z", "a", "b"], Sorted(
            Item("a", HookPriority.Normal, order: 0, before: ["b"]), Item("b", HookPriority.High, order: 1, before: ["a"]),
            Item("z", HookPriority.Last, order: 2)));
        // Harmony's own cycle case (its PatchSorting tests): a after b, b after c, c after a, one priority:
        // c's wait for a is culled; c, then b and a, freed in turn.
        Assert.Equal(["c", "b", "a"], Sorted(
            Item("a", order: 0, after: ["b"]), Item("b", order: 1, after: ["c"]), Item("c", order: 2, after: ["a"])));
        // Equal priority: b (installed later) is the least important; its wait for a is culled: b, then a.
        Assert.Equal(["b", "a"], Sorted(
            Item("a", order: 0, before: ["b"]), Item("b", order: 1, before: ["a"])));
    }

    [Fact]
    public void ConstraintsOnTheHooksOwnOwnerAreIgnored()
    {
        Assert.Equal(["x", "x2"], [.. HookOrder.Sort([Item("x", order: 0, after: ["x"]), Item("x", order: 1)])
            .Select(i => i == 0 ? "x" : "x2")]);
    }

    [Fact]
    public void CompositionOrdersEachKindAcrossOwnersAndDescribesIt()
    {
        MethodInfo damage = typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;
        MethodInfo nothing = typeof(Hooks).GetMethod(nameof(Hooks.Nothing))!;
        MethodInfo postfix = typeof(Hooks).GetMethod(nameof(Hooks.Postfix))!;
        BoundSet first = HookBinder.BindSet(damage, [nothing], [], []);
        BoundSet second = HookBinder.BindSet(damage, [new HookMethod(nothing) { Priority = HookPriority.High }],
            [new HookMethod(postfix) { After = ["mod A"] }], []);
        BoundSet third = HookBinder.BindSet(damage, [new HookMethod(nothing) { Before = ["mod B"] }], [], []);

        HookComposition composition = HookComposition.Compose(damage,
            [new HookSetInfo(first, "mod A", 0, "Hook call"), new HookSetInfo(second, "mod B", 1, "Hook call"),
             new HookSetInfo(third, "mod C", 2, "Hook call")]);

        // B has the highest priority but waits for C (C runs before B); A is free and goes first
        // (Harmony's sorter gives the same order).
        Assert.Equal(["mod A", "mod C", "mod B"], composition.Prefixes.Select(h => h.OwnerName));
        Assert.Equal([0, 2, 1], composition.Prefixes.Select(h => h.Set));
        Assert.Equal([null, typeof(long), null], composition.StateTypes);
        Assert.Equal(
            "hooks on Enemy.Damage(int):\n" +
            "  prefix 1: Hooks.Nothing() (owner 'mod A', priority 400)\n" +
            "  prefix 2: Hooks.Nothing() (owner 'mod C', priority 400, before mod B)\n" +
            "  prefix 3: Hooks.Nothing() (owner 'mod B', priority 600)\n" +
            "  postfix 1: Hooks.Postfix(int, long, bool) (owner 'mod B', priority 400, after mod A)",
            composition.Describe());
    }
}
