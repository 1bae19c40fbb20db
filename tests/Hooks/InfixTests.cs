using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>Inner prefixes and postfixes: binding to the call's arguments, receiver and result; refusals; the
/// woven body (laid out and stack-checked, no profiler); the patch-class attributes.</summary>
public sealed class InfixTests(ITestOutputHelper output)
{
    private static readonly MethodInfo GrindTwice = typeof(Mill).GetMethod(nameof(Mill.GrindTwice))!;
    private static readonly MethodInfo Grind = typeof(Mill).GetMethod(nameof(Mill.Grind))!;
    private static readonly MethodInfo Press = typeof(Mill).GetMethod(nameof(Mill.Press))!;
    private static readonly MethodInfo Turn = typeof(Wheel).GetMethod(nameof(Wheel.Turn))!;

    private static MethodInfo H(string name) => typeof(InnerHooks).GetMethod(name)!;

    private GenerationPlan Weave(MethodBase target, params BoundInfix[] infixes)
    {
        var info = new HookSetInfo(new BoundSet([], [], [], null), "mod", 0, "Hook call") { Infixes = infixes };
        GenerationPlan plan = HookWeaver.Weave(HookComposition.Compose(target, [info]));
        plan.Lower(); // the stack-type check, relocations, limits
        output.WriteLine(plan.ToString());
        return plan;
    }

    private static int Calls(GenerationPlan plan, MethodInfo method) =>
        plan.Instructions.Count(i => (i.OpCode == OpCodes.Call || i.OpCode == OpCodes.Callvirt) && Equals(i.Operand, method));

    [Fact]
    public void InnerHooksBindTheCallsArgumentsByNameAndIndexItsReceiverAndItsResult()
    {
        BoundInfix skip = InfixBinder.Bind(GrindTwice, H(nameof(InnerHooks.Skip)), true, Grind, 1);
        Assert.True(skip.ReturnsBool);
        Assert.Equal([new InfixArgument(InfixSource.Argument, 0, true, false), new InfixArgument(InfixSource.Result, -1, true, false)],
            skip.Arguments);

        BoundInfix byIndex = InfixBinder.Bind(Press, H(nameof(InnerHooks.ByIndex)), false, Turn, 0);
        Assert.Equal([new InfixArgument(InfixSource.Argument, 0, false, false), new InfixArgument(InfixSource.Instance, -1, false, false),
            new InfixArgument(InfixSource.Result, -1, false, true)], byIndex.Arguments);
    }

    [Theory]
    [InlineData(nameof(InnerHooks.Unknown), HookBindingKind.UnknownParameter, "grain")]
    [InlineData(nameof(InnerHooks.WrongType), HookBindingKind.ParameterType, "'int grain' or 'ref int grain'")]
    [InlineData(nameof(InnerHooks.WrongReturn), HookBindingKind.ReturnType, "void, or bool")]
    [InlineData(nameof(InnerHooks.Receiver), HookBindingKind.NoInstance, "static")]
    public void AnInnerHookThatDoesNotFitTheCallIsRefusedWithADeclarationThatWorks(string hook, HookBindingKind kind,
        string hint)
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            InfixBinder.Bind(GrindTwice, H(hook), true, Grind, 1));
        Assert.Equal(kind, e.Kind);
        Assert.Contains(hint, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void ACallOfAStructsInstanceMethodIsRefused()
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() => InfixBinder.Bind(
            typeof(Mill).GetMethod(nameof(Mill.PressStruct))!, H(nameof(InnerHooks.AnyGear)), true,
            typeof(Gear).GetMethod(nameof(Gear.Spin))!, 1));
        Assert.Equal(HookBindingKind.InnerCall, e.Kind);
        Assert.Contains("instance method of a struct", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void OnlyTheChosenCallIsWrappedAndTheBodyStaysTypeSafe()
    {
        GenerationPlan plan = Weave(GrindTwice,
            InfixBinder.Bind(GrindTwice, H(nameof(InnerHooks.Skip)), true, Grind, 2),
            InfixBinder.Bind(GrindTwice, H(nameof(InnerHooks.After)), false, Grind, 2));

        Assert.Equal(2, Calls(plan, Grind));
        Assert.Equal(1, Calls(plan, H(nameof(InnerHooks.Skip))));
        Assert.Equal(1, Calls(plan, H(nameof(InnerHooks.After))));
        // The first Grind call comes before the prefix; the prefix, the second call, then the postfix.
        List<BodyInstruction> code = [.. plan.Instructions];
        int[] grinds = [.. code.Select((i, n) => (i, n)).Where(p => Equals(p.i.Operand, Grind)).Select(p => p.n)];
        int prefix = code.FindIndex(i => Equals(i.Operand, H(nameof(InnerHooks.Skip))));
        int postfix = code.FindIndex(i => Equals(i.Operand, H(nameof(InnerHooks.After))));
        Assert.True(grinds[0] < prefix && prefix < grinds[1] && grinds[1] < postfix, plan.ToString());
    }

    [Fact]
    public void EveryCallIsWrappedForOccurrenceZeroAndTheReceiverIsKept()
    {
        GenerationPlan plan = Weave(Press, InfixBinder.Bind(Press, H(nameof(InnerHooks.ByIndex)), false, Turn, 0));
        Assert.Equal(2, Calls(plan, Turn));
        Assert.Equal(2, Calls(plan, H(nameof(InnerHooks.ByIndex))));
    }

    [Theory]
    [InlineData(3)]
    [InlineData(-3)]
    public void AnOccurrenceTheBodyDoesNotHaveIsRefused(int occurrence)
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            Weave(GrindTwice, InfixBinder.Bind(GrindTwice, H(nameof(InnerHooks.After)), false, Grind, occurrence)));
        Assert.Equal(HookBindingKind.InnerCall, e.Kind);
        Assert.Contains("calls it 2 time(s)", e.Message, StringComparison.Ordinal);
        Assert.Contains("from 1 to 2", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void APatchClassWithInnerHooksAloneIsDiscoveredAndBound()
    {
        DiscoveredSet set = Assert.Single(PatchDiscovery.Discover(typeof(MillInfixPatch)));
        Assert.Single(set.InnerPrefixes);
        Assert.Single(set.InnerPostfixes);
        (_, BoundSet hooks, _, IReadOnlyList<BoundInfix> infixes) = InfixBinder.BindDiscovered(set);
        Assert.Empty(hooks.Prefixes);
        Assert.Equal([(true, 2), (false, -1)], infixes.Select(i => (i.IsPrefix, i.Occurrence)));
        Assert.All(infixes, i => Assert.Equal(Grind, i.Callee));
    }

    [Fact]
    public void AnInnerHookAttributeNamingNoMethodIsRefused()
    {
        DiscoveredSet set = Assert.Single(PatchDiscovery.Discover(typeof(MissingCalleePatch)));
        HookBindingException e = Assert.Throws<HookBindingException>(() => InfixBinder.BindDiscovered(set));
        Assert.Equal(HookBindingKind.TargetNotFound, e.Kind);
        Assert.Contains("Crush", e.Message, StringComparison.Ordinal);
    }
}
