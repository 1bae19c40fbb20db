using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.HarmonyLib;
using AlvorKit.Interception.Hooks;
using Xunit;

namespace AlvorKit.Hooks.Tests;

#pragma warning disable IDE0060, CA1707, CA1822, CA1812, CA1852 // patch classes: hooks bound by name, found by reflection

/// <summary>Members Harmony's method types name.</summary>
public class HarmonyTargets
{
    static HarmonyTargets() => Started = DateTime.UtcNow.Ticks;

    public HarmonyTargets()
    {
    }

    public HarmonyTargets(int value) => Value = value;

    public static long Started { get; private set; }

    public int Value { get; set; }

    public int this[string key] => key.Length;

    public int Add(int x) => Value + x;

    public int Add(int x, int y) => x + y;

    public void Swap(ref int a, out int b)
    {
        b = a;
        a = 0;
    }

    public IEnumerable<int> Count(int n)
    {
        for (int i = 0; i < n; i++)
            yield return i;
    }

    public async Task<int> Later(int x)
    {
        await Task.Yield();
        return x;
    }

    public static HarmonyTargets operator -(HarmonyTargets t) => t;

    public event EventHandler? Changed
    {
        add => Value++;
        remove => Value--;
    }
}

[HarmonyPatch(typeof(HarmonyTargets))]
[HarmonyPriority(Priority.Low)]
[HarmonyBefore("class.before")]
internal static class MergedPatch
{
    [HarmonyPatch(nameof(HarmonyTargets.Add), typeof(int))]
    [HarmonyPriority(Priority.High)]
    public static void Prefix()
    {
    }

    [HarmonyPostfix]
    [HarmonyPatch(nameof(HarmonyTargets.Add), typeof(int), typeof(int))]
    [HarmonyPriority(Priority.VeryLow)]
    [HarmonyAfter("method.after")]
    public static void AfterAdd()
    {
    }

    [HarmonyPatch(MethodType.Constructor)]
    [HarmonyFinalizer]
    public static void AfterConstruction()
    {
    }

    [HarmonyPatch(nameof(HarmonyTargets.Swap), [typeof(int), typeof(int)], [ArgumentType.Ref, ArgumentType.Out])]
    [HarmonyPrefix]
    public static void BeforeSwap()
    {
    }

    [HarmonyPatch(nameof(HarmonyTargets.Value), MethodType.Setter)]
    [HarmonyPrefix]
    public static void BeforeSet()
    {
    }

    [HarmonyPatch(MethodType.Getter, typeof(string))]
    [HarmonyPrefix]
    public static void BeforeIndexer()
    {
    }

    [HarmonyPatch(nameof(HarmonyTargets.Count), MethodType.Enumerator)]
    [HarmonyPrefix]
    public static void BeforeMoveNext()
    {
    }

    [HarmonyPatch(nameof(HarmonyTargets.Later), MethodType.Async)]
    [HarmonyPrefix]
    public static void BeforeAsyncMoveNext()
    {
    }

    [HarmonyPatch(MethodType.StaticConstructor)]
    [HarmonyPrefix]
    public static void BeforeTypeInit()
    {
    }

    [HarmonyPatch(MethodType.OperatorUnaryNegation)]
    [HarmonyPrefix]
    public static void BeforeNegation()
    {
    }

    [HarmonyPatch(nameof(HarmonyTargets.Changed), MethodType.EventAdd)]
    [HarmonyPrefix]
    public static void BeforeAdd()
    {
    }

    public static void NotAHook()
    {
    }
}

[HarmonyPatch]
internal static class OuterWithoutHooks
{
}

[HarmonyPatch(typeof(Enemy), nameof(Enemy.Tick))]
[HarmonyPatchCategory("harmony category")]
internal static class HarmonyCategorized
{
    public static void Prefix()
    {
    }
}

[HarmonyPatch(typeof(Enemy), nameof(Enemy.Tick))]
internal static class HarmonyTranspilerPatch
{
    public static IEnumerable<BodyInstruction> Transpiler(IEnumerable<BodyInstruction> instructions) => instructions;
}

[HarmonyPatch(typeof(Enemy), nameof(Enemy.Tick))]
internal static class HarmonyReversePatchByName
{
    public static int ReversePatch(Enemy instance) => throw new NotImplementedException();
}

[HarmonyPatch(typeof(Enemy))]
internal static class HarmonyWithoutTarget
{
    public static void Prefix()
    {
    }
}

[HarmonyPatch(typeof(WholeTarget))]
[HarmonyPatchAll]
internal static class HarmonyWholeType
{
    public static void Postfix()
    {
    }
}

internal static class HarmonyHookSource
{
    [HarmonyPriority(Priority.First)]
    [HarmonyAfter("someone")]
    public static void Prefix()
    {
    }
}

internal static class RenamedArguments
{
    public static void Prefix([HarmonyArgument("amount")] int howMuch, [HarmonyArgument(0)] int first)
    {
    }
}

/// <summary>The Harmony-shaped surface read by the core discovery: merged attributes, method types, argument
/// variations, categories, whole types, HarmonyMethod, HarmonyArgument (no profiler).</summary>
public sealed class HarmonySurfaceTests
{
    private static IReadOnlyList<DiscoveredSet> Sets(Type patchClass) =>
        PatchDiscovery.Sets(HarmonyPatchConvention.Instance.Read(patchClass), null);

    private static DiscoveredSet SetOf(IReadOnlyList<DiscoveredSet> sets, string hook) =>
        sets.Single(s => s.Prefixes.Concat(s.Postfixes).Concat(s.Finalizers).Any(h => h.Method.Name == hook));

    [Fact]
    public void ClassAndMethodAttributesMergeIntoEachHooksTargetAsHarmonyMergesThem()
    {
        IReadOnlyList<DiscoveredSet> sets = Sets(typeof(MergedPatch));
        Type t = typeof(HarmonyTargets);

        Assert.Equal(t.GetMethod(nameof(HarmonyTargets.Add), [typeof(int)]), SetOf(sets, "Prefix").Target);
        Assert.Equal(t.GetMethod(nameof(HarmonyTargets.Add), [typeof(int), typeof(int)]), SetOf(sets, "AfterAdd").Target);
        Assert.Equal(t.GetConstructor(Type.EmptyTypes), SetOf(sets, "AfterConstruction").Target);   // Harmony: parameterless
        Assert.Equal(t.GetMethod(nameof(HarmonyTargets.Swap)), SetOf(sets, "BeforeSwap").Target);
        Assert.Equal(t.GetProperty(nameof(HarmonyTargets.Value))!.SetMethod, SetOf(sets, "BeforeSet").Target);
        Assert.Equal(t.GetProperty("Item")!.GetMethod, SetOf(sets, "BeforeIndexer").Target);
        Assert.Equal("MoveNext", SetOf(sets, "BeforeMoveNext").Target.Name);
        Assert.Contains("Count", SetOf(sets, "BeforeMoveNext").Target.DeclaringType!.Name, StringComparison.Ordinal);
        Assert.Equal("MoveNext", SetOf(sets, "BeforeAsyncMoveNext").Target.Name);
        Assert.Contains("Later", SetOf(sets, "BeforeAsyncMoveNext").Target.DeclaringType!.Name, StringComparison.Ordinal);
        Assert.Equal(t.TypeInitializer, SetOf(sets, "BeforeTypeInit").Target);
        Assert.Equal("op_UnaryNegation", SetOf(sets, "BeforeNegation").Target.Name);
        Assert.Equal("add_Changed", SetOf(sets, "BeforeAdd").Target.Name);

        // Priority: both set, the higher wins (High over the class's Low; the class's Low over VeryLow).
        HookMethod prefix = SetOf(sets, "Prefix").Prefixes.Single();
        HookMethod afterAdd = SetOf(sets, "AfterAdd").Postfixes.Single();
        Assert.Equal(Priority.High, prefix.Priority);
        Assert.Equal(Priority.Low, afterAdd.Priority);
        Assert.Equal(["class.before"], prefix.Before);
        Assert.Equal(["class.before"], afterAdd.Before);
        Assert.Equal(["method.after"], afterAdd.After);
        Assert.Empty(prefix.After);
    }

    [Fact]
    public void AClassWithoutHooksPatchesNothingAndAHookWithoutATargetIsRefused()
    {
        Assert.Empty(Sets(typeof(OuterWithoutHooks)));
        HookBindingException e = Assert.Throws<HookBindingException>(() => Sets(typeof(HarmonyWithoutTarget)));
        Assert.Contains("has no target", e.Message, StringComparison.Ordinal);
        DiscoveredSet transpiled = Assert.Single(Sets(typeof(HarmonyTranspilerPatch)));
        Assert.Equal(nameof(HarmonyTranspilerPatch.Transpiler), Assert.Single(transpiled.Transpilers).Method.Name);
        NotSupportedException reverse = Assert.Throws<NotSupportedException>(() => Sets(typeof(HarmonyReversePatchByName)));
        Assert.Contains("is a ReversePatch", reverse.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PatchClassesAreTheOnesWithAClassLevelHarmonyAttributeWithTheirCategory()
    {
        IReadOnlyList<Type> classes = PatchDiscovery.PatchClasses(typeof(HarmonySurfaceTests).Assembly, HarmonyPatchConvention.Instance);
        Assert.Contains(typeof(MergedPatch), classes);
        Assert.Contains(typeof(OuterWithoutHooks), classes);
        Assert.Contains(typeof(HarmonyCategorized), classes);
        Assert.DoesNotContain(typeof(HarmonyHookSource), classes);          // method-level attributes only
        Assert.DoesNotContain(typeof(CombatPatch), classes);                // the core's attributes
        Assert.Equal("harmony category", HarmonyPatchConvention.Instance.Read(typeof(HarmonyCategorized)).Category);
        Assert.Null(HarmonyPatchConvention.Instance.Read(typeof(MergedPatch)).Category);
        Assert.Equal("harmony category", HarmonyPatchConvention.CategoryOf(typeof(HarmonyCategorized)));
    }

    [Fact]
    public void HarmonyPatchAllTargetsTheTypesDeclaredMembers()
    {
        IReadOnlyList<DiscoveredSet> sets = Sets(typeof(HarmonyWholeType));
        Assert.Equal(PatchTargets.DeclaredMembers(typeof(WholeTarget)), sets.Select(s => s.Target));
    }

    [Fact]
    public void HarmonyMethodImportsTheMethodsAttributesAndBecomesAHookMethod()
    {
        MethodInfo prefix = typeof(HarmonyHookSource).GetMethod("Prefix")!;
        HarmonyMethod imported = prefix;
        Assert.Equal(Priority.First, imported.priority);
        Assert.Equal(["someone"], imported.after!);
        HookMethod hook = imported.ToHookMethod();
        Assert.Equal(Priority.First, hook.Priority);
        Assert.Equal(["someone"], hook.After);

        HookMethod plain = new HarmonyMethod(prefix, before: ["x"]).ToHookMethod();   // the arguments replace the attributes'
        Assert.Equal(Priority.Normal, plain.Priority);
        Assert.Equal(["x"], plain.Before);
        Assert.Empty(plain.After);
        Assert.Equal(prefix, new HarmonyMethod(typeof(HarmonyHookSource), "Prefix").method);
        Assert.Throws<ArgumentException>(() => new HarmonyMethod(typeof(HarmonyHookSource), "Missing"));
    }

    [Fact]
    public void HarmonyArgumentIsReadAsTheCoreRenamingContract()
    {
        ParameterInfo[] parameters = typeof(RenamedArguments).GetMethod("Prefix")!.GetParameters();
        IHookArgumentName byName = parameters[0].GetCustomAttributes().OfType<IHookArgumentName>().Single();
        IHookArgumentName byIndex = parameters[1].GetCustomAttributes().OfType<IHookArgumentName>().Single();
        Assert.Equal(("amount", -1, (string?)null), (byName.OriginalName, byName.Index, byName.NewName));
        Assert.Equal(((string?)null, 0, (string?)null), (byIndex.OriginalName, byIndex.Index, byIndex.NewName));
    }

    [Fact]
    public void TheOverloadsThatFindTheirCallerAreNeitherInlinedNorTailCalled()
    {
        foreach (MethodInfo method in new[]
                 {
                     typeof(Harmony).GetMethod(nameof(Harmony.PatchAll), Type.EmptyTypes)!,
                     typeof(Harmony).GetMethod(nameof(Harmony.PatchAllUncategorized), Type.EmptyTypes)!,
                     typeof(Harmony).GetMethod(nameof(Harmony.PatchCategory), [typeof(string)])!,
                     typeof(Harmony).GetMethod(nameof(Harmony.UnpatchCategory), [typeof(string)])!,
                 })
        {
            Assert.True((method.Attributes & MethodAttributes.RequireSecObject) != 0, $"{method} can be tail-called");
            Assert.True((method.MethodImplementationFlags & MethodImplAttributes.NoInlining) != 0, $"{method} can be inlined");
        }
    }

    [Fact]
    public void AHarmonyInstanceNeedsAnId()
    {
        Assert.Throws<ArgumentException>(() => new Harmony(""));
        var harmony = new Harmony("unit.harmony");
        Assert.Equal("unit.harmony", harmony.Id);
        Assert.Equal("unit.harmony", harmony.Owner.Name);
        Assert.Same(harmony.Owner, new Harmony("unit.harmony").Owner);
        Assert.False(Harmony.HasAnyPatches("unit.harmony"));
        Assert.Empty(harmony.GetPatchedMethods());
    }
}
