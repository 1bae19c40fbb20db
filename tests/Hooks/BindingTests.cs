using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;

namespace AlvorKit.Hooks.Tests;

/// <summary>Every hook parameter bound or refused before anything reaches the profiler: each refusal
/// has its kind, names the parameter, says what was expected and found, and a declaration that works.</summary>
public sealed class BindingTests
{
    private static readonly MethodInfo Damage = typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;

    private static MethodInfo Hook(string name) => typeof(Hooks).GetMethod(name)!;

    private static HookBindingException Refused(MethodBase target, MethodInfo hook, HookKind kind = HookKind.Prefix) =>
        Assert.Throws<HookBindingException>(() => HookBinder.Bind(target, hook, kind));

    [Fact]
    public void APrefixBindsEveryInjectedName()
    {
        BoundHook bound = HookBinder.Bind(Damage, Hook(nameof(Hooks.Prefix)), HookKind.Prefix);

        Assert.Equal(HookReturn.RunOriginal, bound.Return);
        Assert.Equal([HookSource.Instance, HookSource.Argument, HookSource.Result, HookSource.State],
            bound.Arguments.Select(a => a.Source));
        Assert.Equal(HookPassing.Address, bound.Arguments[1].Passing); // ref int amount: ldarga
        Assert.Equal(1, bound.Arguments[1].ArgumentIndex);             // after the receiver
        Assert.Equal(HookPassing.Address, bound.Arguments[2].Passing); // ref __result: ldloca
        Assert.Equal(typeof(long), bound.Arguments[3].ValueType);
    }

    [Fact]
    public void APassThroughPostfixTakesTheResultFirst()
    {
        BoundHook bound = HookBinder.Bind(Damage, Hook(nameof(Hooks.PassThrough)), HookKind.Postfix);

        Assert.Equal(HookReturn.PassThrough, bound.Return);
        Assert.Equal(HookSource.PassThrough, bound.Arguments[0].Source);
        Assert.Equal(HookSource.Argument, bound.Arguments[1].Source);
    }

    [Fact]
    public void RefAndOutArgumentsBindByLocationByValueAndBoxed()
    {
        MethodInfo heal = typeof(Enemy).GetMethod(nameof(Enemy.Heal))!;
        BoundHook bound = HookBinder.Bind(heal, Hook(nameof(Hooks.HealFix)), HookKind.Prefix);

        Assert.Equal(HookPassing.Value, bound.Arguments[0].Passing);   // ref int: the location as is
        Assert.Equal(HookPassing.Load, bound.Arguments[1].Passing);    // int __0: read through it
        Assert.Equal(HookPassing.LoadBox, bound.Arguments[2].Passing); // object text: read through, boxed (a string: no box)
        Assert.Equal(2, bound.Arguments[2].ArgumentIndex);
    }

    [Fact]
    public void AStructReceiverIsByReferenceOrACopy()
    {
        MethodInfo sum = typeof(Point).GetMethod(nameof(Point.Sum))!;

        Assert.Equal(HookPassing.Value, HookBinder.Bind(sum, Hook(nameof(Hooks.PointSum)), HookKind.Prefix).Arguments[0].Passing);
        Assert.Equal(HookPassing.Load, HookBinder.Bind(sum, Hook(nameof(Hooks.PointCopy)), HookKind.Prefix).Arguments[0].Passing);
    }

    [Fact]
    public void AGenericTargetTakesItsGenericValuesAsObject()
    {
        MethodInfo get = typeof(Box<>).GetMethod("Get")!;
        BoundHook bound = HookBinder.Bind(get, Hook(nameof(Hooks.BoxGet)), HookKind.Postfix);

        Assert.Equal([HookPassing.Value, HookPassing.Box, HookPassing.Box], bound.Arguments.Select(a => a.Passing));

        // Typed for one instantiation (int fallback: T is int), a hook binds for Box<int> only.
        BoundHook typed = HookBinder.Bind(get, Hook(nameof(Hooks.BoxGetTyped)), HookKind.Prefix);
        Assert.Equal(typeof(int), Assert.Single(typed.Instantiation).Argument);
    }

    [Fact]
    public void ATargetGivenAsOneInstantiationBindsItsHooksToIt()
    {
        MethodInfo get = typeof(Box<>).GetMethod("Get")!;
        MethodInfo getInt = typeof(Box<int>).GetMethod("Get")!, getString = typeof(Box<string>).GetMethod("Get")!;

        // A hook that takes only objects runs for the instantiation the target was given as.
        BoundSet set = HookBinder.BindSet(get, [], [Hook(nameof(Hooks.BoxGet))], [], getString);
        GenericBinding binding = Assert.Single(Assert.Single(set.Postfixes).Instantiation);
        Assert.Equal(typeof(Box<>).GetGenericArguments()[0], binding.Parameter);
        Assert.Equal(typeof(string), binding.Argument);

        // The definition given: every instantiation, as before.
        Assert.Empty(Assert.Single(HookBinder.BindSet(get, [], [Hook(nameof(Hooks.BoxGet))], [], get).Postfixes).Instantiation);

        // A hook typed for Box<int> agrees with Box<int>.Get, and is refused for Box<string>.Get.
        Assert.Equal(typeof(int), Assert.Single(Assert.Single(
            HookBinder.BindSet(get, [Hook(nameof(Hooks.BoxGetTyped))], [], [], getInt).Prefixes).Instantiation).Argument);
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            HookBinder.BindSet(get, [Hook(nameof(Hooks.BoxGetTyped))], [], [], getString));
        Assert.Equal(HookBindingKind.ParameterType, e.Kind);
        Assert.Contains("typed for T = int", e.Message, StringComparison.Ordinal);
        Assert.Contains("where T is string", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnUnknownNameIsRefusedWithTheTargetsParameters()
    {
        HookBindingException e = Refused(Damage, Hook(nameof(Hooks.WrongName)));

        Assert.Equal(HookBindingKind.UnknownParameter, e.Kind);
        Assert.Equal(0, e.ParameterIndex);
        Assert.Same(Damage, e.Target);
        Assert.Contains("Parameter 0 ('damage')", e.Message, StringComparison.Ordinal);
        Assert.Contains("its parameters are 'amount'", e.Message, StringComparison.Ordinal);
        Assert.Contains("__instance", e.Message, StringComparison.Ordinal);
        Assert.Contains("static void WrongName()", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AWrongArgumentTypeNamesWhatWouldFit()
    {
        HookBindingException e = Refused(Damage, Hook(nameof(Hooks.WrongType)));

        Assert.Equal(HookBindingKind.ParameterType, e.Kind);
        Assert.Equal("string", e.Actual);
        Assert.Equal("int", e.Expected);
        Assert.Contains("expected int, ref int (to change it) or object (boxed)", e.Message, StringComparison.Ordinal);
        Assert.Contains("parameter 'amount' of Enemy.Damage(int)", e.Message, StringComparison.Ordinal);
        Assert.Contains("Expected: static void WrongType(int amount)", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ArgumentPositionsOutOfRangeAreRefused()
    {
        HookBindingException e = Refused(Damage, Hook(nameof(Hooks.ArgOutOfRange)));

        Assert.Equal(HookBindingKind.UnknownParameter, e.Kind);
        Assert.Contains("names argument 3, but Enemy.Damage(int) has 1 parameter", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ReturnTypesArePerKind()
    {
        HookBindingException prefix = Refused(Damage, Hook(nameof(Hooks.WrongReturn)));
        Assert.Equal(HookBindingKind.ReturnType, prefix.Kind);
        Assert.Equal(-1, prefix.ParameterIndex);
        Assert.Contains("a prefix returns void, or bool", prefix.Message, StringComparison.Ordinal);
        Assert.Contains("static void WrongReturn()", prefix.Message, StringComparison.Ordinal);

        HookBindingException postfix = Refused(Damage, Hook(nameof(Hooks.WrongReturn)), HookKind.Postfix);
        Assert.Equal(HookBindingKind.ReturnType, postfix.Kind);
        Assert.Contains("static int WrongReturn()", postfix.Message, StringComparison.Ordinal);

        HookBindingException finalizer = Refused(Damage, Hook(nameof(Hooks.WrongReturn)), HookKind.Finalizer);
        Assert.Contains("Exception (null swallows it", finalizer.Message, StringComparison.Ordinal);

        MethodInfo tick = typeof(Enemy).GetMethod(nameof(Enemy.Tick))!;
        HookBindingException passThroughOnVoid = Refused(tick, Hook(nameof(Hooks.PassThrough)), HookKind.Postfix);
        Assert.Equal(HookBindingKind.NoResult, passThroughOnVoid.Kind);
    }

    [Fact]
    public void InjectedNamesNeedWhatTheyName()
    {
        MethodInfo tick = typeof(Enemy).GetMethod(nameof(Enemy.Tick))!;

        HookBindingException instance = Refused(tick, Hook(nameof(Hooks.NeedsInstance)));
        Assert.Equal(HookBindingKind.NoInstance, instance.Kind);
        Assert.Contains("Enemy.Tick() is static", instance.Message, StringComparison.Ordinal);

        HookBindingException result = Refused(tick, Hook(nameof(Hooks.NeedsResult)));
        Assert.Equal(HookBindingKind.NoResult, result.Kind);
        Assert.Contains("returns void", result.Message, StringComparison.Ordinal);

        HookBindingException exception = Refused(Damage, Hook(nameof(Hooks.NeedsException)), HookKind.Postfix);
        Assert.Equal(HookBindingKind.ExceptionOutsideFinalizer, exception.Kind);
        Assert.Contains("only finalizers receive the exception", exception.Message, StringComparison.Ordinal);

        HookBindingException runOriginal = Refused(Damage, Hook(nameof(Hooks.RunOriginalByRef)));
        Assert.Equal(HookBindingKind.ParameterType, runOriginal.Kind);
        Assert.Equal("ref bool", runOriginal.Actual);
        Assert.Contains("static void RunOriginalByRef(bool __runOriginal)", runOriginal.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void StateIsOutOrRefInAPrefixAndOneTypePerSet()
    {
        HookBindingException byValue = Refused(Damage, Hook(nameof(Hooks.StateByValue)));
        Assert.Equal(HookBindingKind.StateType, byValue.Kind);
        Assert.Contains("static void StateByValue(out long __state)", byValue.Message, StringComparison.Ordinal);

        HookBindingException mismatch = Assert.Throws<HookBindingException>(() => HookBinder.BindSet(Damage,
            [Hook(nameof(Hooks.Prefix))], [Hook(nameof(Hooks.StateInt))], []));
        Assert.Equal(HookBindingKind.StateType, mismatch.Kind);
        Assert.Equal("long", mismatch.Expected);
        Assert.Equal("int", mismatch.Actual);
        Assert.Contains("a set has one __state local", mismatch.Message, StringComparison.Ordinal);

        BoundSet set = HookBinder.BindSet(Damage, [Hook(nameof(Hooks.Prefix))], [Hook(nameof(Hooks.Postfix))], []);
        Assert.Equal(typeof(long), set.StateType);
    }

    [Fact]
    public void HooksAreStaticAndNotGeneric()
    {
        HookBindingException instance = Refused(Damage, typeof(InstanceHooks).GetMethod(nameof(InstanceHooks.Prefix))!);
        Assert.Equal(HookBindingKind.NotStatic, instance.Kind);
        Assert.Contains("Expected: static void Prefix()", instance.Message, StringComparison.Ordinal);

        HookBindingException generic = Refused(Damage, Hook(nameof(Hooks.Generic)));
        Assert.Equal(HookBindingKind.GenericHook, generic.Kind);
    }

    [Fact]
    public void TargetsWithoutBodyOrWithVarargsAreRefused()
    {
        HookBindingException abstractTarget = Refused(typeof(Shape).GetMethod(nameof(Shape.Area))!, Hook(nameof(Hooks.Nothing)));
        Assert.Equal(HookBindingKind.TargetWithoutBody, abstractTarget.Kind);
        Assert.Contains("it is abstract", abstractTarget.Message, StringComparison.Ordinal);

        HookBindingException interfaceTarget = Refused(typeof(IScored).GetMethod(nameof(IScored.Score))!, Hook(nameof(Hooks.Nothing)));
        Assert.Equal(HookBindingKind.TargetWithoutBody, interfaceTarget.Kind);

        HookBindingException extern_ = Refused(typeof(Math).GetMethod(nameof(Math.Sqrt))!, Hook(nameof(Hooks.Nothing)));
        Assert.Equal(HookBindingKind.TargetWithoutBody, extern_.Kind);

        HookBindingException varargs = Refused(Hook(nameof(Hooks.VarargsTarget)), Hook(nameof(Hooks.Nothing)));
        Assert.Equal(HookBindingKind.Varargs, varargs.Kind);
    }

    [Fact]
    public void ASetNeedsAHook()
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() => HookBinder.BindSet(Damage, [], [], []));
        Assert.Equal(HookBindingKind.NoHooks, e.Kind);
    }

    [Fact]
    public void TheOriginalMethodAndArgsBind()
    {
        Assert.Equal(HookSource.OriginalMethod,
            HookBinder.Bind(Damage, Hook(nameof(Hooks.WithOriginal)), HookKind.Prefix).Arguments[0].Source);
        Assert.Equal(HookSource.Args, HookBinder.Bind(Damage, Hook(nameof(Hooks.WithArgs)), HookKind.Prefix).Arguments[0].Source);
    }

    [Fact]
    public void RefStructsAreNeverBoxed()
    {
        MethodInfo length = typeof(SpanTargets).GetMethod(nameof(SpanTargets.Length))!;

        Assert.Equal(HookPassing.Value,
            HookBinder.Bind(length, typeof(SpanHooks).GetMethod(nameof(SpanHooks.ByValue))!, HookKind.Prefix).Arguments[0].Passing);
        HookBindingException boxed = Refused(length, typeof(SpanHooks).GetMethod(nameof(SpanHooks.Boxed))!);
        Assert.Equal(HookBindingKind.ParameterType, boxed.Kind);
        Assert.Contains("cannot be boxed", boxed.Message, StringComparison.Ordinal);
        HookBindingException args = Refused(length, typeof(SpanHooks).GetMethod(nameof(SpanHooks.AllArgs))!);
        Assert.Equal(HookBindingKind.ParameterType, args.Kind);
        Assert.Contains("cannot be boxed into an object[]", args.Message, StringComparison.Ordinal);
    }
}
