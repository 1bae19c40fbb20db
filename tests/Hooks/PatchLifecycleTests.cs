using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;

namespace AlvorKit.Hooks.Tests;

#pragma warning disable IDE0060, CA1707, CA1822, CA1812, CA1852 // patch classes: hooks bound by name, found by reflection

/// <summary>Targets of whole-type patching: every kind of member a type can declare.</summary>
public abstract class WholeTarget
{
    private static readonly int Seed = Environment.TickCount;

    protected WholeTarget()
    {
    }

    protected WholeTarget(int level) => Level = level + Seed;

    public int Level { get; set; }

    public int this[int i] => i;

    public event EventHandler? Changed;

    public int Twice(int x) => x * 2;

    public static WholeTarget? operator +(WholeTarget? a, int b) => a;

    public abstract int Abstract();

    public T Echo<T>(T value) => value;

    protected void Raise() => Changed?.Invoke(this, EventArgs.Empty);
}

[Patch(typeof(WholeTarget))]
[PatchDeclaredMembers]
internal static class WholeTypePatch
{
    public static void Prefix(MethodBase __originalMethod)
    {
    }
}

[PatchDeclaredMembers]
internal static class WholeTypeWithoutTypePatch
{
    public static void Prefix()
    {
    }
}

/// <summary>Lifecycle calls of <see cref="LifecyclePatch"/>, in order.</summary>
internal static class LifecycleLog
{
    public static List<string> Calls { get; } = [];

    public static string Of(MethodBase? m) => m?.Name ?? "null";
}

internal static class LifecyclePatch
{
    public static HashSet<string> SkipTargets { get; } = [];

    public static bool SkipClass { get; set; }

    public static bool Prepare(MethodBase original, PatchOwner owner)
    {
        LifecycleLog.Calls.Add($"Prepare({LifecycleLog.Of(original)}, {owner?.Name ?? "no owner"})");
        return original is null ? !SkipClass : !SkipTargets.Contains(original.Name);
    }

    [PatchTargetMethods]
    public static IEnumerable<MethodBase> Targets(Interceptor? interceptor, PatchOwner owner)
    {
        LifecycleLog.Calls.Add($"TargetMethods({(interceptor is null ? "no interceptor" : "interceptor")}, {owner.Name})");
        yield return typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;
        yield return typeof(Enemy).GetMethod(nameof(Enemy.Twice))!;
    }

    public static void Postfix(int __result)
    {
    }

    public static void Cleanup(Exception ex, MethodBase original, int unmatched)
    {
        LifecycleLog.Calls.Add($"Cleanup({LifecycleLog.Of(original)}, {ex?.GetType().Name ?? "null"}, {unmatched})");
    }
}

/// <summary>A postfix that fits Damage (int) and not Tick (void): the binding of Tick fails.</summary>
internal static class SuppressingCleanupPatch
{
    public static List<string> Calls { get; } = [];

    public static bool Suppress { get; set; } = true;

    public static IEnumerable<MethodBase> TargetMethods() =>
        [typeof(Enemy).GetMethod(nameof(Enemy.Damage))!, typeof(Enemy).GetMethod(nameof(Enemy.Tick))!,
         typeof(Enemy).GetMethod(nameof(Enemy.Twice))!];

    public static void Postfix(int __result)
    {
    }

    public static Exception? Cleanup(MethodBase? original, Exception? ex)
    {
        Calls.Add($"{original?.Name ?? "null"}:{ex?.GetType().Name ?? "null"}");
        return Suppress ? null : ex;
    }
}

internal static class NullTargetPatch
{
    [PatchTargetMethod]
    public static MethodBase? Which() => null;

    public static void Prefix()
    {
    }
}

[Patch(typeof(Enemy), nameof(Enemy.Tick))]
internal static class TargetMethodAndAttributePatch
{
    public static MethodBase TargetMethod() => typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;

    public static void Prefix()
    {
    }
}

internal static class ThrowingPreparePatch
{
    [PatchPrepare]
    public static bool Ready(MethodBase original) =>
        original is null ? true : throw new InvalidOperationException("not ready");

    [Patch(typeof(Enemy), nameof(Enemy.Tick))]
    public static void Prefix()
    {
    }
}

[Patch(typeof(Enemy), nameof(Enemy.Tick))]
[PatchCategory("combat")]
internal static class CombatPatch
{
    public static void Prefix()
    {
    }
}

/// <summary>The patch-class lifecycle (Prepare, TargetMethod(s), Cleanup), categories and whole-type patching
/// of the core discovery, run with a stand-in for the profiler's apply.</summary>
public sealed class PatchLifecycleTests
{
    private static readonly PatchOwner Owner = new("lifecycle owner");

    private static IReadOnlyList<(DiscoveredSet Set, BoundSet Bound)> Run(params Type[] classes) =>
        [.. PatchClassRun.Run([.. classes.Select(CorePatchConvention.Instance.Read)], [Owner],
            d => new BoundClassSet(d, HookBinder.BindSet(d.Target, d.Prefixes, d.Postfixes, d.Finalizers), [], []),
            (_, bound) => bound).Select(b => (b.Set, b.Hooks))];

    [Fact]
    public void PrepareTargetMethodsAndCleanupAreCalledInHarmonysOrderWithArgumentsByType()
    {
        lock (LifecycleLog.Calls)
        {
            LifecycleLog.Calls.Clear();
            LifecyclePatch.SkipClass = false;
            LifecyclePatch.SkipTargets.Clear();
            LifecyclePatch.SkipTargets.Add(nameof(Enemy.Twice));

            IReadOnlyList<(DiscoveredSet Set, BoundSet Bound)> applied = Run(typeof(LifecyclePatch));

            // Twice was skipped by Prepare(original): only Damage is bound; Cleanup still sees both.
            Assert.Equal([nameof(Enemy.Damage)], applied.Select(a => a.Set.Target.Name));
            Assert.Equal(
            [
                "Prepare(null, lifecycle owner)", "TargetMethods(no interceptor, lifecycle owner)",
                "Prepare(Damage, lifecycle owner)", "Prepare(Twice, lifecycle owner)",
                "Cleanup(Damage, null, 0)", "Cleanup(Twice, null, 0)", "Cleanup(null, null, 0)",
            ], LifecycleLog.Calls);

            LifecycleLog.Calls.Clear();
            LifecyclePatch.SkipClass = true;
            Assert.Empty(Run(typeof(LifecyclePatch)));
            Assert.Equal(["Prepare(null, lifecycle owner)", "Cleanup(null, null, 0)"], LifecycleLog.Calls);
        }
    }

    [Fact]
    public void ACleanupThatSuppressesABindingFailureLeavesThatTargetOutAndOneThatReturnsItFailsTheBatch()
    {
        lock (SuppressingCleanupPatch.Calls)
        {
            SuppressingCleanupPatch.Calls.Clear();
            SuppressingCleanupPatch.Suppress = true;
            IReadOnlyList<(DiscoveredSet Set, BoundSet Bound)> applied = Run(typeof(SuppressingCleanupPatch));
            Assert.Equal([nameof(Enemy.Damage), nameof(Enemy.Twice)], applied.Select(a => a.Set.Target.Name));
            Assert.Equal(["Tick:HookBindingException", "Damage:null", "Twice:null", "null:null"], SuppressingCleanupPatch.Calls);

            SuppressingCleanupPatch.Calls.Clear();
            SuppressingCleanupPatch.Suppress = false;
            bool applyCalled = false;
            HookBindingException e = Assert.Throws<HookBindingException>(() => PatchClassRun.Run(
                [CorePatchConvention.Instance.Read(typeof(SuppressingCleanupPatch))], [Owner],
                d => HookBinder.BindSet(d.Target, d.Prefixes, d.Postfixes, d.Finalizers),
                (_, bound) =>
                {
                    applyCalled = true;
                    return bound;
                }));
            Assert.Equal(HookBindingKind.NoResult, e.Kind);
            Assert.False(applyCalled);
            Assert.Equal(["Tick:HookBindingException", "null:HookBindingException"], SuppressingCleanupPatch.Calls);
        }
    }

    [Fact]
    public void LifecycleMethodsThatMisbehaveAreRefusedWithTheirClassAndMethod()
    {
        PatchClassException nullTarget = Assert.Throws<PatchClassException>(() => Run(typeof(NullTargetPatch)));
        Assert.Equal(nameof(NullTargetPatch.Which), nullTarget.Method?.Name);
        Assert.Contains("returned null; expected the method or constructor to patch", nullTarget.Message, StringComparison.Ordinal);

        PatchClassException both = Assert.Throws<PatchClassException>(() => Run(typeof(TargetMethodAndAttributePatch)));
        Assert.Contains("names its target with an attribute, but the class's targets come from TargetMethod(s)", both.Message,
            StringComparison.Ordinal);

        PatchClassException threw = Assert.Throws<PatchClassException>(() => Run(typeof(ThrowingPreparePatch)));
        Assert.IsType<InvalidOperationException>(threw.InnerException);
        Assert.Equal(nameof(Enemy.Tick), threw.Target?.Name);
        Assert.Contains("threw InvalidOperationException for Enemy.Tick()", threw.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void WholeTypePatchingTargetsEveryDeclaredMemberWithABody()
    {
        IReadOnlyList<DiscoveredSet> sets = PatchDiscovery.Discover(typeof(WholeTypePatch));
        string[] names = [.. sets.Select(s => s.Target.Name)];

        Assert.Contains(".cctor", names);
        Assert.Equal(2, names.Count(n => n == ".ctor"));
        foreach (string member in new[] { "get_Level", "set_Level", "get_Item", "add_Changed", "remove_Changed", "Twice",
                     "op_Addition", "Echo", "Raise" })
            Assert.Contains(member, names);
        Assert.DoesNotContain("Abstract", names);                     // no IL
        Assert.DoesNotContain("ToString", names);                     // inherited
        Assert.Equal(names.Length, names.Distinct().Count() + 1);     // two constructors share a name, nothing else
        Assert.All(sets, s => Assert.Single(s.Prefixes));

        PatchClassException noType = Assert.Throws<PatchClassException>(() => PatchDiscovery.Discover(typeof(WholeTypeWithoutTypePatch)));
        Assert.Contains("asks for whole-type patching but names no type", noType.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void CategoriesAreReadFromTheClassAndPatchClassesIncludeCategorizedOnes()
    {
        IReadOnlyList<Type> classes = PatchDiscovery.PatchClasses(typeof(PatchLifecycleTests).Assembly);
        Assert.Contains(typeof(CombatPatch), classes);
        Assert.Contains(typeof(WholeTypePatch), classes);
        Assert.Equal("combat", CorePatchConvention.Instance.Read(typeof(CombatPatch)).Category);
        Assert.Null(CorePatchConvention.Instance.Read(typeof(WholeTypePatch)).Category);
    }
}
