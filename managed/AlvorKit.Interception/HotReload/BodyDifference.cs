using System.Buffers.Binary;
using System.Globalization;
using System.Reflection.Emit;
using System.Text;
using AlvorKit.Interception.IL;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// What changed between two bodies of one method, for people: both are decoded into
/// instructions with their operands written out (decimal constants, branch targets as labels,
/// members and strings by name), the unchanged instructions at the start and the end are left
/// out, and the rest is shown at most three lines: a changed instruction old → new
/// (<c>IL_0002: ldc.i4.s 100 → ldc.i4.s 120</c>), an added one with +, a removed one with -.
/// </summary>
internal static class BodyDifference
{
    private const int Shown = 3;

    /// <summary>The difference, or "same instructions" when the code decodes alike.</summary>
    /// <param name="before">The old code (without header or clauses).</param>
    /// <param name="after">The new code.</param>
    /// <param name="operand">Names a token operand (a member, type or string).</param>
    public static string Describe(byte[] before, byte[] after, Func<int, string> operand)
    {
        List<Instruction> old = Decode(before, operand), now = Decode(after, operand);
        int prefix = 0;
        while (prefix < old.Count && prefix < now.Count && old[prefix].Text == now[prefix].Text)
            prefix++;
        int suffix = 0;
        while (suffix < old.Count - prefix && suffix < now.Count - prefix &&
               old[old.Count - 1 - suffix].Text == now[now.Count - 1 - suffix].Text)
            suffix++;
        int removed = old.Count - prefix - suffix, added = now.Count - prefix - suffix;
        if (removed == 0 && added == 0)
            return "same instructions";
        // Changed instructions pair up (old → new); the rest of the longer side is added (+) or removed (-).
        var lines = new List<string>();
        for (int i = 0; i < Math.Max(removed, added); i++)
        {
            Instruction? o = i < removed ? old[prefix + i] : null;
            Instruction? n = i < added ? now[prefix + i] : null;
            lines.Add(o is { } was && n is { } isNow
                ? string.Create(CultureInfo.InvariantCulture, $"IL_{isNow.Offset:X4}: {was.Text} → {isNow.Text}")
                : n is { } inserted
                    ? string.Create(CultureInfo.InvariantCulture, $"IL_{inserted.Offset:X4}: + {inserted.Text}")
                    : string.Create(CultureInfo.InvariantCulture, $"IL_{o!.Offset:X4}: - {o.Text}"));
        }
        var text = new StringBuilder().AppendJoin("; ", lines.Take(Shown));
        if (lines.Count > Shown)
            text.Append(CultureInfo.InvariantCulture, $" (+{lines.Count - Shown} more)");
        return text.ToString();
    }

    /// <summary>The code as instructions with readable operands; a branch names its target. What
    /// does not decode is shown as the reader's refusal, in parentheses, and ends the listing.</summary>
    public static List<Instruction> Decode(ReadOnlySpan<byte> code, Func<int, string> operand)
    {
        var instructions = new List<Instruction>();
        var reader = new ILReader(code);
        while (true)
        {
            try
            {
                if (!reader.Read())
                    break;
            }
            catch (ILFormatException e)
            {
                instructions.Add(new Instruction(e.Offset, $"({e.Problem})"));
                break;
            }
            OpCode opcode = reader.OpCode;
            ReadOnlySpan<byte> value = reader.Operand;
            string text = opcode.OperandType switch
            {
                OperandType.InlineNone => opcode.Name!,
                OperandType.ShortInlineI => $"{opcode.Name} {(opcode.Value == OpCodes.Ldc_I4_S.Value ? (sbyte)value[0] : value[0])}",
                OperandType.ShortInlineVar or OperandType.InlineVar or OperandType.InlineI or OperandType.InlineI8 =>
                    $"{opcode.Name} {reader.Value}",
                OperandType.ShortInlineR => $"{opcode.Name} {BinaryPrimitives.ReadSingleLittleEndian(value).ToString("R", CultureInfo.InvariantCulture)}",
                OperandType.InlineR => $"{opcode.Name} {BinaryPrimitives.ReadDoubleLittleEndian(value).ToString("R", CultureInfo.InvariantCulture)}",
                OperandType.ShortInlineBrTarget or OperandType.InlineBrTarget => $"{opcode.Name} IL_{reader.Targets()[0]:X4}",
                OperandType.InlineSwitch => $"{opcode.Name} ({reader.Value} targets)",
                _ => $"{opcode.Name} {Safe(operand, reader.Token)}",
            };
            instructions.Add(new Instruction(reader.Offset, text));
        }
        return instructions;
    }

    /// <summary>One decoded instruction: its offset and its text (a class: a list of it is the framework's
    /// shared code, which its precompiled images hold, not code compiled at the first difference).</summary>
    public sealed record Instruction(int Offset, string Text);

    private static string Safe(Func<int, string> operand, int token)
    {
        try
        {
            return operand(token);
        }
        catch (Exception e) when (e is BadImageFormatException or ArgumentException or InvalidOperationException)
        {
            return $"0x{token:X8}";
        }
    }
}
