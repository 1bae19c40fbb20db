using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using AlvorKit.Interception.IL;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

// A FromOriginal plan's edited instruction list, lowered through the plan's own encoder: every
// instruction as the matching Emit* writes it (original tokens kept while their operand is
// unchanged), labels, the IL map and the exception regions (nested ones first).
public sealed partial class GenerationPlan
{
    private bool _replaying;
    private int? _replayToken;
    // The offset each instruction of the list was laid out at, by index (the last Replay).
    private readonly List<int> _replayOffsets = [];
    // The last lowering of the list, and the list as it was then (Lower returns it while the list is so).
    private LoweredGeneration? _loweredFromOriginal;
    private LoweringState? _loweredState;

    /// <summary>Lays the edited list out afresh in a new encoder.</summary>
    private void Replay()
    {
        OriginalBody original = Original;
        ResetEncoding();
        List<BodyInstruction> code = original.Instructions;
        List<PlanExceptionRegion> regions = InnerFirst(original);
        var mapped = new HashSet<int>();
        _replaying = true;
        try
        {
            for (int i = 0; i < code.Count; i++)
            {
                BodyInstruction instruction = code[i] ?? throw Refuse($"instruction {i} of the list is null");
                foreach (PlanLabel label in instruction.Labels)
                    MarkLabel(label);
                if (instruction.OriginalOffset is { } old && mapped.Add(old))
                    _map.Add(new ILMapSpec((uint)old, (uint)_il.Offset, true));
                _replayOffsets.Add(_il.Offset);
                Encode(instruction, i);
            }
            foreach (PlanLabel label in original.Pending)
                MarkLabel(label);
            foreach (PlanExceptionRegion region in regions)
                EncodeRegion(region);
        }
        finally
        {
            _replaying = false;
            _replayToken = null;
        }
    }

    private void ResetEncoding()
    {
        _code = new BlobBuilder();
        _flow = new ControlFlowBuilder();
        _il = new InstructionEncoder(_code, _flow);
        // The plan's labels, with the same handles (a ControlFlowBuilder numbers them 1, 2, ...).
        for (int i = 0; i < _labelCount; i++)
            _il.DefineLabel();
        _table = new RelocationTable();
        _symbols = new SymbolResolver(_module, Target, _table);
        _map.Clear();
        _replayOffsets.Clear();
        _listing.Clear();
        _labelDepth.Clear();
        _marked.Clear();
        _symbolic.Clear();
        _labelOffsets.Clear();
        _regions.Clear();
        _catchRelocations.Clear();
        _depth = _maxDepth = _instructions = _listed = 0;
        _hasCatch = _localloc = false;
        _lowered = null;
    }

    private void Encode(BodyInstruction instruction, int index)
    {
        OpCode op = instruction.OpCode;
        object? operand = instruction.Operand;
        // An instruction read from another target's original: its tokens mean nothing here
        // (another module, or another generic context); it is named by its symbol.
        OriginalBodyReader? foreign = instruction.Source is { } source && source.Target != Original.Reader.Target
            ? source : null;
        if (operand is OriginalToken token)
        {
            object symbol = (foreign ?? Original.Reader).Resolve(op.OperandType, token.Token, instruction.OriginalOffset ?? -1);
            if (foreign is null)
            {
                EncodeOriginal(op, token.Token, symbol);
                return;
            }
            operand = symbol;
        }
        else if (foreign is null && instruction.KeepsOriginalToken)
        {
            EncodeOriginal(op, instruction.OriginalTokenValue, operand!);
            return;
        }
        switch (operand)
        {
            case null:
                Emit(op);
                break;
            case int value:
                Emit(op, value);
                break;
            case sbyte value:
                Emit(op, value);
                break;
            case byte value:
                Emit(op, value);
                break;
            case short value:
                Emit(op, value);
                break;
            case long value:
                Emit(op, value);
                break;
            case float value:
                Emit(op, value);
                break;
            case double value:
                Emit(op, value);
                break;
            case string value:
                Emit(op, value);
                break;
            case MethodInfo method:
                Emit(op, method);
                break;
            case ConstructorInfo constructor:
                Emit(op, constructor);
                break;
            case FieldInfo field:
                Emit(op, field);
                break;
            case Type type:
                Emit(op, type);
                break;
            case PlanLabel label:
                Emit(op, label);
                break;
            case PlanLabel[] labels:
                Emit(op, labels);
                break;
            case PlanLocal local:
                Emit(op, local);
                break;
            case OwnInstantiation own:
                EmitOwnInstantiation(own);
                break;
            case CalliSignature calli:
                Expect(op, "a signature", OperandType.InlineSig);
                EmitCalli(op, calli.Convention, calli.HasThis, calli.ReturnType, calli.ParameterTypes);
                break;
            default:
                throw Refuse($"instruction {index} ({op.Name}) has an operand of type {operand.GetType().Name}, " +
                             "which a plan does not take (see BodyInstruction.Operand)");
        }
    }

    /// <summary>An instruction of the original with its original token: the symbol it resolves to
    /// is recorded for the stack-type check and the listing; the token is written as is.</summary>
    private void EncodeOriginal(OpCode op, int token, object symbol)
    {
        if (!OpCodeTable.IsToken(op.OperandType))
            throw Refuse($"{op.Name} does not take a token, but was given {new OriginalToken(token)}");
        if (symbol is CalliSignature calli)
        {
            Expect(op, "a signature", OperandType.InlineSig);
            var operand = Operand.Direct(token);
            Record(op, calli);
            Token(op, operand);
            Stack(calli.ParameterTypes.Length + 1 + (calli.HasThis ? 1 : 0), calli.ReturnType == typeof(void) ? 0 : 1);
            List(op, BodyInstruction.Describe(calli), operand);
            return;
        }
        _replayToken = token;
        try
        {
            switch (symbol)
            {
                case MethodInfo method:
                    Emit(op, method);
                    break;
                case ConstructorInfo constructor:
                    Emit(op, constructor);
                    break;
                case FieldInfo field:
                    Emit(op, field);
                    break;
                case Type type:
                    Emit(op, type);
                    break;
                case string value:
                    Emit(op, value);
                    break;
                default:
                    throw Refuse($"{op.Name} {new OriginalToken(token)} names {symbol.GetType().Name}, which a plan does not take");
            }
        }
        finally
        {
            _replayToken = null;
        }
    }

    private void EncodeRegion(PlanExceptionRegion region)
    {
        switch (region.Kind)
        {
            case PlanRegionKind.Catch:
                AddCatchRegion(region.TryStart, region.TryEnd, region.HandlerStart, region.HandlerEnd,
                    region.CatchType ?? typeof(object));
                break;
            case PlanRegionKind.Finally:
                AddFinallyRegion(region.TryStart, region.TryEnd, region.HandlerStart, region.HandlerEnd);
                break;
            case PlanRegionKind.Fault:
                AddFaultRegion(region.TryStart, region.TryEnd, region.HandlerStart, region.HandlerEnd);
                break;
            case PlanRegionKind.Filter:
                PlanLabel filter = region.FilterStart ?? throw Refuse($"{region} has no filter label");
                OwnAll(region.TryStart, region.TryEnd, region.HandlerStart, region.HandlerEnd, filter);
                _flow.AddFilterRegion(region.TryStart.Handle, region.TryEnd.Handle, region.HandlerStart.Handle,
                    region.HandlerEnd.Handle, filter.Handle);
                _regions.Add(new PlanRegion(PlanRegionKind.Filter, region.TryStart, region.HandlerStart, null, filter));
                _hasCatch = true;
                _listing.Add($"  {region}");
                break;
        }
    }

    /// <summary>The regions in the order the EH section must list them: every region nested in
    /// another before it (ECMA-335 II.19), otherwise as they are.</summary>
    private List<PlanExceptionRegion> InnerFirst(OriginalBody original)
    {
        var position = new Dictionary<int, int>();
        for (int i = 0; i < original.Instructions.Count; i++)
            foreach (PlanLabel label in original.Instructions[i]?.Labels ?? [])
                position.TryAdd(label.Id, i);
        foreach (PlanLabel label in original.Pending)
            position.TryAdd(label.Id, original.Instructions.Count);
        int At(PlanLabel label) => position.TryGetValue(label.Id, out int p) ? p
            : throw Refuse($"label {label} of an exception region is not placed at any instruction");
        var spans = new Dictionary<PlanExceptionRegion, RegionSpan>();
        foreach (PlanExceptionRegion r in original.Regions)
        {
            int tryStart = At(r.TryStart), tryEnd = At(r.TryEnd), handlerEnd = At(r.HandlerEnd);
            int handlerStart = Math.Min(At(r.HandlerStart), r.FilterStart is { } f ? At(f) : int.MaxValue);
            spans.Add(r, new RegionSpan(tryStart, tryEnd, handlerStart, handlerEnd,
                Math.Min(tryStart, handlerStart), Math.Max(tryEnd, handlerEnd)));
        }
        bool Inside(PlanExceptionRegion inner, PlanExceptionRegion outer)
        {
            RegionSpan a = spans[inner];
            RegionSpan b = spans[outer];
            return !ReferenceEquals(inner, outer) &&
                   (a.Start >= b.TryStart && a.End <= b.TryEnd || a.Start >= b.HandlerStart && a.End <= b.HandlerEnd);
        }
        var remaining = new List<PlanExceptionRegion>(original.Regions);
        var ordered = new List<PlanExceptionRegion>(remaining.Count);
        while (remaining.Count > 0)
        {
            PlanExceptionRegion next = remaining.FirstOrDefault(r => !remaining.Any(other => Inside(other, r))) ?? remaining[0];
            ordered.Add(next);
            remaining.Remove(next);
        }
        return ordered;
    }

    /// <summary>Where a region lies, by instruction positions (a class: a framework collection of it needs no
    /// code compiled at run time).</summary>
    private sealed record RegionSpan(int TryStart, int TryEnd, int HandlerStart, int HandlerEnd, int Start, int End);

    /// <summary>The original's locals signature with the locals declared since appended:
    /// ECMA-335 II.23.2.6, the original's entries as they are (its tokens stay), the count updated.</summary>
    private RelocationRequest OriginalLocalsSignature(OriginalBody original)
    {
        List<PlanLocal> added = [.. _locals.Skip(original.LocalCount)];
        byte[] tail = _symbols.Writer.Locals([.. added.Select(l =>
        {
            SigType t = SigType.From(l.LocalType);
            return l.IsPinned ? new SigType.Pinned(t) : t;
        })], "locals");
        var reader = new BlobReader();
        int header;
        unsafe
        {
            fixed (byte* p = tail)
            {
                reader = new BlobReader(p, tail.Length);
                reader.ReadSignatureHeader();
                reader.ReadCompressedInteger();
                header = reader.Offset;
            }
        }
        var blob = new BlobBuilder();
        blob.WriteByte((byte)SignatureKind.LocalVariables);
        blob.WriteCompressedInteger(_locals.Count);
        blob.WriteBytes(original.LocalEntries);
        blob.WriteBytes(tail, header, tail.Length - header);
        return new RelocationRequest(RelocationKind.StandAloneSignature, blob.ToArray(), null, Parent.None,
            $"locals: StandAloneSig (the original's {original.LocalCount}, then " +
            $"{string.Join(", ", added.Select(l => Names.Of(l.LocalType)))})");
    }

    /// <summary>Everything a FromOriginal plan's lowering depends on that can change after it:
    /// each instruction (which one, its opcode, operand, a switch's labels, its labels, its
    /// original offset), the labels pending at the end, the regions, the locals and the
    /// settings. Equal, the plan lowers to the same generation.</summary>
    private sealed class LoweringState
    {
        private readonly BodyInstruction[] _instructions;
        private readonly OpCode[] _opcodes;
        private readonly object?[] _operands;
        private readonly PlanLabel[]?[] _switchTargets;
        private readonly PlanLabel[][] _labels;
        private readonly int?[] _originalOffsets;
        private readonly PlanLabel[] _pending;
        private readonly PlanExceptionRegion[] _regions;
        private readonly int _locals;
        private readonly int? _maxStack;
        private readonly bool _unverifiable, _skipStackCheck;
        private readonly Func<LoweredGeneration, LoweredGeneration>? _afterLowering;

        private LoweringState(GenerationPlan plan)
        {
            OriginalBody original = plan.Original;
            int count = original.Instructions.Count;
            _instructions = [.. original.Instructions];
            _opcodes = new OpCode[count];
            _operands = new object?[count];
            _switchTargets = new PlanLabel[]?[count];
            _labels = new PlanLabel[count][];
            _originalOffsets = new int?[count];
            for (int i = 0; i < count; i++)
            {
                BodyInstruction instruction = _instructions[i];
                _opcodes[i] = instruction.OpCode;
                _operands[i] = instruction.Operand;
                _switchTargets[i] = instruction.Operand is PlanLabel[] targets ? [.. targets] : null;
                _labels[i] = [.. instruction.Labels];
                _originalOffsets[i] = instruction.OriginalOffset;
            }
            _pending = [.. original.Pending];
            _regions = [.. original.Regions];
            _locals = plan._locals.Count;
            _maxStack = plan.MaxStack;
            _unverifiable = plan._unverifiable;
            _skipStackCheck = plan.SkipPlanStackCheck;
            _afterLowering = plan.AfterLowering;
        }

        public static LoweringState Of(GenerationPlan plan) => new(plan);

        public bool Matches(GenerationPlan plan)
        {
            OriginalBody original = plan.Original;
            List<BodyInstruction> code = original.Instructions;
            if (code.Count != _instructions.Length || _locals != plan._locals.Count || _maxStack != plan.MaxStack ||
                _unverifiable != plan._unverifiable || _skipStackCheck != plan.SkipPlanStackCheck ||
                _afterLowering != plan.AfterLowering || !Same(_pending, original.Pending) ||
                original.Regions.Count != _regions.Length)
                return false;
            for (int i = 0; i < _regions.Length; i++)
                if (!ReferenceEquals(_regions[i], original.Regions[i]))
                    return false;
            for (int i = 0; i < code.Count; i++)
            {
                BodyInstruction instruction = code[i];
                if (!ReferenceEquals(instruction, _instructions[i]) || instruction.OpCode != _opcodes[i] ||
                    !Equals(instruction.Operand, _operands[i]) || instruction.OriginalOffset != _originalOffsets[i] ||
                    !Same(_labels[i], instruction.Labels))
                    return false;
                if (_switchTargets[i] is { } targets && !Same(targets, (PlanLabel[])instruction.Operand!))
                    return false;
            }
            return true;
        }

        private static bool Same(PlanLabel[] kept, IList<PlanLabel> now)
        {
            if (kept.Length != now.Count)
                return false;
            for (int i = 0; i < kept.Length; i++)
                if (kept[i] != now[i])
                    return false;
            return true;
        }
    }
}
