using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception;

namespace AlvorKit.Hooks.Tests;

// Targets and transpilers of the transpiler and reverse-patch tests (never run patched here: no profiler).
#pragma warning disable CA1822, CA1051, CA1805, IDE0060, CA1062, CA1707, CA1002 // shapes of game code and patches, not API

public class Forge
{
    internal int _heat = 3;

    private readonly int _secret = 5;

    public int Secret(int x) => _secret * x;

    public int Temper(int x) => x + 10;

    public int Heat(int x) => _heat * x;

    public static int Plain(int x) => x * 7;
}

public sealed class ForgeStubs
{
    public static int Temper(Forge self, int x) => throw null!;

    public static int Heat(Forge self, int x) => throw null!;

    public static int Secret(Forge self, int x) => throw null!;

    public static int Plain(int x) => throw null!;

    public static long PlainWrongReturn(int x) => throw null!;

    public int NotStatic(int x) => throw null!;

    public static int Risky(Enemy self, int x) => throw null!;

    public static int BuilderLength(System.Text.StringBuilder self) => throw null!;

    public static int Generic(object[] items) => throw null!;

    public static MethodInfo HookMethodMethod(HookMethod self) => throw null!;
}

/// <summary>Transpilers: every shape the binder takes, and some that fail.</summary>
public static class TestTranspilers
{
    // Every ldc.i4 10 becomes ldc.i4 1000.
    public static IEnumerable<BodyInstruction> TenToThousand(IEnumerable<BodyInstruction> instructions)
    {
        foreach (BodyInstruction i in instructions)
        {
            if (i.OpCode == OpCodes.Ldc_I4_S && i.Operand is int and 10)
            {
                i.OpCode = OpCodes.Ldc_I4;
                i.Operand = 1000;
            }
            yield return i;
        }
    }

    // Before every ret: result * 10 + digit (the digit says which transpiler ran when).
    public static IEnumerable<BodyInstruction> AppendOne(IEnumerable<BodyInstruction> instructions) => Append(instructions, 1);

    public static IEnumerable<BodyInstruction> AppendTwo(IEnumerable<BodyInstruction> instructions) => Append(instructions, 2);

    private static List<BodyInstruction> Append(IEnumerable<BodyInstruction> instructions, int digit)
    {
        var list = new List<BodyInstruction>();
        foreach (BodyInstruction i in instructions)
        {
            if (i.OpCode == OpCodes.Ret)
            {
                var first = new BodyInstruction(OpCodes.Ldc_I4, 10);
                first.Labels.AddRange(i.Labels);
                i.Labels.Clear();
                list.AddRange([first, new BodyInstruction(OpCodes.Mul), new BodyInstruction(OpCodes.Ldc_I4, digit),
                    new BodyInstruction(OpCodes.Add)]);
            }
            list.Add(i);
        }
        return list;
    }

    public static MethodBase? SeenOriginal { get; private set; }

    public static GenerationPlan? SeenPlan { get; private set; }

    // The plan and the original, in another order: a local and a label (Harmony's ILGenerator role).
    public static List<BodyInstruction> Clamp(MethodBase original, IList<BodyInstruction> instructions, GenerationPlan plan)
    {
        SeenOriginal = original;
        SeenPlan = plan;
        var list = new List<BodyInstruction>();
        foreach (BodyInstruction i in instructions)
        {
            if (i.OpCode == OpCodes.Ret)
            {
                PlanLocal value = plan.DeclareLocal(typeof(int));
                PlanLabel keep = plan.DefineLabel();
                var store = new BodyInstruction(OpCodes.Stloc, value);
                store.Labels.AddRange(i.Labels);
                i.Labels.Clear();
                var load = new BodyInstruction(OpCodes.Ldloc, value);
                load.Labels.Add(keep);
                list.AddRange([store, new BodyInstruction(OpCodes.Ldloc, value), new BodyInstruction(OpCodes.Ldc_I4_0),
                    new BodyInstruction(OpCodes.Bge, keep), new BodyInstruction(OpCodes.Ldc_I4_0),
                    new BodyInstruction(OpCodes.Stloc, value), load]);
            }
            list.Add(i);
        }
        return list;
    }

    public static IEnumerable<BodyInstruction> Throws(IEnumerable<BodyInstruction> instructions) =>
        throw new InvalidOperationException("no such pattern in the body");

    public static IEnumerable<BodyInstruction> ThrowsLazily(IEnumerable<BodyInstruction> instructions)
    {
        foreach (BodyInstruction i in instructions)
        {
            yield return i;
            throw new InvalidOperationException("lazy failure");
        }
    }

    public static IEnumerable<BodyInstruction> ReturnsNull(IEnumerable<BodyInstruction> instructions) => null!;

    // Drops every ret: control falls off the end of the body.
    public static IEnumerable<BodyInstruction> DropsReturns(IEnumerable<BodyInstruction> instructions) =>
        instructions.Where(i => i.OpCode != OpCodes.Ret);

    // Pushes a string where an int is added.
    public static IEnumerable<BodyInstruction> BadOperand(IEnumerable<BodyInstruction> instructions) =>
        instructions.Select(i => i.OpCode == OpCodes.Ldc_I4_S ? new BodyInstruction(OpCodes.Ldstr, "ten") : i);

    public static IEnumerable<BodyInstruction> NoParameters() => [];

    public static int WrongReturn(IEnumerable<BodyInstruction> instructions) => 0;

    public static IEnumerable<BodyInstruction> WrongParameter(IEnumerable<BodyInstruction> instructions, int x) => instructions;

    public static IEnumerable<BodyInstruction> TwoPlans(IEnumerable<BodyInstruction> instructions, GenerationPlan a,
        GenerationPlan b) => instructions;

    public static IEnumerable<BodyInstruction> ByRef(ref IEnumerable<BodyInstruction> instructions) => instructions;

    public static IEnumerable<BodyInstruction> Generic<T>(IEnumerable<BodyInstruction> instructions) => instructions;

}

public sealed class InstanceTranspiler
{
    public IEnumerable<BodyInstruction> Transpile(IEnumerable<BodyInstruction> instructions) => instructions;
}

[Patch(typeof(Forge), nameof(Forge.Temper))]
internal static class TranspilerPatchClass
{
    public static IEnumerable<BodyInstruction> Transpiler(IEnumerable<BodyInstruction> instructions) => instructions;

    [PatchTranspiler]
    [PatchPriority(HookPriority.High)]
    public static IEnumerable<BodyInstruction> Edit(IEnumerable<BodyInstruction> instructions) => instructions;

    public static void Postfix()
    {
    }
}

public static class ForgeHooks
{
    public static void Prefix(ref int x) => x++;

    public static void Postfix(ref int __result) => __result *= 10;
}

internal static class ReverseStubClass
{
    [PatchReversePatch(Transpiler = nameof(Edit))]
    [Patch(typeof(Forge), nameof(Forge.Temper))]
    public static int Temper(Forge self, int x) => throw null!;

    public static IEnumerable<BodyInstruction> Edit(IEnumerable<BodyInstruction> instructions) => instructions;
}

[Patch(typeof(Forge), nameof(Forge.Plain))]
internal static class ClassLevelReverseStub
{
    [PatchReversePatch]
    public static int Plain(int x) => throw null!;
}

internal static class ReverseStubWithoutOriginal
{
    [PatchReversePatch]
    public static int Plain(int x) => throw null!;
}

[Patch(typeof(Forge), nameof(Forge.Plain))]
internal static class ReverseStubWithMissingTranspiler
{
    [PatchReversePatch(Transpiler = "Missing")]
    public static int Plain(int x) => throw null!;
}
