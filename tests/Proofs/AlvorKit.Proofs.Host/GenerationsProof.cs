using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

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
    public static JsonObject Run()
    {
        var patcher = new Patcher();
        using var metadata = new HostMetadata();
        IntPtr abs = NativeLibrary.GetExport(NativeLibrary.Load("libc.so.6"), "abs");
        var report = new JsonObject();
        report["calli"] = Calli(patcher, abs);
        report["fourKinds"] = FourKinds(patcher, metadata);
        report["crossModule"] = CrossModule(patcher, metadata);
        report["fields"] = Fields(patcher);
        report["mvar"] = Mvar(patcher, metadata);
        report["genericTargets"] = GenericTargets(patcher);
        report["locals"] = Locals(patcher);
        report["compilationFailure"] = CompilationFailure(patcher, abs);
        report["bodyIdentity"] = BodyIdentity(patcher);
        report["stale"] = Stale(patcher);
        report["validation"] = Validation(patcher, metadata, abs);
        report["typeSafety"] = TypeSafety(patcher);
        return report;
    }

    // a: ldarg.0; ldc.i8 <abs>; conv.i; calli unmanaged cdecl int32(int32); ret, with an IL
    // map; then the same plus 1, reusing the StandAloneSig; then removal.
    private static JsonObject Calli(Patcher patcher, IntPtr abs)
    {
        Func<int> call = () => GenCalliTargets.NativeAbs(-5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.NativeAbs)));
        var report = new JsonObject { ["original"] = Warm(call) };
        report["first"] = Submit(patcher, AbsBody(abs, 0), target, 0, CalliOwner, call, 5, out ulong handle, out ulong first);
        report["second"] = Submit(patcher, AbsBody(abs, 1), target, first, CalliOwner, call, 6, out ulong joined, out ulong second);
        report["sameHandle"] = joined == handle;
        report["firstAfterSecond"] = patcher.GenerationResult(handle, first);
        report["remove"] = Remove(patcher, handle, CalliOwner, second, call, -5);
        return report;
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
    private static JsonObject FourKinds(Patcher patcher, HostMetadata metadata)
    {
        Func<int> call = () => GenKindsTargets.Combine(7);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenKindsTargets), nameof(GenKindsTargets.Combine)));
        MethodInfo scale = typeof(GenKindsTargets).GetMethods(BindingFlags.NonPublic | BindingFlags.Static)
            .Single(m => m.Name.EndsWith("IGenScaler.Scale", StringComparison.Ordinal));
        (byte[] scaleSig, string scaleName) = metadata.MethodSignature(scale);
        var report = new JsonObject
        {
            ["original"] = Warm(call),
            ["scaleName"] = scaleName,
            ["scaleSignature"] = Convert.ToHexString(scaleSig),
        };
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
        report["first"] = Submit(patcher, Body(0), target, 0, KindsOwner, call, 42, out ulong handle, out ulong first);
        report["second"] = Submit(patcher, Body(1), target, first, KindsOwner, call, 43, out _, out ulong second);
        report["remove"] = Remove(patcher, handle, KindsOwner, second, call, 7);
        return report;
    }

    // Field MemberRefs of every access kind on GenBox<int>: a new box, stfld Value = x,
    // ldfld Value, times 3, stsfld Shared, ldsfld Shared, plus 1: FieldPlay(4) = 13.
    private static JsonObject Fields(Patcher patcher)
    {
        Func<int> call = () => GenFieldTargets.FieldPlay(4);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenFieldTargets), nameof(GenFieldTargets.FieldPlay)));
        var report = new JsonObject { ["original"] = Warm(call) };
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
        report["first"] = Submit(patcher, b, target, 0, FieldsOwner, call, 13, out ulong handle, out ulong first);
        report["remove"] = Remove(patcher, handle, FieldsOwner, first, call, 4);
        return report;
    }

    // c: a TypeRef into another assembly (System.Math through the host's AssemblyRef
    // System.Runtime) parenting a MemberRef: CrossAbs(-9) = Math.Abs(-9).
    private static JsonObject CrossModule(Patcher patcher, HostMetadata metadata)
    {
        Func<int> call = () => GenCrossTargets.CrossAbs(-9);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCrossTargets), nameof(GenCrossTargets.CrossAbs)));
        uint systemRuntime = metadata.AssemblyRef("System.Runtime");
        var report = new JsonObject { ["original"] = Warm(call), ["assemblyRef"] = systemRuntime };
        var b = new GenerationBuilder();
        uint math = b.Reference(AlvkRelocationKind.TypeRef, name: "System.Math", parentToken: systemRuntime);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, HostMetadata.IntToInt(), "Abs", parentRelocation: math);
        b.IL.OpCode(ILOpCode.Ret);
        report["first"] = Submit(patcher, b, target, 0, CrossOwner, call, 9, out ulong handle, out ulong first);
        report["remove"] = Remove(patcher, handle, CrossOwner, first, call, -9);
        return report;
    }

    // d: GenBox<int>::Map<TOut> as a MemberRef (GENERIC, MVAR in its signature) on the
    // TypeSpec, instantiated with string by a MethodSpec whose parent is that MemberRef:
    // MapName(5) = new GenBox<int>(5).Map<string>(Namer).
    private static JsonObject Mvar(Patcher patcher, HostMetadata metadata)
    {
        Func<string> call = () => GenMvarTargets.MapName(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenMvarTargets), nameof(GenMvarTargets.MapName)));
        (byte[] mapSig, string mapName) = metadata.MethodSignature(typeof(GenBox<>).GetMethod(nameof(GenBox<int>.Map))!);
        var report = new JsonObject { ["original"] = Warm(call), ["mapSignature"] = Convert.ToHexString(mapSig) };
        var b = new GenerationBuilder();
        uint box = b.Reference(AlvkRelocationKind.TypeSpec, BoxOfInt);
        b.IL.LoadArgument(0);
        b.Emit(ILOpCode.Newobj, AlvkRelocationKind.MemberRef, BoxConstructor, ".ctor", parentRelocation: box);
        b.EmitExisting(ILOpCode.Ldsfld, typeof(GenMvarTargets).GetField(nameof(GenMvarTargets.Namer))!.MetadataToken);
        uint map = b.Reference(AlvkRelocationKind.MemberRef, mapSig, mapName, parentRelocation: box);
        b.Emit(ILOpCode.Callvirt, AlvkRelocationKind.MethodSpec,
            HostMetadata.Blob(e => e.MethodSpecificationSignature(1).AddArgument().String()), parentRelocation: map);
        b.IL.OpCode(ILOpCode.Ret);
        report["first"] = Submit(patcher, b, target, 0, MvarOwner, call, "n5", out ulong handle, out ulong first);
        report["remove"] = Remove(patcher, handle, MvarOwner, first, call, "none");
        return report;
    }

    // e: generic targets, each JITted for int and string before: Pick<T> (MVAR) and
    // GenBox<T>.First (VAR), both becoming `ldarg.1; ret`.
    private static JsonObject GenericTargets(Patcher patcher)
    {
        Func<string> pick = () => $"{GenGenericTargets.Pick(1, 2)}|{GenGenericTargets.Pick("a", "b")}";
        Func<string> first = () => $"{new GenBox<int>(1).First(2)}|{new GenBox<string>("a").First("b")}";
        var report = new JsonObject();
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
            var entry = new JsonObject { ["original"] = Warm(call), ["flags"] = target.MethodFlags.ToString() };
            entry["first"] = Submit(patcher, b, target, 0, owner, call, "2|b", out ulong handle, out ulong id);
            // Exact dispatch cannot serve every instantiation: a replace is refused, and the
            // generation keeps running.
            AlvkStatus replace = patcher.Library.PatchReplace(handle, owner,
                Patcher.EntryPoint(Patcher.Method(typeof(GenCrossTargets), nameof(GenCrossTargets.CrossAbs))));
            entry["replace"] = new JsonObject
            {
                ["sync"] = replace.ToString(),
                ["wait"] = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString(),
                ["result"] = call(),
            };
            entry["remove"] = Remove(patcher, handle, owner, id, call, "1|a");
            report[name] = entry;
        }
        return report;
    }

    // Locals through ALVK_RELOCATION_LOCALS_SIGNATURE: ldarg.0; stloc.0; ldloc.0; ldloc.0; add; ret.
    private static JsonObject Locals(Patcher patcher)
    {
        Func<int> call = () => GenLocalsTargets.Doubled(21);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenLocalsTargets), nameof(GenLocalsTargets.Doubled)));
        var report = new JsonObject { ["original"] = Warm(call) };
        var b = new GenerationBuilder();
        b.Locals(HostMetadata.Blob(e => e.LocalVariableSignature(1).AddVariable().Type().Int32()));
        b.IL.LoadArgument(0);
        b.IL.StoreLocal(0);
        b.IL.LoadLocal(0);
        b.IL.LoadLocal(0);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        report["first"] = Submit(patcher, b, target, 0, LocalsOwner, call, 42, out ulong handle, out ulong first);
        report["remove"] = Remove(patcher, handle, LocalsOwner, first, call, 21);
        return report;
    }

    // f: generation 2 of NativeAbs does not compile (pop on an empty stack): what the calls
    // see, how generation 2 ends, and whether generation 1 comes back.
    private static JsonObject CompilationFailure(Patcher patcher, IntPtr abs)
    {
        ProfilerLibrary library = patcher.Library;
        Func<string> call = () => Outcome(() => GenCalliTargets.NativeAbs(-5));
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.NativeAbs)));
        var report = new JsonObject { ["original"] = Warm(call) };
        report["first"] = Submit(patcher, AbsBody(abs, 0), target, 0, FailureOwner, call, "5", out ulong handle, out ulong first);

        var invalid = new GenerationBuilder();
        invalid.IL.OpCode(ILOpCode.Pop);
        invalid.IL.OpCode(ILOpCode.Ret);
        // Flagged unverifiable: the profiler's stack-type check would refuse it; the JIT is what
        // this scenario is about.
        AlvkStatus sync = invalid.Submit(library, target, first, FailureOwner, out ulong joined, out ulong second,
            mutate: Unverifiable);
        var step = new JsonObject { ["sync"] = sync.ToString(), ["sameHandle"] = joined == handle, ["generation"] = second };
        if (sync == AlvkStatus.Ok)
            step["wait"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
        step["stateBeforeCalls"] = patcher.GenerationResult(handle, second)["state"]?.DeepClone();

        // Call, and read generation 2's result, until it failed or FailureLimit passed.
        var outcomes = new JsonObject();
        var sequence = new JsonArray();
        var clock = Stopwatch.StartNew();
        int calls = 0;
        AlvkGenerationResult result;
        JsonObject failed;
        do
        {
            string outcome = call();
            calls++;
            outcomes[outcome] = (outcomes[outcome]?.GetValue<int>() ?? 0) + 1;
            if (sequence.Count < 8)
                sequence.Add(outcome);
            failed = patcher.GenerationResult(handle, second, out result);
            if (result.State == AlvkGenerationState.Failed)
                break;
            Thread.Sleep(5);
        } while (clock.Elapsed < FailureLimit);
        step["calls"] = calls;
        step["firstOutcomes"] = sequence;
        step["outcomes"] = outcomes;
        step["failedAfterMs"] = clock.ElapsedMilliseconds;
        step["generationResult"] = failed;
        step["restored"] = Patcher.Poll(call, "5", out _, FailureLimit);
        step["waitAfterRestore"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
        step["secondAfterRestore"] = patcher.GenerationResult(handle, second);
        step["firstAfterRestore"] = patcher.GenerationResult(handle, first);
        step["telemetry"] = patcher.Telemetry(handle);
        report["second"] = step;

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
        var twice = new JsonObject
        {
            ["sync3"] = sync3.ToString(),
            ["sync4"] = sync4.ToString(),
            ["wait"] = library.PatchWait(handle, Patcher.WaitMs).ToString(),
        };
        twice["restored"] = Patcher.Poll(call, "5", out _, FailureLimit);
        twice["third"] = patcher.GenerationResult(handle, thirdId);
        twice["fourth"] = patcher.GenerationResult(handle, fourthId);
        report["twoFailures"] = twice;
        report["remove"] = Remove(patcher, handle, FailureOwner, first, call, "-5");
        return report;
    }

    // g: a generation built against another body (one identity byte flipped) is rejected on
    // the worker and the target keeps its original.
    private static JsonObject BodyIdentity(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenGuardTargets.IdentityGuarded(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.IdentityGuarded)));
        var report = new JsonObject { ["original"] = Warm(call) };
        AlvkStatus sync = AddBody(100).Submit(library, target, 0, IdentityOwner, out ulong handle, out ulong id,
            mutate: (ref g) => g.ExpectedBodyIdentity[0] ^= 0x01);
        report["sync"] = sync.ToString();
        report["generation"] = id;
        if (sync == AlvkStatus.Ok)
        {
            report["wait"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
            report["generationResult"] = patcher.GenerationResult(handle, id);
            report["telemetry"] = patcher.Telemetry(handle);
        }
        report["targetResult"] = Warm(call);
        return report;
    }

    // h: a prior generation that is not the latest is refused at the call, whatever it names,
    // and changes nothing: the next correctly chained generation still applies.
    private static JsonObject Stale(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenGuardTargets.Chained(5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.Chained)));
        var report = new JsonObject { ["original"] = Warm(call) };
        report["first"] = Submit(patcher, AddBody(10), target, 0, ChainOwner, call, 15, out ulong handle, out ulong first);
        report["second"] = Submit(patcher, AddBody(20), target, first, ChainOwner, call, 25, out _, out ulong second);
        JsonObject before = patcher.Telemetry(handle);
        var refusals = new JsonObject();
        foreach ((string name, ulong prior) in new[] { ("priorIsFirst", first), ("priorIsZero", 0ul), ("priorInFuture", second + 1000) })
        {
            AlvkStatus sync = AddBody(30).Submit(library, target, prior, ChainOwner, out ulong h, out ulong id);
            refusals[name] = new JsonObject
            {
                ["sync"] = sync.ToString(),
                ["handle"] = h,
                ["generation"] = id,
                ["targetResult"] = Warm(call),
            };
        }
        report["refusals"] = refusals;
        report["telemetryBefore"] = before;
        report["telemetryAfter"] = patcher.Telemetry(handle);
        report["secondAfterRefusals"] = patcher.GenerationResult(handle, second);
        report["third"] = Submit(patcher, AddBody(30), target, second, ChainOwner, call, 35, out _, out ulong third);
        report["remove"] = Remove(patcher, handle, ChainOwner, third, call, 6);

        Func<int> unpatched = () => GenGuardTargets.Unpatched(5);
        AlvkMethodDescription fresh = patcher.Describe(Patcher.Method(typeof(GenGuardTargets), nameof(GenGuardTargets.Unpatched)));
        Warm(unpatched);
        AlvkStatus freshSync = AddBody(10).Submit(library, fresh, 12345, UnpatchedOwner, out ulong freshHandle, out ulong freshId);
        report["firstNamingAPrior"] = new JsonObject
        {
            ["sync"] = freshSync.ToString(),
            ["handle"] = freshHandle,
            ["generation"] = freshId,
            ["targetResult"] = Warm(unpatched),
        };
        return report;
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
    private static JsonObject Validation(Patcher patcher, HostMetadata metadata, IntPtr abs)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => GenCalliTargets.Validated(-5);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(GenCalliTargets), nameof(GenCalliTargets.Validated)));
        var report = new JsonObject { ["original"] = Warm(call) };
        var submissions = new JsonObject();

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
            var entry = new JsonObject
            {
                ["sync"] = sync.ToString(),
                ["handle"] = handle,
                ["generation"] = id,
                ["validate"] = dryRun.ToString(),
                ["failingIndex"] = failingIndex,
            };
            if (sync == AlvkStatus.Ok)
            {
                // Wrongly accepted: say what it did, then take it back so the next input starts clean.
                entry["wait"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
                entry["generationResult"] = patcher.GenerationResult(handle, id);
                entry["acceptedResult"] = call();
                library.PatchRemove(handle, ValidationOwner);
                library.PatchWait(handle, Patcher.WaitMs);
            }
            int result = 0;
            for (int i = 0; i < 3; i++)
                result = call();
            entry["targetResult"] = result;
            entry["targetUnchanged"] = result == -5;
            submissions[name] = entry;
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
        report["submissions"] = submissions;

        GenerationBuilder valid = Valid();
        report["nulls"] = new JsonObject
        {
            ["nullGeneration"] = library.GenerationSubmitWithNulls(default, nullGeneration: true, nullHandle: false, nullId: false).ToString(),
            ["nullHandle"] = NullOut(library, valid, target, nullHandle: true),
            ["nullId"] = NullOut(library, valid, target, nullHandle: false),
        };
        report["results"] = new JsonObject
        {
            ["unknownHandle"] = patcher.GenerationResult(0x7FFF_0000_0000_0001, 1)["call"]?.DeepClone(),
            ["zeroHandle"] = patcher.GenerationResult(0, 1)["call"]?.DeepClone(),
        };

        // The control: the valid generation itself is accepted and applies; then removal.
        report["control"] = Submit(patcher, valid, target, 0, ValidationOwner, call, 5, out ulong handle, out ulong id);
        var results = (JsonObject)report["results"]!;
        results["unknownGeneration"] = patcher.GenerationResult(handle, id + 1000)["call"]?.DeepClone();
        results["generationZero"] = patcher.GenerationResult(handle, 0)["call"]?.DeepClone();
        results["smallStruct"] = library.GenerationGetResult(handle, id, out _, [], size: 8).ToString();
        results["noRelocationRoom"] = NoRoom(library, handle, id);
        report["controlRemove"] = Remove(patcher, handle, ValidationOwner, id, call, -5);
        return report;
    }

    // j: type-unsafe bodies submitted raw (no managed check between them and the profiler): valid
    // as instruction streams, so accepted at the call, then refused on the worker with
    // ALVK_E_STACK_TYPE_MISMATCH and the instruction's offset and types, before any metadata
    // or ReJIT; the target keeps returning its original value. A body that is unverifiable but
    // correct (a native int returned as an int64, fine on 64-bit) is refused the same way, and
    // accepted and run when flagged ALVK_INSTALL_UNVERIFIABLE.
    private static JsonObject TypeSafety(Patcher patcher)
    {
        var report = new JsonObject();
        var name = new GenerationBuilder();
        name.IL.LoadArgument(0);
        name.IL.OpCode(ILOpCode.Ret);
        report["intForString"] = TypeRefused(patcher, name,
            Patcher.Method(typeof(GenTypeTargets), nameof(GenTypeTargets.Name)), () => GenTypeTargets.Name(7));

        var ratio = new GenerationBuilder();
        ratio.EmitExisting(ILOpCode.Ldsfld, typeof(GenTypeTargets).GetField(nameof(GenTypeTargets.Label))!.MetadataToken);
        ratio.IL.OpCode(ILOpCode.Ret);
        report["stringForDouble"] = TypeRefused(patcher, ratio,
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
        JsonObject unflagged = TypeRefused(patcher, Widen(), widen, call);
        report["unverifiableUnflagged"] = unflagged;

        AlvkMethodDescription target = patcher.Describe(widen);
        AlvkStatus sync = Widen().Submit(patcher.Library, target, 0, UnverifiableOwner, out ulong handle, out ulong id,
            mutate: Unverifiable);
        var flagged = new JsonObject { ["sync"] = sync.ToString(), ["generation"] = id };
        if (sync == AlvkStatus.Ok)
        {
            flagged["wait"] = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
            flagged["result"] = Patcher.Poll(call, 1234L);
            flagged["generationResult"] = patcher.SettledGeneration(handle, id);
            flagged["telemetry"] = patcher.Telemetry(handle);
            flagged["remove"] = Remove(patcher, handle, UnverifiableOwner, id, call, -1L);
        }
        report["unverifiableFlagged"] = flagged;
        return report;
    }

    // A first generation of `method` from `builder`: validated, submitted, waited for; its
    // result, the patch's telemetry, and what the target returns before and after.
    private static JsonObject TypeRefused<T>(Patcher patcher, GenerationBuilder builder, MethodInfo method, Func<T> call)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkMethodDescription target = patcher.Describe(method);
        var report = new JsonObject { ["original"] = JsonSerializer.SerializeToNode(Warm(call)) };
        report["validate"] = builder.Validate(library, target, 0, TypesOwner, out _).ToString();
        AlvkStatus sync = builder.Submit(library, target, 0, TypesOwner, out ulong handle, out ulong id);
        report["sync"] = sync.ToString();
        report["generation"] = id;
        if (sync == AlvkStatus.Ok)
        {
            report["wait"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
            report["generationResult"] = patcher.GenerationResult(handle, id);
            report["telemetry"] = patcher.Telemetry(handle);
        }
        report["targetResult"] = JsonSerializer.SerializeToNode(Warm(call));
        return report;
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
    private static JsonObject NoRoom(ProfilerLibrary library, ulong handle, ulong id)
    {
        AlvkStatus rc = library.GenerationGetResult(handle, id, out AlvkGenerationResult r, []);
        return new JsonObject { ["call"] = rc.ToString(), ["relocationCount"] = r.RelocationCount };
    }

    private static readonly byte[] BoxOfInt = HostMetadata.GenericInstance(typeof(GenBox<>), a => a.Int32());

    // GenBox<T>::.ctor(!0): HASTHIS void(VAR 0); GenBox<T>::Value: FIELD VAR 0.
    private static readonly byte[] BoxConstructor = HostMetadata.Blob(e => e.MethodSignature(isInstanceMethod: true)
        .Parameters(1, r => r.Void(), p => p.AddParameter().Type().GenericTypeParameter(0)));

    private static readonly byte[] BoxValue = HostMetadata.Blob(e => e.FieldSignature().GenericTypeParameter(0));

    private static uint Token(MemberInfo member) => (uint)member.MetadataToken;

    // Called a few times before a generation, so the target was JITted.
    private static T Warm<T>(Func<T> call)
    {
        T last = call();
        for (int i = 0; i < 3; i++)
            last = call();
        return last;
    }

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
    internal static JsonObject Submit<T>(Patcher patcher, GenerationBuilder builder, in AlvkMethodDescription target,
        ulong prior, ulong owner, Func<T> call, T expected, out ulong handle, out ulong id)
    {
        AlvkStatus sync = builder.Submit(patcher.Library, target, prior, owner, out handle, out id);
        var step = new JsonObject
        {
            ["submitted"] = builder.Describe(),
            ["sync"] = sync.ToString(),
            ["handleNonZero"] = handle != 0,
            ["generation"] = id,
            ["prior"] = prior,
        };
        if (sync != AlvkStatus.Ok)
            return step;
        step["wait"] = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
        step["result"] = Patcher.Poll(call, expected);
        step["generationResult"] = patcher.SettledGeneration(handle, id);
        step["telemetry"] = patcher.Telemetry(handle);
        return step;
    }

    internal static JsonObject Remove<T>(Patcher patcher, ulong handle, ulong owner, ulong last, Func<T> call, T original)
    {
        JsonObject step = patcher.Command(patcher.Library.PatchRemove(handle, owner), handle);
        step["result"] = Patcher.Poll(call, original);
        step["lastGeneration"] = patcher.GenerationResult(handle, last);
        step["telemetry"] = patcher.Telemetry(handle);
        return step;
    }
}
