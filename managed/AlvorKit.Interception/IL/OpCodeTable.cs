using System.Reflection;
using System.Reflection.Emit;

namespace AlvorKit.Interception.IL;

/// <summary>
/// The CIL opcodes by their encoding (ECMA-335 III), taken from the runtime's own list,
/// System.Reflection.Emit.OpCodes: each opcode's name and operand kind, and the operand's
/// size in the IL stream. The one table IL is decoded with, through <see cref="ILReader"/>.
/// System.Reflection.Metadata's ILOpCode numbers the opcodes but has no operand kinds nor
/// names, and the plans' public surface (BodyInstruction) speaks Emit's <see cref="OpCode"/>:
/// the table maps the bytes to that.
/// </summary>
internal static class OpCodeTable
{
    private static readonly OpCode?[] OneByte = new OpCode?[256];
    private static readonly OpCode?[] TwoByte = new OpCode?[256];

    /// <summary>The prefix byte of the two-byte opcodes (0xFE xx).</summary>
    public const byte TwoBytePrefix = 0xFE;

    static OpCodeTable()
    {
        foreach (FieldInfo field in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
        {
            if (field.GetValue(null) is not OpCode opcode)
                continue;
            ushort value = unchecked((ushort)opcode.Value);
            if (opcode.Size == 1)
                OneByte[value] = opcode;
            else if (value >> 8 == TwoBytePrefix)
                TwoByte[value & 0xFF] = opcode;
        }
    }

    /// <summary>The opcode encoded as `first` (and `second`, for the two-byte ones), if any.</summary>
    public static OpCode? Find(byte first, byte second) => first == TwoBytePrefix ? TwoByte[second] : OneByte[first];

    /// <summary>The operand's size in bytes, except InlineSwitch, whose size depends on its count
    /// (4 + 4 × count): 4 here, the count itself.</summary>
    public static int OperandSize(OperandType type) => type switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI or OperandType.ShortInlineVar => 1,
        OperandType.InlineVar => 2,
        OperandType.InlineI8 or OperandType.InlineR => 8,
        _ => 4,
    };

    /// <summary>True when the operand is a metadata token (or a user-string offset).</summary>
    public static bool IsToken(OperandType type) => type is OperandType.InlineField or OperandType.InlineMethod
        or OperandType.InlineSig or OperandType.InlineString or OperandType.InlineTok or OperandType.InlineType;
}
