using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>Transpilers: binding by type, their order across owners, the body they compose with the hooks
/// woven around it, and the refusals of one that throws or makes an invalid body (no profiler: the plan is
/// built and lowered, with its stack-type check).</summary>
public sealed class TranspilerTests(ITestOutputHelper output)
{
    private static readonly MethodInfo Temper = typeof(Forge).GetMethod(nameof(Forge.Temper))!;

    private static MethodInfo T(string name) => typeof(TestTranspilers).GetMethod(name)!;

    private static MethodInfo HookOf(string name) => typeof(ForgeHooks).GetMethod(name)!;

    private static HookSetInfo Set(string owner, long order, IEnumerable<HookMethod> transpilers,
        IEnumerable<HookMethod>? prefixes = null, IEnumerable<HookMethod>? postfixes = null, MethodBase? target = null)
    {
        (BoundSet hooks, IReadOnlyList<BoundTranspiler> bound) = AlvorKit.Interception.Hooks.Transpilers.BindSet(
            target ?? Temper, [.. prefixes ?? []], [.. postfixes ?? []], [], [.. transpilers]);
        return new HookSetInfo(hooks, owner, order, "Hook call", Transpilers: bound);
    }

    private GenerationPlan Weave(MethodBase target, params HookSetInfo[] sets)
    {
        GenerationPlan plan = HookWeaver.Weave(HookComposition.Compose(target, sets));
        plan.Lower();
        output.WriteLine(plan.ToString());
        return plan;
    }

    private static List<string> Ops(GenerationPlan plan) =>
        [.. plan.Instructions.Select(i => i.OpCode.Name + (i.Operand is int n ? " " + n : ""))];

    [Fact]
    public void ATranspilerAloneEditsTheOriginalAndNothingIsWovenAroundIt()
    {
        GenerationPlan plan = Weave(Temper, Set("mod", 0, [T(nameof(TestTranspilers.TenToThousand))]));

        // x + 10 became x + 1000; no runOriginal, no result local, no exit label: the original's shape.
        Assert.Equal(["ldarg.1", "ldc.i4 1000", "add", "ret"], Ops(plan));
        Assert.Empty(plan.Locals);
    }

    [Fact]
    public void TranspilersRunInHarmonysOrderEachOnThePreviousOutput()
    {
        // AppendTwo is High: it runs first (digit 2), then AppendOne's code goes after it (digit 1).
        GenerationPlan plan = Weave(Temper,
            Set("mod A", 0, [T(nameof(TestTranspilers.AppendOne))]),
            Set("mod B", 1, [new HookMethod(T(nameof(TestTranspilers.AppendTwo))) { Priority = HookPriority.High }]));

        Assert.Equal(["ldarg.1", "ldc.i4.s 10", "add", "ldc.i4 10", "mul", "ldc.i4 2", "add", "ldc.i4 10", "mul",
            "ldc.i4 1", "add", "ret"], Ops(plan));
    }

    [Fact]
    public void BeforeAndAfterOrderTranspilersAsTheyOrderHooks()
    {
        // mod A's transpiler runs after mod B's, though A was installed first with the same priority.
        GenerationPlan plan = Weave(Temper,
            Set("mod A", 0, [new HookMethod(T(nameof(TestTranspilers.AppendOne))) { After = ["mod B"] }]),
            Set("mod B", 1, [T(nameof(TestTranspilers.AppendTwo))]));

        List<string> ops = Ops(plan);
        Assert.True(ops.IndexOf("ldc.i4 2") < ops.IndexOf("ldc.i4 1"), string.Join(", ", ops));
    }

    [Fact]
    public void HooksAreWovenAroundTheTranspiledBody()
    {
        GenerationPlan plan = Weave(Temper, Set("mod", 0, [T(nameof(TestTranspilers.TenToThousand))],
            prefixes: [HookOf(nameof(ForgeHooks.Prefix))], postfixes: [HookOf(nameof(ForgeHooks.Postfix))]));

        List<string> ops = Ops(plan);
        Assert.Contains("ldc.i4 1000", ops);
        Assert.DoesNotContain("ldc.i4 10", ops);
        // The prefix and the postfix are called around it.
        Assert.Equal(2, plan.Instructions.Count(i => i.Operand is MethodInfo m && m.DeclaringType == typeof(ForgeHooks) ||
                                                     i.OpCode == OpCodes.Calli));
        // The transpiled original's return became the redirect to the postfixes.
        Assert.Single(plan.Instructions, i => i.OpCode == OpCodes.Ret);
    }

    [Fact]
    public void ATranspilerGetsThePlanAndTheOriginalByTypeInAnyOrder()
    {
        BoundTranspiler bound = AlvorKit.Interception.Hooks.Transpilers.Bind(Temper, T(nameof(TestTranspilers.Clamp)));
        Assert.Equal([TranspilerInput.Original, TranspilerInput.Instructions, TranspilerInput.Plan], bound.Inputs);

        GenerationPlan plan = Weave(Temper, Set("mod", 0, [T(nameof(TestTranspilers.Clamp))]));

        Assert.Same(Temper, TestTranspilers.SeenOriginal);
        Assert.Same(plan, TestTranspilers.SeenPlan);
        Assert.Single(plan.Locals); // the local the transpiler declared
        Assert.Contains(plan.Instructions, i => i.OpCode == OpCodes.Bge);
    }

    [Theory]
    [InlineData(nameof(TestTranspilers.WrongReturn), HookBindingKind.ReturnType, -1)]
    [InlineData(nameof(TestTranspilers.WrongParameter), HookBindingKind.ParameterType, 1)]
    [InlineData(nameof(TestTranspilers.TwoPlans), HookBindingKind.ParameterType, 2)]
    [InlineData(nameof(TestTranspilers.ByRef), HookBindingKind.ParameterType, 0)]
    [InlineData(nameof(TestTranspilers.Generic), HookBindingKind.GenericHook, -1)]
    public void ATranspilerThatDoesNotFitIsRefusedWithADeclarationThatWorks(string name, HookBindingKind kind, int index)
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            AlvorKit.Interception.Hooks.Transpilers.Bind(Temper, T(name)));

        Assert.Equal(kind, e.Kind);
        Assert.Equal(index, e.ParameterIndex);
        Assert.Contains("Expected: static IEnumerable<BodyInstruction> Transpiler(IEnumerable<BodyInstruction> instructions, " +
                        "GenerationPlan plan, MethodBase original)", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AnInstanceTranspilerIsRefused()
    {
        HookBindingException e = Assert.Throws<HookBindingException>(() => AlvorKit.Interception.Hooks.Transpilers.Bind(
            Temper, typeof(InstanceTranspiler).GetMethod(nameof(InstanceTranspiler.Transpile))!));
        Assert.Equal(HookBindingKind.NotStatic, e.Kind);
    }

    [Fact]
    public void ATranspilerWithoutParametersBindsAndASetOfNothingIsRefused()
    {
        Assert.Empty(AlvorKit.Interception.Hooks.Transpilers.Bind(Temper, T(nameof(TestTranspilers.NoParameters))).Inputs);
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            AlvorKit.Interception.Hooks.Transpilers.BindSet(Temper, [], [], [], []));
        Assert.Equal(HookBindingKind.NoHooks, e.Kind);
        Assert.Contains("transpiler", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(nameof(TestTranspilers.Throws), "InvalidOperationException", "no such pattern in the body")]
    [InlineData(nameof(TestTranspilers.ThrowsLazily), "InvalidOperationException", "lazy failure")]
    [InlineData(nameof(TestTranspilers.ReturnsNull), null, "returned null")]
    public void ATranspilerThatFailsRefusesTheBody(string name, string? inner, string says)
    {
        TranspilerException e = Assert.Throws<TranspilerException>(() =>
            HookWeaver.Weave(HookComposition.Compose(Temper, [Set("mod", 0, [T(name)])])));

        Assert.Same(T(name), e.Transpiler);
        Assert.Same(Temper, e.Target);
        Assert.Equal(inner, e.InnerException?.GetType().Name);
        Assert.Contains(says, e.Message, StringComparison.Ordinal);
        Assert.Contains("Nothing was applied", e.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(nameof(TestTranspilers.DropsReturns))]
    [InlineData(nameof(TestTranspilers.BadOperand))]
    public void ATranspilerThatMakesAnInvalidBodyIsRefusedBeforeTheHooksAreWoven(string name)
    {
        TranspilerException e = Assert.Throws<TranspilerException>(() => HookWeaver.Weave(HookComposition.Compose(Temper,
            [Set("mod", 0, [T(name)], postfixes: [HookOf(nameof(ForgeHooks.Postfix))])])));

        Assert.Contains("not a valid method body", e.Message, StringComparison.Ordinal);
        if (name == nameof(TestTranspilers.DropsReturns))
            Assert.Contains("control runs off its end", e.Message, StringComparison.Ordinal);
        else
            Assert.IsType<StackTypeMismatchException>(e.InnerException);
        output.WriteLine(e.Message);
    }

    [Fact]
    public void APatchClassDeclaresTranspilersByNameAndByAttribute()
    {
        DiscoveredSet set = Assert.Single(PatchDiscovery.Discover(typeof(TranspilerPatchClass)));

        Assert.Equal([nameof(TranspilerPatchClass.Transpiler), nameof(TranspilerPatchClass.Edit)],
            set.Transpilers.Select(t => t.Method.Name));
        Assert.Equal(HookPriority.High, set.Transpilers[1].Priority);
        Assert.Single(set.Postfixes);
        Assert.Equal(HookKind.Transpiler, PatchDiscovery.KindOf(typeof(TranspilerPatchClass).GetMethod("Edit")!));
    }

    [Fact]
    public void TheCompositionListsTranspilersInTheOrderTheyRun()
    {
        HookComposition composition = HookComposition.Compose(Temper,
            [Set("mod A", 0, [T(nameof(TestTranspilers.AppendOne))]),
             Set("mod B", 1, [new HookMethod(T(nameof(TestTranspilers.AppendTwo))) { Priority = HookPriority.High }])]);

        string text = composition.Describe();
        Assert.Contains("transpiler 1: TestTranspilers.AppendTwo", text, StringComparison.Ordinal);
        Assert.Contains("transpiler 2: TestTranspilers.AppendOne", text, StringComparison.Ordinal);
    }
}
