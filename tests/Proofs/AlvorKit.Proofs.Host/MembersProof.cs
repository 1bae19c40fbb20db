using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

// GenMemberTargets.Present is the field the missing-field generation does not name.
#pragma warning disable CA2211

namespace AlvorKit.Proofs.Host;

// Targets of the missing-member proofs; each returns x + 1 until a generation changes it.
public static class GenMemberTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int OwnType(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int OtherAssembly(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int MissingField(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int OtherSignature(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Fresh(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BaseStatic(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string BaseVirtual() => "original";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Managed(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int LateAssembly(int x) => x + 1;

    public static int Present;
}

// A base with a static method, and a derived class that declares nothing: members reached
// only through the base types.
public class GenMemberBase
{
    public static int BaseTwice(int x) => 2 * x;
}

public sealed class GenMemberDerived : GenMemberBase
{
}

/// <summary>
/// Generations whose MemberRefs name members that do not exist (on a type of this module, on
/// a type of another assembly, a field, a method that exists with another signature): each is
/// rejected on the worker with ALVK_E_MEMBER_NOT_FOUND and its relocation, nothing is
/// requested, and the target keeps running the generation it had. Members that exist only on
/// a base type are accepted and run. Then the same through the managed API.
/// </summary>
public static unsafe class MembersProof
{
    private const ulong OwnOwner = 0x7001, OtherOwner = 0x7002, FieldOwner = 0x7003, SignatureOwner = 0x7004,
        FreshOwner = 0x7005, BaseStaticOwner = 0x7006, BaseVirtualOwner = 0x7007, LateOwner = 0x7008;

    private const string LateAssemblyName = "AlvorKit.Interception.Allocations";

    private const int Input = 5;

    public static MembersReport Run()
    {
        var patcher = new Patcher();
        using var metadata = new HostMetadata();
        uint systemRuntime = metadata.AssemblyRef("System.Runtime");

        // a: call GenHelpers::Quadruple(int32), a name GenHelpers does not have (MemberRef on a TypeDef).
        MissingMemberCase ownType = Missing(patcher, nameof(GenMemberTargets.OwnType), GenMemberTargets.OwnType, OwnOwner, b =>
        {
            b.IL.LoadArgument(0);
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "Quadruple",
                parentToken: Token(typeof(GenHelpers)));
            b.IL.OpCode(ILOpCode.Ret);
        });

        // b: call System.Math::AbsoluteValue(int32) through a TypeRef into System.Runtime (which
        // forwards System.Math to System.Private.CoreLib): the MemberRef is relocation 1.
        MissingMemberCase otherAssembly = Missing(patcher, nameof(GenMemberTargets.OtherAssembly), GenMemberTargets.OtherAssembly, OtherOwner, b =>
        {
            uint math = b.Reference(AlvkRelocationKind.TypeRef, name: "System.Math", parentToken: systemRuntime);
            b.IL.LoadArgument(0);
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "AbsoluteValue",
                parentRelocation: math);
            b.IL.OpCode(ILOpCode.Ret);
        });

        // c: ldsfld int32 GenMemberTargets::Absent (the class has Present, not Absent).
        MissingMemberCase missingField = Missing(patcher, nameof(GenMemberTargets.MissingField), GenMemberTargets.MissingField, FieldOwner, b =>
        {
            b.Emit(ILOpCode.Ldsfld, AlvkRelocationKind.MemberRef, HostMetadata.Blob(e => e.FieldSignature().Int32()),
                "Absent", parentToken: Token(typeof(GenMemberTargets)));
            b.IL.LoadArgument(0);
            b.IL.OpCode(ILOpCode.Add);
            b.IL.OpCode(ILOpCode.Ret);
        });

        // d: GenHelpers::Triple exists as int32(int32); the generation calls int64(int64).
        MissingMemberCase otherSignature = Missing(patcher, nameof(GenMemberTargets.OtherSignature), GenMemberTargets.OtherSignature, SignatureOwner, b =>
        {
            b.IL.LoadArgument(0);
            b.IL.OpCode(ILOpCode.Conv_i8);
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef,
                HostMetadata.Blob(e => e.MethodSignature().Parameters(1, r => r.Type().Int64(), p => p.AddParameter().Type().Int64())),
                nameof(GenHelpers.Triple), parentToken: Token(typeof(GenHelpers)));
            b.IL.OpCode(ILOpCode.Conv_i4);
            b.IL.OpCode(ILOpCode.Ret);
        });

        LateAssemblyReport lateAssembly = LateAssembly(patcher, metadata.AssemblyRef(LateAssemblyName));
        FreshMissingMember fresh = Fresh(patcher);
        BaseMemberReport baseStatic = BaseStatic(patcher);
        BaseMemberReport baseVirtual = BaseVirtual(patcher);
        return new MembersReport(ownType, otherAssembly, missingField, otherSignature, lateAssembly, fresh, baseStatic,
            baseVirtual, Managed());
    }

    private static MissingMemberCase Missing(Patcher patcher, string targetName, Func<int, int> run, ulong owner,
        Action<GenerationBuilder> build)
    {
        ProfilerLibrary library = patcher.Library;
        Func<string> call = () => Patcher.Outcome(() => run(Input));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMemberTargets), targetName));
        string original = Patcher.Warm(call);

        // A first generation that applies: the target returns x + 100.
        GenerationStep<string> firstStep = Submit(patcher, AddBody(100), target, 0, owner, call, "105", out ulong handle,
            out ulong first);
        TelemetryReport before = patcher.ReadTelemetry(handle);

        var missing = new GenerationBuilder();
        build(missing);
        AlvkStatus sync = missing.Submit(library, target, first, owner, out ulong joined, out ulong id);
        string? wait = sync == AlvkStatus.Ok ? library.PatchWait(handle, Patcher.WaitMs).ToString() : null;
        // What the first calls after the wait return (an exception's type name if one throws).
        var outcomes = new List<string>();
        for (int i = 0; i < 5; i++)
            outcomes.Add(call());
        GenerationResultReport result = patcher.ReadGenerationResult(handle, id);
        TelemetryReport after = patcher.ReadTelemetry(handle);
        var step = new MissingMemberStep(missing.Describe(), sync.ToString(), joined == handle, id, wait, outcomes, result,
            before, after, patcher.ReadGenerationResult(handle, first));

        // The chain continues from the first generation.
        GenerationStep<string> nextStep = Submit(patcher, AddBody(200), target, first, owner, call, "205", out _, out ulong next);
        return new MissingMemberCase(original, firstStep, step, nextStep, Remove(patcher, handle, owner, next, call, "6"));
    }

    // A missing member of an assembly nobody loaded yet: the check cannot see it (unknown), so
    // the generation is requested; the JIT loads the assembly, fails to bind the member and
    // throws MissingMethodException to the caller, the runtime reports nothing, and the profiler
    // rolls back. Checked again then, the member is certainly missing: the failure says so.
    private static LateAssemblyReport LateAssembly(Patcher patcher, uint assemblyRef)
    {
        ProfilerLibrary library = patcher.Library;
        Func<string> call = () => Patcher.Outcome(() => GenMemberTargets.LateAssembly(Input));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMemberTargets), nameof(GenMemberTargets.LateAssembly)));
        string original = Patcher.Warm(call);
        GenerationStep<string> firstStep = Submit(patcher, AddBody(100), target, 0, LateOwner, call, "105", out ulong handle,
            out ulong first);
        var b = new GenerationBuilder();
        uint type = b.Reference(AlvkRelocationKind.TypeRef, name: $"{LateAssemblyName}.AllocationCaptureException",
            parentToken: assemblyRef);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "Missing", parentRelocation: type);
        b.IL.OpCode(ILOpCode.Ret);
        bool loadedBefore = Loaded(LateAssemblyName);
        AlvkStatus sync = b.Submit(library, target, first, LateOwner, out _, out ulong id);
        string? wait = sync == AlvkStatus.Ok ? library.PatchWait(handle, Patcher.WaitMs).ToString() : null;
        // Call until the first generation is back (or 5 s passed).
        var outcomes = new List<string>();
        var clock = System.Diagnostics.Stopwatch.StartNew();
        string outcome;
        do
        {
            outcome = call();
            if (outcomes.Count < 20)
                outcomes.Add(outcome);
        } while (outcome != "105" && clock.Elapsed < TimeSpan.FromSeconds(5));
        bool loadedAfter = Loaded(LateAssemblyName);
        GenerationResultReport result = patcher.ReadGenerationResult(handle, id);
        return new LateAssemblyReport(original, firstStep, loadedBefore, sync.ToString(), wait, outcomes, outcome == "105",
            loadedAfter, result, Remove(patcher, handle, LateOwner, first, call, "6"));
    }

    private static bool Loaded(string name) =>
        AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == name);

    // The missing member in a target's first generation: the new patch ends Rejected and the
    // runtime was never asked for anything.
    private static FreshMissingMember Fresh(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        Func<string> call = () => Patcher.Outcome(() => GenMemberTargets.Fresh(Input));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMemberTargets), nameof(GenMemberTargets.Fresh)));
        string original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "Quadruple",
            parentToken: Token(typeof(GenHelpers)));
        b.IL.OpCode(ILOpCode.Ret);
        AlvkStatus sync = b.Submit(library, target, 0, FreshOwner, out ulong handle, out ulong id);
        string? wait = null;
        GenerationResultReport? result = null;
        TelemetryReport? telemetry = null;
        if (sync == AlvkStatus.Ok)
        {
            wait = library.PatchWait(handle, Patcher.WaitMs).ToString();
            result = patcher.ReadGenerationResult(handle, id);
            telemetry = patcher.ReadTelemetry(handle);
        }
        var outcomes = new List<string>();
        for (int i = 0; i < 5; i++)
            outcomes.Add(call());
        return new FreshMissingMember(original, sync.ToString(), wait, result, telemetry, outcomes);
    }

    // Controls: call GenMemberDerived::BaseTwice(int32), declared static on GenMemberBase in this
    // module; callvirt GenMemberDerived::ToString(), declared on System.Object in CoreLib.
    private static BaseMemberReport BaseStatic(Patcher patcher)
    {
        Func<string> call = () => Patcher.Outcome(() => GenMemberTargets.BaseStatic(Input));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMemberTargets), nameof(GenMemberTargets.BaseStatic)));
        string original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), nameof(GenMemberBase.BaseTwice),
            parentToken: Token(typeof(GenMemberDerived)));
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<string> firstStep = Submit(patcher, b, target, 0, BaseStaticOwner, call, "10", out ulong handle,
            out ulong first);
        return new BaseMemberReport(original, firstStep, Remove(patcher, handle, BaseStaticOwner, first, call, "6"));
    }

    private static BaseMemberReport BaseVirtual(Patcher patcher)
    {
        Func<string> call = () => Patcher.Outcome(GenMemberTargets.BaseVirtual);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMemberTargets), nameof(GenMemberTargets.BaseVirtual)));
        string original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        b.EmitExisting(ILOpCode.Newobj, typeof(GenMemberDerived).GetConstructor(Type.EmptyTypes)!.MetadataToken);
        b.Emit(ILOpCode.Callvirt, AlvkRelocationKind.MemberRef,
            HostMetadata.Blob(e => e.MethodSignature(isInstanceMethod: true).Parameters(0, r => r.Type().String(), _ => { })),
            nameof(ToString), parentToken: Token(typeof(GenMemberDerived)));
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<string> firstStep = Submit(patcher, b, target, 0, BaseVirtualOwner, call,
            typeof(GenMemberDerived).FullName!, out ulong handle, out ulong first);
        return new BaseMemberReport(original, firstStep, Remove(patcher, handle, BaseVirtualOwner, first, call, "original"));
    }

    // The managed API: a plan whose method is Math.Abs renamed (as a plan built against another
    // version of an assembly would name a method the loaded one lacks). Apply throws
    // PatchException naming the plan symbol; the target keeps its body.
    private static ManagedMissingMember Managed()
    {
        Func<string> call = () => Patcher.Outcome(() => GenMemberTargets.Managed(Input));
        var report = new ManagedMissingMember(Patcher.Warm(call), null, null, null, null, null, null, null, null, null, [], 0);
        using Interceptor interceptor = Interceptor.Open();
        var plan = new GenerationPlan(Patcher.Method(typeof(GenMemberTargets), nameof(GenMemberTargets.Managed)));
        plan.LoadArgument(0);
        plan.Emit(OpCodes.Call, new RenamedMethod(typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!, "AbsoluteValue"));
        plan.Return();
        try
        {
            interceptor.Apply(plan);
        }
        catch (Exception e)
        {
            report = report with { Threw = e.GetType().Name, Message = e.Message };
            if (e is PatchException p)
            {
                report = report with
                {
                    StatusName = p.StatusName,
                    StatusCode = (int)p.Status,
                    StatusEnum = p.Status.ToString(),
                    GenerationState = p.Generation?.State.ToString(),
                    GenerationStatus = p.Generation?.StatusName,
                    FailingIndex = p.Generation?.FailingIndex,
                    FailingRelocation = p.Generation is { } g && g.FailingIndex < g.Relocations.Count
                        ? g.Relocations[g.FailingIndex].Description
                        : null,
                };
            }
        }
        var outcomes = new List<string>();
        for (int i = 0; i < 5; i++)
            outcomes.Add(call());
        return report with { Outcomes = outcomes, LivePatches = interceptor.Patches.Count };
    }

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

    private static uint Token(MemberInfo member) => (uint)member.MetadataToken;

    private static GenerationStep<string> Submit(Patcher patcher, GenerationBuilder builder, in AlvkMethodDescription target,
        ulong prior, ulong owner, Func<string> call, string expected, out ulong handle, out ulong id) =>
        GenerationsProof.Submit(patcher, builder, target, prior, owner, call, expected, out handle, out id);

    private static RemoveStep<string> Remove(Patcher patcher, ulong handle, ulong owner, ulong last, Func<string> call,
        string original) => GenerationsProof.Remove(patcher, handle, owner, last, call, original);
}

/// <summary>A method that reports another name and otherwise is `inner` (its declaring type,
/// module, token and signature): what a plan holds when it was built against an assembly
/// version whose method the loaded one lacks.</summary>
internal sealed class RenamedMethod(MethodInfo inner, string name) : MethodInfo
{
    public override string Name => name;
    public override Type? DeclaringType => inner.DeclaringType;
    public override Type? ReflectedType => inner.ReflectedType;
    public override Module Module => inner.Module;
    public override int MetadataToken => inner.MetadataToken;
    public override Type ReturnType => inner.ReturnType;
    public override ParameterInfo ReturnParameter => inner.ReturnParameter;
    public override ICustomAttributeProvider ReturnTypeCustomAttributes => inner.ReturnTypeCustomAttributes;
    public override MethodAttributes Attributes => inner.Attributes;
    public override CallingConventions CallingConvention => inner.CallingConvention;
    public override RuntimeMethodHandle MethodHandle => inner.MethodHandle;
    public override bool IsGenericMethod => false;
    public override bool IsGenericMethodDefinition => false;
    public override bool ContainsGenericParameters => false;
    public override Type[] GetGenericArguments() => [];
    public override MethodInfo GetBaseDefinition() => this;
    public override MethodImplAttributes GetMethodImplementationFlags() => inner.GetMethodImplementationFlags();
    public override ParameterInfo[] GetParameters() => inner.GetParameters();
    public override object? Invoke(object? obj, BindingFlags invokeAttr, Binder? binder, object?[]? parameters,
        CultureInfo? culture) => throw new NotSupportedException();
    public override object[] GetCustomAttributes(bool inherit) => [];
    public override object[] GetCustomAttributes(Type attributeType, bool inherit) => [];
    public override bool IsDefined(Type attributeType, bool inherit) => false;
}
