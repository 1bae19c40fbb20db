using System.Buffers.Binary;
using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.InteropServices;
using System.Text;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

/// <summary>A branch target in a <see cref="GenerationPlan"/> (from <see cref="GenerationPlan.DefineLabel"/>).</summary>
public readonly struct PlanLabel : IEquatable<PlanLabel>
{
    internal PlanLabel(GenerationPlan plan, LabelHandle handle)
    {
        Plan = plan;
        Handle = handle;
    }

    internal GenerationPlan? Plan { get; }

    internal LabelHandle Handle { get; }

    /// <summary>The label's number in its plan (1, 2, ...), as listings show it (L1, L2, ...).</summary>
    public int Id => Handle.Id;

    /// <inheritdoc/>
    public bool Equals(PlanLabel other) => ReferenceEquals(Plan, other.Plan) && Handle.Equals(other.Handle);

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is PlanLabel other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => Handle.GetHashCode();

    /// <summary>Whether two labels are the same label of the same plan.</summary>
    public static bool operator ==(PlanLabel left, PlanLabel right) => left.Equals(right);

    /// <summary>Whether two labels differ.</summary>
    public static bool operator !=(PlanLabel left, PlanLabel right) => !left.Equals(right);

    /// <inheritdoc/>
    public override string ToString() => $"L{Id}";
}

/// <summary>A local variable of a <see cref="GenerationPlan"/> (from <see cref="GenerationPlan.DeclareLocal"/>).</summary>
public sealed class PlanLocal
{
    internal PlanLocal(GenerationPlan plan, int index, Type type, bool pinned)
    {
        Plan = plan;
        Index = index;
        LocalType = type;
        IsPinned = pinned;
    }

    internal GenerationPlan Plan { get; }

    /// <summary>The local's slot (0, 1, ...).</summary>
    public int Index { get; }

    /// <summary>The local's type.</summary>
    public Type LocalType { get; }

    /// <summary>Whether the local pins what it refers to.</summary>
    public bool IsPinned { get; }

    /// <inheritdoc/>
    public override string ToString() => $"V_{Index} ({Names.Of(LocalType)})";
}

/// <summary>
/// A new body for one method, written the way <see cref="ILGenerator"/> writes IL, against
/// ordinary reflection symbols: <see cref="MethodInfo"/> (generic instantiations included),
/// <see cref="ConstructorInfo"/>, <see cref="FieldInfo"/>, <see cref="Type"/>, calli signatures,
/// labels and locals. Give it to <see cref="Interceptor.Apply(GenerationPlan, PatchOwner?)"/>:
/// the target runs the new body from its next call, and <see cref="Patch.Remove"/> restores the
/// original.
/// </summary>
/// <remarks>
/// <para>The plan is lowered with System.Reflection.Metadata into the exact body bytes the
/// profiler takes. Members and types the target's module defines are named by their own tokens;
/// everything else becomes a relocation the profiler emits into the module: a TypeRef (through
/// an AssemblyRef the module already has) for a type of another assembly, a TypeSpec for a
/// constructed generic, array or pointer type, a MemberRef for a method, constructor or field of
/// another assembly or of a generic type, a MethodSpec for a generic method instantiation, a
/// StandAloneSig for a calli signature and for the locals, a user string for an ldstr literal
/// the module does not have, and a catch-type relocation for a catch clause whose exception
/// type the module neither defines nor references (ABI 3.3).</para>
/// <para>A class or struct of another assembly that appears inside a signature (a generic
/// argument, a parameter of a referenced method, a local) and that the module does not
/// reference yet is a TypeRef relocation too, which the signature names by a class reference
/// (ABI 3.3); the profiler puts the TypeRef's token in its place before it defines the
/// signature. Each such type takes one relocation, shared by every signature and parent that
/// names it. Identical references share one relocation however many instructions name them (its
/// other operands are the relocation's sites), so a generation's relocations are its distinct
/// references: it carries at most 4,096 of every kind, the locals signature and ASSEMBLY_REF
/// relocations included, and at most 16,384 operands beyond each relocation's first. A type of an assembly the module has no AssemblyRef for is
/// named through an ASSEMBLY_REF relocation (ABI 3.6) when the target's load context binds that
/// assembly's name to that very assembly, and refused otherwise. Such problems are reported as a
/// <see cref="PlanException"/> by the Emit call that introduced them; a
/// <see cref="FromOriginal"/> plan lays its instruction list out only when it is lowered, so its
/// problems surface at Apply (or ApplyMany, RelocationCount; ToString lists them).</para>
/// <para>The body must be type-safe (ECMA-335 III.1.8): <see cref="Interceptor.Apply(GenerationPlan, PatchOwner?)"/>
/// follows the evaluation stack through every instruction with reflection's exact types and
/// throws <see cref="StackTypeMismatchException"/> (offset, instruction, found and expected types)
/// before anything reaches the profiler, which checks again. <see cref="AllowUnverifiable"/> opts
/// a deliberately unverifiable body out.</para>
/// <para>A generation replaces the IL of every instantiation of a generic target at once, so
/// its body must be valid for all of them. Branches are always written in their long form
/// (br.s becomes br). A method or field the loaded assemblies do not have is refused before the
/// body reaches the runtime (<see cref="PatchException"/>, <c>ALVK_E_MEMBER_NOT_FOUND</c>, naming
/// the symbol). A body the JIT rejects makes the target's next call throw (for example
/// <see cref="InvalidProgramException"/>); the profiler then restores the previous body, and
/// <see cref="Patch.ReadLastGeneration"/> says Failed.</para>
/// </remarks>
public sealed partial class GenerationPlan
{
    private const int MaxRelocations = (int)Native.AlvkConstants.MaxRelocations,
        MaxRelocationSites = (int)Native.AlvkConstants.MaxRelocationSites,
        MaxBodyBytes = (int)Native.AlvkConstants.MaxGenerationBodyBytes,
        MaxBlobBytes = (int)Native.AlvkConstants.MaxGenerationBlobBytes;

    // What a relocated catch clause's class token holds until the profiler writes the real one:
    // the last TypeRef row (ControlFlowBuilder takes no nil token).
    private const int CatchTypePlaceholder = 0x01FF_FFFF;

    private readonly ModuleContext _module;
    // The encoder's state: a FromOriginal plan lowers its edited list afresh every time (Replay).
    private BlobBuilder _code = new();
    private ControlFlowBuilder _flow = new();
    private InstructionEncoder _il;
    private RelocationTable _table = new();
    private SymbolResolver _symbols;
    private readonly List<PlanLocal> _locals = [];
    private readonly List<ILMapSpec> _map = [];
    private readonly List<string> _listing = [];
    private readonly Dictionary<int, int> _labelDepth = new();
    private readonly HashSet<int> _marked = [];
    private readonly List<PlanInstruction> _symbolic = [];
    private readonly Dictionary<int, int> _labelOffsets = new();
    private readonly List<PlanRegion> _regions = [];
    private readonly List<CatchRelocation> _catchRelocations = [];
    private int _depth, _maxDepth, _instructions, _listed, _labelCount;
    private bool _hasCatch, _localloc, _unverifiable;
    private LoweredGeneration? _lowered;

    /// <summary>An empty plan for a new body of <paramref name="target"/>.</summary>
    /// <param name="target">The method whose body the plan replaces: a method or constructor with
    /// IL, in a module ALVORKIT_INTERCEPTION_MODULES allows. A closed generic target
    /// (<c>Holder&lt;int&gt;.Show</c>, <c>M&lt;int&gt;</c>) stands for its definition: a generation
    /// replaces the IL every instantiation shares, so <see cref="Target"/> is the definition and
    /// the body is checked against it (its generic parameters, not one instantiation's arguments).</param>
    public GenerationPlan(MethodBase target)
    {
        ArgumentNullException.ThrowIfNull(target);
        if (target is DynamicMethod or MethodBuilder or ConstructorBuilder)
            throw new NotSupportedException($"{target.Name} is being emitted at runtime; only methods of loaded assemblies can be patched.");
        if (target.IsAbstract)
            throw new NotSupportedException($"{Names.Of(target)} is abstract: it has no body to replace.");
        Target = target = TargetDefinition.Of(target);
        _module = ModuleContext.For(target.Module);
        _il = new InstructionEncoder(_code, _flow);
        _symbols = new SymbolResolver(_module, target, _table);
    }

    /// <summary>The method whose body this plan replaces (the definition of a generic one).</summary>
    public MethodBase Target { get; }

    /// <summary>A name for logs and listings, such as "double score".</summary>
    public string? Name { get; init; }

    /// <summary>The body's max stack. Left null, the plan estimates it from the instructions
    /// (conservatively); set it when the estimate is not enough.</summary>
    public int? MaxStack { get; set; }

    /// <summary>The offset the next instruction will have.</summary>
    /// <exception cref="InvalidOperationException">The plan was made by <see cref="FromOriginal"/>:
    /// its instruction list is laid out only when it is lowered, so an offset while it is edited
    /// has no meaning (<see cref="BodyInstruction.OriginalOffset"/> names the original's).</exception>
    public int ILOffset => Appending
        ? throw new InvalidOperationException($"Plan for {Title}: a FromOriginal plan's instructions are laid out " +
                                              "when it is lowered (Apply); an offset while it is edited has no meaning.")
        : _il.Offset;

    /// <summary>The locals declared so far.</summary>
    public IReadOnlyList<PlanLocal> Locals => _locals;

    /// <summary>Whether <see cref="AllowUnverifiable"/> was called: the body is applied without
    /// the stack-type check.</summary>
    public bool IsUnverifiable => _unverifiable;

    /// <summary>For the proofs: skips the plan's own stack-type check (the profiler's still runs),
    /// to show that the profiler's refusal surfaces as the same exception.</summary>
    internal bool SkipPlanStackCheck { get; set; }

    /// <summary>For the proofs: changes the lowered generation (a malformed relocation no plan
    /// writes), to show how a refusal of the profiler's own validation surfaces.</summary>
    internal Func<LoweredGeneration, LoweredGeneration>? AfterLowering { get; set; }

    /// <summary>Relocations the plan needs so far, one per distinct reference (the profiler takes at most 4,096, the locals
    /// signature and ASSEMBLY_REF relocations included). For a FromOriginal plan, those of its
    /// instruction list as it is now (the list is laid out to count them).</summary>
    /// <exception cref="PlanException">A FromOriginal plan's list cannot be laid out as it is.</exception>
    public int RelocationCount
    {
        get
        {
            if (IsFromOriginal)
                Replay();
            return CurrentRelocations;
        }
    }

    private int CurrentRelocations => _table.Count + (NeedsLocalsRelocation ? 1 : 0);

    // A FromOriginal plan without new locals names the original's own locals signature.
    private bool NeedsLocalsRelocation => _locals.Count > (_original?.LocalSignatureToken is > 0 ? _original.LocalCount : 0);

    // -------------------------------------------------------------- labels, locals

    /// <summary>A new label; place it with <see cref="MarkLabel"/>.</summary>
    public PlanLabel DefineLabel()
    {
        _labelCount++;
        return new PlanLabel(this, _il.DefineLabel());
    }

    /// <summary>Places <paramref name="label"/> at the next instruction.</summary>
    public void MarkLabel(PlanLabel label)
    {
        Own(label);
        if (Appending)
        {
            AppendLabel(label);
            return;
        }
        if (!_marked.Add(label.Id))
            throw Refuse($"label {label} is already marked");
        _il.MarkLabel(label.Handle);
        _labelOffsets[label.Id] = _il.Offset;
        if (_labelDepth.TryGetValue(label.Id, out int depth))
            _depth = Math.Max(_depth, depth);
        _listing.Add(label.ToString() + ":");
        Changed();
    }

    /// <summary>Declares a local variable (zero-initialized).</summary>
    /// <param name="localType">Its type; a by-reference type declares a ref local.</param>
    /// <param name="pinned">Whether it pins what it refers to.</param>
    public PlanLocal DeclareLocal(Type localType, bool pinned = false)
    {
        ArgumentNullException.ThrowIfNull(localType);
        var local = new PlanLocal(this, _locals.Count, localType, pinned);
        _locals.Add(local);
        // Checked now, so a type the module cannot name is reported here.
        LocalsSignature();
        Changed();
        return local;
    }

    // ---------------------------------------------------------------- instructions

    /// <summary>An instruction without an operand (add, ret, ldarg.0, conv.i, ...).</summary>
    public void Emit(OpCode opcode)
    {
        Expect(opcode, "no operand", OperandType.InlineNone);
        if (Appending)
        {
            Append(opcode, null);
            return;
        }
        Record(opcode, null);
        _il.OpCode(Code(opcode));
        _localloc |= opcode == OpCodes.Localloc;
        Account(opcode);
        List(opcode, "");
    }

    /// <summary>An instruction with a numeric operand: ldc.i4.s, ldc.i4, ldarg.s, ldarg,
    /// starg, ldarga, unaligned. The value must fit the opcode's operand.</summary>
    public void Emit(OpCode opcode, int value)
    {
        if (Appending)
        {
            Append(opcode, value);
            return;
        }
        int at = _il.Offset;
        switch (opcode.OperandType)
        {
            case OperandType.ShortInlineI:
                if (value is < sbyte.MinValue or > byte.MaxValue ||
                    (opcode == OpCodes.Ldc_I4_S && value > sbyte.MaxValue))
                    throw Refuse($"{opcode.Name} takes one byte; {value} does not fit (use ldc.i4)");
                _il.OpCode(Code(opcode));
                _il.CodeBuilder.WriteByte(unchecked((byte)value));
                break;
            case OperandType.ShortInlineVar:
                if (value is < 0 or > byte.MaxValue)
                    throw Refuse($"{opcode.Name} takes an index from 0 to 255; {value} does not fit");
                _il.OpCode(Code(opcode));
                _il.CodeBuilder.WriteByte((byte)value);
                break;
            case OperandType.InlineVar:
                if (value is < 0 or > ushort.MaxValue)
                    throw Refuse($"{opcode.Name} takes an index from 0 to 65535; {value} does not fit");
                _il.OpCode(Code(opcode));
                _il.CodeBuilder.WriteUInt16((ushort)value);
                break;
            case OperandType.InlineI:
                _il.OpCode(Code(opcode));
                _il.CodeBuilder.WriteInt32(value);
                break;
            case OperandType.InlineI8:
                Emit(opcode, (long)value);
                return;
            default:
                throw Refuse($"{opcode.Name} does not take a number ({Expects(opcode)})");
        }
        _symbolic.Add(new PlanInstruction(at, opcode, value));
        Account(opcode);
        List(opcode, value.ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>An instruction with a one-byte operand (ldc.i4.s, ldarg.s, ...).</summary>
    public void Emit(OpCode opcode, sbyte value) => Emit(opcode, (int)value);

    /// <summary>An instruction with a one-byte operand (ldarg.s, ldloc.s, unaligned, ...).</summary>
    public void Emit(OpCode opcode, byte value) => Emit(opcode, (int)value);

    /// <summary>An instruction with a two-byte index (ldarg, starg, ldarga).</summary>
    public void Emit(OpCode opcode, short value) => Emit(opcode, (int)value);

    /// <summary>ldc.i8.</summary>
    public void Emit(OpCode opcode, long value)
    {
        Expect(opcode, "a long", OperandType.InlineI8);
        if (Appending)
        {
            Append(opcode, value);
            return;
        }
        Record(opcode, value);
        _il.OpCode(Code(opcode));
        _il.CodeBuilder.WriteInt64(value);
        Account(opcode);
        List(opcode, value.ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>ldc.r4.</summary>
    public void Emit(OpCode opcode, float value)
    {
        Expect(opcode, "a float", OperandType.ShortInlineR);
        if (Appending)
        {
            Append(opcode, value);
            return;
        }
        Record(opcode, value);
        _il.OpCode(Code(opcode));
        _il.CodeBuilder.WriteSingle(value);
        Account(opcode);
        List(opcode, value.ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>ldc.r8.</summary>
    public void Emit(OpCode opcode, double value)
    {
        Expect(opcode, "a double", OperandType.InlineR);
        if (Appending)
        {
            Append(opcode, value);
            return;
        }
        Record(opcode, value);
        _il.OpCode(Code(opcode));
        _il.CodeBuilder.WriteDouble(value);
        Account(opcode);
        List(opcode, value.ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>A branch (br, brtrue, beq, leave, ... and their short forms, which are written
    /// in the long form).</summary>
    public void Emit(OpCode opcode, PlanLabel label)
    {
        Expect(opcode, "a label", OperandType.InlineBrTarget, OperandType.ShortInlineBrTarget);
        Own(label);
        if (Appending)
        {
            Append(opcode, label);
            return;
        }
        ILOpCode code = Code(opcode);
        if (opcode.OperandType == OperandType.ShortInlineBrTarget)
            code = code.GetLongBranch();
        Record(opcode, label);
        _il.Branch(code, label.Handle);
        if (code is ILOpCode.Leave)
            _depth = 0;
        Account(opcode);
        Reach(label);
        // Listed as written: the long form (every long branch is a one-byte opcode).
        List(IL.OpCodeTable.Find((byte)(ushort)code, 0) ?? opcode, label.ToString());
    }

    /// <summary>switch over <paramref name="labels"/>.</summary>
    public void Emit(OpCode opcode, PlanLabel[] labels)
    {
        ArgumentNullException.ThrowIfNull(labels);
        Expect(opcode, "labels", OperandType.InlineSwitch);
        foreach (PlanLabel l in labels)
            Own(l);
        if (Appending)
        {
            Append(opcode, labels.ToArray());
            return;
        }
        Record(opcode, labels.ToArray());
        SwitchInstructionEncoder table = _il.Switch(labels.Length);
        Account(opcode);
        foreach (PlanLabel l in labels)
        {
            table.Branch(l.Handle);
            Reach(l);
        }
        List(opcode, $"({string.Join(", ", labels)})");
    }

    /// <summary>ldloc, stloc or ldloca (any form) of a declared local; the shortest encoding is written.</summary>
    public void Emit(OpCode opcode, PlanLocal local)
    {
        ArgumentNullException.ThrowIfNull(local);
        if (!ReferenceEquals(local.Plan, this))
            throw Refuse($"{local} belongs to another plan");
        if (Appending && (opcode.OperandType is OperandType.InlineVar or OperandType.ShortInlineVar))
        {
            Append(opcode, local);
            return;
        }
        if (opcode == OpCodes.Ldloc || opcode == OpCodes.Ldloc_S)
            LoadLocal(local);
        else if (opcode == OpCodes.Stloc || opcode == OpCodes.Stloc_S)
            StoreLocal(local);
        else if (opcode == OpCodes.Ldloca || opcode == OpCodes.Ldloca_S)
            LoadLocalAddress(local);
        else
            throw Refuse($"{opcode.Name} does not take a local; use ldloc, stloc or ldloca");
    }

    /// <summary>call, callvirt, ldftn, ldvirtftn, jmp or ldtoken of a method (a generic method
    /// instantiation becomes a MethodSpec).</summary>
    public void Emit(OpCode opcode, MethodInfo method)
    {
        ArgumentNullException.ThrowIfNull(method);
        EmitMethod(opcode, method);
    }

    /// <summary>newobj, call (a base constructor) or ldtoken of a constructor.</summary>
    public void Emit(OpCode opcode, ConstructorInfo constructor)
    {
        ArgumentNullException.ThrowIfNull(constructor);
        EmitMethod(opcode, constructor);
    }

    /// <summary>ldfld, ldflda, stfld, ldsfld, ldsflda, stsfld or ldtoken of a field.</summary>
    public void Emit(OpCode opcode, FieldInfo field)
    {
        ArgumentNullException.ThrowIfNull(field);
        Expect(opcode, "a field", OperandType.InlineField, OperandType.InlineTok);
        if (Appending)
        {
            Append(opcode, field);
            return;
        }
        string use = Use(opcode, Names.Of(field));
        CheckGenericContext(field.DeclaringType is { ContainsGenericParameters: true }, opcode, use);
        Operand operand = _replayToken is { } original ? Operand.Direct(original) : _symbols.Field(field, use);
        Record(opcode, field);
        Token(opcode, operand);
        Account(opcode);
        List(opcode, Names.Of(field), operand);
    }

    /// <summary>An instruction that takes a type: box, unbox, unbox.any, newarr, castclass,
    /// isinst, initobj, ldobj, stobj, cpobj, sizeof, ldelem, stelem, ldelema, mkrefany, refanyval,
    /// constrained. or ldtoken.</summary>
    public void Emit(OpCode opcode, Type type)
    {
        ArgumentNullException.ThrowIfNull(type);
        Expect(opcode, "a type", OperandType.InlineType, OperandType.InlineTok);
        if (Appending)
        {
            Append(opcode, type);
            return;
        }
        string use = Use(opcode, Names.Of(type));
        CheckGenericContext(type.ContainsGenericParameters && !type.IsGenericTypeDefinition, opcode, use);
        Operand operand = _replayToken is { } original ? Operand.Direct(original) : _symbols.Type(type, use);
        Record(opcode, type);
        Token(opcode, operand);
        Account(opcode);
        List(opcode, Names.Of(type), operand);
    }

    /// <summary>ldstr. A literal the target's module already has is loaded by its token; any
    /// other becomes a user-string relocation the profiler defines in the module.</summary>
    public void Emit(OpCode opcode, string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        Expect(opcode, "a string", OperandType.InlineString);
        if (Appending)
        {
            Append(opcode, value);
            return;
        }
        Operand operand = _replayToken is { } original
            ? Operand.Direct(original)
            : _symbols.UserString(value, Use(opcode, $"\"{value}\""));
        Record(opcode, value);
        Token(opcode, operand);
        Account(opcode);
        List(opcode, $"\"{value}\"", operand.Relocation is null ? null : operand);
    }

    /// <summary>calli through an unmanaged function pointer (the pointer is on the stack, above
    /// the arguments).</summary>
    /// <param name="opcode">OpCodes.Calli.</param>
    /// <param name="unmanagedCallConv">Cdecl, StdCall, ThisCall, FastCall, or Winapi (the
    /// platform's default).</param>
    /// <param name="returnType">The return type (null: void).</param>
    /// <param name="parameterTypes">The parameter types (null: none).</param>
    public void EmitCalli(OpCode opcode, CallingConvention unmanagedCallConv, Type? returnType, Type[]? parameterTypes)
    {
        Expect(opcode, "a signature", OperandType.InlineSig);
        SignatureCallingConvention convention;
        try
        {
            convention = SymbolResolver.Unmanaged(unmanagedCallConv);
        }
        catch (ArgumentOutOfRangeException)
        {
            throw Refuse($"{unmanagedCallConv} is not an unmanaged calling convention (use Cdecl, StdCall, ThisCall, FastCall or Winapi)");
        }
        EmitCalli(opcode, convention, hasThis: false, returnType, parameterTypes);
    }

    /// <summary>calli through a managed function pointer (ldftn's result).</summary>
    /// <param name="opcode">OpCodes.Calli.</param>
    /// <param name="callingConvention">Standard, optionally with HasThis.</param>
    /// <param name="returnType">The return type (null: void).</param>
    /// <param name="parameterTypes">The parameter types (null: none).</param>
    public void EmitCalli(OpCode opcode, CallingConventions callingConvention, Type? returnType, Type[]? parameterTypes)
    {
        Expect(opcode, "a signature", OperandType.InlineSig);
        if ((callingConvention & (CallingConventions.VarArgs | CallingConventions.ExplicitThis)) != 0)
            throw Refuse("varargs and explicit-this calli signatures are not supported");
        EmitCalli(opcode, SignatureCallingConvention.Default, (callingConvention & CallingConventions.HasThis) != 0,
            returnType, parameterTypes);
    }

    private void EmitCalli(OpCode opcode, SignatureCallingConvention convention, bool hasThis, Type? returnType,
        Type[]? parameterTypes)
    {
        if (Appending)
        {
            Append(opcode, new CalliSignature(hasThis, returnType ?? typeof(void), parameterTypes ?? [], convention));
            return;
        }
        string use = Use(opcode, "signature");
        Operand operand = _symbols.Calli(convention, hasThis, returnType, parameterTypes, use);
        Record(opcode, new CalliSignature(hasThis, returnType ?? typeof(void), parameterTypes ?? [], convention));
        Token(opcode, operand);
        int pops = (parameterTypes?.Length ?? 0) + 1 + (hasThis ? 1 : 0);
        Stack(pops, returnType is null || returnType == typeof(void) ? 0 : 1);
        List(opcode, operand.Relocation!.Description[(use.Length + 2)..], operand);
    }

    // ---------------------------------------------------------------- shorthands

    /// <summary>ldarg with the shortest encoding (for an instance target, 0 is the receiver).</summary>
    public void LoadArgument(int index)
    {
        CheckArgument(index);
        if (Appending)
        {
            Append(OpCodes.Ldarg, index);
            return;
        }
        Record(OpCodes.Ldarg, index);
        _il.LoadArgument(index);
        Stack(0, 1);
        Line($"ldarg {index}");
        Changed();
    }

    /// <summary>ldarga with the shortest encoding.</summary>
    public void LoadArgumentAddress(int index)
    {
        CheckArgument(index);
        if (Appending)
        {
            Append(OpCodes.Ldarga, index);
            return;
        }
        Record(OpCodes.Ldarga, index);
        _il.LoadArgumentAddress(index);
        Stack(0, 1);
        Line($"ldarga {index}");
        Changed();
    }

    /// <summary>starg with the shortest encoding.</summary>
    public void StoreArgument(int index)
    {
        CheckArgument(index);
        if (Appending)
        {
            Append(OpCodes.Starg, index);
            return;
        }
        Record(OpCodes.Starg, index);
        _il.StoreArgument(index);
        Stack(1, 0);
        Line($"starg {index}");
        Changed();
    }

    /// <summary>ldloc with the shortest encoding.</summary>
    public void LoadLocal(PlanLocal local)
    {
        Mine(local);
        if (Appending)
        {
            Append(OpCodes.Ldloc, local);
            return;
        }
        Record(OpCodes.Ldloc, local);
        _il.LoadLocal(local.Index);
        Stack(0, 1);
        Line($"ldloc {local}");
        Changed();
    }

    /// <summary>stloc with the shortest encoding.</summary>
    public void StoreLocal(PlanLocal local)
    {
        Mine(local);
        if (Appending)
        {
            Append(OpCodes.Stloc, local);
            return;
        }
        Record(OpCodes.Stloc, local);
        _il.StoreLocal(local.Index);
        Stack(1, 0);
        Line($"stloc {local}");
        Changed();
    }

    /// <summary>ldloca with the shortest encoding.</summary>
    public void LoadLocalAddress(PlanLocal local)
    {
        Mine(local);
        if (Appending)
        {
            Append(OpCodes.Ldloca, local);
            return;
        }
        Record(OpCodes.Ldloca, local);
        _il.LoadLocalAddress(local.Index);
        Stack(0, 1);
        Line($"ldloca {local}");
        Changed();
    }

    /// <summary>ldc.i4 with the shortest encoding.</summary>
    public void LoadConstant(int value)
    {
        if (Appending)
        {
            Append(OpCodes.Ldc_I4, value);
            return;
        }
        Record(OpCodes.Ldc_I4, value);
        _il.LoadConstantI4(value);
        Stack(0, 1);
        Line($"ldc.i4 {value}");
        Changed();
    }

    /// <summary>ldc.i8.</summary>
    public void LoadConstant(long value) => Emit(OpCodes.Ldc_I8, value);

    /// <summary>ldc.r4.</summary>
    public void LoadConstant(float value) => Emit(OpCodes.Ldc_R4, value);

    /// <summary>ldc.r8.</summary>
    public void LoadConstant(double value) => Emit(OpCodes.Ldc_R8, value);

    /// <summary>call for static and non-virtual methods, callvirt for virtual ones.</summary>
    public void Call(MethodInfo method)
    {
        ArgumentNullException.ThrowIfNull(method);
        Emit(method.IsVirtual && !method.IsFinal ? OpCodes.Callvirt : OpCodes.Call, method);
    }

    /// <summary>ret.</summary>
    public void Return() => Emit(OpCodes.Ret);

    // ----------------------------------------------------------- exception regions

    /// <summary>A catch clause for <paramref name="exceptionType"/>. The type is written into the body's EH
    /// section: by its token when the target's module defines or references it, otherwise as a
    /// catch-type relocation (a TypeRef, or a TypeSpec for a constructed type) the profiler
    /// writes into the clause.</summary>
    public void AddCatchRegion(PlanLabel tryStart, PlanLabel tryEnd, PlanLabel handlerStart, PlanLabel handlerEnd,
        Type exceptionType)
    {
        ArgumentNullException.ThrowIfNull(exceptionType);
        OwnAll(tryStart, tryEnd, handlerStart, handlerEnd);
        if (Appending)
        {
            AppendRegion(new PlanExceptionRegion(PlanRegionKind.Catch, tryStart, tryEnd, handlerStart, handlerEnd, null,
                exceptionType));
            return;
        }
        // A generic exception type's definition is never its own token here: it goes through the resolver (a
        // TypeSpec over the target's generic parameters, or refused outside their context).
        int token = exceptionType.IsGenericTypeDefinition ? 0
            : _module.Defines(exceptionType) ? exceptionType.MetadataToken : _module.ExistingTypeRef(exceptionType);
        if (token == 0)
        {
            Operand operand = _symbols.Type(exceptionType, $"catch {Names.Of(exceptionType)}");
            if (operand.Relocation is { } request)
            {
                // Clauses are numbered in the order the regions are added, which is the order the
                // EH section lists them (checked when the plan is lowered).
                _catchRelocations.Add(new CatchRelocation(_regions.Count, tryStart, handlerStart));
                _table.AtOperand(request, RelocationTable.CatchType(_regions.Count));
                if (CurrentRelocations > MaxRelocations)
                    throw Refuse($"this catch clause takes the plan past {MaxRelocations} relocations, the most a generation carries");
            }
            token = operand.Relocation is null ? operand.Token : CatchTypePlaceholder;
        }
        _flow.AddCatchRegion(tryStart.Handle, tryEnd.Handle, handlerStart.Handle, handlerEnd.Handle,
            MetadataTokens.EntityHandle(token));
        _regions.Add(new PlanRegion(PlanRegionKind.Catch, tryStart, handlerStart, exceptionType, null));
        if (_original is null)
            _addedRegions.Add(new PlanExceptionRegion(PlanRegionKind.Catch, tryStart, tryEnd, handlerStart, handlerEnd, null,
                exceptionType));
        _hasCatch = true;
        _listing.Add($"  .try {tryStart}..{tryEnd} catch {Names.Of(exceptionType)} {handlerStart}..{handlerEnd}");
        Changed();
    }

    /// <summary>A finally clause.</summary>
    public void AddFinallyRegion(PlanLabel tryStart, PlanLabel tryEnd, PlanLabel handlerStart, PlanLabel handlerEnd)
    {
        OwnAll(tryStart, tryEnd, handlerStart, handlerEnd);
        if (Appending)
        {
            AppendRegion(new PlanExceptionRegion(PlanRegionKind.Finally, tryStart, tryEnd, handlerStart, handlerEnd, null, null));
            return;
        }
        _flow.AddFinallyRegion(tryStart.Handle, tryEnd.Handle, handlerStart.Handle, handlerEnd.Handle);
        _regions.Add(new PlanRegion(PlanRegionKind.Finally, tryStart, handlerStart, null, null));
        if (_original is null)
            _addedRegions.Add(new PlanExceptionRegion(PlanRegionKind.Finally, tryStart, tryEnd, handlerStart, handlerEnd, null, null));
        _listing.Add($"  .try {tryStart}..{tryEnd} finally {handlerStart}..{handlerEnd}");
        Changed();
    }

    /// <summary>A fault clause.</summary>
    public void AddFaultRegion(PlanLabel tryStart, PlanLabel tryEnd, PlanLabel handlerStart, PlanLabel handlerEnd)
    {
        OwnAll(tryStart, tryEnd, handlerStart, handlerEnd);
        if (Appending)
        {
            AppendRegion(new PlanExceptionRegion(PlanRegionKind.Fault, tryStart, tryEnd, handlerStart, handlerEnd, null, null));
            return;
        }
        _flow.AddFaultRegion(tryStart.Handle, tryEnd.Handle, handlerStart.Handle, handlerEnd.Handle);
        _regions.Add(new PlanRegion(PlanRegionKind.Fault, tryStart, handlerStart, null, null));
        if (_original is null)
            _addedRegions.Add(new PlanExceptionRegion(PlanRegionKind.Fault, tryStart, tryEnd, handlerStart, handlerEnd, null, null));
        _listing.Add($"  .try {tryStart}..{tryEnd} fault {handlerStart}..{handlerEnd}");
        Changed();
    }

    // ---------------------------------------------------------------- IL map

    /// <summary>Maps an offset of the original body to the next instruction of this one (for
    /// debuggers and profilers; without a debugger the runtime ignores the map). Without any,
    /// the plan maps the original's start to its own.</summary>
    public void MapOriginalOffset(int originalILOffset, bool accurate = true)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(originalILOffset);
        if (IsFromOriginal)
            throw Refuse("a FromOriginal plan maps every original instruction to its new offset itself");
        if (_map.Any(e => e.OldOffset == (uint)originalILOffset))
            throw Refuse($"original offset {originalILOffset} is already mapped");
        _map.Add(new ILMapSpec((uint)originalILOffset, (uint)_il.Offset, accurate));
        Changed();
    }

    /// <summary>The plan as an IL listing, with the token or relocation of every symbol.</summary>
    public override string ToString()
    {
        string? problem = null;
        if (IsFromOriginal)
        {
            try
            {
                Replay();
            }
            catch (PlanException e)
            {
                problem = e.Message;
            }
        }
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"// {(Name is null ? "" : Name + ": ")}new body of {Names.Of(Target)}");
        text.AppendLine();
        if (_locals.Count > 0)
            text.Append("  .locals (").AppendJoin(", ", _locals).AppendLine(")");
        if (problem is not null)
        {
            // The edited list as it stands, and why it cannot be laid out.
            foreach (BodyInstruction instruction in Instructions)
                text.Append("  ").AppendLine(instruction.ToString());
            return text.Append("  // ").AppendLine(problem).ToString();
        }
        foreach (string line in _listing)
            text.AppendLine(line);
        return text.ToString();
    }

    /// <summary>
    /// Applies the body without the stack-type check, for a body that is deliberately
    /// unverifiable and correct (unsafe code the game itself compiles: pointers reinterpreted,
    /// Unsafe.As shapes). The plan's check and the profiler's (ALVK_INSTALL_UNVERIFIABLE) are both
    /// skipped; a body that is wrong then corrupts the process or is rejected by the JIT.
    /// </summary>
    /// <returns>This plan.</returns>
    public GenerationPlan AllowUnverifiable()
    {
        _unverifiable = true;
        Changed();
        return this;
    }

    /// <summary>A catch region's clause and the labels it was added with, checked against the laid-out EH
    /// section (a class: a framework list of it needs no code compiled at run time).</summary>
    private sealed record CatchRelocation(int Clause, PlanLabel TryStart, PlanLabel HandlerStart);

    // ------------------------------------------------------------------ lowering

    /// <summary>The plan as alvk_generation_submit takes it: complete body (header, code, EH
    /// sections), blob pool, relocations and IL map.</summary>
    internal LoweredGeneration Lower()
    {
        // A plan is checked once per generation: lowered again only when it changed since. A
        // FromOriginal plan's list can change under it (it is public and mutable), so it is kept
        // as it was lowered and compared (Transpilers checks the body they made by lowering it;
        // Apply then submits that lowering, checked once). The profiler validates what it
        // receives again, at the call and on its worker (against the live module).
        if (IsFromOriginal)
        {
            if (_loweredFromOriginal is { } kept && _loweredState is { } state && state.Matches(this))
                return kept;
            Replay();
        }
        else if (_lowered is not null)
            return _lowered;
        if (_instructions == 0)
            throw Refuse("the plan has no instructions");
        int maxStack = MaxStack ?? Math.Max(Math.Max(1, _maxDepth + (_hasCatch ? 1 : 0)), _original?.MaxStack ?? 0);
        if (maxStack is < 0 or > ushort.MaxValue)
            throw Refuse($"MaxStack {maxStack} is out of range");
        var bodyBuilder = new BlobBuilder();
        bool locals = NeedsLocalsRelocation;
        int keptLocals = !locals && _locals.Count > 0 ? _original!.LocalSignatureToken : 0;
        int offset;
        try
        {
            // A non-nil locals token forces a fat header; the LOCALS_SIGNATURE relocation fills it.
            offset = new MethodBodyStreamEncoder(bodyBuilder).AddMethodBody(_il, maxStack,
                locals ? MetadataTokens.StandaloneSignatureHandle(1)
                : keptLocals != 0 ? (StandaloneSignatureHandle)MetadataTokens.EntityHandle(keptLocals) : default,
                InitLocals(locals || keptLocals != 0) ? MethodBodyAttributes.InitLocals : MethodBodyAttributes.None,
                _localloc);
        }
        catch (InvalidOperationException e)
        {
            throw Refuse($"the body cannot be laid out: {e.Message} (is every label marked?)");
        }
        if (!_unverifiable && !SkipPlanStackCheck)
            StackTypeChecker.Check(new PlanBody(Target, Title, _symbolic, _labelOffsets, _regions, _locals));
        byte[] body = bodyBuilder.ToArray();
        if (offset != 0)
            throw new InvalidOperationException($"the method body was laid out at offset {offset}, not 0");
        CheckCatchClauses(body);
        (RelocationRequest, uint)? localsRelocation = null;
        if (locals)
        {
            // The nil StandAloneSig is the placeholder the profiler's validation expects.
            BinaryPrimitives.WriteUInt32LittleEndian(body.AsSpan(8), 0x1100_0000);
            localsRelocation = (LocalsSignature(), RelocationTable.LocalsSignature);
        }
        (List<RelocationSpec> specs, byte[] pool) = _table.Build(localsRelocation);
        if (specs.Count > MaxRelocations)
            throw Refuse($"the plan needs {specs.Count} relocations; a generation carries at most {MaxRelocations}. " +
                         "Move some of the work into a helper method of the target's module and call that instead");
        if (_table.SiteCount > MaxRelocationSites)
            throw Refuse($"the plan's instructions name its references {_table.SiteCount} times beyond the first of each; " +
                         $"a generation takes at most {MaxRelocationSites}. Move some of the work into a helper method " +
                         "of the target's module and call that instead");
        if (body.Length > MaxBodyBytes)
            throw Refuse($"the body is {body.Length} bytes; a generation takes at most {MaxBodyBytes}");
        if (pool.Length > MaxBlobBytes)
            throw Refuse($"the signatures and names take {pool.Length} bytes; a generation takes at most {MaxBlobBytes}");
        // At most ALVK_MAX_IL_MAP_ENTRIES: beyond, the entries of the highest original offsets are dropped.
        List<ILMapSpec> map = _map.Count > 0 ? ByOriginalOffset(_map) : [new ILMapSpec(0, 0, true)];
        _lowered = new LoweredGeneration(body, pool, specs, map, maxStack, _unverifiable);
        if (AfterLowering is { } change)
            _lowered = change(_lowered);
        if (IsFromOriginal)
            (_loweredFromOriginal, _loweredState) = (_lowered, LoweringState.Of(this));
        return _lowered;
    }

    /// <summary>The map's entries by original offset, the first ALVK_MAX_IL_MAP_ENTRIES. Each original offset is
    /// mapped once (MapOriginalOffset refuses a second, Replay maps each once), so the order is total: a sort of
    /// the list itself (precompiled for reference types) instead of a generic LINQ sort compiled at run time.</summary>
    private static List<ILMapSpec> ByOriginalOffset(List<ILMapSpec> entries)
    {
        List<ILMapSpec> sorted = [.. entries];
        sorted.Sort(static (a, b) => a.OldOffset.CompareTo(b.OldOffset));
        int max = (int)Native.AlvkConstants.MaxILMapEntries;
        if (sorted.Count > max)
            sorted.RemoveRange(max, sorted.Count - max);
        return sorted;
    }

    /// <summary>The header's InitLocals flag: a plan's own locals are zero-initialized; a FromOriginal
    /// plan keeps the original's flag ([SkipLocalsInit] originals stay so) unless it declared locals.</summary>
    private bool InitLocals(bool hasLocals) =>
        _original is { } original ? original.InitLocals || _locals.Count > original.LocalCount : hasLocals;

    /// <summary>Each catch-type relocation names the clause the EH section holds for its region.</summary>
    private void CheckCatchClauses(byte[] body)
    {
        if (_catchRelocations.Count == 0)
            return;
        List<IL.EhClause> clauses = IL.MethodBodyFormat.Clauses(body);
        foreach ((int clause, PlanLabel tryStart, PlanLabel handlerStart) in _catchRelocations)
        {
            if (clause >= clauses.Count || clauses[clause].Flags != 0 ||
                clauses[clause].TryOffset != _labelOffsets[tryStart.Id] ||
                clauses[clause].HandlerOffset != _labelOffsets[handlerStart.Id] ||
                clauses[clause].ClassToken != CatchTypePlaceholder)
                throw new InvalidOperationException($"EH clause {clause} is not the catch region it was added as");
        }
    }

    private RelocationRequest LocalsSignature()
    {
        if (_original is { } original)
            return OriginalLocalsSignature(original);
        var types = _locals.Select(l =>
        {
            SigType t = SigType.From(l.LocalType);
            return l.IsPinned ? new SigType.Pinned(t) : t;
        }).ToList();
        return new RelocationRequest(RelocationKind.StandAloneSignature,
            _symbols.Writer.Locals(types, "locals"), null, Parent.None,
            $"locals: StandAloneSig ({string.Join(", ", _locals.Select(l => Names.Of(l.LocalType)))})");
    }

    // ------------------------------------------------------------------ helpers

    private void EmitMethod(OpCode opcode, MethodBase method)
    {
        Expect(opcode, "a method", OperandType.InlineMethod, OperandType.InlineTok);
        if (Appending)
        {
            Append(opcode, method);
            return;
        }
        string use = Use(opcode, Names.Of(method));
        if (opcode == OpCodes.Newobj && method is not ConstructorInfo)
            throw Refuse($"{use}: newobj needs a constructor");
        // A replayed original token stands as it is: M<!!0> inside M<T> (a recursive generic call)
        // resolves to the definition, but its token is the original's MethodSpec.
        if (method is MethodInfo { IsGenericMethodDefinition: true } && opcode != OpCodes.Ldtoken && _replayToken is null)
            throw Refuse($"{use}: {Names.Of(method)} is a generic method definition; call MakeGenericMethod first");
        CheckGenericContext(method.ContainsGenericParameters, opcode, use);
        Operand operand = _replayToken is { } original ? Operand.Direct(original) : _symbols.Method(method, use);
        Record(opcode, method);
        Token(opcode, operand);
        if (opcode == OpCodes.Newobj)
            Stack(method.GetParameters().Length, 1);
        else if (opcode == OpCodes.Call || opcode == OpCodes.Callvirt)
            Stack(method.GetParameters().Length + (method.IsStatic ? 0 : 1),
                method is MethodInfo m && m.ReturnType != typeof(void) ? 1 : 0);
        else
            Account(opcode);
        List(opcode, Names.Of(method), operand);
    }

    // Symbols over generic parameters (T of GenBox<T>, TOut of Map<TOut>) only mean something
    // inside a generic target, where they stand for the target's own parameters (VAR/MVAR).
    private void CheckGenericContext(bool containsGenericParameters, OpCode opcode, string use)
    {
        bool genericTarget = Target.IsGenericMethod || Target.DeclaringType is { IsGenericType: true };
        if (containsGenericParameters && !genericTarget && opcode != OpCodes.Ldtoken)
            throw Refuse($"{use}: the symbol is open over generic parameters, but {Names.Of(Target)} is not generic; " +
                         "close it (MakeGenericType / MakeGenericMethod)");
    }

    private void Token(OpCode opcode, Operand operand)
    {
        _il.OpCode(Code(opcode));
        int at = _il.Offset;
        _il.Token(operand.Placeholder);
        if (operand.Relocation is { } request)
            _table.AtOperand(request, (uint)at);
        if (CurrentRelocations > MaxRelocations)
            throw Refuse($"this instruction takes the plan past {MaxRelocations} relocations, the most a generation carries");
    }

    private static ILOpCode Code(OpCode opcode) => (ILOpCode)(ushort)opcode.Value;

    /// <summary>The name of the instruction the plan wrote at `offset` ("ret"), or null.</summary>
    internal string? InstructionNameAt(int offset)
    {
        foreach (PlanInstruction instruction in _symbolic)
            if (instruction.Offset == offset)
                return instruction.OpCode.Name;
        return null;
    }

    // The instruction about to be written at the current offset, for the stack-type check.
    private void Record(OpCode opcode, object? operand) => _symbolic.Add(new PlanInstruction(_il.Offset, opcode, operand));

    private string Title => $"{Names.Of(Target)}{(Name is null ? "" : $" ({Name})")}";

    private void Expect(OpCode opcode, string given, params OperandType[] accepted)
    {
        if (!Accepts(accepted, opcode.OperandType))
            throw Refuse($"{opcode.Name} was given {given}, but it takes {Expects(opcode)}");
        if (opcode == OpCodes.Calli && accepted[0] != OperandType.InlineSig)
            throw Refuse("calli takes a signature: use EmitCalli");
    }

    // A loop, not the span Contains over an enum, whose generic code is compiled at run time.
    private static bool Accepts(OperandType[] accepted, OperandType type)
    {
        foreach (OperandType a in accepted)
        {
            if (a == type)
                return true;
        }
        return false;
    }

    private static string Expects(OpCode opcode) => opcode.OperandType switch
    {
        OperandType.InlineNone => "no operand",
        OperandType.ShortInlineI or OperandType.InlineI or OperandType.InlineI8 => "a number",
        OperandType.ShortInlineR or OperandType.InlineR => "a floating-point number",
        OperandType.ShortInlineVar or OperandType.InlineVar => "an argument or local index",
        OperandType.InlineBrTarget or OperandType.ShortInlineBrTarget => "a PlanLabel",
        OperandType.InlineSwitch => "PlanLabel[]",
        OperandType.InlineMethod => "a MethodInfo or ConstructorInfo",
        OperandType.InlineField => "a FieldInfo",
        OperandType.InlineType => "a Type",
        OperandType.InlineTok => "a Type, MethodInfo, ConstructorInfo or FieldInfo",
        OperandType.InlineString => "a string",
        OperandType.InlineSig => "a signature (EmitCalli)",
        _ => opcode.OperandType.ToString(),
    };

    private string Use(OpCode opcode, string symbol) => $"{opcode.Name} {symbol} at IL_{_il.Offset:X4}";

    private void Own(PlanLabel label)
    {
        if (!ReferenceEquals(label.Plan, this))
            throw Refuse($"{label} was not defined by this plan (use DefineLabel)");
    }

    private void OwnAll(params PlanLabel[] labels)
    {
        foreach (PlanLabel l in labels)
            Own(l);
    }

    private void Mine(PlanLocal local)
    {
        ArgumentNullException.ThrowIfNull(local);
        if (!ReferenceEquals(local.Plan, this))
            throw Refuse($"{local} belongs to another plan");
    }

    private void CheckArgument(int index)
    {
        int count = Target.GetParameters().Length + (Target.IsStatic ? 0 : 1);
        if (index < 0 || index >= count)
            throw Refuse($"argument {index} does not exist: {Names.Of(Target)} has {count} argument(s)" +
                         (Target.IsStatic ? "" : ", the receiver being argument 0"));
    }

    // Conservative stack depth: pushes and pops per opcode (signatures for calls), the
    // deepest depth a branch brings to a label, and ret popping the target's return value.
    private void Account(OpCode opcode)
    {
        int pops = opcode.StackBehaviourPop switch
        {
            StackBehaviour.Pop0 => 0,
            StackBehaviour.Pop1 or StackBehaviour.Popi or StackBehaviour.Popref => 1,
            StackBehaviour.Pop1_pop1 or StackBehaviour.Popi_pop1 or StackBehaviour.Popi_popi or StackBehaviour.Popi_popi8
                or StackBehaviour.Popi_popr4 or StackBehaviour.Popi_popr8 or StackBehaviour.Popref_pop1
                or StackBehaviour.Popref_popi => 2,
            StackBehaviour.Popi_popi_popi or StackBehaviour.Popref_popi_popi or StackBehaviour.Popref_popi_popi8
                or StackBehaviour.Popref_popi_popr4 or StackBehaviour.Popref_popi_popr8 or StackBehaviour.Popref_popi_popref
                or StackBehaviour.Popref_popi_pop1 => 3,
            StackBehaviour.Varpop when opcode == OpCodes.Ret =>
                ReplacementRules.ReturnTypeOf(Target) == typeof(void) ? 0 : 1,
            _ => 0,
        };
        int pushes = opcode.StackBehaviourPush switch
        {
            StackBehaviour.Push0 => 0,
            StackBehaviour.Push1_push1 => 2,
            StackBehaviour.Varpush => 0,
            _ => 1,
        };
        Stack(pops, pushes);
    }

    private void Stack(int pops, int pushes)
    {
        _depth = Math.Max(0, _depth - pops) + pushes;
        _maxDepth = Math.Max(_maxDepth, _depth);
        _instructions++;
        Changed();
    }

    private void Reach(PlanLabel label) =>
        _labelDepth[label.Id] = Math.Max(_labelDepth.TryGetValue(label.Id, out int known) ? known : 0, _depth);

    private void List(OpCode opcode, string operand, Operand? token = null)
    {
        string where = token is { Relocation: { } r } ? $"  // {r.Kind} relocation"
            : token is { } t ? $"  // 0x{t.Token:X8}" : "";
        Line($"{opcode.Name} {operand}{where}".TrimEnd());
    }

    // One instruction of the listing, at the offset where it starts (where the previous ended).
    private void Line(string instruction)
    {
        _listing.Add($"  IL_{_listed:X4}: {instruction}");
        _listed = _il.Offset;
    }

    private void Changed() => _lowered = null;

    private PlanException Refuse(string message) => new(Target, $"Plan for {Title}: {message}.");
}
