using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>What a hook parameter can bind beyond the injected names: fields (<c>___name</c>), renamed arguments
/// (<see cref="PatchArgumentAttribute"/> or any attribute of the renaming contract), a __state that hooks of one
/// set take as compatible types, and the original method as the running instantiation of a generic target. Each
/// binding is checked, then woven and lowered (the plan's stack-type check).</summary>
public sealed class ParameterBindingTests(ITestOutputHelper output)
{
    private static readonly MethodInfo Hit = typeof(Knight).GetMethod(nameof(Knight.Hit))!;

    private static MethodInfo Hook(string name) => typeof(BindingHooks).GetMethod(name)!;

    private static HookBindingException Refused(MethodBase target, MethodInfo hook, HookKind kind = HookKind.Prefix) =>
        Assert.Throws<HookBindingException>(() => HookBinder.Bind(target, hook, kind));

    private string Weave(MethodBase target, IEnumerable<HookMethod>? prefixes = null, IEnumerable<HookMethod>? postfixes = null)
    {
        BoundSet set = HookBinder.BindSet(target, prefixes ?? [], postfixes ?? [], []);
        GenerationPlan plan = HookWeaver.Weave(HookComposition.Compose(target, [new HookSetInfo(set, "mod", 0, "Hook call", false)]));
        plan.Lower();
        string listing = plan.ToString();
        output.WriteLine(listing);
        return listing;
    }

    [Fact]
    public void FieldsBindByValueByReferenceBoxedAndFromABaseClass()
    {
        BoundHook bound = HookBinder.Bind(Hit, Hook(nameof(BindingHooks.Fields)), HookKind.Prefix);

        Assert.All(bound.Arguments, a => Assert.Equal(HookSource.Field, a.Source));
        Assert.Equal(["_hp", "armor", "population", "_name", "_hp"], bound.Arguments.Select(a => a.Field!.Name));
        Assert.Equal([HookPassing.Address, HookPassing.Value, HookPassing.Address, HookPassing.Value, HookPassing.Box],
            bound.Arguments.Select(a => a.Passing));
        Assert.Equal(typeof(Creature), bound.Arguments[1].Field!.DeclaringType); // the base class's field
        string listing = Weave(Hit, [Hook(nameof(BindingHooks.Fields))]);
        Assert.Contains("ldflda Knight._hp", listing, StringComparison.Ordinal);
        Assert.Contains("ldsflda Creature.population", listing, StringComparison.Ordinal);
        Assert.Contains("ldfld Creature.armor", listing, StringComparison.Ordinal);
    }

    [Fact]
    public void AFieldByPositionIsTheDeclaringTypesFieldInDeclarationOrder()
    {
        BoundHook bound = HookBinder.Bind(Hit, Hook(nameof(BindingHooks.FirstField)), HookKind.Prefix);

        Assert.Equal("_hp", bound.Arguments[0].Field!.Name);
    }

    [Fact]
    public void AStructReceiversFieldIsReadAndChangedInPlace()
    {
        MethodInfo next = typeof(Tally).GetMethod(nameof(Tally.Next))!;
        BoundHook bound = HookBinder.Bind(next, Hook(nameof(BindingHooks.TallyValue)), HookKind.Prefix);

        Assert.Equal(HookPassing.Address, bound.Arguments[0].Passing);
        Assert.Contains("ldflda Tally._value", Weave(next, [Hook(nameof(BindingHooks.TallyValue))]), StringComparison.Ordinal);
    }

    [Fact]
    public void AGenericTypesFieldOverItsParametersIsBoxedAndAPlainOneKeepsItsType()
    {
        MethodInfo add = typeof(Bag<>).GetMethod("Add")!;
        BoundHook bound = HookBinder.Bind(add, Hook(nameof(BindingHooks.BagFields)), HookKind.Postfix);

        Assert.Equal([HookPassing.Box, HookPassing.Value], bound.Arguments.Select(a => a.Passing));
        HookBindingException e = Refused(add, Hook(nameof(BindingHooks.BagLastTyped)), HookKind.Postfix);
        Assert.Equal(HookBindingKind.ParameterType, e.Kind);
        Assert.Equal("object", e.Expected);
        Weave(add, postfixes: [Hook(nameof(BindingHooks.BagFields))]);
    }

    [Fact]
    public void AMissingFieldIsRefusedNamingTheFieldsThatExist()
    {
        HookBindingException e = Refused(Hit, Hook(nameof(BindingHooks.MissingField)));

        Assert.Equal(HookBindingKind.UnknownField, e.Kind);
        Assert.Equal(0, e.ParameterIndex);
        Assert.Contains("'health'", e.Message, StringComparison.Ordinal);
        Assert.Contains("'_hp'", e.Message, StringComparison.Ordinal);
        Assert.Contains("'armor' (of Creature)", e.Message, StringComparison.Ordinal);
        Assert.Contains("static void MissingField()", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APrivateFieldOfABaseClassIsRefusedAsTheTargetsCodeCannotNameIt()
    {
        HookBindingException e = Refused(Hit, Hook(nameof(BindingHooks.Secret)));

        Assert.Equal(HookBindingKind.InaccessibleField, e.Kind);
        Assert.Contains("private to Creature", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnInstanceFieldOnAStaticTargetIsRefused()
    {
        MethodInfo census = typeof(Knight).GetMethod(nameof(Knight.Census))!;
        HookBindingException e = Refused(census, Hook(nameof(BindingHooks.FirstField)));

        Assert.Equal(HookBindingKind.InstanceFieldOnStaticTarget, e.Kind);
        Assert.Contains("is static", e.Message, StringComparison.Ordinal);
        Assert.Contains("'population'", e.Message, StringComparison.Ordinal);
        // A static field is fine there.
        Assert.Equal(HookSource.Field, HookBinder.Bind(census, Hook(nameof(BindingHooks.Population)), HookKind.Prefix)
            .Arguments[0].Source);
    }

    [Fact]
    public void AParameterRenamedByAttributeBindsAsTheNameOrPositionItGives()
    {
        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        BoundHook bound = HookBinder.Bind(heal, Hook(nameof(BindingHooks.Renamed)), HookKind.Prefix);

        Assert.Equal([HookSource.Argument, HookSource.Argument, HookSource.Instance], bound.Arguments.Select(a => a.Source));
        Assert.Equal([1, 2], bound.Arguments.Take(2).Select(a => a.ArgumentIndex)); // amount, bonus (after the receiver)
        Assert.Equal(HookPassing.Address, bound.Arguments[0].Passing);
    }

    [Fact]
    public void AHookMethodRenamesItsParametersAndAnyRenamingAttributeIsRead()
    {
        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        BoundHook bound = HookBinder.Bind(heal, Hook(nameof(BindingHooks.RenamedByMethod)), HookKind.Postfix);

        Assert.Equal([HookSource.Result, HookSource.Argument, HookSource.Field], bound.Arguments.Select(a => a.Source));
        Assert.Equal(2, bound.Arguments[1].ArgumentIndex);
        BoundHook other = HookBinder.Bind(heal, Hook(nameof(BindingHooks.RenamedByOtherSpelling)), HookKind.Prefix);
        Assert.Equal(1, other.Arguments[0].ArgumentIndex);
        // Renamed to a name the target lacks: refused like any unknown name.
        Assert.Equal(HookBindingKind.UnknownParameter, Refused(heal, Hook(nameof(BindingHooks.RenamedToNothing))).Kind);
    }

    [Fact]
    public void APatchClassRenamesTheParametersOfEveryHookItHoldsAndAMethodsRenameWins()
    {
        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        BoundHook bound = HookBinder.Bind(heal, typeof(RenamingClass).GetMethod(nameof(RenamingClass.Prefix))!, HookKind.Prefix);

        Assert.Equal([1, 2], bound.Arguments.Select(a => a.ArgumentIndex)); // damage: amount (the class's); extra: bonus (the method's)
    }

    [Fact]
    public void CompatibleStateTypesBindAndTheLocalHasThePrefixsType()
    {
        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        BoundSet set = HookBinder.BindSet(heal, [Hook(nameof(BindingHooks.ListState))],
            [Hook(nameof(BindingHooks.EnumerableState)), Hook(nameof(BindingHooks.ObjectState))], []);
        Assert.Equal(typeof(List<int>), set.StateType);

        BoundSet boxed = HookBinder.BindSet(heal, [Hook(nameof(BindingHooks.IntState))], [Hook(nameof(BindingHooks.ObjectState))], []);
        Assert.Equal(typeof(int), boxed.StateType);
        string listing = Weave(heal, [Hook(nameof(BindingHooks.IntState))], [Hook(nameof(BindingHooks.ObjectState))]);
        Assert.Contains("box int", listing, StringComparison.Ordinal);
    }

    [Fact]
    public void IncompatibleStateTypesAreRefused()
    {
        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        HookBindingException e = Assert.Throws<HookBindingException>(() => HookBinder.BindSet(heal,
            [Hook(nameof(BindingHooks.ListState))], [Hook(nameof(BindingHooks.StringState))], []));
        Assert.Equal(HookBindingKind.StateType, e.Kind);
        Assert.Equal("List<int>", e.Expected);

        // By reference, only the very type: a ref IEnumerable<int> could store another enumerable in a List<int>.
        e = Assert.Throws<HookBindingException>(() => HookBinder.BindSet(heal,
            [Hook(nameof(BindingHooks.ListState))], [Hook(nameof(BindingHooks.RefEnumerableState))], []));
        Assert.Equal(HookBindingKind.StateType, e.Kind);
    }

    [Fact]
    public void RefObjectOverAValueTypeReceiverArgumentOrResultIsABoxedTemporaryWrittenBack()
    {
        MethodInfo next = typeof(Tally).GetMethod(nameof(Tally.Next))!;
        Assert.Equal(HookPassing.BoxedTemporary,
            HookBinder.Bind(next, Hook(nameof(BindingHooks.RefObjectInstance)), HookKind.Prefix).Arguments[0].Passing);
        string listing = Weave(next, [Hook(nameof(BindingHooks.RefObjectInstance))]);
        Assert.Contains("unbox.any Tally", listing, StringComparison.Ordinal);
        Assert.Contains("stobj Tally", listing, StringComparison.Ordinal);

        MethodInfo heal = typeof(Knight).GetMethod(nameof(Knight.Heal))!;
        BoundHook bound = HookBinder.Bind(heal, Hook(nameof(BindingHooks.RefObjectValues)), HookKind.Postfix);
        Assert.Equal([HookPassing.BoxedTemporary, HookPassing.BoxedTemporary], bound.Arguments.Select(a => a.Passing));
        Assert.Equal([HookSource.Argument, HookSource.Result], bound.Arguments.Select(a => a.Source));
        string values = Weave(heal, postfixes: [Hook(nameof(BindingHooks.RefObjectValues))]);
        Assert.Contains("starg", values, StringComparison.Ordinal);
    }

    [Fact]
    public void AHookTypedForOneInstantiationRunsThereOnly()
    {
        MethodInfo add = typeof(Bag<>).GetMethod("Add")!;
        BoundHook bound = HookBinder.Bind(add, Hook(nameof(BindingHooks.IntBag)), HookKind.Postfix);

        Assert.Equal([HookPassing.Convert, HookPassing.Convert, HookPassing.Address], bound.Arguments.Select(a => a.Passing));
        GenericBinding binding = Assert.Single(bound.Instantiation);
        Assert.Equal(("T", typeof(int)), (binding.Parameter.Name, binding.Argument));
        Assert.Empty(HookBinder.Bind(add, Hook(nameof(BindingHooks.BagFields)), HookKind.Postfix).Instantiation);
        string listing = Weave(add, postfixes: [Hook(nameof(BindingHooks.IntBag))]);
        Assert.Contains("call Type.op_Equality", listing, StringComparison.Ordinal);
        Assert.Contains("unbox.any int", listing, StringComparison.Ordinal);
        Assert.Contains("unbox.any Bag<int>", listing, StringComparison.Ordinal);

        // By reference: a temporary of the hook's type, converted back after it.
        Assert.Equal(HookPassing.ConvertedTemporary,
            HookBinder.Bind(add, Hook(nameof(BindingHooks.RefStringItem)), HookKind.Prefix).Arguments[0].Passing);
        Weave(add, [Hook(nameof(BindingHooks.RefStringItem))]);

        // A generic method's parameter.
        MethodInfo pick = typeof(Picker).GetMethod(nameof(Picker.Pick))!;
        Assert.Equal(typeof(string), Assert.Single(HookBinder.Bind(pick, Hook(nameof(BindingHooks.StringValue)),
            HookKind.Prefix).Instantiation).Argument);
        Weave(pick, [Hook(nameof(BindingHooks.StringValue))]);
    }

    [Fact]
    public void HookParametersThatDisagreeOnAnInstantiationAreRefused()
    {
        HookBindingException e = Refused(typeof(Bag<>).GetMethod("Add")!, Hook(nameof(BindingHooks.MixedBag)), HookKind.Postfix);

        Assert.Equal(HookBindingKind.ParameterType, e.Kind);
        Assert.Equal(1, e.ParameterIndex);
    }

    [Fact]
    public void AResultRefSuppliesTheReturnedReferenceEvenForAPrefixThatSkipsTheOriginal()
    {
        MethodInfo cell = typeof(Cells).GetMethod(nameof(Cells.Cell))!;
        BoundHook prefix = HookBinder.Bind(cell, Hook(nameof(BindingHooks.SupplyingPrefix)), HookKind.Prefix);
        Assert.Equal(HookReturn.RunOriginal, prefix.Return); // a bool prefix: allowed, it supplies the reference
        Assert.Equal(HookSource.ResultRef, prefix.Arguments[1].Source);
        string listing = Weave(cell, [Hook(nameof(BindingHooks.SupplyingPrefix))], [Hook(nameof(BindingHooks.SupplyingPostfix))]);
        Assert.Contains("callvirt RefResult<int>.Invoke()", listing, StringComparison.Ordinal);

        Assert.Equal(HookBindingKind.ResultRef, Refused(Hit, Hook(nameof(BindingHooks.SupplyingPostfix)), HookKind.Postfix).Kind);
        Assert.Equal(HookBindingKind.ResultRef, Refused(cell, Hook(nameof(BindingHooks.SupplyingPostfix)), HookKind.Finalizer).Kind);
        Assert.Equal(HookBindingKind.ParameterType, Refused(cell, Hook(nameof(BindingHooks.WrongSupplier)), HookKind.Postfix).Kind);
    }

    [Fact]
    public void TheOriginalMethodOfAGenericTargetIsNamedOverItsOwnParameters()
    {
        string listing = Weave(typeof(Bag<>).GetMethod("Add")!, [Hook(nameof(BindingHooks.Original))]);
        Assert.Contains("ldtoken Bag<T>.Add(T) over its own generic parameters", listing, StringComparison.Ordinal);
        Assert.Contains("ldtoken Bag<T> over its own generic parameters", listing, StringComparison.Ordinal);

        MethodInfo pick = typeof(Picker).GetMethod(nameof(Picker.Pick))!;
        string generic = Weave(pick, [Hook(nameof(BindingHooks.Original))]);
        Assert.Contains("MethodSpec", generic, StringComparison.Ordinal);
        Assert.DoesNotContain("GetMethodFromHandle(RuntimeMethodHandle, RuntimeTypeHandle)", generic, StringComparison.Ordinal);
    }
}

// Targets and hooks of these tests (game-code shapes; hook parameters carry Harmony's injected names).
#pragma warning disable CA1822, CA1051, CA1805, IDE0060, CA1062, CA1707, CA2211, IDE0044

/// <summary>A renaming attribute of another spelling (as a Harmony-shaped one is): the binder reads the contract.</summary>
[AttributeUsage(AttributeTargets.Parameter | AttributeTargets.Method, AllowMultiple = true)]
internal sealed class OtherArgumentAttribute(int index) : Attribute, IHookArgumentName
{
    public string? OriginalName => null;

    public int Index => index;

    public string? NewName => null;
}

[PatchArgument("amount", "damage")]
[PatchArgument("amount", "extra")]
public static class RenamingClass
{
    [PatchArgument("bonus", "extra")]
    public static void Prefix(int damage, int extra)
    {
    }
}

public class Creature
{
    protected static int population = 7;
    protected int armor = 3;
    private int _secret = 1;

    public int Secret => _secret;
}

public class Knight : Creature
{
    private int _hp = 50;
    private string _name = "knight";

    public int Hit(int amount) => _hp -= amount - armor + _name.Length * 0;

    public int Heal(int amount, int bonus) => _hp += amount + bonus;

    public static int Census(int extra) => population + extra;
}

public struct Tally(int start)
{
    private int _value = start;

    public int Next(int by) => _value += by;
}

public class Bag<T>
{
    private T? _last;
    private int _size;

    public int Add(T item)
    {
        _last = item;
        return ++_size + (_last is null ? 0 : 0);
    }
}

public static class Cells
{
    public static readonly int[] All = [0, 1, 2, 3];

    public static ref int Cell(int i) => ref All[i];
}

public static class Picker
{
    public static int Pick<T>(T value) => value is null ? 0 : 1;
}

public static class BindingHooks
{
    public static void Fields(ref int ____hp, int ___armor, ref int ___population, string ____name, object ___0)
    {
    }

    public static void FirstField(int ___0)
    {
    }

    public static void Secret(int ____secret)
    {
    }

    public static void MissingField(int ___health)
    {
    }

    public static void Population(ref int ___population)
    {
    }

    public static void TallyValue(ref int ____value)
    {
    }

    public static void BagFields(object ____last, int ____size)
    {
    }

    public static void BagLastTyped(int ____last)
    {
    }

    public static void Renamed([PatchArgument("amount")] ref int heal, [PatchArgument(1)] int extra,
        [PatchArgument("__instance")] Knight self)
    {
    }

    [PatchArgument("bonus", "plus")]
    [PatchArgument("____hp", "health")]
    public static void RenamedByMethod(int __result, int plus, int health)
    {
    }

    public static void RenamedByOtherSpelling([OtherArgument(0)] int first)
    {
    }

    public static void RenamedToNothing([PatchArgument("nothing")] int first)
    {
    }

    public static void ListState(out List<int> __state) => __state = [];

    public static void EnumerableState(IEnumerable<int> __state)
    {
    }

    public static void ObjectState(object __state)
    {
    }

    public static void IntState(out int __state) => __state = 1;

    public static void StringState(string __state)
    {
    }

    public static void RefEnumerableState(ref IEnumerable<int> __state)
    {
    }

    public static void RefObjectInstance(ref object __instance)
    {
    }

    public static void RefObjectValues(ref object amount, ref object __result)
    {
    }

    public static void IntBag(int item, Bag<int> __instance, ref int __result)
    {
    }

    public static void MixedBag(int item, Bag<string> __instance)
    {
    }

    public static void RefStringItem(ref string item)
    {
    }

    public static void StringValue(string value)
    {
    }

    public static bool SupplyingPrefix(int i, ref RefResult<int> __resultRef)
    {
        return true;
    }

    public static void SupplyingPostfix(ref RefResult<int> __resultRef)
    {
    }

    public static void WrongSupplier(ref RefResult<long> __resultRef)
    {
    }

    public static void Original(MethodBase __originalMethod)
    {
    }
}
