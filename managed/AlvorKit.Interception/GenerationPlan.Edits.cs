using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

// FromOriginal: a plan that starts from the target's original body, and the edits on it.
public sealed partial class GenerationPlan
{
    private OriginalBody? _original;
    private readonly List<PlanExceptionRegion> _addedRegions = [];

    /// <summary>
    /// A plan that starts from <paramref name="target"/>'s original IL (as its module has it, not
    /// any generation applied since): its instructions (operands resolved to reflection symbols
    /// in the target's generic context; the original tokens re-emitted as they are while an
    /// operand is unchanged), its exception regions (as labels), its locals (<see cref="Locals"/>
    /// starts with them, same indices) and its max stack. Edit <see cref="Instructions"/>
    /// directly or with <see cref="InsertAtStart"/>, <see cref="RedirectReturns"/>,
    /// <see cref="ReplaceCalls"/>, <see cref="ReplaceFieldLoads"/> and <see cref="Replace"/>;
    /// Emit*, MarkLabel and Add*Region append. The edited body is lowered when the plan is
    /// applied, with every check of any plan (the stack-type check included), and every original
    /// instruction's offset is mapped to its new offset (the IL map, at most
    /// <c>ALVK_MAX_IL_MAP_ENTRIES</c> entries: beyond, those of the highest original offsets are dropped).
    /// </summary>
    /// <param name="target">A method or constructor with IL, of a loaded (not dynamic) assembly. A
    /// closed generic target (<c>Holder&lt;int&gt;.Show</c>, <c>M&lt;int&gt;</c>) is read as its
    /// definition: the generation replaces the IL all instantiations share, so the plan is made,
    /// checked and applied for the definition (<see cref="Target"/>), its tokens resolved over the
    /// definition's own generic parameters.</param>
    /// <returns>The plan, unedited: applied as is, the target runs its original body (a round trip).</returns>
    /// <exception cref="NotSupportedException">The target has no IL (abstract, extern, runtime-implemented),
    /// is being emitted at runtime, or takes varargs.</exception>
    /// <exception cref="PlanException">The body cannot be read (an unknown opcode, a branch into the
    /// middle of an instruction, a token that does not resolve, a varargs call site), naming the offset.</exception>
    public static GenerationPlan FromOriginal(MethodBase target)
    {
        var plan = new GenerationPlan(target);
        var reader = new OriginalBodyReader(plan.Target, plan._module);
        foreach (OriginalLocal local in reader.Locals)
            plan._locals.Add(new PlanLocal(plan, plan._locals.Count, local.Type, local.Pinned));
        plan._original = reader.Read(plan.DefineLabel, plan._locals);
        return plan;
    }

    /// <summary>Whether the plan was made by <see cref="FromOriginal"/>.</summary>
    public bool IsFromOriginal => _original is not null;

    /// <summary>The body's instructions, in order (FromOriginal plans only): edit it freely.
    /// Emit* and MarkLabel append to it; labels marked after the last instruction go on the
    /// next instruction Emit* appends (or at the end of the body).</summary>
    /// <exception cref="InvalidOperationException">The plan was not made by <see cref="FromOriginal"/>.</exception>
    public IList<BodyInstruction> Instructions => Original.Instructions;

    /// <summary>The exception regions: for a FromOriginal plan the original's, then the ones
    /// Add*Region added; for any other plan the ones Add*Region added. Lowering orders them so
    /// that every region nested in another comes first (ECMA-335 II.19).</summary>
    public IReadOnlyList<PlanExceptionRegion> ExceptionRegions =>
        _original is { } original ? original.Regions.AsReadOnly() : _addedRegions.AsReadOnly();

    private OriginalBody Original => _original ?? throw new InvalidOperationException(
        $"Plan for {Title}: only a plan made by GenerationPlan.FromOriginal has an instruction list to edit.");

    /// <summary>Whether Emit* and friends append to the instruction list instead of encoding.</summary>
    private bool Appending => _original is not null && !_replaying;

    /// <summary>Inserts <paramref name="code"/> before the original's first instruction. Labels on
    /// the first instruction (a loop that branches back to offset 0) stay on it: the inserted
    /// code runs once, on entry.</summary>
    /// <param name="code">The instructions to insert.</param>
    public void InsertAtStart(IEnumerable<BodyInstruction> code)
    {
        ArgumentNullException.ThrowIfNull(code);
        List<BodyInstruction> list = Checked(code, "InsertAtStart");
        Original.Instructions.InsertRange(0, list);
    }

    /// <summary>
    /// Turns every ret into <c>stloc result</c> (for a non-void target) and a branch to one exit
    /// label (<c>br</c>, or <c>leave</c> when <paramref name="useLeave"/>: for a body that will sit
    /// in a try block), and removes the <c>tail.</c> prefixes (a tail call no longer returns).
    /// The exit label is returned NOT marked: mark it and append the epilogue (Emit*, MarkLabel),
    /// ending with the final ret. A ret's labels and IL map entry move to its replacement.
    /// </summary>
    /// <param name="result">The local that receives the return value: a local of the target's
    /// return type; null for a void target.</param>
    /// <param name="useLeave">Whether to leave instead of branch.</param>
    /// <returns>The exit label.</returns>
    /// <exception cref="PlanException">The body has jmp, or <paramref name="result"/> is null for
    /// a non-void target (or given for a void one, or of another type).</exception>
    public PlanLabel RedirectReturns(PlanLocal? result, bool useLeave = false)
    {
        OriginalBody original = Original;
        if (original.HasJmp)
            throw Refuse("the body has jmp, which leaves the method without a ret: its returns cannot be redirected");
        Type returns = ReplacementRules.ReturnTypeOf(Target);
        if (result is null && returns != typeof(void))
            throw Refuse($"RedirectReturns needs a local of type {Names.Of(returns)} for the return value");
        if (result is not null)
        {
            Mine(result);
            if (returns == typeof(void))
                throw Refuse("the target returns void: RedirectReturns takes no result local (pass null)");
            if (result.LocalType != returns)
                throw Refuse($"the result local {result} is {Names.Of(result.LocalType)}; the target returns {Names.Of(returns)}");
        }
        PlanLabel exit = DefineLabel();
        List<BodyInstruction> code = original.Instructions;
        for (int i = 0; i < code.Count; i++)
        {
            BodyInstruction instruction = code[i];
            if (instruction.OpCode == OpCodes.Tailcall)
            {
                Splice(i, []);
                i--;
                continue;
            }
            if (instruction.OpCode != OpCodes.Ret)
                continue;
            List<BodyInstruction> exitCode = [new BodyInstruction(useLeave ? OpCodes.Leave : OpCodes.Br, exit)];
            if (result is not null)
                exitCode.Insert(0, new BodyInstruction(OpCodes.Stloc, result));
            i += Splice(i, exitCode) - 1;
        }
        return exit;
    }

    /// <summary>
    /// Replaces every call or callvirt of <paramref name="callee"/> with a call of
    /// <paramref name="replacement"/>: the transpiler's "swap this call". The replacement is
    /// static, takes the callee's receiver first (the declaring class, or <c>ref T</c> for a
    /// struct) then its parameters, and returns its return type, as for
    /// <see cref="Interceptor.Install"/>. A replaced call is no longer virtual.
    /// </summary>
    /// <param name="callee">The method whose calls to replace (matched by definition and, for a
    /// generic one, its type arguments).</param>
    /// <param name="replacement">The static method to call instead.</param>
    /// <returns>How many calls were replaced.</returns>
    /// <exception cref="SignatureMismatchException">The replacement does not fit the callee.</exception>
    /// <exception cref="PlanException">A matching call has the <c>constrained.</c> prefix (the
    /// receiver is then not the replacement's first parameter).</exception>
    public int ReplaceCalls(MethodBase callee, MethodInfo replacement)
    {
        ArgumentNullException.ThrowIfNull(callee);
        ArgumentNullException.ThrowIfNull(replacement);
        List<BodyInstruction> code = Original.Instructions;
        ReplacementRules.Check(callee, replacement);
        // Every match checked before any is rewritten: a refusal leaves the body as it was.
        List<BodyInstruction> matches = [];
        for (int i = 0; i < code.Count; i++)
        {
            BodyInstruction instruction = code[i];
            if ((instruction.OpCode != OpCodes.Call && instruction.OpCode != OpCodes.Callvirt) ||
                instruction.Operand is not MethodBase called || !SameMember(called, callee))
                continue;
            if (i > 0 && code[i - 1].OpCode == OpCodes.Constrained)
                throw Refuse($"{instruction} has the constrained. prefix: its receiver is an address the static " +
                             $"{Names.Of(replacement)} cannot take in its place (nothing was replaced)");
            matches.Add(instruction);
        }
        foreach (BodyInstruction instruction in matches)
        {
            instruction.OpCode = OpCodes.Call;
            instruction.Operand = replacement;
        }
        return matches.Count;
    }

    /// <summary>
    /// Replaces every ldfld or ldsfld of <paramref name="field"/> with a call of
    /// <paramref name="replacement"/>: static, taking the object (a reference to the declaring
    /// class, or <c>ref T</c> for a struct) for an instance field and nothing for a static one,
    /// returning the field's type. A <c>volatile.</c> or <c>unaligned.</c> prefix of a replaced
    /// load is removed (a call takes no prefix; its labels move to the call).
    /// </summary>
    /// <param name="field">The field whose loads to replace.</param>
    /// <param name="replacement">The static method that gives the value instead.</param>
    /// <returns>How many loads were replaced.</returns>
    /// <exception cref="SignatureMismatchException">The replacement does not fit.</exception>
    /// <exception cref="PlanException">A load of a struct's field reads it from a struct VALUE on
    /// the stack (<c>GetPos().x</c>), not from its address: there is no <c>ref T</c> to give the
    /// replacement. Nothing is replaced then. This check follows the body as it is at the call; when
    /// that body cannot be laid out or checked yet (a label still unmarked, such as the exit of
    /// <see cref="RedirectReturns"/> before its code is appended, or a body that is not type-safe
    /// yet), it is skipped and such a load is refused later, as a
    /// <see cref="StackTypeMismatchException"/> when the plan is lowered (Apply, ApplyMany; unless it
    /// allows unverifiable code). Call ReplaceFieldLoads on a complete body to have it refused here.</exception>
    public int ReplaceFieldLoads(FieldInfo field, MethodInfo replacement)
    {
        ArgumentNullException.ThrowIfNull(field);
        ArgumentNullException.ThrowIfNull(replacement);
        List<BodyInstruction> code = Original.Instructions;
        CheckFieldReplacement(field, replacement);
        List<BodyInstruction> matches = [.. code.Where(instruction =>
            (instruction.OpCode == OpCodes.Ldfld || instruction.OpCode == OpCodes.Ldsfld) &&
            instruction.Operand is FieldInfo loaded && SameMember(loaded, field))];
        if (matches.Count > 0 && !field.IsStatic && field.DeclaringType!.IsValueType)
            CheckStructLoads(field, matches);
        foreach (BodyInstruction instruction in matches)
        {
            // volatile. / unaligned. (in either order) before the load: a call takes neither.
            int at = code.IndexOf(instruction);
            while (at > 0 && (code[at - 1].OpCode == OpCodes.Volatile || code[at - 1].OpCode == OpCodes.Unaligned))
            {
                Splice(at - 1, []);
                at--;
            }
            instruction.OpCode = OpCodes.Call;
            instruction.Operand = replacement;
        }
        return matches.Count;
    }

    /// <summary>Refuses a load of a struct's field from a struct value: the replacement takes
    /// <c>ref T</c>, which only an address on the stack gives. Follows the stack through the body
    /// as it is now; a body that cannot be laid out or checked yet is left to Apply's check (documented on
    /// <see cref="ReplaceFieldLoads"/>).</summary>
    private void CheckStructLoads(FieldInfo field, List<BodyInstruction> matches)
    {
        Dictionary<int, StackTypeChecker.Kind> tops;
        try
        {
            Replay();
            tops = StackTypeChecker.TopBefore(new PlanBody(Target, Title, _symbolic, _labelOffsets, _regions, _locals));
        }
        catch (Exception e) when (e is PlanException or StackTypeMismatchException)
        {
            return;
        }
        foreach (BodyInstruction instruction in matches)
        {
            int index = Original.Instructions.IndexOf(instruction);
            if (index < _replayOffsets.Count && tops.TryGetValue(_replayOffsets[index], out StackTypeChecker.Kind kind) &&
                kind == StackTypeChecker.Kind.Value)
                throw Refuse($"{instruction} reads {Names.Of(field)} from a {Names.Of(field.DeclaringType!)} VALUE on the " +
                             "stack (a struct returned by a call or loaded by value), not from its address: a replacement " +
                             $"taking ref {Names.Of(field.DeclaringType!)} cannot be given it. Replace that load with " +
                             "Replace (store the value to a local, then ldloca) (nothing was replaced)");
        }
    }

    /// <summary>
    /// The transpiler form: every instruction <paramref name="match"/> accepts is replaced by the
    /// sequence <paramref name="with"/> gives for it (which may include the instruction itself).
    /// Its labels move to the sequence's first instruction (or, for an empty sequence, to the
    /// instruction after it), and its original offset maps to that instruction in the IL map.
    /// </summary>
    /// <param name="match">Which instructions to replace.</param>
    /// <param name="with">The replacement sequence of one matched instruction.</param>
    /// <returns>How many instructions were replaced.</returns>
    public int Replace(Func<BodyInstruction, bool> match, Func<BodyInstruction, IEnumerable<BodyInstruction>> with)
    {
        ArgumentNullException.ThrowIfNull(match);
        ArgumentNullException.ThrowIfNull(with);
        List<BodyInstruction> code = Original.Instructions;
        // Every sequence made and checked before any is spliced in: a refusal leaves the body as it was.
        List<(BodyInstruction Old, List<BodyInstruction> Sequence)> replacements = [];
        foreach (BodyInstruction instruction in code.ToList())
            if (match(instruction))
                replacements.Add((instruction, Checked(with(instruction) ?? [], "Replace")));
        foreach ((BodyInstruction old, List<BodyInstruction> sequence) in replacements)
            Splice(code.IndexOf(old), sequence);
        return replacements.Count;
    }

    // ------------------------------------------------------------------ helpers

    /// <summary>Replaces instruction `index` by `sequence`, moving its labels and original offset
    /// to the sequence's first instruction (its labels to the next instruction when the sequence
    /// is empty); returns the sequence's length.</summary>
    private int Splice(int index, List<BodyInstruction> sequence)
    {
        List<BodyInstruction> code = Original.Instructions;
        BodyInstruction old = code[index];
        code.RemoveAt(index);
        code.InsertRange(index, sequence);
        if (sequence.Count > 0 && ReferenceEquals(sequence[0], old))
            return sequence.Count;
        List<PlanLabel> labels = [.. old.Labels];
        if (sequence.Contains(old))
            old.Labels.Clear();
        if (sequence.Count > 0)
        {
            sequence[0].Labels.InsertRange(0, labels);
            sequence[0].OriginalOffset ??= old.OriginalOffset;
        }
        else if (index < code.Count)
            code[index].Labels.InsertRange(0, labels);
        else
            _original!.Pending.InsertRange(0, labels);
        return sequence.Count;
    }

    private static List<BodyInstruction> Checked(IEnumerable<BodyInstruction> code, string what)
    {
        List<BodyInstruction> list = [.. code];
        if (list.Any(i => i is null))
            throw new ArgumentException($"{what}: the code holds a null instruction.", nameof(code));
        return list;
    }

    /// <summary>The instruction an Emit* call on a FromOriginal plan appends (with the labels
    /// marked since the last one).</summary>
    private void Append(OpCode opcode, object? operand)
    {
        var instruction = new BodyInstruction(opcode, operand);
        OriginalBody original = Original;
        instruction.Labels.AddRange(original.Pending);
        original.Pending.Clear();
        original.Instructions.Add(instruction);
    }

    private void AppendLabel(PlanLabel label) => Original.Pending.Add(label);

    private void AppendRegion(PlanExceptionRegion region) => Original.Regions.Add(region);

    /// <summary>The same member: one definition (module and token), on the same declaring type,
    /// with the same type arguments for a generic method.</summary>
    private static bool SameMember(MemberInfo a, MemberInfo b) =>
        a.MetadataToken == b.MetadataToken && a.Module == b.Module && a.DeclaringType == b.DeclaringType &&
        (a is not MethodInfo { IsGenericMethod: true } ma ||
         (b is MethodInfo { IsGenericMethod: true } mb && ma.GetGenericArguments().SequenceEqual(mb.GetGenericArguments())));

    private void CheckFieldReplacement(FieldInfo field, MethodInfo replacement)
    {
        string name = Names.Of(replacement), expected = field.IsStatic
            ? $"static {Names.Of(field.FieldType)} {replacement.Name}()"
            : $"static {Names.Of(field.FieldType)} {replacement.Name}({Names.Of(Receiver(field))} self)";
        if (!replacement.IsStatic)
            throw Mismatch(SignatureMismatchKind.NotStatic, -1, null, null,
                $"The replacement {name} of loads of {Names.Of(field)} must be static. Expected: {expected}.");
        if (replacement.ContainsGenericParameters)
            throw Mismatch(SignatureMismatchKind.OpenGeneric, -1, null, null,
                $"The replacement {name} is an open generic method. Expected: {expected}.");
        ParameterInfo[] parameters = replacement.GetParameters();
        int needed = field.IsStatic ? 0 : 1;
        if (parameters.Length != needed)
            throw Mismatch(SignatureMismatchKind.ParameterCount, -1, null, null,
                $"The replacement {name} has {parameters.Length} parameter(s); a load of {Names.Of(field)} gives it " +
                $"{needed}. Expected: {expected}.");
        if (needed == 1 && parameters[0].ParameterType != Receiver(field))
            throw Mismatch(SignatureMismatchKind.ParameterType, 0, Receiver(field), parameters[0].ParameterType,
                $"Parameter 0 of the replacement {name} is {Names.Of(parameters[0].ParameterType)}; expected " +
                $"{Names.Of(Receiver(field))} (the object whose field is loaded). Expected: {expected}.");
        if (replacement.ReturnType != field.FieldType)
            throw Mismatch(SignatureMismatchKind.ReturnType, -1, field.FieldType, replacement.ReturnType,
                $"The replacement {name} returns {Names.Of(replacement.ReturnType)}; expected {Names.Of(field.FieldType)}, " +
                $"the type of {Names.Of(field)}. Expected: {expected}.");

        SignatureMismatchException Mismatch(SignatureMismatchKind kind, int index, Type? expectedType, Type? actualType,
            string message) => new(Target, replacement, kind, index, expectedType, actualType, message);
    }

    private static Type Receiver(FieldInfo field)
    {
        Type declaring = field.DeclaringType!;
        return declaring.IsValueType ? declaring.MakeByRefType() : declaring;
    }
}
