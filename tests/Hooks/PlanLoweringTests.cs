using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Plans;
using Xunit;

namespace AlvorKit.Hooks.Tests;

/// <summary>
/// A FromOriginal plan is lowered (and checked) once per body: lowered again as it is, it gives
/// the same generation; any change of its list, an instruction, a switch's labels, a label, a
/// region's list, its locals or its settings lowers it afresh, with the checks.
/// </summary>
public sealed class PlanLoweringTests
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int Pick(int x)
    {
#pragma warning disable IDE0066 // the statement: its IL is the switch instruction these tests edit
        switch (x)
        {
            case 0:
                return 10;
            case 1:
                return 20;
            case 2:
                return 30;
            default:
                return x;
        }
#pragma warning restore IDE0066
    }

    private static MethodInfo Target => typeof(PlanLoweringTests).GetMethod(nameof(Pick),
        BindingFlags.NonPublic | BindingFlags.Static)!;

    [Fact]
    public void AnUnchangedPlanIsLoweredOnce()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        LoweredGeneration first = plan.Lower();
        Assert.Same(first, plan.Lower());
        // Listing it or counting its relocations lays it out again, but does not change it.
        Assert.Contains("switch", plan.ToString(), StringComparison.Ordinal);
        _ = plan.RelocationCount;
        Assert.Same(first, plan.Lower());
    }

    [Fact]
    public void AChangedOperandIsLoweredAfresh()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        LoweredGeneration first = plan.Lower();
        BodyInstruction constant = plan.Instructions.First(i => i.OpCode == OpCodes.Ldc_I4_S);
        constant.Operand = (int)constant.Operand! + 1;
        LoweredGeneration second = plan.Lower();
        Assert.NotSame(first, second);
        Assert.NotEqual(first.Body, second.Body);
        Assert.Same(second, plan.Lower());
    }

    [Fact]
    public void ASwitchTargetChangedInPlaceIsLoweredAfresh()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        LoweredGeneration first = plan.Lower();
        var targets = (PlanLabel[])plan.Instructions.First(i => i.OpCode == OpCodes.Switch).Operand!;
        Assert.NotEqual(targets[0], targets[1]);
        targets[0] = targets[1];
        LoweredGeneration second = plan.Lower();
        Assert.NotSame(first, second);
        Assert.NotEqual(first.Body, second.Body);
    }

    [Fact]
    public void AnOpCodeLabelOrInsertionIsLoweredAfresh()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        LoweredGeneration lowered = plan.Lower();

        plan.Instructions.First(i => i.OpCode == OpCodes.Ldarg_0).OpCode = OpCodes.Ldarg_0; // the same: kept
        Assert.Same(lowered, plan.Lower());

        plan.InsertAtStart([new BodyInstruction(OpCodes.Nop)]);
        Assert.NotSame(lowered, lowered = plan.Lower());

        plan.Instructions[0].OpCode = OpCodes.Ldc_I4_0;
        plan.Instructions.Insert(1, new BodyInstruction(OpCodes.Pop));
        Assert.NotSame(lowered, lowered = plan.Lower());

        // A label placed on an instruction (a branch could now land there).
        plan.Instructions.Last(i => i.OpCode == OpCodes.Ret).Labels.Add(plan.DefineLabel());
        Assert.NotSame(lowered, plan.Lower());
    }

    [Fact]
    public void ABodyMadeInvalidAfterALoweringIsRefused()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        plan.Lower();
        plan.Instructions.Insert(0, new BodyInstruction(OpCodes.Pop)); // pops the empty stack
        Assert.Throws<StackTypeMismatchException>(() => plan.Lower());
        plan.Instructions.RemoveAt(0);
        plan.Lower();
    }

    [Fact]
    public void LocalsAndSettingsLowerAfresh()
    {
        GenerationPlan plan = GenerationPlan.FromOriginal(Target);
        LoweredGeneration lowered = plan.Lower();
        plan.DeclareLocal(typeof(long));
        Assert.NotSame(lowered, lowered = plan.Lower());
        plan.MaxStack = 12;
        LoweredGeneration withMaxStack = plan.Lower();
        Assert.NotSame(lowered, withMaxStack);
        Assert.Equal(12, withMaxStack.MaxStack);
        plan.AllowUnverifiable();
        LoweredGeneration unverifiable = plan.Lower();
        Assert.NotSame(withMaxStack, unverifiable);
        Assert.True(unverifiable.Unverifiable);
    }
}
