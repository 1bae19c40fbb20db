using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

// Transpilers over the host's TranspileTargets (TranspileProof): a patch class whose method is named
// Transpiler, and transpilers the proof passes to Interceptor.Hook with prefixes and postfixes of other owners.

/// <summary>A patch class whose Transpiler turns Constant's 10 into 1000.</summary>
[Patch(typeof(TranspileTargets), nameof(TranspileTargets.Constant))]
public static class ConstantTranspilerPatch
{
    public static IEnumerable<BodyInstruction> Transpiler(IEnumerable<BodyInstruction> instructions) =>
        TranspileEdits.TenToThousand(instructions);
}

/// <summary>The edits the proof composes.</summary>
public static class TranspileEdits
{
    /// <summary>Every ldc.i4 10 (any form) becomes ldc.i4 1000.</summary>
    public static IEnumerable<BodyInstruction> TenToThousand(IEnumerable<BodyInstruction> instructions)
    {
        foreach (BodyInstruction i in instructions)
        {
            if ((i.OpCode == OpCodes.Ldc_I4_S || i.OpCode == OpCodes.Ldc_I4) && i.Operand is int and 10)
            {
                i.OpCode = OpCodes.Ldc_I4;
                i.Operand = 1000;
            }
            yield return i;
        }
    }

    /// <summary>Every ldc.i4 100 becomes ldc.i4 1000 (a reverse patch's transpiler).</summary>
    public static IEnumerable<BodyInstruction> HundredToThousand(IEnumerable<BodyInstruction> instructions) =>
        instructions.Select(i =>
        {
            if ((i.OpCode == OpCodes.Ldc_I4_S || i.OpCode == OpCodes.Ldc_I4) && i.Operand is int and 100)
            {
                i.OpCode = OpCodes.Ldc_I4;
                i.Operand = 1000;
            }
            return i;
        });

    /// <summary>Before every ret: result * 10 + 1.</summary>
    public static IEnumerable<BodyInstruction> AppendOne(IEnumerable<BodyInstruction> instructions) =>
        Append(instructions, 1);

    /// <summary>Before every ret: result * 10 + 2.</summary>
    public static IEnumerable<BodyInstruction> AppendTwo(IEnumerable<BodyInstruction> instructions) =>
        Append(instructions, 2);

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

    /// <summary>Harmony's ILGenerator role: a local and a label of the plan clamp a negative result to 0. Takes
    /// the original and the plan too, in another order; refuses any original but Clamp.</summary>
    public static IEnumerable<BodyInstruction> ClampAtZero(GenerationPlan plan, IEnumerable<BodyInstruction> instructions,
        MethodBase original)
    {
        if (original.Name != nameof(TranspileTargets.Clamp))
            throw new InvalidOperationException($"ClampAtZero was given {original.Name}");
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

    /// <summary>Throws: the change that brings it is refused.</summary>
    public static IEnumerable<BodyInstruction> Throwing(IEnumerable<BodyInstruction> instructions) =>
        throw new InvalidOperationException("the pattern this transpiler looks for is not in the body");

    /// <summary>Drops every ret: control would fall off the end of the body.</summary>
    public static IEnumerable<BodyInstruction> DropsReturns(IEnumerable<BodyInstruction> instructions) =>
        instructions.Where(i => i.OpCode != OpCodes.Ret);
}

/// <summary>Hooks the proof weaves around transpiled bodies.</summary>
public static class TranspileHooks
{
    /// <summary>The original sees x + 1.</summary>
    public static void Prefix(ref int x) => x += 1;

    /// <summary>Appends the digit 9 after everything the body did.</summary>
    public static void Postfix(ref int __result) => __result = __result * 10 + 9;

    /// <summary>Adds 1000.</summary>
    public static void PlusThousand(ref int __result) => __result += 1000;

    /// <summary>Adds 5000 (on the reverse patch's original: the stub does not see it).</summary>
    public static void PlusFiveThousand(ref int __result) => __result += 5000;
}
