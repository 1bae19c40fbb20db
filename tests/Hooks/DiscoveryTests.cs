using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;

namespace AlvorKit.Hooks.Tests;

#pragma warning disable IDE0060, CA1707 // hook parameters are bound by name, not used

[Patch(typeof(Enemy), nameof(Enemy.Damage))]
[Patch(typeof(Enemy), nameof(Enemy.Overloaded), typeof(string))]
[PatchPriority(HookPriority.High)]
[PatchAfter("other mod")]
internal static class ClassLevelPatch
{
    public static void Prefix()
    {
    }

    [PatchPostfix]
    [PatchPriority(HookPriority.Low)]
    public static void AfterIt()
    {
    }

    [Patch(typeof(Enemy), nameof(Enemy.Tick))]
    [PatchFinalizer]
    [PatchBefore("x")]
    private static void OnlyOnTick()
    {
    }

    public static void NotAHook()
    {
    }
}

internal static class PropertyAndConstructorPatch
{
    [Patch(typeof(Enemy), nameof(Enemy.Level), Kind = PatchMethodKind.Setter)]
    public static void Prefix(int value)
    {
    }

    [Patch(typeof(Spawner), ".ctor", Kind = PatchMethodKind.Constructor)]
    [PatchPrefix]
    public static void BeforeConstruction(int count)
    {
    }

    [Patch(typeof(Box<int>), "Get")]
    public static void Postfix(object __result)
    {
    }
}

[Patch(typeof(Enemy), nameof(Enemy.Overloaded))]
internal static class AmbiguousPatch
{
    public static void Prefix()
    {
    }
}

[Patch(typeof(Enemy), "Missing")]
internal static class MissingPatch
{
    public static void Prefix()
    {
    }
}

[Patch(typeof(Enemy), nameof(Enemy.Damage))]
internal static class HooklessPatch
{
    public static void Helper()
    {
    }
}

internal sealed class TwoResets
{
    public TwoResets()
    {
    }

    public TwoResets(int level) => Level = level;

    public int Level { get; private set; }

    public void Reset() => Level = 0;

    public void Reset(int level) => Level = level;
}

internal static class ParameterlessOverloadPatch
{
    [Patch(typeof(TwoResets), nameof(TwoResets.Reset), new Type[0])]
    public static void Prefix()
    {
    }

    [Patch(typeof(TwoResets), nameof(TwoResets.Reset), argumentTypes: [])]
    public static void Postfix()
    {
    }

    [Patch(typeof(TwoResets), ".ctor", new Type[0], Kind = PatchMethodKind.Constructor)]
    [PatchFinalizer]
    public static void AfterConstruction()
    {
    }
}

[Patch(typeof(TwoResets), ".ctor", Kind = PatchMethodKind.Constructor)]
internal static class AmbiguousConstructorPatch
{
    public static void Prefix()
    {
    }
}

/// <summary>Patch classes: hooks by attribute or name, targets on the class or the method, ordering attributes.</summary>
public sealed class DiscoveryTests
{
    [Fact]
    public void ClassTargetsGetTheClassHooksAndAMethodTargetItsHookAlone()
    {
        IReadOnlyList<DiscoveredSet> sets = PatchDiscovery.Discover(typeof(ClassLevelPatch));

        Assert.Equal(["Damage", "Overloaded", "Tick"], sets.Select(s => s.Target.Name));
        Assert.Equal(typeof(string), sets[1].Target.GetParameters()[0].ParameterType);
        DiscoveredSet damage = sets[0];
        Assert.Equal(["Prefix"], damage.Prefixes.Select(h => h.Method.Name));
        Assert.Equal(["AfterIt"], damage.Postfixes.Select(h => h.Method.Name));
        Assert.Empty(damage.Finalizers);
        Assert.Equal(HookPriority.High, damage.Prefixes[0].Priority);   // the class's
        Assert.Equal(HookPriority.Low, damage.Postfixes[0].Priority);   // the method's wins
        Assert.Equal(["other mod"], damage.Prefixes[0].After);
        DiscoveredSet tick = sets[2];
        Assert.Empty(tick.Prefixes);
        Assert.Equal(["OnlyOnTick"], tick.Finalizers.Select(h => h.Method.Name));
        Assert.Equal(["x"], tick.Finalizers[0].Before);
        Assert.Equal(typeof(ClassLevelPatch), tick.PatchClass);
    }

    [Fact]
    public void PropertiesConstructorsAndConstructedGenericsResolve()
    {
        IReadOnlyList<DiscoveredSet> sets = PatchDiscovery.Discover(typeof(PropertyAndConstructorPatch));

        Assert.Equal(typeof(Enemy).GetProperty(nameof(Enemy.Level))!.SetMethod, sets[0].Target);
        Assert.IsType<ConstructorInfo>(sets[1].Target, exactMatch: false);
        Assert.Equal(typeof(Spawner), sets[1].Target.DeclaringType);
        // Box<int>.Get is woven into its definition (one body for every instantiation), and its hooks are
        // bound for the instantiation it was named as.
        Assert.Equal(typeof(Box<>), sets[2].Target.DeclaringType);
        Assert.Equal(typeof(Box<int>), sets[2].Given!.DeclaringType);
        Assert.Null(sets[0].Given);
    }

    [Fact]
    public void AmbiguousMissingAndHooklessClassesAreRefused()
    {
        HookBindingException ambiguous = Assert.Throws<HookBindingException>(() => PatchDiscovery.Discover(typeof(AmbiguousPatch)));
        Assert.Equal(HookBindingKind.TargetAmbiguous, ambiguous.Kind);
        Assert.Contains("which has 2 overloads; give the argument types", ambiguous.Message, StringComparison.Ordinal);
        Assert.Contains("Enemy.Overloaded(string)", ambiguous.Message, StringComparison.Ordinal);

        HookBindingException missing = Assert.Throws<HookBindingException>(() => PatchDiscovery.Discover(typeof(MissingPatch)));
        Assert.Equal(HookBindingKind.TargetNotFound, missing.Kind);
        Assert.Contains("method Enemy.Missing", missing.Message, StringComparison.Ordinal);

        HookBindingException hookless = Assert.Throws<HookBindingException>(() => PatchDiscovery.Discover(typeof(HooklessPatch)));
        Assert.Equal(HookBindingKind.NoHooks, hookless.Kind);
        Assert.Contains("has no hooks", hookless.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnEmptyArgumentArraySelectsTheParameterlessOverload()
    {
        IReadOnlyList<DiscoveredSet> sets = PatchDiscovery.Discover(typeof(ParameterlessOverloadPatch));

        MethodBase TargetOf(string hook) =>
            sets.Single(s => s.Prefixes.Concat(s.Postfixes).Concat(s.Finalizers).Any(h => h.Method.Name == hook)).Target;
        MethodInfo parameterless = typeof(TwoResets).GetMethod(nameof(TwoResets.Reset), Type.EmptyTypes)!;
        Assert.Equal(parameterless, TargetOf("Prefix"));
        Assert.Equal(parameterless, TargetOf("Postfix"));
        Assert.Equal(typeof(TwoResets).GetConstructor(Type.EmptyTypes), TargetOf("AfterConstruction"));
        // (Type, string) alone still means "the only overload": two constructors are ambiguous.
        Assert.Null(new PatchAttribute(typeof(TwoResets), "Reset").ArgumentTypes);
        Assert.Equal(HookBindingKind.TargetAmbiguous,
            Assert.Throws<HookBindingException>(() => PatchDiscovery.Discover(typeof(AmbiguousConstructorPatch))).Kind);
    }

    [Fact]
    public void AnAssemblysPatchClassesAreTheOnesWithPatchAttributes()
    {
        IReadOnlyList<Type> classes = PatchDiscovery.PatchClasses(typeof(DiscoveryTests).Assembly);

        Assert.Contains(typeof(ClassLevelPatch), classes);
        Assert.Contains(typeof(PropertyAndConstructorPatch), classes);
        Assert.Contains(typeof(HooklessPatch), classes);
        Assert.DoesNotContain(typeof(Hooks), classes);
    }
}
