using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.InteropServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static unsafe class GenerationsProof
{
    private const ulong CalliOwner = 0x6001, KindsOwner = 0x6002, CrossOwner = 0x6003, MvarOwner = 0x6004,
        FieldsOwner = 0x600D, PickOwner = 0x6005, FirstOwner = 0x6006, FailureOwner = 0x6007, IdentityOwner = 0x6008,
        ChainOwner = 0x6009, UnpatchedOwner = 0x600A, ValidationOwner = 0x600B, LocalsOwner = 0x600C,
        TypesOwner = 0x600E, UnverifiableOwner = 0x600F;

    private static readonly TimeSpan FailureLimit = TimeSpan.FromSeconds(5);

    // Complete IL bodies with relocations, one scenario per target: what each target returns
    // before, under each generation and after removal, with the generation results (states,
    // statuses, relocation tokens) and telemetry; then the refusals.
    public static GenerationsReport Run()
    {
        var patcher = new Patcher();
        using var metadata = new HostMetadata();
        IntPtr abs = CRuntime.Abs();
        CalliReport calli = Calli(patcher, abs);
        FourKindsReport fourKinds = FourKinds(patcher, metadata);
        CrossModuleReport crossModule = CrossModule(patcher, metadata);
        SingleGeneration fields = Fields(patcher);
        MvarReport mvar = Mvar(patcher, metadata);
        IReadOnlyDictionary<string, GenericTargetReport> genericTargets = GenericTargets(patcher);
        SingleGeneration locals = Locals(patcher);
        CompilationFailureReport compilationFailure = CompilationFailure(patcher, abs);
        WorkerRefusal bodyIdentity = BodyIdentity(patcher);
        StaleReport stale = Stale(patcher);
        ValidationReport validation = Validation(patcher, metadata, abs);
        return new GenerationsReport(calli, fourKinds, crossModule, fields, mvar, genericTargets, locals, compilationFailure,
            bodyIdentity, stale, validation, TypeSafety(patcher));
    }

    // a: ldarg.0; ldc.i8 <abs>; conv.i; calli unmanaged cdecl int32(int32); ret, with an IL
    // map; then the same plus 1, reusing the StandAloneSig; then removal.
    private static CalliReport Calli(Patcher patcher, IntPtr abs)
    {
        Func<int> call = () => GenCalliTargets.NativeAbs(-5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.NativeAbs)));
        int original = Patcher.Warm(call);
        GenerationStep<int> firstStep = Submit(patcher, AbsBody(abs, 0), target, 0, CalliOwner, call, 5, out ulong handle, out ulong first);
        GenerationStep<int> secondStep = Submit(patcher, AbsBody(abs, 1), target, first, CalliOwner, call, 6, out ulong joined, out ulong second);
        GenerationResultReport firstAfterSecond = patcher.ReadGenerationResult(handle, first);
        return new CalliReport(original, firstStep, secondStep, joined == handle, firstAfterSecond,
            Remove(patcher, handle, CalliOwner, second, call, -5));
    }

    private static GenerationBuilder AbsBody(IntPtr abs, int add)
    {
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI8(abs);
        b.IL.OpCode(ILOpCode.Conv_i);
        b.Emit(ILOpCode.Calli, AlvkRelocationKind.StandAloneSig, HostMetadata.IntToInt(SignatureCallingConvention.CDecl));
        if (add != 0)
        {
            b.IL.LoadConstantI4(add);
            b.IL.OpCode(ILOpCode.Add);
        }
        b.IL.OpCode(ILOpCode.Ret);
        b.Map(0, 0);
        return b;
    }

    // b: a MemberRef with a modreq on the target's own class, a TypeSpec (GenBox<int>) that
    // only parents, a constructor and a field MemberRef on it, a MethodSpec of a MethodDef,
    // and a MemberRef on another TypeDef: Combine(7) = Triple(Echo(new GenBox<int>(Scale(7)).Value)).
    private static FourKindsReport FourKinds(Patcher patcher, HostMetadata metadata)
    {
        Func<int> call = () => GenKindsTargets.Combine(7);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenKindsTargets), nameof(GenKindsTargets.Combine)));
        MethodInfo scale = typeof(GenKindsTargets).GetMethods(BindingFlags.NonPublic | BindingFlags.Static)
            .Single(m => m.Name.EndsWith("IGenScaler.Scale", StringComparison.Ordinal));
        (byte[] scaleSig, string scaleName) = metadata.MethodSignature(scale);
        int original = Patcher.Warm(call);
        GenerationBuilder Body(int add)
        {
            var b = new GenerationBuilder();
            uint box = b.Reference(AlvkRelocationKind.TypeSpec, BoxOfInt);
            b.IL.LoadArgumentAddress(0);
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, scaleSig, scaleName, parentToken: Token(typeof(GenKindsTargets)));
            b.Emit(ILOpCode.Newobj, AlvkRelocationKind.MemberRef, BoxConstructor, ".ctor", parentRelocation: box);
            b.Emit(ILOpCode.Ldfld, AlvkRelocationKind.MemberRef, BoxValue, "Value", parentRelocation: box);
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MethodSpec, HostMetadata.Blob(e => e.MethodSpecificationSignature(1).AddArgument().Int32()),
                parentToken: Token(Patcher.Method(typeof(GenHelpers), nameof(GenHelpers.Echo))));
            b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), nameof(GenHelpers.Triple),
                parentToken: Token(typeof(GenHelpers)));
            if (add != 0)
            {
                b.IL.LoadConstantI4(add);
                b.IL.OpCode(ILOpCode.Add);
            }
            b.IL.OpCode(ILOpCode.Ret);
            return b;
        }
        GenerationStep<int> firstStep = Submit(patcher, Body(0), target, 0, KindsOwner, call, 42, out ulong handle, out ulong first);
        GenerationStep<int> secondStep = Submit(patcher, Body(1), target, first, KindsOwner, call, 43, out _, out ulong second);
        return new FourKindsReport(original, scaleName, Convert.ToHexString(scaleSig), firstStep, secondStep,
            Remove(patcher, handle, KindsOwner, second, call, 7));
    }

    // Field MemberRefs of every access kind on GenBox<int>: a new box, stfld Value = x,
    // ldfld Value, times 3, stsfld Shared, ldsfld Shared, plus 1: FieldPlay(4) = 13.
    private static SingleGeneration Fields(Patcher patcher)
    {
        Func<int> call = () => GenFieldTargets.FieldPlay(4);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenFieldTargets), nameof(GenFieldTargets.FieldPlay)));
        var original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        uint box = b.Reference(AlvkRelocationKind.TypeSpec, BoxOfInt);
        b.IL.LoadConstantI4(0);
        b.Emit(ILOpCode.Newobj, AlvkRelocationKind.MemberRef, BoxConstructor, ".ctor", parentRelocation: box);
        b.IL.OpCode(ILOpCode.Dup);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Stfld, AlvkRelocationKind.MemberRef, BoxValue, "Value", parentRelocation: box);
        b.Emit(ILOpCode.Ldfld, AlvkRelocationKind.MemberRef, BoxValue, "Value", parentRelocation: box);
        b.IL.LoadConstantI4(3);
        b.IL.OpCode(ILOpCode.Mul);
        b.Emit(ILOpCode.Stsfld, AlvkRelocationKind.MemberRef, BoxValue, "Shared", parentRelocation: box);
        b.Emit(ILOpCode.Ldsfld, AlvkRelocationKind.MemberRef, BoxValue, "Shared", parentRelocation: box);
        b.IL.LoadConstantI4(1);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<int> firstStep = Submit(patcher, b, target, 0, FieldsOwner, call, 13, out ulong handle, out ulong first);
        return new SingleGeneration(original, firstStep, Remove(patcher, handle, FieldsOwner, first, call, 4));
    }

    // c: a TypeRef into another assembly (System.Math through the host's AssemblyRef
    // System.Runtime) parenting a MemberRef: CrossAbs(-9) = Math.Abs(-9).
    private static CrossModuleReport CrossModule(Patcher patcher, HostMetadata metadata)
    {
        Func<int> call = () => GenCrossTargets.CrossAbs(-9);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCrossTargets), nameof(GenCrossTargets.CrossAbs)));
        uint systemRuntime = metadata.AssemblyRef("System.Runtime");
        int original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        uint math = b.Reference(AlvkRelocationKind.TypeRef, name: "System.Math", parentToken: systemRuntime);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "Abs", parentRelocation: math);
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<int> firstStep = Submit(patcher, b, target, 0, CrossOwner, call, 9, out ulong handle, out ulong first);
        return new CrossModuleReport(original, systemRuntime, firstStep, Remove(patcher, handle, CrossOwner, first, call, -9));
    }

    // d: GenBox<int>::Map<TOut> as a MemberRef (GENERIC, MVAR in its signature) on the
    // TypeSpec, instantiated with string by a MethodSpec whose parent is that MemberRef:
    // MapName(5) = new GenBox<int>(5).Map<string>(Namer).
    private static MvarReport Mvar(Patcher patcher, HostMetadata metadata)
    {
        Func<string> call = () => GenMvarTargets.MapName(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMvarTargets), nameof(GenMvarTargets.MapName)));
        (byte[] mapSig, string mapName) = metadata.MethodSignature(typeof(GenBox<>).GetMethod(nameof(GenBox<int>.Map))!);
        string original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        uint box = b.Reference(AlvkRelocationKind.TypeSpec, BoxOfInt);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Newobj, AlvkRelocationKind.MemberRef, BoxConstructor, ".ctor", parentRelocation: box);
        b.EmitExisting(ILOpCode.Ldsfld, typeof(GenMvarTargets).GetField(nameof(GenMvarTargets.Namer))!.MetadataToken);
        uint map = b.Reference(AlvkRelocationKind.MemberRef, mapSig, mapName, parentRelocation: box);
        b.Emit(ILOpCode.Callvirt, AlvkRelocationKind.MethodSpec,
            HostMetadata.Blob(e => e.MethodSpecificationSignature(1).AddArgument().String()), parentRelocation: map);
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<string> firstStep = Submit(patcher, b, target, 0, MvarOwner, call, "n5", out ulong handle, out ulong first);
        return new MvarReport(original, Convert.ToHexString(mapSig), firstStep,
            Remove(patcher, handle, MvarOwner, first, call, "none"));
    }

    // e: generic targets, each JITted for int and string before: Pick<T> (MVAR) and
    // GenBox<T>.First (VAR), both becoming `ldarg.1; ret`.
    private static SortedDictionary<string, GenericTargetReport> GenericTargets(Patcher patcher)
    {
        Func<string> pick = () => $"{GenGenericTargets.Pick(1, 2)}|{GenGenericTargets.Pick("a", "b")}";
        Func<string> first = () => $"{new GenBox<int>(1).First(2)}|{new GenBox<string>("a").First("b")}";
        var report = new SortedDictionary<string, GenericTargetReport>(StringComparer.Ordinal);
        foreach ((string name, MethodInfo method, Func<string> call, ulong owner) in new[]
                 {
                     ("pick", Patcher.Method(typeof(GenGenericTargets), nameof(GenGenericTargets.Pick)), pick, PickOwner),
                     ("first", Patcher.Method(typeof(GenBox<>), nameof(GenBox<int>.First)), first, FirstOwner),
                 })
        {
            AlvkMethodDescription target = patcher.Describe(method);
            var b = new GenerationBuilder();
            b.IL.LoadArgument(1);
            b.IL.OpCode(ILOpCode.Ret);
            string original = Patcher.Warm(call);
            GenerationStep<string> firstStep = Submit(patcher, b, target, 0, owner, call, "2|b", out ulong handle, out ulong id);
            // Exact dispatch cannot serve every instantiation: a replace is refused, and the
            // generation keeps running.
            AlvkStatus replace = patcher.Library.PatchReplace(handle, owner,
                Patcher.EntryPoint(Patcher.Method(typeof(GenCrossTargets), nameof(GenCrossTargets.CrossAbs))));
            string replaceWait = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
            var replaced = new GenericReplace(replace.ToString(), replaceWait, call());
            report[name] = new GenericTargetReport(original, target.MethodFlags.ToString(), firstStep, replaced,
                Remove(patcher, handle, owner, id, call, "1|a"));
        }
        return report;
    }

    // Locals through ALVK_RELOCATION_LOCALS_SIGNATURE: ldarg.0; stloc.0; ldloc.0; ldloc.0; add; ret.
    private static SingleGeneration Locals(Patcher patcher)
    {
        Func<int> call = () => GenLocalsTargets.Doubled(21);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenLocalsTargets), nameof(GenLocalsTargets.Doubled)));
        var original = Patcher.Warm(call);
        var b = new GenerationBuilder();
        b.Locals(HostMetadata.Blob(e => e.LocalVariableSignature(1).AddVariable().Type().Int32()));
        b.IL.LoadArgument(0);
        b.IL.StoreLocal(0);
        b.IL.LoadLocal(0);
        b.IL.LoadLocal(0);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<int> firstStep = Submit(patcher, b, target, 0, LocalsOwner, call, 42, out ulong handle, out ulong first);
        return new SingleGeneration(original, firstStep, Remove(patcher, handle, LocalsOwner, first, call, 21));
    }

    // f: generation 2 of NativeAbs does not compile (pop on an empty stack): what the calls
    // see, how generation 2 ends, and whether generation 1 comes back.
    private static CompilationFailureReport CompilationFailure(Patcher patcher, IntPtr abs)
    {
        ProfilerLibrary library = patcher.Library;
        Func<string> call = () => Outcome(() => GenCalliTargets.NativeAbs(-5));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.NativeAbs)));
        var original = Patcher.Warm(call);
        GenerationStep<string> firstStep = Submit(patcher, AbsBody(abs, 0), target, 0, FailureOwner, call, "5", out ulong handle,
            out ulong first);

        var invalid = new GenerationBuilder();
        invalid.IL.OpCode(ILOpCode.Pop);
        invalid.IL.OpCode(ILOpCode.Ret);
        // Flagged unverifiable: the profiler's stack-type check would refuse it; the JIT is what
        // this scenario is about.
        AlvkStatus sync = invalid.Submit(library, target, first, FailureOwner, out ulong joined, out ulong second,
            mutate: Unverifiable);
        string? wait = sync == AlvkStatus.Ok ? library.PatchWait(handle, Patcher.WaitMs).ToString() : null;
        GenerationResultReport beforeCalls = patcher.ReadGenerationResult(handle, second);
        string? stateBeforeCalls = beforeCalls.Call == "Ok" ? beforeCalls.State : null;

        // Call, and read generation 2's result, until it failed or FailureLimit passed.
        var outcomes = new SortedDictionary<string, int>(StringComparer.Ordinal);
        var sequence = new List<string>();
        var clock = Stopwatch.StartNew();
        int calls = 0;
        GenerationResultReport failed;
        do
        {
            string outcome = call();
            calls++;
            outcomes[outcome] = outcomes.GetValueOrDefault(outcome) + 1;
            if (sequence.Count < 8)
                sequence.Add(outcome);
            failed = patcher.ReadGenerationResult(handle, second);
            if (failed.State == nameof(AlvkGenerationState.Failed))
                break;
            Thread.Sleep(5);
        } while (clock.Elapsed < FailureLimit);
        long failedAfterMs = clock.ElapsedMilliseconds;
        Polled<string> restored = Patcher.PollFor(call, "5", FailureLimit);
        string waitAfterRestore = library.PatchWait(handle, Patcher.WaitMs).ToString();
        GenerationResultReport secondAfterRestore = patcher.ReadGenerationResult(handle, second);
        GenerationResultReport firstAfterRestore = patcher.ReadGenerationResult(handle, first);
        var secondStep = new FailedGeneration(sync.ToString(), joined == handle, second, wait, stateBeforeCalls, calls,
            sequence, outcomes, failedAfterMs, failed, restored, waitAfterRestore, secondAfterRestore, firstAfterRestore,
            patcher.ReadTelemetry(handle));

        // Two bad generations queued back to back, the second naming the first: the rollback
        // returns to generation 1, the last body that compiled, not to the bad one in between.
        var third = new GenerationBuilder();
        third.IL.OpCode(ILOpCode.Pop);
        third.IL.OpCode(ILOpCode.Ret);
        AlvkStatus sync3 = third.Submit(library, target, first, FailureOwner, out _, out ulong thirdId, mutate: Unverifiable);
        var fourth = new GenerationBuilder();
        fourth.IL.OpCode(ILOpCode.Ret);
        AlvkStatus sync4 = fourth.Submit(library, target, thirdId, FailureOwner, out _, out ulong fourthId,
            mutate: Unverifiable);
        string twiceWait = library.PatchWait(handle, Patcher.WaitMs).ToString();
        Polled<string> twiceRestored = Patcher.PollFor(call, "5", FailureLimit);
        GenerationResultReport thirdResult = patcher.ReadGenerationResult(handle, thirdId);
        var twice = new TwoFailures(sync3.ToString(), sync4.ToString(), twiceWait, twiceRestored, thirdResult,
            patcher.ReadGenerationResult(handle, fourthId));
        return new CompilationFailureReport(original, firstStep, secondStep, twice,
            Remove(patcher, handle, FailureOwner, first, call, "-5"));
    }

    // g: a generation built against another body (one identity byte flipped) is rejected on
    // the worker and the target keeps its original.
    private static WorkerRefusal BodyIdentity(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenGuardTargets.IdentityGuarded(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.IdentityGuarded)));
        var original = Patcher.Warm(call);
        AlvkStatus sync = AddBody(100).Submit(library, target, 0, IdentityOwner, out ulong handle, out ulong id,
            mutate: (ref g) => g.ExpectedBodyIdentity[0] ^= 0x01);
        string? wait = null;
        GenerationResultReport? result = null;
        TelemetryReport? telemetry = null;
        if (sync == AlvkStatus.Ok)
        {
            wait = library.PatchWait(handle, Patcher.WaitMs).ToString();
            result = patcher.ReadGenerationResult(handle, id);
            telemetry = patcher.ReadTelemetry(handle);
        }
        return new WorkerRefusal(original, sync.ToString(), id, wait, result, telemetry, Patcher.Warm(call));
    }

    // h: a prior generation that is not the latest is refused at the call, whatever it names,
    // and changes nothing: the next correctly chained generation still applies.
    private static StaleReport Stale(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenGuardTargets.Chained(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.Chained)));
        var original = Patcher.Warm(call);
        GenerationStep<int> firstStep = Submit(patcher, AddBody(10), target, 0, ChainOwner, call, 15, out ulong handle, out ulong first);
        GenerationStep<int> secondStep = Submit(patcher, AddBody(20), target, first, ChainOwner, call, 25, out _, out ulong second);
        TelemetryReport before = patcher.ReadTelemetry(handle);
        var refusals = new SortedDictionary<string, StaleSubmission>(StringComparer.Ordinal);
        foreach ((string name, ulong prior) in new[] { ("priorIsFirst", first), ("priorIsZero", 0ul), ("priorInFuture", second + 1000) })
        {
            AlvkStatus sync = AddBody(30).Submit(library, target, prior, ChainOwner, out ulong h, out ulong id);
            refusals[name] = new StaleSubmission(sync.ToString(), h, id, Patcher.Warm(call));
        }
        TelemetryReport after = patcher.ReadTelemetry(handle);
        GenerationResultReport secondAfterRefusals = patcher.ReadGenerationResult(handle, second);
        GenerationStep<int> thirdStep = Submit(patcher, AddBody(30), target, second, ChainOwner, call, 35, out _, out ulong third);
        RemoveStep<int> remove = Remove(patcher, handle, ChainOwner, third, call, 6);

        Func<int> unpatched = () => GenGuardTargets.Unpatched(5);
        AlvkMethodDescription fresh = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.Unpatched)));
        Patcher.Warm(unpatched);
        AlvkStatus freshSync = AddBody(10).Submit(library, fresh, 12345, UnpatchedOwner, out ulong freshHandle, out ulong freshId);
        var firstNamingAPrior = new StaleSubmission(freshSync.ToString(), freshHandle, freshId, Patcher.Warm(unpatched));
        return new StaleReport(original, firstStep, secondStep, refusals, before, after, secondAfterRefusals, thirdStep, remove,
            firstNamingAPrior);
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

    private delegate void Edit(GenerationBuilder builder);

    // i: every refused input, each one edit away from an accepted generation (the control,
    // submitted last), refused at the call with nothing queued and the target unchanged.
    private static ValidationReport Validation(Patcher patcher, HostMetadata metadata, IntPtr abs)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenCalliTargets.Validated(-5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.Validated)));
        int original = Patcher.Warm(call);
        var submissions = new SortedDictionary<string, BadSubmission>(StringComparer.Ordinal);

        GenerationBuilder Valid(Edit? edit = null)
        {
            GenerationBuilder b = AbsBody(abs, 0);
            edit?.Invoke(b);
            return b;
        }
        void Refuse(string name, GenerationBuilder b, byte[]? body = null, GenerationBuilder.Mutate? mutate = null,
            uint? size = null, uint? relocationSize = null)
        {
            AlvkStatus dryRun = b.Validate(library, target, 0, ValidationOwner, out uint failingIndex, body, mutate,
                size, relocationSize);
            AlvkStatus sync = b.Submit(library, target, 0, ValidationOwner, out ulong handle, out ulong id, body, mutate,
                size, relocationSize);
            string? wait = null;
            GenerationResultReport? accepted = null;
            int? acceptedResult = null;
            if (sync == AlvkStatus.Ok)
            {
                // Wrongly accepted: say what it did, then take it back so the next input starts clean.
                wait = library.PatchWait(handle, Patcher.WaitMs).ToString();
                accepted = patcher.ReadGenerationResult(handle, id);
                acceptedResult = call();
                library.PatchRemove(handle, ValidationOwner);
                library.PatchWait(handle, Patcher.WaitMs);
            }
            int result = 0;
            for (int i = 0; i < 3; i++)
                result = call();
            submissions[name] = new BadSubmission(sync.ToString(), handle, id, dryRun.ToString(), failingIndex, wait, accepted,
                acceptedResult, result, result == -5);
        }

        byte[] badHeader = Valid().Body();
        badHeader[0] = (byte)((badHeader[0] & ~0x3) | 0x1); // neither tiny (10) nor fat (11)
        Refuse("badHeader", Valid(), body: badHeader);
        Refuse("relocationOffOperand", Valid(b => Retarget(b, 0, b.OperandOf(1) - 1)));
        Refuse("wrongTokenKind", Valid(b => Rekind(b, 0, AlvkRelocationKind.TypeSpec, BoxOfInt)));
        Refuse("overlappingRelocations", Valid(b => b.Relocations.Add(b.Relocations[0])));
        Refuse("ehClauseOutOfRange", Valid(b => b.SmallClause(0, 0, 200, 0, 1, (uint)typeof(GenKindsTargets).MetadataToken)));
        Refuse("ilMapOutOfOrder", Valid(b =>
        {
            b.ILMap.Clear();
            b.Map(1, 1);
            b.Map(0, 0);
        }));
        Refuse("truncatedSignatureBlob", Valid(b => Rekind(b, 0, AlvkRelocationKind.StandAloneSig, [0x01, 0x01, 0x08])));
        byte[] oversize = new byte[(int)AlvkConstants.MaxGenerationBodyBytes + 1];
        Valid().Body().CopyTo(oversize, 0);
        Refuse("oversizeBody", Valid(), body: oversize);
        Refuse("relocationSizeWrong", Valid(), relocationSize: 8);
        Refuse("nullBody", Valid(), mutate: (ref g) => g.Body = null);
        Refuse("ownerZero", Valid(), mutate: (ref g) => g.Owner = 0);
        Refuse("smallStruct", Valid(), size: 8);
        Refuse("unknownFlag", Valid(), mutate: (ref g) => g.Flags = 0x80);
        Refuse("reservedNonZero", Valid(), mutate: (ref g) => g.Reserved = 1);
        Refuse("unknownOpcode", Valid(b => b.IL.OpCode((ILOpCode)0x24))); // 0x24 is unused
        Refuse("unknownRelocationKind", Valid(b => Rekind(b, 0, (AlvkRelocationKind)9, HostMetadata.IntToInt(SignatureCallingConvention.CDecl))));
        Refuse("tooManyRelocations", Valid(b =>
        {
            for (int i = 0; i < (int)AlvkConstants.MaxRelocations; i++)
                b.Reference(AlvkRelocationKind.TypeSpec, BoxOfInt);
        }));

        GenerationBuilder valid = Valid();
        var nulls = new NullSubmissions(
            library.GenerationSubmitWithNulls(default, nullGeneration: true, nullHandle: false, nullId: false).ToString(),
            NullOut(library, valid, target, nullHandle: true),
            NullOut(library, valid, target, nullHandle: false));
        string unknownHandle = patcher.ReadGenerationResult(0x7FFF_0000_0000_0001, 1).Call;
        string zeroHandle = patcher.ReadGenerationResult(0, 1).Call;

        // The control: the valid generation itself is accepted and applies; then removal.
        GenerationStep<int> control = Submit(patcher, valid, target, 0, ValidationOwner, call, 5, out ulong handle, out ulong id);
        var results = new ResultQueries(unknownHandle, zeroHandle,
            patcher.ReadGenerationResult(handle, id + 1000).Call,
            patcher.ReadGenerationResult(handle, 0).Call,
            library.GenerationGetResult(handle, id, out _, [], size: 8).ToString(),
            NoRoom(library, handle, id));
        return new ValidationReport(original, submissions, nulls, results, control,
            Remove(patcher, handle, ValidationOwner, id, call, -5));
    }

    // j: type-unsafe bodies submitted raw (no managed check between them and the profiler): valid
    // as instruction streams, so accepted at the call, then refused on the worker with
    // ALVK_E_STACK_TYPE_MISMATCH and the instruction's offset and types, before any metadata
    // or ReJIT; the target keeps returning its original value. A body that is unverifiable but
    // correct (a native int returned as an int64, fine on 64-bit) is refused the same way, and
    // accepted and run when flagged ALVK_INSTALL_UNVERIFIABLE.
    private static TypeSafetyReport TypeSafety(Patcher patcher)
    {
        var name = new GenerationBuilder();
        name.IL.LoadArgument(0);
        name.IL.OpCode(ILOpCode.Ret);
        TypeRefusal<string> intForString = TypeRefused(patcher, name,
            Patcher.Method(typeof(GenTypeTargets), nameof(GenTypeTargets.Name)), () => GenTypeTargets.Name(7));

        var ratio = new GenerationBuilder();
        ratio.EmitExisting(ILOpCode.Ldsfld, typeof(GenTypeTargets).GetField(nameof(GenTypeTargets.Label))!.MetadataToken);
        ratio.IL.OpCode(ILOpCode.Ret);
        TypeRefusal<double> stringForDouble = TypeRefused(patcher, ratio,
            Patcher.Method(typeof(GenTypeTargets), nameof(GenTypeTargets.Ratio)), () => GenTypeTargets.Ratio(7));

        MethodInfo widen = Patcher.Method(typeof(GenTypeTargets), nameof(GenTypeTargets.Widen));
        Func<long> call = () => GenTypeTargets.Widen(1234);
        GenerationBuilder Widen()
        {
            var b = new GenerationBuilder();
            b.IL.LoadArgument(0);
            b.IL.OpCode(ILOpCode.Ret);
            return b;
        }
        TypeRefusal<long> unflagged = TypeRefused(patcher, Widen(), widen, call);

        AlvkMethodDescription target = patcher.Describe(widen);
        AlvkStatus sync = Widen().Submit(patcher.Library, target, 0, UnverifiableOwner, out ulong handle, out ulong id,
            mutate: Unverifiable);
        var flagged = new FlaggedGeneration(sync.ToString(), id, null, null, null, null, null);
        if (sync == AlvkStatus.Ok)
        {
            string wait = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
            Polled<long> result = Patcher.PollFor(call, 1234L);
            GenerationResultReport settled = patcher.SettleGeneration(handle, id);
            TelemetryReport telemetry = patcher.ReadTelemetry(handle);
            flagged = flagged with
            {
                Wait = wait,
                Result = result,
                GenerationResult = settled,
                Telemetry = telemetry,
                Remove = Remove(patcher, handle, UnverifiableOwner, id, call, -1L),
            };
        }
        return new TypeSafetyReport(intForString, stringForDouble, unflagged, flagged);
    }

    // A first generation of `method` from `builder`: validated, submitted, waited for; its
    // result, the patch's telemetry, and what the target returns before and after.
    private static TypeRefusal<T> TypeRefused<T>(Patcher patcher, GenerationBuilder builder, MethodInfo method, Func<T> call)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkMethodDescription target = patcher.Describe(method);
        T original = Patcher.Warm(call);
        string validate = builder.Validate(library, target, 0, TypesOwner, out _).ToString();
        AlvkStatus sync = builder.Submit(library, target, 0, TypesOwner, out ulong handle, out ulong id);
        string? wait = null;
        GenerationResultReport? result = null;
        TelemetryReport? telemetry = null;
        if (sync == AlvkStatus.Ok)
        {
            wait = library.PatchWait(handle, Patcher.WaitMs).ToString();
            result = patcher.ReadGenerationResult(handle, id);
            telemetry = patcher.ReadTelemetry(handle);
        }
        return new TypeRefusal<T>(original, validate, sync.ToString(), id, wait, result, telemetry, Patcher.Warm(call));
    }

    private static void Unverifiable(ref AlvkGeneration g) => g.Flags = (uint)AlvkInstallFlags.Unverifiable;

    private static void Retarget(GenerationBuilder b, int index, uint ilOffset)
    {
        AlvkRelocation r = b.Relocations[index];
        r.ILOffset = ilOffset;
        b.Relocations[index] = r;
    }

    // Relocation `index` becomes `kind` with `blob` (added to the pool), on the same operand.
    private static void Rekind(GenerationBuilder b, int index, AlvkRelocationKind kind, byte[] blob)
    {
        AlvkRelocation r = b.Relocations[index];
        r.Kind = kind;
        (r.BlobOffset, r.BlobLength) = b.Pooled(blob);
        b.Relocations[index] = r;
    }

    private static unsafe string NullOut(ProfilerLibrary library, GenerationBuilder b, in AlvkMethodDescription target,
        bool nullHandle)
    {
        byte[] body = b.Body();
        fixed (byte* p = body)
        {
            AlvkGeneration g = AlvkGeneration.For(target, 0, ValidationOwner);
            g.Body = p;
            g.BodySize = (uint)body.Length;
            return library.GenerationSubmitWithNulls(g, nullGeneration: false, nullHandle: nullHandle, nullId: !nullHandle)
                .ToString();
        }
    }

    // A result read with room for no relocation: the call succeeds and says how many there are.
    private static NoRoomResult NoRoom(ProfilerLibrary library, ulong handle, ulong id)
    {
        AlvkStatus rc = library.GenerationGetResult(handle, id, out AlvkGenerationResult r, []);
        return new NoRoomResult(rc.ToString(), r.RelocationCount);
    }

    private static readonly byte[] BoxOfInt = HostMetadata.GenericInstance(typeof(GenBox<>), a => a.Int32());

    // GenBox<T>::.ctor(!0): HASTHIS void(VAR 0); GenBox<T>::Value: FIELD VAR 0.
    private static readonly byte[] BoxConstructor = HostMetadata.Blob(e => e.MethodSignature(isInstanceMethod: true)
        .Parameters(1, r => r.Void(), p => p.AddParameter().Type().GenericTypeParameter(0)));

    private static readonly byte[] BoxValue = HostMetadata.Blob(e => e.FieldSignature().GenericTypeParameter(0));

    private static uint Token(MemberInfo member) => (uint)member.MetadataToken;

    private static string Outcome(Func<int> call)
    {
        try
        {
            return call().ToString();
        }
        catch (Exception e)
        {
            return e.GetType().Name;
        }
    }

    // Submit, wait, the first calls after the wait, and the generation's settled result.
    internal static GenerationStep<T> Submit<T>(Patcher patcher, GenerationBuilder builder, in AlvkMethodDescription target,
        ulong prior, ulong owner, Func<T> call, T expected, out ulong handle, out ulong id)
    {
        AlvkStatus sync = builder.Submit(patcher.Library, target, prior, owner, out handle, out id);
        var step = new GenerationStep<T>(builder.Describe(), sync.ToString(), handle != 0, id, prior, null, null, null, null);
        if (sync != AlvkStatus.Ok)
            return step;
        string wait = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
        Polled<T> result = Patcher.PollFor(call, expected);
        GenerationResultReport settled = patcher.SettleGeneration(handle, id);
        return step with { Wait = wait, Result = result, GenerationResult = settled, Telemetry = patcher.ReadTelemetry(handle) };
    }

    internal static RemoveStep<T> Remove<T>(Patcher patcher, ulong handle, ulong owner, ulong last, Func<T> call, T original)
    {
        CommandOutcome command = patcher.Finish(patcher.Library.PatchRemove(handle, owner), handle);
        Polled<T> result = Patcher.PollFor(call, original);
        GenerationResultReport lastGeneration = patcher.ReadGenerationResult(handle, last);
        return new RemoveStep<T>(command, result, lastGeneration, patcher.ReadTelemetry(handle));
    }
}
