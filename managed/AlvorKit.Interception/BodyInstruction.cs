using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.IL;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

/// <summary>
/// One instruction of a <see cref="GenerationPlan.FromOriginal"/> plan's body, in the shape of
/// Harmony's CodeInstruction: an opcode, its operand as a reflection symbol (or label, local,
/// number, string), and the labels placed at it. Change the opcode or the operand, insert or
/// remove instructions in <see cref="GenerationPlan.Instructions"/>, and the plan lowers the
/// edited list when it is applied.
/// </summary>
/// <remarks>
/// Operands: null (no operand), <see cref="int"/> (ldc.i4 forms, unaligned., and the argument
/// index of ldarg/ldarga/starg), <see cref="long"/>, <see cref="float"/>, <see cref="double"/>,
/// <see cref="string"/> (ldstr), <see cref="MethodInfo"/>, <see cref="ConstructorInfo"/>,
/// <see cref="FieldInfo"/>, <see cref="Type"/>, <see cref="PlanLabel"/>, <see cref="PlanLabel"/>[]
/// (switch), <see cref="PlanLocal"/> (ldloc/stloc/ldloca), or an <see cref="AlvorKit.Interception.OriginalToken"/>
/// (a token of the original, re-emitted as is: a calli's signature). An instruction read from the
/// original keeps its original token while its operand is unchanged (and while it stays in a plan
/// of the target it was read from: copied into another target's plan, it is named by its
/// symbol); a replaced operand is named like any plan symbol (a token of the module, or a relocation).
/// </remarks>
/// <param name="opCode">The opcode.</param>
/// <param name="operand">Its operand (see the remarks).</param>
public sealed class BodyInstruction(OpCode opCode, object? operand = null)
{

    internal BodyInstruction(OpCode opCode, object? operand, int originalOffset, int originalToken,
        OriginalBodyReader source)
        : this(opCode, operand)
    {
        OriginalOffset = originalOffset;
        OriginalTokenValue = originalToken;
        OriginalOperand = operand;
        Source = source;
    }

    /// <summary>The original body the instruction was read from (null: made by the caller). Its
    /// tokens are tokens of that body's module, in that body's generic context: an instruction
    /// copied into another target's plan is named by its symbol instead.</summary>
    internal OriginalBodyReader? Source { get; }

    /// <summary>The opcode.</summary>
    public OpCode OpCode { get; set; } = opCode;

    /// <summary>The operand (see the remarks of <see cref="BodyInstruction"/>).</summary>
    public object? Operand { get; set; } = operand;

    /// <summary>The labels placed at this instruction (branches to them land here).</summary>
    public List<PlanLabel> Labels { get; } = [];

    /// <summary>The instruction's offset in the original body; null for inserted code. The
    /// plan's IL map maps it to the instruction's new offset.</summary>
    public int? OriginalOffset { get; internal set; }

    /// <summary>The token the original instruction carried (0: none, or not an original instruction).</summary>
    internal int OriginalTokenValue { get; }

    /// <summary>The operand the instruction was read with: while Operand is still it, the original
    /// token is re-emitted.</summary>
    internal object? OriginalOperand { get; }

    /// <summary>Whether the original token can be written for this instruction as it is now.</summary>
    internal bool KeepsOriginalToken =>
        OriginalTokenValue != 0 && OpCodeTable.IsToken(OpCode.OperandType) && Equals(Operand, OriginalOperand);

    /// <summary>The instruction as a listing line: "IL_0004 call int Scoring.PointsFor(int)"
    /// (IL_---- for inserted code), after its labels ("L3: ").</summary>
    public override string ToString()
    {
        string at = OriginalOffset is { } o ? $"IL_{o:X4}" : "IL_----";
        string labels = Labels.Count == 0 ? "" : string.Join(" ", Labels.Select(l => $"{l}:")) + " ";
        string operand = Describe(Operand);
        return $"{labels}{at} {OpCode.Name}{(operand.Length == 0 ? "" : " " + operand)}";
    }

    internal static string Describe(object? operand) => operand switch
    {
        null => "",
        MethodInfo m => $"{Names.Of(m.ReturnType)} {Names.Of(m)}",
        MethodBase c => Names.Of(c),
        FieldInfo f => $"{Names.Of(f.FieldType)} {Names.Of(f)}",
        Type t => Names.Of(t),
        string s => $"\"{s}\"",
        PlanLabel[] labels => $"({string.Join(", ", labels)})",
        CalliSignature c => $"{Names.Of(c.ReturnType)}({string.Join(", ", c.ParameterTypes.Select(Names.Of))})",
        IFormattable f => f.ToString(null, CultureInfo.InvariantCulture),
        _ => operand.ToString() ?? "",
    };
}
