// CIL instructions of a method body's code, decoded with the opcode list of
// System.Reflection.Emit.OpCodes (operand kinds from the runtime's own table, independent
// of the profiler's il_opcodes.h).
using System.Reflection;
using System.Reflection.Emit;

namespace AlvorKit.Fuzz.SeedGen;

internal readonly record struct Instruction(int Offset, ushort OpCode, OperandType Operand, int OperandOffset,
                                   int Next);

internal static class Il
{
    private static readonly Dictionary<ushort, OperandType> Operands = typeof(OpCodes)
        .GetFields(BindingFlags.Public | BindingFlags.Static)
        .Select(f => (OpCode)f.GetValue(null)!)
        .ToDictionary(o => unchecked((ushort)o.Value), o => o.OperandType);

    public static bool IsToken(OperandType t) => t is OperandType.InlineField or OperandType.InlineMethod
        or OperandType.InlineSig or OperandType.InlineString or OperandType.InlineTok or OperandType.InlineType;

    private static int Size(OperandType t) => t switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        _ => 4,
    };

    /// <summary>The instructions of code, or null when it does not decode.</summary>
    public static List<Instruction>? Walk(byte[] code)
    {
        var result = new List<Instruction>();
        int at = 0;
        while (at < code.Length)
        {
            int start = at;
            ushort op = code[at++];
            if (op == 0xFE)
            {
                if (at >= code.Length)
                    return null;
                op = (ushort)(0xFE00 | code[at++]);
            }
            if (!Operands.TryGetValue(op, out OperandType operand))
                return null;
            long size = Size(operand);
            if (operand == OperandType.InlineSwitch)
            {
                if (at + 4 > code.Length)
                    return null;
                size = 4 + 4L * BitConverter.ToUInt32(code, at);
            }
            if (at + size > code.Length)
                return null;
            result.Add(new Instruction(start, op, operand, at, (int)(at + size)));
            at += (int)size;
        }
        return result;
    }
}
