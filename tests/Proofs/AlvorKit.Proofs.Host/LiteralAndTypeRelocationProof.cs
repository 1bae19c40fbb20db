using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets of the literal and type relocation proofs.
public static class LiteralTypeTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Literal() => "original literal";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Instantiation() => "original instantiation";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Guarded(int x) => x == 0 ? "original guarded" : "original other";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Refused(int x) => x + 1;
}

/// <summary>
/// Literal and type relocations in a profiled process. Three GenerationPlans through the managed
/// API, each over something this module does not have: a string literal (a USER_STRING relocation),
/// a type inside signatures (System.Globalization.SortVersion: a TypeRef relocation that a
/// MethodSpec, a MemberRef signature and the locals signature name by class references), and the
/// exception type of a catch clause (System.Globalization.CultureNotFoundException: a CATCH_TYPE
/// relocation). None of these names occurs in this module's metadata: the types are found by name
/// at run time and the literal is built from characters. Then, through the C ABI, generations whose
/// class references are wrong are refused before anything changes.
/// </summary>
public static class LiteralAndTypeRelocationProof
{
    private const ulong RefusalOwner = 0x3303;
    private const int Input = 5;

    // Types this module has no TypeRef for (found by name, so none is added by compiling this).
    private static readonly Type SortVersion =
        Type.GetType("System.Globalization.SortVersion", throwOnError: true)!;

    private static readonly Type CultureNotFound =
        Type.GetType("System.Globalization.CultureNotFoundException", throwOnError: true)!;

    // A literal this module's user-string heap does not hold: built from characters.
    internal static readonly string NewLiteral = new(['A', 'B', 'I', ' ', '3', '.', '3', ' ', 'l', 'i', 't', 'e', 'r',
        'a', 'l', ' ', '\u2713']);

    public static LiteralTypeReport Run()
    {
        using Interceptor interceptor = Interceptor.Open();
        return new LiteralTypeReport(Literal(interceptor), Instantiation(interceptor), Catch(interceptor), Refusal());
    }

    // Literal() = "ABI 3.3 literal ✓": ldstr of a new literal; ret.
    private static LiteralTypePlanStep Literal(Interceptor interceptor)
    {
        Func<string> call = () => Patcher.Outcome(LiteralTypeTargets.Literal);
        var plan = new GenerationPlan(Patcher.Method(typeof(LiteralTypeTargets), nameof(LiteralTypeTargets.Literal)));
        plan.Emit(OpCodes.Ldstr, NewLiteral);
        plan.Return();
        return Apply(interceptor, plan, call, NewLiteral);
    }

    // Instantiation() = Array.Empty<SortVersion>().GetType().Name + (local == null).ToString(),
    // with a SortVersion local and SortVersion.op_Equality(SortVersion, SortVersion):
    // "SortVersion[]True".
    private static LiteralTypePlanStep Instantiation(Interceptor interceptor)
    {
        Func<string> call = () => Patcher.Outcome(LiteralTypeTargets.Instantiation);
        var plan = new GenerationPlan(Patcher.Method(typeof(LiteralTypeTargets), nameof(LiteralTypeTargets.Instantiation)));
        PlanLocal version = plan.DeclareLocal(SortVersion);
        plan.Emit(OpCodes.Ldnull);
        plan.Emit(OpCodes.Stloc, version);
        plan.Emit(OpCodes.Call, typeof(Array).GetMethod(nameof(Array.Empty))!.MakeGenericMethod(SortVersion));
        plan.Emit(OpCodes.Callvirt, typeof(object).GetMethod(nameof(GetType))!);
        plan.Emit(OpCodes.Callvirt, typeof(MemberInfo).GetProperty(nameof(MemberInfo.Name))!.GetMethod!);
        plan.Emit(OpCodes.Ldloc, version);
        plan.Emit(OpCodes.Ldnull);
        plan.Emit(OpCodes.Call, SortVersion.GetMethod("op_Equality", [SortVersion, SortVersion])!);
        plan.Emit(OpCodes.Box, typeof(bool));
        plan.Emit(OpCodes.Call, typeof(string).GetMethod(nameof(string.Concat), [typeof(object), typeof(object)])!);
        plan.Return();
        return Apply(interceptor, plan, call, "SortVersion[]True");
    }

    // Guarded(x): try { throw x == 0 ? new CultureNotFoundException() : new InvalidOperationException(); }
    // catch (CultureNotFoundException e) { r = e.GetType().Name; } return r;
    private static LiteralTypeCatchStep Catch(Interceptor interceptor)
    {
        Func<string> caught = () => Patcher.Outcome(() => LiteralTypeTargets.Guarded(0));
        Func<string> other = () => Patcher.Outcome(() => LiteralTypeTargets.Guarded(1));
        string otherOriginal = Patcher.Warm(other);
        var plan = new GenerationPlan(Patcher.Method(typeof(LiteralTypeTargets), nameof(LiteralTypeTargets.Guarded)));
        PlanLocal result = plan.DeclareLocal(typeof(string));
        PlanLabel tryStart = plan.DefineLabel(), otherThrow = plan.DefineLabel(), handler = plan.DefineLabel(),
            end = plan.DefineLabel();
        plan.MarkLabel(tryStart);
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Brtrue, otherThrow);
        plan.Emit(OpCodes.Newobj, CultureNotFound.GetConstructor(Type.EmptyTypes)!);
        plan.Emit(OpCodes.Throw);
        plan.MarkLabel(otherThrow);
        plan.Emit(OpCodes.Newobj, typeof(InvalidOperationException).GetConstructor(Type.EmptyTypes)!);
        plan.Emit(OpCodes.Throw);
        plan.MarkLabel(handler);
        plan.Emit(OpCodes.Callvirt, typeof(object).GetMethod(nameof(GetType))!);
        plan.Emit(OpCodes.Callvirt, typeof(MemberInfo).GetProperty(nameof(MemberInfo.Name))!.GetMethod!);
        plan.Emit(OpCodes.Stloc, result);
        plan.Emit(OpCodes.Leave, end);
        plan.MarkLabel(end);
        plan.Emit(OpCodes.Ldloc, result);
        plan.Return();
        plan.AddCatchRegion(tryStart, handler, handler, end, CultureNotFound);
        string otherPatched = "";
        LiteralTypePlanStep step = Apply(interceptor, plan, caught, CultureNotFound.Name, () => otherPatched = other());
        return new LiteralTypeCatchStep(step, otherOriginal, otherPatched);
    }

    // Applies `plan`, polls the target for `expected`, runs `whilePatched`, removes the patch and
    // polls for the original.
    private static LiteralTypePlanStep Apply(Interceptor interceptor, GenerationPlan plan, Func<string> call, string expected,
        Action? whilePatched = null)
    {
        string original = Patcher.Warm(call);
        string listing = plan.ToString();
        Patch patch;
        try
        {
            patch = interceptor.Apply(plan);
        }
        catch (Exception e)
        {
            return new LiteralTypePlanStep(original, listing, null, null, plan.RelocationCount, null,
                $"{e.GetType().Name}: {e.Message}");
        }
        Polled<string> patched = Patcher.PollFor(call, expected);
        whilePatched?.Invoke();
        ApiGeneration? generation = Patcher.Report(patch.ReadLastGeneration());
        patch.Remove();
        return new LiteralTypePlanStep(original, listing, patched, generation, plan.RelocationCount,
            Patcher.PollFor(call, original), null);
    }

    // Through the C ABI, while a first generation (x + 100) is active: class references to a later
    // relocation, to the relocation itself, to a TypeSpec, and to row 0, each in a TypeSpec blob
    // on no operand. Each is refused with ALVK_E_RELOCATION_MALFORMED at the call; the target keeps
    // running the first generation.
    private static LiteralTypeRefusalReport Refusal()
    {
        var patcher = new Patcher();
        using var metadata = new HostMetadata();
        uint systemRuntime = metadata.AssemblyRef("System.Runtime");
        Func<int> call = () => LiteralTypeTargets.Refused(Input);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(LiteralTypeTargets), nameof(LiteralTypeTargets.Refused)));
        int original = Patcher.Warm(call);
        GenerationStep<int> first = GenerationsProof.Submit(patcher, AddBody(100), target, 0, RefusalOwner, call, Input + 100,
            out ulong handle, out ulong firstId);
        TelemetryReport before = patcher.ReadTelemetry(handle);

        var refusals = new Dictionary<string, LiteralTypeRefusal>();
        void Refuse(string name, Action<GenerationBuilder> relocations)
        {
            GenerationBuilder b = AddBody(200);
            relocations(b);
            AlvkStatus dryRun = b.Validate(patcher.Library, target, firstId, RefusalOwner, out uint failingIndex);
            AlvkStatus sync = b.Submit(patcher.Library, target, firstId, RefusalOwner, out _, out ulong id);
            if (sync == AlvkStatus.Ok) // wrongly accepted: let it finish so the record says what it did
                patcher.Library.PatchWait(handle, Patcher.WaitMs);
            refusals[name] = new LiteralTypeRefusal(dryRun.ToString(), failingIndex, sync.ToString(), id);
        }

        void TypeRef(GenerationBuilder b) =>
            b.Reference(AlvkRelocationKind.TypeRef, name: "System.Globalization.SortVersion", parentToken: systemRuntime);
        void ArrayOf(GenerationBuilder b, int row) => b.Reference(AlvkRelocationKind.TypeSpec, ArrayOfReference(row));

        Refuse("forward", b =>
        {
            ArrayOf(b, 2);
            TypeRef(b);
        });
        Refuse("itself", b =>
        {
            TypeRef(b);
            ArrayOf(b, 2);
        });
        Refuse("typeSpec", b =>
        {
            TypeRef(b);
            ArrayOf(b, 1);
            ArrayOf(b, 2);
        });
        Refuse("rowZero", b =>
        {
            TypeRef(b);
            ArrayOf(b, 0);
        });
        GenerationBuilder control = AddBody(200);
        TypeRef(control);
        ArrayOf(control, 1);
        string controlDryRun = control.Validate(patcher.Library, target, firstId, RefusalOwner, out _).ToString();

        var callsAfter = new List<int>();
        for (int i = 0; i < 5; i++)
            callsAfter.Add(call());
        GenerationResultReport firstAfter = patcher.ReadGenerationResult(handle, firstId);
        TelemetryReport after = patcher.ReadTelemetry(handle);
        return new LiteralTypeRefusalReport(original, first, refusals, controlDryRun, callsAfter, firstAfter, before, after,
            GenerationsProof.Remove(patcher, handle, RefusalOwner, firstId, call, original));
    }

    // SZARRAY CLASS <class reference to relocation `row`>.
    private static byte[] ArrayOfReference(int row) => [0x1D, 0x12, (byte)((row << 2) | 3)];

    // ldarg.0; ldc.i4 <add>; add; ret
    private static GenerationBuilder AddBody(int add)
    {
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI4(add);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        return b;
    }
}
