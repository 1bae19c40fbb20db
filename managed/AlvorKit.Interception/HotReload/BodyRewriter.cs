using System.Buffers.Binary;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.IL;
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
    private const byte FatFormat = 0x3, MoreSections = 0x08, InitLocals = 0x10;
    private const byte SectionEHTable = 0x01, SectionFatFormat = 0x40;

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
        ReadOnlySpan<byte> at = il.AsSpan(rva);
        return new RawBody(at[..MethodBodyFormat.Size(at)].ToArray(), MethodBodyFormat.Header(at).MaxStack);
    }

    /// <summary>The rewritten body and, for a loaded module, the relocations it needs in the
    /// target's table. <paramref name="nullCheckThis"/> adds the prologue.</summary>
    public static RawBody Rewrite(RawBody body, ReloadTarget target, bool nullCheckThis)
    {
        byte[] raw = (byte[])body.Bytes.Clone();
        BodyHeader header = MethodBodyFormat.Header(raw);
        (int codeStart, int codeSize) = (header.CodeStart, header.CodeSize);
        List<EhClause> clauses = MethodBodyFormat.Clauses(raw, header);
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
        if (header.Fat)
        {
            int original = header.LocalsToken;
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
            if (header.Fat)
            {
                BinaryPrimitives.WriteInt32LittleEndian(raw.AsSpan(8), localsToken);
                // The class tokens back into the sections, in place (their encoding kept).
                foreach (EhClause clause in clauses)
                    if (clause.Flags == 0)
                        BinaryPrimitives.WriteInt32LittleEndian(raw.AsSpan(clause.ClassTokenAt), clause.ClassToken);
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

        bool initLocals = header.InitLocals;
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
            foreach (EhClause c in clauses)
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
        var reader = new ILReader(code);
        while (reader.Read())
        {
            if (!reader.HasToken)
                continue;
            OpCode opcode = reader.OpCode;
            var il = (ILOpCode)(ushort)opcode.Value;
            Operand operand = TokenOperand(target, il, opcode.OperandType, reader.Token, out ILOpCode replacement);
            if (replacement != il)
            {
                if (opcode.Size != 1)
                    throw new BadImageFormatException($"IL_{reader.Offset:X4}: a two-byte opcode cannot be replaced");
                code[reader.Offset] = (byte)replacement;
            }
            BinaryPrimitives.WriteInt32LittleEndian(code[reader.OperandOffset..], operand.Placeholder);
            if (operand.Relocation is { } request && target is LoadedTarget loaded)
                loaded.Table.AtOperand(request, (uint)reader.OperandOffset);
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
}
