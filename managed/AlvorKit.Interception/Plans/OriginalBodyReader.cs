using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.IL;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// Reads a method's original body as the runtime loaded it (MethodBody.GetILAsByteArray, its
/// exception clauses, and its locals signature from the module's metadata) into the
/// instructions of a <see cref="GenerationPlan.FromOriginal"/> plan: each instruction with its
/// operand resolved to a reflection symbol in the target's generic context (and its original
/// token kept), every branch target and region boundary a label. Refuses, naming the offset,
/// what it cannot read.
/// </summary>
internal sealed class OriginalBodyReader
{
    private readonly MethodBase _target;
    private readonly ModuleContext _module;
    private readonly MethodBody _body;
    private readonly byte[] _il;
    private readonly GenericContext _context;
    private readonly Dictionary<int, CalliSignature> _calli = new();

    public OriginalBodyReader(MethodBase target, ModuleContext module)
    {
        _target = target;
        _module = module;
        if ((target.CallingConvention & CallingConventions.VarArgs) != 0)
            throw new NotSupportedException($"{Names.Of(target)} takes varargs, which plans do not support.");
        MethodBody? body;
        try
        {
            body = target.GetMethodBody();
        }
        catch (Exception e) when (Unreadable(e))
        {
            // The runtime resolves the locals' types here.
            throw Refuse($"its body or its locals cannot be resolved ({e.Message})");
        }
        _body = body ?? throw new NotSupportedException(
            $"{Names.Of(target)} has no IL body (extern, runtime-implemented or abstract): there is no original to edit.");
        _il = _body.GetILAsByteArray() ?? throw new NotSupportedException($"{Names.Of(target)} has no IL to read.");
        _context = GenericContext.Of(target);
    }

    /// <summary>The method whose body this reads (a definition).</summary>
    public MethodBase Target => _target;

    /// <summary>The original's locals, in slot order.</summary>
    public IReadOnlyList<OriginalLocal> Locals
    {
        get
        {
            try
            {
                return [.. _body.LocalVariables.OrderBy(l => l.LocalIndex).Select(l => new OriginalLocal(l.LocalType, l.IsPinned))];
            }
            catch (Exception e) when (Unreadable(e))
            {
                throw Refuse($"its locals cannot be resolved ({e.Message})");
            }
        }
    }

    /// <summary>What reading bad or unresolvable metadata throws (a PlanException says it instead).</summary>
    private static bool Unreadable(Exception e) =>
        e is ArgumentException or TypeLoadException or MissingMemberException or BadImageFormatException or
            FileNotFoundException or FileLoadException or InvalidCastException or InvalidOperationException;

    /// <summary>Reads the body; `defineLabel` makes the plan's labels, `locals` are the plan's
    /// PlanLocals for the original's locals.</summary>
    public OriginalBody Read(Func<PlanLabel> defineLabel, IReadOnlyList<PlanLocal> locals)
    {
        List<Raw> raw = Decode();
        // By offset (0 to the end of the body, inclusive): where an instruction starts, where a label goes.
        var starts = new bool[_il.Length + 1];
        foreach (Raw r in raw)
            starts[r.Offset] = true;
        // Every place a label goes: branch targets and region boundaries.
        var targets = new bool[_il.Length + 1];
        foreach (Raw r in raw)
        {
            foreach (int t in r.Targets)
            {
                if (!At(starts, t))
                    throw Refuse($"IL_{r.Offset:X4} {r.OpCode.Name} branches to IL_{t:X4}, which is not the start of an instruction");
                targets[t] = true;
            }
        }
        IList<ExceptionHandlingClause> clauses = _body.ExceptionHandlingClauses;
        foreach (ExceptionHandlingClause c in clauses)
        {
            foreach (int boundary in Boundaries(c))
            {
                if (boundary != _il.Length && !At(starts, boundary))
                    throw Refuse($"an exception clause has a boundary at IL_{boundary:X4}, which is not the start of an instruction");
                targets[boundary] = true;
            }
        }
        // Defined in offset order.
        var labels = new Labels(targets.Length);
        for (int t = 0; t < targets.Length; t++)
        {
            if (targets[t])
                labels.Define(t, defineLabel());
        }

        (int localsToken, byte[] entries) = LocalsSignature();
        var original = new OriginalBody(this)
        {
            LocalCount = locals.Count,
            LocalSignatureToken = localsToken,
            LocalEntries = entries,
            MaxStack = _body.MaxStackSize,
            InitLocals = _body.InitLocals,
        };
        foreach (Raw r in raw)
        {
            var instruction = new BodyInstruction(r.OpCode, Operand(r, labels, locals), r.Offset,
                OpCodeTable.IsToken(r.OpCode.OperandType) ? (int)r.Value : 0, this);
            if (labels.TryGetValue(r.Offset, out PlanLabel label))
                instruction.Labels.Add(label);
            original.Instructions.Add(instruction);
        }
        if (labels.TryGetValue(_il.Length, out PlanLabel end))
            original.Pending.Add(end);
        foreach (ExceptionHandlingClause c in clauses)
            original.Regions.Add(Region(c, labels));
        return original;
    }

    /// <summary>The symbol a token of the original stands for, for an instruction of operand type `type`.</summary>
    public object Resolve(OperandType type, int token, int offset)
    {
        try
        {
            Module m = _target.Module;
            (Type[]? t, Type[]? g) = (_context.TypeArguments, _context.MethodArguments);
            switch (type)
            {
                case OperandType.InlineMethod:
                    MethodBase method = m.ResolveMethod(token, t, g)!;
                    if ((method.CallingConvention & CallingConventions.VarArgs) != 0)
                        throw Refuse($"IL_{offset:X4} calls {Names.Of(method)}, which takes varargs; plans do not support varargs call sites");
                    return method;
                case OperandType.InlineField:
                    return m.ResolveField(token, t, g)!;
                case OperandType.InlineType:
                    return m.ResolveType(token, t, g);
                case OperandType.InlineTok:
                    return m.ResolveMember(token, t, g)!;
                case OperandType.InlineString:
                    return m.ResolveString(token);
                case OperandType.InlineSig:
                    return Calli(token);
                default:
                    throw Refuse($"IL_{offset:X4}: an operand of type {type} is not a token");
            }
        }
        catch (Exception e) when (Unreadable(e))
        {
            throw Refuse($"IL_{offset:X4}: token 0x{token:X8} cannot be resolved ({e.Message})");
        }
    }

    /// <summary>The calli signature of the original's StandAloneSig `token`.</summary>
    public CalliSignature Calli(int token)
    {
        if (!_calli.TryGetValue(token, out CalliSignature? signature))
        {
            try
            {
                _calli[token] = signature = new OriginalSignatures(_target.Module, _context.TypeArguments,
                    _context.MethodArguments).Calli(_module.Reader, token);
            }
            catch (Exception e) when (Unreadable(e))
            {
                throw Refuse($"the calli signature 0x{token:X8} cannot be read ({e.Message})");
            }
        }
        return signature;
    }

    // ------------------------------------------------------------------ decoding

    private sealed record Raw(int Offset, OpCode OpCode, long Value, int[] Targets);

    private static bool At(bool[] offsets, int offset) => offset >= 0 && offset < offsets.Length && offsets[offset];

    /// <summary>The labels of a body by offset: an array as long as the body (plain arrays of the plan's own
    /// label type need no generic collection code compiled at run time).</summary>
    private sealed class Labels(int length)
    {
        private readonly PlanLabel[] _labels = new PlanLabel[length];
        private readonly bool[] _defined = new bool[length];

        public void Define(int offset, PlanLabel label)
        {
            _labels[offset] = label;
            _defined[offset] = true;
        }

        public bool TryGetValue(int offset, out PlanLabel label)
        {
            label = At(_defined, offset) ? _labels[offset] : default;
            return At(_defined, offset);
        }

        public PlanLabel this[int offset] => At(_defined, offset)
            ? _labels[offset]
            : throw new KeyNotFoundException($"no label at IL_{offset:X4}");
    }

    private List<Raw> Decode()
    {
        var code = new List<Raw>();
        var reader = new ILReader(_il);
        try
        {
            while (reader.Read())
                code.Add(new Raw(reader.Offset, reader.OpCode, reader.Value, reader.Targets()));
        }
        catch (ILFormatException e)
        {
            throw Refuse(e.Message);
        }
        return code;
    }

    private object? Operand(Raw r, Labels labels, IReadOnlyList<PlanLocal> locals)
    {
        OpCode op = r.OpCode;
        switch (op.OperandType)
        {
            case OperandType.InlineNone:
                return null;
            case OperandType.ShortInlineBrTarget or OperandType.InlineBrTarget:
                return labels[r.Targets[0]];
            case OperandType.InlineSwitch:
            {
                var cases = new PlanLabel[r.Targets.Length];
                for (int k = 0; k < cases.Length; k++)
                    cases[k] = labels[r.Targets[k]];
                return cases;
            }
            case OperandType.ShortInlineI:
                // ldc.i4.s takes a signed byte; unaligned. an unsigned one.
                return op == OpCodes.Ldc_I4_S ? (int)r.Value : (int)(byte)r.Value;
            case OperandType.InlineI:
                return (int)r.Value;
            case OperandType.InlineI8:
                return r.Value;
            case OperandType.ShortInlineR:
                return BitConverter.Int32BitsToSingle((int)r.Value);
            case OperandType.InlineR:
                return BitConverter.Int64BitsToDouble(r.Value);
            case OperandType.ShortInlineVar or OperandType.InlineVar:
                if (!IsLocal(op))
                    return (int)r.Value;
                if (r.Value >= locals.Count)
                    throw Refuse($"IL_{r.Offset:X4} {op.Name} {r.Value}: the body has {locals.Count} local(s)");
                return locals[(int)r.Value];
            case OperandType.InlineSig:
                Calli((int)r.Value);
                return new OriginalToken((int)r.Value);
            default:
                return Resolve(op.OperandType, (int)r.Value, r.Offset);
        }
    }

    private static bool IsLocal(OpCode op) =>
        op == OpCodes.Ldloc || op == OpCodes.Ldloc_S || op == OpCodes.Stloc || op == OpCodes.Stloc_S ||
        op == OpCodes.Ldloca || op == OpCodes.Ldloca_S;

    // ------------------------------------------------------------------ regions

    private static IEnumerable<int> Boundaries(ExceptionHandlingClause c)
    {
        yield return c.TryOffset;
        yield return c.TryOffset + c.TryLength;
        yield return c.HandlerOffset;
        yield return c.HandlerOffset + c.HandlerLength;
        if (c.Flags == ExceptionHandlingClauseOptions.Filter)
            yield return c.FilterOffset;
    }

    private PlanExceptionRegion Region(ExceptionHandlingClause c, Labels labels)
    {
        PlanLabel tryStart = labels[c.TryOffset], tryEnd = labels[c.TryOffset + c.TryLength],
            handlerStart = labels[c.HandlerOffset], handlerEnd = labels[c.HandlerOffset + c.HandlerLength];
        return c.Flags switch
        {
            ExceptionHandlingClauseOptions.Clause => new PlanExceptionRegion(PlanRegionKind.Catch, tryStart, tryEnd,
                handlerStart, handlerEnd, null, CatchType(c)),
            ExceptionHandlingClauseOptions.Filter => new PlanExceptionRegion(PlanRegionKind.Filter, tryStart, tryEnd,
                handlerStart, handlerEnd, labels[c.FilterOffset], null),
            ExceptionHandlingClauseOptions.Finally => new PlanExceptionRegion(PlanRegionKind.Finally, tryStart, tryEnd,
                handlerStart, handlerEnd, null, null),
            ExceptionHandlingClauseOptions.Fault => new PlanExceptionRegion(PlanRegionKind.Fault, tryStart, tryEnd,
                handlerStart, handlerEnd, null, null),
            _ => throw Refuse($"an exception clause at IL_{c.TryOffset:X4} has flags {c.Flags}, which plans do not read"),
        };
    }

    private Type CatchType(ExceptionHandlingClause c)
    {
        try
        {
            return c.CatchType ?? throw Refuse($"the catch clause at IL_{c.HandlerOffset:X4} has no exception type");
        }
        catch (Exception e) when (e is ArgumentException or TypeLoadException or FileNotFoundException or
                                      BadImageFormatException or InvalidOperationException)
        {
            throw Refuse($"the exception type of the catch clause at IL_{c.HandlerOffset:X4} cannot be resolved ({e.Message})");
        }
    }

    // ------------------------------------------------------------------ locals

    /// <summary>The original's locals signature token and its entries after the count.</summary>
    private (int Token, byte[] Entries) LocalsSignature()
    {
        int token = _body.LocalSignatureMetadataToken;
        if (token == 0 || (token & 0x00FF_FFFF) == 0)
            return (0, []);
        try
        {
            return LocalsSignature(token);
        }
        catch (Exception e) when (Unreadable(e))
        {
            throw Refuse($"the locals signature 0x{token:X8} cannot be read ({e.Message})");
        }
    }

    private (int Token, byte[] Entries) LocalsSignature(int token)
    {
        BlobReader blob = _module.Reader.GetBlobReader(_module.Reader
            .GetStandaloneSignature((StandaloneSignatureHandle)MetadataTokens.EntityHandle(token)).Signature);
        SignatureHeader header = blob.ReadSignatureHeader();
        if (header.Kind != SignatureKind.LocalVariables)
            throw Refuse($"the locals signature 0x{token:X8} is not a local variable signature");
        int count = blob.ReadCompressedInteger();
        if (count != _body.LocalVariables.Count)
            throw Refuse($"the locals signature 0x{token:X8} has {count} locals, the body {_body.LocalVariables.Count}");
        return (token, blob.ReadBytes(blob.RemainingBytes));
    }

    private PlanException Refuse(string message) =>
        new(_target, $"Reading the original body of {Names.Of(_target)}: {message}.");
}
