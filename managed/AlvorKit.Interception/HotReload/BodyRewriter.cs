using System.Buffers.Binary;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>A method body in the raw form ECMA-335 II.25.4 gives it: header, code, exception sections.</summary>
/// <param name="Bytes">The whole body.</param>
/// <param name="MaxStack">From the header.</param>
internal sealed record RawBody(byte[] Bytes, int MaxStack);

/// <summary>
/// One method body of the view rewritten for the module it goes into (<see cref="ReloadTarget"/>):
/// every token (instruction operands, the locals signature, typed catch clauses) becomes the
/// target's token or, in a loaded module, a placeholder a relocation fills; a call of an instance
/// method a reload added becomes <c>call</c> of the static method that carries it, and a read,
/// write or address of an instance field a reload added becomes a call of its accessor. Tokens
/// are 4 bytes and the replaced opcodes one byte, so the layout, branches and clauses stay as
/// the compiler wrote them. A body that becomes an instance method's static carrier on a class
/// starts with a null check of its first argument (a <c>callvirt</c> of the method would have
/// thrown NullReferenceException): the code moves down by that prologue, and its exception
/// clauses with it.
/// </summary>
internal static class BodyRewriter
{
    private const byte FatFormat = 0x3, TinyFormat = 0x2, MoreSections = 0x08, InitLocals = 0x10;
    private const byte SectionEHTable = 0x01, SectionFatFormat = 0x40, SectionMoreSects = 0x80;

    // ldarg.0; brtrue.s +6; newobj NullReferenceException::.ctor(); throw
    private const int PrologueSize = 9;

    /// <summary>The body of <paramref name="method"/> (a MethodDef row of the view with a body) as
    /// its generation's IL delta, or the baseline's image, holds it.</summary>
    public static RawBody Read(MetadataView view, MethodDefinitionHandle method, DeltaGeneration? pending, byte[]? baselineImage = null)
    {
        (MetadataReader reader, EntityHandle local) = view.Row(method, pending);
        int rva = reader.GetMethodDefinition((MethodDefinitionHandle)local).RelativeVirtualAddress;
        if (rva == 0)
            throw new BadImageFormatException("the method has no body");
        byte[] il = reader == pending?.Reader
            ? pending.IL
            : view.Deltas.FirstOrDefault(d => d.Reader == reader)?.IL
              ?? baselineImage ?? throw new InvalidOperationException("the baseline's bodies are not read from a delta");
        if (rva < 0 || rva >= il.Length)
            throw new BadImageFormatException($"a body at 0x{rva:X} past the end of the IL delta ({il.Length} bytes)");
        (int size, int maxStack) = Measure(il.AsSpan(rva));
        return new RawBody(il.AsSpan(rva, size).ToArray(), maxStack);
    }

    /// <summary>The size of the body at the start of <paramref name="il"/> (header, code,
    /// exception sections) and its max stack.</summary>
    public static (int Size, int MaxStack) Measure(ReadOnlySpan<byte> il)
    {
        if (il.Length == 0)
            throw new BadImageFormatException("an empty method body");
        if ((il[0] & 0x3) == TinyFormat)
        {
            int tiny = 1 + (il[0] >> 2);
            return tiny <= il.Length ? (tiny, 8) : throw new BadImageFormatException("a tiny body past the end of the IL");
        }
        if ((il[0] & 0x3) != FatFormat || il.Length < 12)
            throw new BadImageFormatException("an unknown method header");
        int headerSize = (il[1] >> 4) * 4;
        int maxStack = BinaryPrimitives.ReadUInt16LittleEndian(il[2..]);
        long end = headerSize + (long)BinaryPrimitives.ReadUInt32LittleEndian(il[4..]);
        if (headerSize < 12 || end > il.Length)
            throw new BadImageFormatException("a method header that does not fit the IL");
        if ((il[0] & MoreSections) == 0)
            return ((int)end, maxStack);
        int at = Align4((int)end);
        while (true)
        {
            if (at + 4 > il.Length)
                throw new BadImageFormatException("an exception section past the end of the IL");
            byte kind = il[at];
            int dataSize = (kind & SectionFatFormat) != 0 ? il[at + 1] | (il[at + 2] << 8) | (il[at + 3] << 16) : il[at + 1];
            if (dataSize < 4 || at + dataSize > il.Length)
                throw new BadImageFormatException("an exception section that does not fit the IL");
            if ((kind & SectionMoreSects) == 0)
                return (at + dataSize, maxStack);
            at = Align4(at + dataSize);
        }
    }

    /// <summary>The rewritten body and, for a loaded module, the relocations it needs in the
    /// target's table. <paramref name="nullCheckThis"/> adds the prologue.</summary>
    public static RawBody Rewrite(RawBody body, ReloadTarget target, bool nullCheckThis)
    {
        byte[] raw = (byte[])body.Bytes.Clone();
        (int codeStart, int codeSize) = Layout(raw);
        List<Clause> clauses = (raw[0] & 0x3) == FatFormat && (raw[0] & MoreSections) != 0
            ? ReadClauses(raw, Align4(codeStart + codeSize))
            : [];
        Span<byte> code = raw.AsSpan(codeStart, codeSize);
        RewriteCode(code, target);
        for (int i = 0; i < clauses.Count; i++)
        {
            if (clauses[i].Flags != 0 || clauses[i].ClassToken == 0)
                continue;
            Operand operand = target.Type(MetadataTokens.EntityHandle(clauses[i].ClassToken));
            clauses[i] = clauses[i] with { ClassToken = operand.Placeholder };
            if (operand.Relocation is { } request && target is LoadedTarget loaded)
                loaded.Table.AtOperand(request, RelocationTable.CatchType(i));
        }
        int localsToken = 0;
        if ((raw[0] & 0x3) == FatFormat)
        {
            int original = BinaryPrimitives.ReadInt32LittleEndian(raw.AsSpan(8));
            if (original != 0)
            {
                Operand locals = target.Signature((StandaloneSignatureHandle)MetadataTokens.EntityHandle(original), "locals");
                localsToken = locals.Placeholder;
                if (locals.Relocation is { } request && target is LoadedTarget loaded)
                    loaded.Table.AtOperand(request, RelocationTable.LocalsSignature);
            }
        }

        if (!nullCheckThis)
        {
            if ((raw[0] & 0x3) == FatFormat)
            {
                BinaryPrimitives.WriteInt32LittleEndian(raw.AsSpan(8), localsToken);
                WriteClauseTokens(raw, Align4(codeStart + codeSize), clauses);
            }
            return new RawBody(raw, body.MaxStack);
        }

        // The prologue: re-encoded as a fat body with fat clauses, everything 9 bytes further.
        Operand ctor = target.CoreConstructor("System", "NullReferenceException");
        var prologue = new byte[PrologueSize];
        prologue[0] = (byte)ILOpCode.Ldarg_0;
        prologue[1] = (byte)ILOpCode.Brtrue_s;
        prologue[2] = 6;
        prologue[3] = (byte)ILOpCode.Newobj;
        BinaryPrimitives.WriteInt32LittleEndian(prologue.AsSpan(4), ctor.Placeholder);
        prologue[8] = (byte)ILOpCode.Throw;
        if (ctor.Relocation is { } ctorRequest && target is LoadedTarget loadedTarget)
        {
            // The code's own relocations name offsets in the code: they move with it.
            loadedTarget.Table.Shift(PrologueSize);
            loadedTarget.Table.AtOperand(ctorRequest, 4);
        }
        else if (target is LoadedTarget shifted)
        {
            shifted.Table.Shift(PrologueSize);
        }

        bool initLocals = (raw[0] & 0x3) == FatFormat && (raw[0] & InitLocals) != 0;
        int maxStack = Math.Max(body.MaxStack, 1);
        var output = new BlobBuilder();
        output.WriteUInt16((ushort)(FatFormat | (initLocals ? InitLocals : 0) | (clauses.Count > 0 ? MoreSections : 0) | (3 << 12)));
        output.WriteUInt16((ushort)maxStack);
        output.WriteInt32(codeSize + PrologueSize);
        output.WriteInt32(localsToken);
        output.WriteBytes(prologue);
        output.WriteBytes(code.ToArray());
        if (clauses.Count > 0)
        {
            output.Align(4);
            output.WriteByte(SectionEHTable | SectionFatFormat);
            int size = 4 + 24 * clauses.Count;
            output.WriteByte((byte)size);
            output.WriteByte((byte)(size >> 8));
            output.WriteByte((byte)(size >> 16));
            foreach (Clause c in clauses)
            {
                output.WriteUInt32(c.Flags);
                output.WriteInt32(c.TryOffset + PrologueSize);
                output.WriteInt32(c.TryLength);
                output.WriteInt32(c.HandlerOffset + PrologueSize);
                output.WriteInt32(c.HandlerLength);
                output.WriteInt32(c.Flags == 1 ? c.ClassToken + PrologueSize : c.ClassToken); // a filter's offset moves too
            }
        }
        return new RawBody(output.ToArray(), maxStack);
    }

    private static void RewriteCode(Span<byte> code, ReloadTarget target)
    {
        int offset = 0;
        while (offset < code.Length)
        {
            int start = offset;
            byte first = code[offset++];
            byte second = 0;
            if (first == OpCodeTable.TwoBytePrefix)
            {
                if (offset >= code.Length)
                    throw new BadImageFormatException("a truncated opcode");
                second = code[offset++];
            }
            if (OpCodeTable.Find(first, second) is not OpCode opcode)
                throw new BadImageFormatException($"an unknown opcode at IL_{start:X4}");
            OperandType kind = opcode.OperandType;
            int size = OpCodeTable.OperandSize(kind);
            if (offset + size > code.Length)
                throw new BadImageFormatException($"{opcode.Name}'s operand runs past the end of the code");
            if (OpCodeTable.IsToken(kind))
            {
                int token = BinaryPrimitives.ReadInt32LittleEndian(code[offset..]);
                var il = (ILOpCode)(ushort)opcode.Value;
                Operand operand = TokenOperand(target, il, kind, token, out ILOpCode replacement);
                if (replacement != il)
                {
                    if (first == OpCodeTable.TwoBytePrefix)
                        throw new BadImageFormatException($"IL_{start:X4}: a two-byte opcode cannot be replaced");
                    code[start] = (byte)replacement;
                }
                BinaryPrimitives.WriteInt32LittleEndian(code[offset..], operand.Placeholder);
                if (operand.Relocation is { } request && target is LoadedTarget loaded)
                    loaded.Table.AtOperand(request, (uint)offset);
            }
            else if (kind == OperandType.InlineSwitch)
            {
                uint count = BinaryPrimitives.ReadUInt32LittleEndian(code[offset..]);
                if (count > (uint)(code.Length - offset - 4) / 4)
                    throw new BadImageFormatException("a switch table that runs past the end of the code");
                size += (int)count * 4;
            }
            offset += size;
        }
    }

    private static Operand TokenOperand(ReloadTarget target, ILOpCode opcode, OperandType kind, int token,
                                        out ILOpCode replacement)
    {
        replacement = opcode;
        if (kind == OperandType.InlineString)
            return target.String(MetadataTokens.UserStringHandle(token & 0xFFFFFF));
        EntityHandle handle = MetadataTokens.EntityHandle(token);
        switch (kind)
        {
            case OperandType.InlineMethod:
            {
                // A constructor a reload added to a type that lived: its factory makes the object.
                if (opcode == ILOpCode.Newobj && target.Factory(handle) is { } factory)
                {
                    replacement = ILOpCode.Call;
                    return factory;
                }
                Operand method = target.Method(handle, out CallShape shape);
                if (shape == CallShape.Static)
                {
                    replacement = opcode switch
                    {
                        ILOpCode.Call or ILOpCode.Callvirt => ILOpCode.Call,
                        ILOpCode.Ldftn => ILOpCode.Ldftn,
                        _ => throw new DeltaRefusedException(ReloadRefusalReason.UntranslatableReference,
                            $"{ReloadRefusalReason.UntranslatableReference}: {target.Member} — {opcode} of an instance method " +
                            "a reload added to a type that already lived (only call, callvirt and ldftn)", target.Member),
                    };
                }
                return method;
            }
            case OperandType.InlineField:
                return target.Field(handle, opcode, out replacement);
            case OperandType.InlineType:
                return target.Type(handle);
            case OperandType.InlineTok:
                return target.Token(handle);
            case OperandType.InlineSig:
                return target.Signature((StandaloneSignatureHandle)handle, "calli signature");
            default:
                throw new BadImageFormatException($"a {kind} token operand");
        }
    }

    /// <summary>An exception clause, in fat form whatever its encoding. ClassToken is the class
    /// token of a typed catch (Flags 0) or the filter's offset (Flags 1).</summary>
    internal readonly record struct Clause(uint Flags, int TryOffset, int TryLength, int HandlerOffset, int HandlerLength,
                                          int ClassToken);

    /// <summary>The exception clauses of a fat body with sections.</summary>
    public static List<Clause> Clauses(byte[] raw)
    {
        (int start, int size) = Layout(raw);
        return ReadClauses(raw, Align4(start + size));
    }

    private static List<Clause> ReadClauses(byte[] raw, int at)
    {
        var clauses = new List<Clause>();
        while (true)
        {
            if (at + 4 > raw.Length)
                throw new BadImageFormatException("an exception section past the end of the body");
            byte kind = raw[at];
            bool fat = (kind & SectionFatFormat) != 0;
            int dataSize = fat ? raw[at + 1] | (raw[at + 2] << 8) | (raw[at + 3] << 16) : raw[at + 1];
            int clauseSize = fat ? 24 : 12;
            if (dataSize < 4 || at + dataSize > raw.Length)
                throw new BadImageFormatException("an exception section that does not fit the body");
            if ((kind & SectionEHTable) != 0)
            {
                for (int c = at + 4; c + clauseSize <= at + dataSize; c += clauseSize)
                {
                    ReadOnlySpan<byte> s = raw.AsSpan(c, clauseSize);
                    clauses.Add(fat
                        ? new Clause(BinaryPrimitives.ReadUInt32LittleEndian(s), BinaryPrimitives.ReadInt32LittleEndian(s[4..]),
                                     BinaryPrimitives.ReadInt32LittleEndian(s[8..]), BinaryPrimitives.ReadInt32LittleEndian(s[12..]),
                                     BinaryPrimitives.ReadInt32LittleEndian(s[16..]), BinaryPrimitives.ReadInt32LittleEndian(s[20..]))
                        : new Clause(BinaryPrimitives.ReadUInt16LittleEndian(s), BinaryPrimitives.ReadUInt16LittleEndian(s[2..]),
                                     s[4], BinaryPrimitives.ReadUInt16LittleEndian(s[5..]), s[7],
                                     BinaryPrimitives.ReadInt32LittleEndian(s[8..])));
                }
            }
            if ((kind & SectionMoreSects) == 0)
                return clauses;
            at = Align4(at + dataSize);
        }
    }

    // The class tokens back into the sections, in place (their encoding kept).
    private static void WriteClauseTokens(byte[] raw, int at, List<Clause> clauses)
    {
        int index = 0;
        while (index < clauses.Count)
        {
            byte kind = raw[at];
            bool fat = (kind & SectionFatFormat) != 0;
            int dataSize = fat ? raw[at + 1] | (raw[at + 2] << 8) | (raw[at + 3] << 16) : raw[at + 1];
            int clauseSize = fat ? 24 : 12;
            if ((kind & SectionEHTable) != 0)
            {
                for (int c = at + 4; c + clauseSize <= at + dataSize; c += clauseSize, index++)
                {
                    if (clauses[index].Flags == 0)
                        BinaryPrimitives.WriteInt32LittleEndian(raw.AsSpan(c + clauseSize - 4), clauses[index].ClassToken);
                }
            }
            if ((kind & SectionMoreSects) == 0)
                return;
            at = Align4(at + dataSize);
        }
    }

    /// <summary>Where the code starts and how long it is.</summary>
    public static (int Start, int Size) Layout(byte[] raw)
    {
        if (raw.Length == 0)
            throw new BadImageFormatException("an empty method body");
        if ((raw[0] & 0x3) == TinyFormat)
            return (1, raw[0] >> 2);
        if ((raw[0] & 0x3) != FatFormat || raw.Length < 12)
            throw new BadImageFormatException("an unknown method header");
        int headerSize = (raw[1] >> 4) * 4;
        int codeSize = BinaryPrimitives.ReadInt32LittleEndian(raw.AsSpan(4));
        if (headerSize < 12 || codeSize < 0 || headerSize + codeSize > raw.Length)
            throw new BadImageFormatException("a method header that does not fit its body");
        return (headerSize, codeSize);
    }

    private static int Align4(int value) => (value + 3) & ~3;
}
