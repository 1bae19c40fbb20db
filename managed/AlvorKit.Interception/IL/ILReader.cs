using System.Buffers.Binary;
using System.Reflection.Emit;

namespace AlvorKit.Interception.IL;

/// <summary>IL the reader cannot decode: <see cref="ILReader"/>'s one refusal, naming the offset
/// ("IL_0004: byte 0xFE 0x99 is not an opcode"). A BadImageFormatException, as the metadata
/// readers' refusals are.</summary>
internal sealed class ILFormatException(int offset, string problem)
    : BadImageFormatException($"IL_{offset:X4}: {problem}")
{
    /// <summary>Where the instruction that cannot be decoded starts.</summary>
    public int Offset { get; } = offset;

    /// <summary>What is wrong, without the offset.</summary>
    public string Problem { get; } = problem;
}

/// <summary>
/// The one reader of the CIL instruction stream (ECMA-335 III) on the managed side: the hot
/// reload's translation (HotReload/BodyRewriter.cs) and its listing of a changed body
/// (HotReload/BodyDifference.cs), and the plans' reading of an original body
/// (Plans/OriginalBodyReader.cs) all walk code with it, and nothing else decodes opcodes or
/// operand sizes (<see cref="OpCodeTable"/>). Each <see cref="Read"/> decodes one instruction:
/// its offset, opcode, operand bytes and value, and its branch or switch targets; every bound
/// is checked, and what does not decode is refused as an <see cref="ILFormatException"/>.
/// </summary>
/// <remarks>
/// System.Reflection.Metadata's ILOpCode and BlobReader decode the same bytes, but BlobReader
/// reads through a pointer (the code would have to stay pinned while its caller rewrites it in
/// place) and ILOpCode knows no operand kinds: the reader walks a span with the table instead.
/// </remarks>
/// <param name="code">The code alone (no header, no exception sections).</param>
internal ref struct ILReader(ReadOnlySpan<byte> code)
{
    private readonly ReadOnlySpan<byte> _code = code;

    /// <summary>Where the current instruction starts.</summary>
    public int Offset { get; private set; }

    /// <summary>Where the next instruction starts (the end of the current one's operand).</summary>
    public int Next { get; private set; }

    /// <summary>The current instruction's opcode.</summary>
    public OpCode OpCode { get; private set; }

    /// <summary>Where the current instruction's operand starts.</summary>
    public int OperandOffset { get; private set; }

    /// <summary>The operand's bytes (a switch's count and table included).</summary>
    public readonly ReadOnlySpan<byte> Operand => _code[OperandOffset..Next];

    /// <summary>Decodes the instruction at <see cref="Next"/>: false at the end of the code.</summary>
    /// <exception cref="ILFormatException">An unknown opcode, or an operand or switch table
    /// that runs past the end of the code.</exception>
    public bool Read()
    {
        if (Next >= _code.Length)
            return false;
        int start = Next;
        byte first = _code[start];
        if (first == OpCodeTable.TwoBytePrefix && start + 1 >= _code.Length)
            throw new ILFormatException(start, "a two-byte opcode cut off by the end of the code");
        byte second = first == OpCodeTable.TwoBytePrefix ? _code[start + 1] : (byte)0;
        OpCode opcode = OpCodeTable.Find(first, second) ?? throw new ILFormatException(start,
            $"byte 0x{first:X2}{(first == OpCodeTable.TwoBytePrefix ? $" 0x{second:X2}" : "")} is not an opcode");
        int operand = start + opcode.Size;
        int size = OpCodeTable.OperandSize(opcode.OperandType);
        if (size > _code.Length - operand)
            throw new ILFormatException(start, $"{opcode.Name}: the operand runs past the end of the code");
        if (opcode.OperandType == OperandType.InlineSwitch)
        {
            uint count = BinaryPrimitives.ReadUInt32LittleEndian(_code[operand..]);
            if (count > (uint)(_code.Length - operand - 4) / 4)
                throw new ILFormatException(start, "switch: its table runs past the end of the code");
            size += 4 * (int)count;
        }
        Offset = start;
        OpCode = opcode;
        OperandOffset = operand;
        Next = operand + size;
        return true;
    }

    /// <summary>The operand as a number: a short branch or ShortInlineI sign-extended, a
    /// ShortInlineVar or InlineVar zero-extended, an 8-byte operand as its bits, any other
    /// (tokens, InlineI, a ShortInlineR's bits, a long branch, a switch's count) as its 4 bytes;
    /// 0 for none.</summary>
    public readonly long Value => OpCode.OperandType switch
    {
        OperandType.InlineNone => 0,
        OperandType.ShortInlineBrTarget or OperandType.ShortInlineI => (sbyte)_code[OperandOffset],
        OperandType.ShortInlineVar => _code[OperandOffset],
        OperandType.InlineVar => BinaryPrimitives.ReadUInt16LittleEndian(_code[OperandOffset..]),
        OperandType.InlineI8 or OperandType.InlineR => BinaryPrimitives.ReadInt64LittleEndian(_code[OperandOffset..]),
        _ => BinaryPrimitives.ReadInt32LittleEndian(_code[OperandOffset..]),
    };

    /// <summary>The operand as a metadata token (or user-string offset): its 4 bytes.</summary>
    public readonly int Token => BinaryPrimitives.ReadInt32LittleEndian(_code[OperandOffset..]);

    /// <summary>Whether the operand is a token (<see cref="OpCodeTable.IsToken"/>).</summary>
    public readonly bool HasToken => OpCodeTable.IsToken(OpCode.OperandType);

    /// <summary>The offsets a branch or switch goes to (relative to <see cref="Next"/>, as
    /// ECMA-335 III.3 says), none for any other instruction. Not checked against the code:
    /// whether a target starts an instruction is the caller's to know.</summary>
    public readonly int[] Targets()
    {
        switch (OpCode.OperandType)
        {
            case OperandType.ShortInlineBrTarget or OperandType.InlineBrTarget:
                return [Next + (int)Value];
            case OperandType.InlineSwitch:
                var targets = new int[(Next - OperandOffset - 4) / 4];
                for (int i = 0; i < targets.Length; i++)
                    targets[i] = Next + BinaryPrimitives.ReadInt32LittleEndian(_code[(OperandOffset + 4 + 4 * i)..]);
                return targets;
            default:
                return [];
        }
    }
}
