using System.Buffers.Binary;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// One method body of the rebuild as a generation for the loaded module: the rebuild's complete
/// body (header, code, exception sections) copied byte for byte, every token in it (instruction
/// operands, the locals signature, typed catch clauses) replaced by the loaded module's token
/// from <see cref="TokenTranslator"/>, or by a placeholder that a relocation fills. Tokens are
/// 4 bytes wherever they are, so the layout, branches and clauses stay as the compiler wrote them.
/// </summary>
internal static class BodyTranslator
{
    private const byte FatFormat = 0x3, TinyFormat = 0x2;
    private const byte SectionEHTable = 0x01, SectionFatFormat = 0x40, SectionMoreSects = 0x80;

    /// <summary>The generation that gives the loaded method the body <paramref name="method"/>
    /// has in the rebuild.</summary>
    /// <exception cref="TranslationRefusedException">Something in the body cannot be carried.</exception>
    public static LoweredGeneration Translate(LoadedRows loaded, BuildSide rebuilt, MethodDefinition method, string member)
    {
        if (method.RelativeVirtualAddress == 0)
            throw new TranslationRefusedException(new ReloadRefusal(ReloadRefusalReason.RudeEdit, member,
                $"{ReloadRefusalReason.RudeEdit}: {member} — the rebuild has no body for it"));
        MethodBodyBlock body = rebuilt.Image.GetMethodBody(method.RelativeVirtualAddress);
        if (body.Size > (int)Native.AlvkConstants.MaxGenerationBodyBytes)
            throw TooLarge(member, $"its body is {body.Size} bytes; a generation takes at most " +
                                   $"{Native.AlvkConstants.MaxGenerationBodyBytes}");
        byte[] raw = rebuilt.Image.GetSectionData(method.RelativeVirtualAddress).GetContent(0, body.Size).ToArray();
        var table = new RelocationTable();
        var tokens = new TokenTranslator(loaded, rebuilt, table, member);

        (int codeStart, int codeSize) = Layout(raw, member);
        TranslateCode(raw.AsSpan(codeStart, codeSize), tokens, table, member);

        (RelocationRequest, uint)? locals = null;
        if (!body.LocalSignature.IsNil)
        {
            Operand operand = tokens.Locals(body.LocalSignature);
            BinaryPrimitives.WriteInt32LittleEndian(raw.AsSpan(8), operand.Placeholder);
            if (operand.Relocation is { } request)
                locals = (request, RelocationTable.LocalsSignature);
        }
        if ((raw[0] & 0x3) == FatFormat && (raw[0] & 0x08) != 0)
            TranslateClauses(raw, Align4(codeStart + codeSize), tokens, table, member);

        (List<RelocationSpec> specs, byte[] pool) = table.Build(locals);
        if (specs.Count > (int)Native.AlvkConstants.MaxRelocations)
            throw TooLarge(member, $"it needs {specs.Count} relocations; a generation carries at most " +
                                   $"{Native.AlvkConstants.MaxRelocations}");
        if (pool.Length > (int)Native.AlvkConstants.MaxGenerationBlobBytes)
            throw TooLarge(member, $"its new names and signatures take {pool.Length} bytes; a generation takes at most " +
                                   $"{Native.AlvkConstants.MaxGenerationBlobBytes}");
        return new LoweredGeneration(raw, pool, specs, [new ILMapSpec(0, 0, true)], body.MaxStack);
    }

    private static (int Start, int Size) Layout(byte[] raw, string member)
    {
        if ((raw[0] & 0x3) == TinyFormat)
            return (1, raw[0] >> 2);
        if ((raw[0] & 0x3) != FatFormat || raw.Length < 12)
            throw Malformed(member, "an unknown method header");
        int headerSize = (raw[1] >> 4) * 4;
        int codeSize = BinaryPrimitives.ReadInt32LittleEndian(raw.AsSpan(4));
        if (headerSize < 12 || codeSize < 0 || headerSize + codeSize > raw.Length)
            throw Malformed(member, "a method header that does not fit its body");
        return (headerSize, codeSize);
    }

    private static void TranslateCode(Span<byte> code, TokenTranslator tokens, RelocationTable table, string member)
    {
        int offset = 0;
        while (offset < code.Length)
        {
            byte first = code[offset++];
            byte second = 0;
            if (first == OpCodeTable.TwoBytePrefix)
            {
                if (offset >= code.Length)
                    throw Malformed(member, "a truncated opcode");
                second = code[offset++];
            }
            if (OpCodeTable.Find(first, second) is not OpCode opcode)
                throw Malformed(member, $"an unknown opcode at IL_{offset - 1:X4}");
            OperandType kind = opcode.OperandType;
            int size = OpCodeTable.OperandSize(kind);
            if (offset + size > code.Length)
                throw Malformed(member, $"{opcode.Name}'s operand runs past the end of the code");
            if (OpCodeTable.IsToken(kind))
            {
                Operand operand = tokens.Translate(BinaryPrimitives.ReadInt32LittleEndian(code[offset..]));
                BinaryPrimitives.WriteInt32LittleEndian(code[offset..], operand.Placeholder);
                if (operand.Relocation is { } request)
                    table.AtOperand(request, (uint)offset);
            }
            else if (kind == OperandType.InlineSwitch)
            {
                uint count = BinaryPrimitives.ReadUInt32LittleEndian(code[offset..]);
                if (count > (uint)(code.Length - offset - 4) / 4)
                    throw Malformed(member, "a switch table that runs past the end of the code");
                size += (int)count * 4;
            }
            offset += size;
        }
    }

    // The exception sections after the code: small (12-byte) or fat (24-byte) clauses, in order;
    // a typed catch clause (flags 0) has its class token last.
    private static void TranslateClauses(byte[] raw, int at, TokenTranslator tokens, RelocationTable table, string member)
    {
        int clause = 0;
        while (true)
        {
            if (at + 4 > raw.Length)
                throw Malformed(member, "an exception section past the end of the body");
            byte kind = raw[at];
            bool fat = (kind & SectionFatFormat) != 0;
            int dataSize = fat ? raw[at + 1] | (raw[at + 2] << 8) | (raw[at + 3] << 16) : raw[at + 1];
            int clauseSize = fat ? 24 : 12;
            if (dataSize < 4 || at + dataSize > raw.Length)
                throw Malformed(member, "an exception section that does not fit the body");
            if ((kind & SectionEHTable) != 0)
            {
                for (int c = at + 4; c + clauseSize <= at + dataSize; c += clauseSize, clause++)
                {
                    uint flags = fat ? BinaryPrimitives.ReadUInt32LittleEndian(raw.AsSpan(c))
                                     : BinaryPrimitives.ReadUInt16LittleEndian(raw.AsSpan(c));
                    if (flags != 0)
                        continue; // finally, fault, filter: no class
                    Span<byte> token = raw.AsSpan(c + clauseSize - 4, 4);
                    Operand operand = tokens.Type(System.Reflection.Metadata.Ecma335.MetadataTokens.EntityHandle(
                        BinaryPrimitives.ReadInt32LittleEndian(token)));
                    BinaryPrimitives.WriteInt32LittleEndian(token, operand.Placeholder);
                    if (operand.Relocation is { } request)
                        table.AtOperand(request, RelocationTable.CatchType(clause));
                }
            }
            if ((kind & SectionMoreSects) == 0)
                return;
            at = Align4(at + dataSize);
        }
    }

    private static int Align4(int value) => (value + 3) & ~3;

    private static TranslationRefusedException TooLarge(string member, string why) =>
        new(new ReloadRefusal(ReloadRefusalReason.TooLarge, member, $"{ReloadRefusalReason.TooLarge}: {member} — {why}"));

    private static TranslationRefusedException Malformed(string member, string why) =>
        new(new ReloadRefusal(ReloadRefusalReason.NotARebuild, member,
            $"{ReloadRefusalReason.NotARebuild}: {member} — the rebuilt body is malformed: {why}"));
}
