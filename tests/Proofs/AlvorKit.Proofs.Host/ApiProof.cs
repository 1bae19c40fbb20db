using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using AlvorKit.Interception;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The managed API (AlvorKit.Interception) from inside a process: Interceptor.Open, Describe,
/// Install / Replace / Remove, owner scopes, two owners, signature mismatches refused before any
/// native call, and symbolic generation plans. One JSON report; with no profiler (or a profiler
/// that refuses patching) the report says what the API threw.
/// </summary>
public static class ApiProof
{
    private const int Input = 5;

    public static JsonObject Run()
    {
        var report = new JsonObject();
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            report["open"] = Thrown(e);
            return report;
        }
        using (interceptor)
        {
            report["open"] = new JsonObject
            {
                ["profilerPath"] = interceptor.ProfilerPath,
                ["abiVersion"] = interceptor.AbiVersion.ToString(),
                ["patchingEnabled"] = interceptor.IsPatchingEnabled,
                ["patchingRefusal"] = interceptor.PatchingRefusal,
                ["patchableModules"] = interceptor.PatchableModules,
            };
            if (!interceptor.IsPatchingEnabled)
            {
                report["refused"] = Refused(interceptor);
                return report;
            }
            report["describe"] = Describe(interceptor);
            report["lifecycle"] = Lifecycle(interceptor);
            report["instanceTargets"] = InstanceTargets(interceptor);
            report["ownerScope"] = OwnerScope(interceptor);
            report["twoOwners"] = TwoOwners(interceptor);
            report["mismatch"] = Mismatch(interceptor);
            report["plan"] = SymbolicPlan(interceptor);
            report["crossModulePlan"] = CrossModulePlan(interceptor);
            report["typeOperands"] = TypeOperands(interceptor);
            report["exceptionRegion"] = ExceptionRegion(interceptor);
            report["genericTargets"] = GenericTargets(interceptor);
            report["mixed"] = Mixed(interceptor);
            report["planRefusals"] = PlanRefusals();
            report["rejectedPlan"] = RejectedPlan(interceptor);
            report["typeSafety"] = TypeSafety(interceptor);
            report["livePatchesAtEnd"] = interceptor.Patches.Count;
        }
        return report;
    }

    // Open succeeded but the profiler refuses patch commands: Install says why.
    private static JsonObject Refused(Interceptor interceptor)
    {
        try
        {
            interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)),
                Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
            return new JsonObject { ["threw"] = null };
        }
        catch (Exception e)
        {
            return Thrown(e);
        }
    }

    private static JsonObject Describe(Interceptor interceptor)
    {
        MethodDescription d = interceptor.Describe(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)));
        MethodDescription instance = interceptor.Describe(Method(typeof(ApiVector), nameof(ApiVector.Scale)));
        return new JsonObject
        {
            ["token"] = d.MetadataToken,
            ["reflectionToken"] = typeof(ApiTargets).GetMethod(nameof(ApiTargets.Compute))!.MetadataToken,
            ["mvidMatches"] = d.ModuleVersionId == typeof(ApiTargets).Module.ModuleVersionId,
            ["traits"] = d.Traits.ToString(),
            ["structTraits"] = instance.Traits.ToString(),
            ["parameterCount"] = d.ParameterCount,
            ["codeSize"] = d.CodeSize,
            ["signatureHash"] = d.SignatureHash.ToString(),
            ["bodyIdentity"] = d.BodyIdentity.ToString(),
            ["moduleEpoch"] = d.ModuleEpoch,
        };
    }

    // Install A, replace with B, remove: what Compute returns, and the Patch's state and
    // telemetry after each step.
    private static JsonObject Lifecycle(Interceptor interceptor)
    {
        Func<int> call = () => ApiTargets.Compute(Input);
        var report = new JsonObject { ["original"] = Warm(call) };
        Patch patch = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)),
            Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
        report["install"] = Step(patch, call, Input + 100);
        report["install"]!["owner"] = patch.Owner.Name;
        report["install"]!["listed"] = interceptor.Patches.Contains(patch);
        patch.Replace(Method(typeof(ApiTargets), nameof(ApiTargets.ComputeB)));
        report["replace"] = Step(patch, call, Input + 1000);
        report["replace"]!["replacement"] = patch.Replacement?.Name;
        patch.Remove();
        report["remove"] = Step(patch, call, Input + 1);
        report["remove"]!["listed"] = interceptor.Patches.Contains(patch);
        patch.Remove(); // a second remove does nothing
        report["removeAgainState"] = patch.ReadTelemetry().State.ToString();
        try
        {
            patch.Replace(Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
            report["replaceAfterRemove"] = null;
        }
        catch (InvalidOperationException e)
        {
            report["replaceAfterRemove"] = Thrown(e);
        }
        report["afterAll"] = call();
        return report;
    }

    // Receivers: a class instance method (the class first) and a struct one (ref struct first).
    private static JsonObject InstanceTargets(Interceptor interceptor)
    {
        var counter = new ApiCounter();
        Func<int> add = () =>
        {
            counter.Count = 0;
            return counter.Add(3);
        };
        var vector = new ApiVector { X = 4 };
        Func<int> scale = () => vector.Scale(3);
        var report = new JsonObject { ["classOriginal"] = Warm(add), ["structOriginal"] = Warm(scale) };
        Patch c = interceptor.Install(Method(typeof(ApiCounter), nameof(ApiCounter.Add)),
            Method(typeof(ApiCounter), nameof(ApiCounter.AddTwice)));
        report["class"] = Step(c, add, 6);
        Patch s = interceptor.Install(Method(typeof(ApiVector), nameof(ApiVector.Scale)),
            Method(typeof(ApiVector), nameof(ApiVector.ScaleNegated)));
        report["struct"] = Step(s, scale, -12);
        c.Dispose();
        s.Dispose();
        report["classRemoved"] = Poll(add, 3);
        report["structRemoved"] = Poll(scale, 12);
        return report;
    }

    // One owner, two targets: disposing the owner removes both at once.
    private static JsonObject OwnerScope(Interceptor interceptor)
    {
        Func<int> alpha = () => ApiTargets.Alpha(Input), beta = () => ApiTargets.Beta(Input);
        var report = new JsonObject { ["alphaOriginal"] = Warm(alpha), ["betaOriginal"] = Warm(beta) };
        var owner = new PatchOwner("level editor");
        Patch a = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Alpha)),
            Method(typeof(ApiTargets), nameof(ApiTargets.AlphaPatched)), owner);
        Patch b = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Beta)),
            Method(typeof(ApiTargets), nameof(ApiTargets.BetaPatched)), owner);
        report["installed"] = new JsonObject
        {
            ["alpha"] = Poll(alpha, Input + 10),
            ["beta"] = Poll(beta, Input + 20),
            ["ownerPatches"] = owner.Patches.Count,
            ["alphaState"] = a.ReadTelemetry().State.ToString(),
            ["betaState"] = b.ReadTelemetry().State.ToString(),
        };
        owner.Dispose();
        report["disposed"] = new JsonObject
        {
            ["alpha"] = Poll(alpha, Input + 1),
            ["beta"] = Poll(beta, Input + 2),
            ["ownerPatches"] = owner.Patches.Count,
            ["ownerDisposed"] = owner.IsDisposed,
            ["alphaState"] = a.ReadTelemetry().State.ToString(),
            ["betaState"] = b.ReadTelemetry().State.ToString(),
            ["alphaTelemetry"] = Telemetry(a.ReadTelemetry()),
            ["betaTelemetry"] = Telemetry(b.ReadTelemetry()),
        };
        try
        {
            interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Alpha)),
                Method(typeof(ApiTargets), nameof(ApiTargets.AlphaPatched)), owner);
            report["installWithDisposedOwner"] = null;
        }
        catch (ObjectDisposedException e)
        {
            report["installWithDisposedOwner"] = Thrown(e);
        }
        report["alphaAfter"] = alpha();
        return report;
    }

    // Two owners on one target: the second joins; the original returns only after the last.
    private static JsonObject TwoOwners(Interceptor interceptor)
    {
        Func<int> call = () => ApiTargets.Shared(Input);
        var report = new JsonObject { ["original"] = Warm(call) };
        MethodInfo target = Method(typeof(ApiTargets), nameof(ApiTargets.Shared));
        var first = new PatchOwner("first");
        var second = new PatchOwner("second");
        Patch p1 = interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedFirst)), first);
        report["first"] = Step(p1, call, Input + 100);
        Patch p2 = interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedSecond)), second);
        report["second"] = Step(p2, call, Input + 200);
        report["secondIsAnotherPatchObject"] = !ReferenceEquals(p1, p2);
        try
        {
            interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedFirst)), first);
            report["sameOwnerAgain"] = null;
        }
        catch (InvalidOperationException e)
        {
            report["sameOwnerAgain"] = Thrown(e);
        }
        first.Dispose();
        report["firstDisposed"] = Step(p2, call, Input + 200);
        report["firstDisposed"]!["firstPatchState"] = p1.ReadTelemetry().State.ToString();
        second.Dispose();
        report["secondDisposed"] = Step(p2, call, Input + 1);
        report["secondDisposed"]!["firstPatchState"] = p1.ReadTelemetry().State.ToString();
        return report;
    }

    // Replacements that do not fit: refused with SignatureMismatchException before any native
    // call. Guarded holds a live patch, so a command that reached the profiler would show in its
    // telemetry (a join or replace is a finished command either way).
    private static JsonObject Mismatch(Interceptor interceptor)
    {
        Func<int> guarded = () => ApiTargets.Guarded(Input);
        int y = 2;
        Func<int> untouched = () => ApiTargets.Untouched(Input, ref y);
        var report = new JsonObject { ["guardedOriginal"] = Warm(guarded), ["untouchedOriginal"] = Warm(untouched) };
        MethodInfo guardedTarget = Method(typeof(ApiTargets), nameof(ApiTargets.Guarded));
        using var keeper = new PatchOwner("keeper");
        Patch live = interceptor.Install(guardedTarget, Method(typeof(ApiTargets), nameof(ApiTargets.GuardedPatched)), keeper);
        report["guardedPatched"] = Poll(guarded, Input + 50);
        PatchTelemetry before = live.ReadTelemetry();
        int livePatches = interceptor.Patches.Count;
        var intruder = new PatchOwner("intruder");

        var cases = new JsonObject();
        void Try(string name, Action action)
        {
            try
            {
                action();
                cases[name] = new JsonObject { ["threw"] = null };
            }
            catch (Exception e)
            {
                cases[name] = Thrown(e);
            }
        }
        MethodInfo wrongParameter = Method(typeof(ApiMismatches), nameof(ApiMismatches.WrongParameter));
        Try("wrongParameter", () => interceptor.Install(guardedTarget, wrongParameter, intruder));
        Try("tooMany", () => interceptor.Install(guardedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.TooMany)), intruder));
        Try("wrongReturn", () => interceptor.Install(guardedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.WrongReturn)), intruder));
        Try("notStatic", () => interceptor.Install(guardedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.NotStatic)), intruder));
        Try("openGeneric", () => interceptor.Install(guardedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.OpenGeneric)), intruder));
        Try("replaceWithWrongParameter", () => live.Replace(wrongParameter));
        MethodInfo untouchedTarget = Method(typeof(ApiTargets), nameof(ApiTargets.Untouched));
        Try("byValueForRef", () => interceptor.Install(untouchedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.ByValue)), intruder));
        Try("refOfWrongType", () => interceptor.Install(untouchedTarget, Method(typeof(ApiMismatches), nameof(ApiMismatches.ByRefLong)), intruder));
        Try("classReceiverAsObject", () => interceptor.Install(Method(typeof(ApiCounter), nameof(ApiCounter.Add)),
            Method(typeof(ApiCounter), nameof(ApiCounter.AddToObject)), intruder));
        Try("structReceiverByValue", () => interceptor.Install(Method(typeof(ApiVector), nameof(ApiVector.Scale)),
            Method(typeof(ApiVector), nameof(ApiVector.ScaleByValue)), intruder));
        report["cases"] = cases;

        PatchTelemetry after = live.ReadTelemetry();
        report["telemetryBefore"] = Telemetry(before);
        report["telemetryAfter"] = Telemetry(after);
        report["telemetryUnchanged"] = before == after;
        report["guardedAfter"] = guarded();
        report["untouchedAfter"] = untouched();
        report["intruderPatches"] = intruder.Patches.Count;
        report["livePatchesUnchanged"] = interceptor.Patches.Count == livePatches;
        return report;
    }

    // One plan: unmanaged calli (StandAloneSig), a MethodSpec (Echo<int>), a TypeSpec
    // (ApiBox<int>) parenting a constructor and a field MemberRef, a local (locals
    // StandAloneSig), a branch. Compute(x) = x == 0 ? 12345 : new ApiBox<int>(Echo(abs(x))).Value * 10 + 1.
    // A second generation (* 100) chains after the first; Remove restores x.
    private static JsonObject SymbolicPlan(Interceptor interceptor)
    {
        ApiPlanTargets.AbsPointer = NativeLibrary.GetExport(NativeLibrary.Load("libc.so.6"), "abs");
        Func<int> call = () => ApiPlanTargets.Compute(-7);
        Func<int> zero = () => ApiPlanTargets.Compute(0);
        var report = new JsonObject { ["original"] = Warm(call) };
        GenerationPlan first = ComputePlan(10);
        report["listing"] = first.ToString();
        Patch patch = interceptor.Apply(first);
        report["first"] = PlanStep(patch, call, 71);
        report["first"]!["zero"] = zero();
        Patch again = interceptor.Apply(ComputePlan(100));
        report["second"] = PlanStep(again, call, 701);
        report["second"]!["samePatch"] = ReferenceEquals(patch, again);
        patch.Remove();
        report["remove"] = new JsonObject
        {
            ["result"] = Poll(call, -7),
            ["zero"] = zero(),
            ["state"] = patch.ReadTelemetry().State.ToString(),
            ["telemetry"] = Telemetry(patch.ReadTelemetry()),
            ["lastGeneration"] = Generation(patch.ReadLastGeneration()),
        };
        return report;
    }

    private static GenerationPlan ComputePlan(int factor)
    {
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Compute)))
        {
            Name = $"abs times {factor}",
        };
        PlanLocal magnitude = plan.DeclareLocal(typeof(int));
        PlanLabel nonZero = plan.DefineLabel();
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Brtrue_S, nonZero);
        plan.Emit(OpCodes.Ldc_I4, 12345);
        plan.Emit(OpCodes.Ret);
        plan.MarkLabel(nonZero);
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Ldsfld, typeof(ApiPlanTargets).GetField(nameof(ApiPlanTargets.AbsPointer))!);
        plan.EmitCalli(OpCodes.Calli, CallingConvention.Cdecl, typeof(int), [typeof(int)]);
        plan.Emit(OpCodes.Stloc, magnitude);
        plan.Emit(OpCodes.Ldloc, magnitude);
        plan.Emit(OpCodes.Call, typeof(ApiHelpers).GetMethod(nameof(ApiHelpers.Echo))!.MakeGenericMethod(typeof(int)));
        plan.Emit(OpCodes.Newobj, typeof(ApiBox<int>).GetConstructor([typeof(int)])!);
        plan.Emit(OpCodes.Ldfld, typeof(ApiBox<int>).GetField(nameof(ApiBox<int>.Value))!);
        plan.Emit(OpCodes.Ldc_I4, factor);
        plan.Emit(OpCodes.Mul);
        plan.Emit(OpCodes.Ldc_I4_1);
        plan.Emit(OpCodes.Add);
        plan.Emit(OpCodes.Ret);
        return plan;
    }

    // Another assembly's symbols: CrossModule(x) = Math.Max(new List<int> { x }.Count * 100, x).
    private static JsonObject CrossModulePlan(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.CrossModule(5);
        Func<int> big = () => ApiPlanTargets.CrossModule(500);
        var report = new JsonObject { ["original"] = Warm(call) };
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.CrossModule)));
        plan.Emit(OpCodes.Newobj, typeof(List<int>).GetConstructor(Type.EmptyTypes)!);
        plan.Emit(OpCodes.Dup);
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Callvirt, typeof(List<int>).GetMethod(nameof(List<int>.Add))!);
        plan.Emit(OpCodes.Callvirt, typeof(List<int>).GetProperty(nameof(List<int>.Count))!.GetMethod!);
        plan.Emit(OpCodes.Ldc_I4, 100);
        plan.Emit(OpCodes.Mul);
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Call, typeof(Math).GetMethod(nameof(Math.Max), [typeof(int), typeof(int)])!);
        plan.Emit(OpCodes.Ret);
        report["listing"] = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        report["applied"] = PlanStep(patch, call, 100);
        report["applied"]!["big"] = big();
        patch.Remove();
        report["removed"] = Poll(call, 5);
        return report;
    }

    // Type operands: TypeOperands(x) = (int)(object)x + new ApiBox<int>[3].Length + typeof(List<int>).Name.Length.
    private static JsonObject TypeOperands(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.TypeOperands(5);
        var report = new JsonObject { ["original"] = Warm(call) };
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.TypeOperands)));
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Box, typeof(int));
        plan.Emit(OpCodes.Isinst, typeof(int));
        plan.Emit(OpCodes.Unbox_Any, typeof(int));
        plan.Emit(OpCodes.Ldc_I4_3);
        plan.Emit(OpCodes.Newarr, typeof(ApiBox<int>));
        plan.Emit(OpCodes.Ldlen);
        plan.Emit(OpCodes.Conv_I4);
        plan.Emit(OpCodes.Add);
        plan.Emit(OpCodes.Ldtoken, typeof(List<int>));
        plan.Emit(OpCodes.Call, typeof(Type).GetMethod(nameof(Type.GetTypeFromHandle))!);
        plan.Emit(OpCodes.Callvirt, typeof(MemberInfo).GetProperty(nameof(MemberInfo.Name))!.GetMethod!);
        plan.Emit(OpCodes.Callvirt, typeof(string).GetProperty(nameof(string.Length))!.GetMethod!);
        plan.Emit(OpCodes.Add);
        plan.Emit(OpCodes.Ret);
        report["listing"] = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        report["applied"] = PlanStep(patch, call, 5 + 3 + "List`1".Length);
        patch.Remove();
        report["removed"] = Poll(call, 5);
        return report;
    }

    // try { return 100 / x; } catch (Exception) { return -1; } with labels and a catch region.
    private static JsonObject ExceptionRegion(Interceptor interceptor)
    {
        Func<int> zero = () => ApiPlanTargets.SafeDivide(0), four = () => ApiPlanTargets.SafeDivide(4);
        var report = new JsonObject { ["zeroOriginal"] = Warm(zero), ["fourOriginal"] = Warm(four) };
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.SafeDivide)));
        PlanLocal result = plan.DeclareLocal(typeof(int));
        PlanLabel tryStart = plan.DefineLabel(), handler = plan.DefineLabel(), end = plan.DefineLabel();
        plan.MarkLabel(tryStart);
        plan.Emit(OpCodes.Ldc_I4, 100);
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Div);
        plan.Emit(OpCodes.Stloc, result);
        plan.Emit(OpCodes.Leave, end);
        plan.MarkLabel(handler);
        plan.Emit(OpCodes.Pop);
        plan.Emit(OpCodes.Ldc_I4_M1);
        plan.Emit(OpCodes.Stloc, result);
        plan.Emit(OpCodes.Leave, end);
        plan.MarkLabel(end);
        plan.Emit(OpCodes.Ldloc, result);
        plan.Emit(OpCodes.Ret);
        plan.AddCatchRegion(tryStart, handler, handler, end, typeof(Exception));
        report["listing"] = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        report["zero"] = PlanStep(patch, zero, -1);
        report["four"] = Poll(four, 25);
        patch.Remove();
        report["zeroRemoved"] = Poll(zero, 0);
        return report;
    }

    // Generic targets: Install refuses them up front; a plan's body serves every instantiation.
    // Pick<T>(a, b) returns b; ApiBox<T>.Peek(other) returns this.Value (a field of ApiBox<!0>).
    private static JsonObject GenericTargets(Interceptor interceptor)
    {
        Func<string> pick = () => $"{ApiPlanTargets.Pick(1, 2)}|{ApiPlanTargets.Pick("a", "b")}";
        Func<string> peek = () => $"{new ApiBox<int>(1).Peek(2)}|{new ApiBox<string>("a").Peek("b")}";
        var report = new JsonObject { ["pickOriginal"] = Warm(pick), ["peekOriginal"] = Warm(peek) };
        MethodInfo pickTarget = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Pick));
        try
        {
            interceptor.Install(pickTarget, Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
            report["installRefused"] = null;
        }
        catch (NotSupportedException e)
        {
            report["installRefused"] = Thrown(e);
        }
        var pickPlan = new GenerationPlan(pickTarget);
        pickPlan.LoadArgument(1);
        pickPlan.Return();
        Patch picked = interceptor.Apply(pickPlan);
        report["pick"] = Poll(pick, "2|b");

        MethodInfo peekTarget = typeof(ApiBox<>).GetMethod(nameof(ApiBox<int>.Peek))!;
        var peekPlan = new GenerationPlan(peekTarget);
        peekPlan.LoadArgument(0);
        peekPlan.Emit(OpCodes.Ldfld, typeof(ApiBox<>).GetField(nameof(ApiBox<int>.Value))!);
        peekPlan.Return();
        report["peekListing"] = peekPlan.ToString();
        Patch peeked = interceptor.Apply(peekPlan);
        report["peek"] = Poll(peek, "1|a");
        report["peekGeneration"] = Generation(peeked.ReadLastGeneration());
        picked.Remove();
        peeked.Remove();
        report["pickRemoved"] = Poll(pick, "1|a");
        report["peekRemoved"] = Poll(peek, "2|b");
        return report;
    }

    // Exact dispatch and plans on one target, one owner: install, plan (the chain is found
    // after the install), replace, plan again, remove.
    private static JsonObject Mixed(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.Mixed(Input);
        MethodInfo target = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Mixed));
        var report = new JsonObject { ["original"] = Warm(call) };
        var owner = new PatchOwner("mixed");
        Patch patch = interceptor.Install(target, Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.MixedDispatchA)), owner);
        report["install"] = Poll(call, Input + 100);
        Patch planned = interceptor.Apply(Times(target, 3), owner);
        report["plan"] = PlanStep(planned, call, Input * 3);
        report["plan"]!["samePatch"] = ReferenceEquals(patch, planned);
        patch.Replace(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.MixedDispatchB)));
        report["replace"] = Poll(call, Input + 200);
        patch.Apply(Times(target, 4));
        report["planAgain"] = PlanStep(patch, call, Input * 4);
        owner.Dispose();
        report["removed"] = Poll(call, Input);
        report["state"] = patch.ReadTelemetry().State.ToString();
        return report;
    }

    private static GenerationPlan Times(MethodInfo target, int factor)
    {
        var plan = new GenerationPlan(target) { Name = $"times {factor}" };
        plan.LoadArgument(0);
        plan.LoadConstant(factor);
        plan.Emit(OpCodes.Mul);
        plan.Return();
        return plan;
    }

    // Plans refused at the Emit call that introduced the problem (nothing reaches the profiler).
    private static JsonObject PlanRefusals()
    {
        var report = new JsonObject();
        MethodInfo target = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Compute));
        void Try(string name, Action<GenerationPlan> edit)
        {
            var plan = new GenerationPlan(target);
            try
            {
                edit(plan);
                report[name] = new JsonObject { ["threw"] = null, ["listing"] = plan.ToString() };
            }
            catch (Exception e)
            {
                report[name] = Thrown(e);
            }
        }
        // A constructed generic of a type the host never references (looked up by name, so this
        // file does not reference it either): its TypeSpec blob cannot name it.
        Type unreferenced = Type.GetType("System.Collections.Generic.PriorityQueue`2, System.Collections", true)!
            .MakeGenericType(typeof(int), typeof(int));
        Try("unreferencedTypeInBlob", p => p.Emit(OpCodes.Box, unreferenced));
        // Built at run time, so it is not in the host's #US heap.
        string missing = string.Join("-", "not", "a", "literal", Environment.ProcessId > 0 ? "here" : "");
        Try("missingLiteral", p => p.Emit(OpCodes.Ldstr, missing));
        Try("existingLiteral", p => p.Emit(OpCodes.Ldstr, "none"));
        Try("wrongOperand", p => p.Emit(OpCodes.Call, typeof(int)));
        Try("shortOperandTooBig", p => p.Emit(OpCodes.Ldc_I4_S, 300));
        Try("missingArgument", p => p.LoadArgument(3));
        Try("openGenericMethod", p => p.Emit(OpCodes.Call, typeof(ApiHelpers).GetMethod(nameof(ApiHelpers.Echo))!));
        return report;
    }

    // A plan whose body the JIT rejects: the call throws, the profiler restores the original.
    private static JsonObject RejectedPlan(Interceptor interceptor)
    {
        Func<string> call = () =>
        {
            try
            {
                return ApiPlanTargets.Rejected(Input).ToString();
            }
            catch (Exception e)
            {
                return e.GetType().Name;
            }
        };
        var report = new JsonObject { ["original"] = Warm(call) };
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Rejected))) { MaxStack = 8 };
        plan.Emit(OpCodes.Pop); // pops an empty stack
        plan.Emit(OpCodes.Ldc_I4_0);
        plan.Emit(OpCodes.Ret);
        // Both stack-type checks would refuse it; the JIT's rejection is what this is about.
        plan.AllowUnverifiable();
        report["unverifiable"] = plan.IsUnverifiable;
        Patch patch = interceptor.Apply(plan);
        report["applied"] = patch.ReadLastGeneration()?.State.ToString();
        var outcomes = new JsonArray();
        string last = "";
        for (int i = 0; i < 200 && last != Input.ToString(); i++)
        {
            last = call();
            if (outcomes.Count < 6)
                outcomes.Add(last);
            Thread.Sleep(5);
        }
        report["outcomes"] = outcomes;
        report["restored"] = last;
        report["lastGeneration"] = Generation(patch.ReadLastGeneration());
        patch.Remove();
        report["removed"] = call();
        return report;
    }

    // The stack-type check: plans that return or pass the wrong type, or meet with different
    // stacks, are refused by Apply before anything reaches the profiler (no patch appears); with
    // the plan's check off the profiler refuses the same body, as the same exception; plans that
    // are unverifiable but correct run when AllowUnverifiable says so.
    private static JsonObject TypeSafety(Interceptor interceptor)
    {
        var report = new JsonObject();
        int patchesBefore = interceptor.Patches.Count;
        report["intForString"] = TypePlan(interceptor, nameof(ApiTypeTargets.Name), () => ApiTypeTargets.Name(7), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        });
        report["stringForDouble"] = TypePlan(interceptor, nameof(ApiTypeTargets.Ratio), () => ApiTypeTargets.Ratio(7), p =>
        {
            p.Emit(OpCodes.Ldsfld, typeof(ApiTypeTargets).GetField(nameof(ApiTypeTargets.Label))!);
            p.Emit(OpCodes.Ret);
        });
        report["callArgument"] = TypePlan(interceptor, nameof(ApiTypeTargets.CallArgument),
            () => ApiTypeTargets.CallArgument(7), p =>
            {
                p.Emit(OpCodes.Ldnull);
                p.Emit(OpCodes.Call, typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!);
                p.Emit(OpCodes.Ret);
            });
        report["mergeDepth"] = TypePlan(interceptor, nameof(ApiTypeTargets.MergeDepth), () => ApiTypeTargets.MergeDepth(7),
            p =>
            {
                PlanLabel join = p.DefineLabel();
                p.Emit(OpCodes.Ldarg_0);
                p.Emit(OpCodes.Brtrue, join);
                p.Emit(OpCodes.Ldc_I4_1);
                p.MarkLabel(join);
                p.Emit(OpCodes.Ldc_I4_2);
                p.Emit(OpCodes.Ret);
            });
        report["patchesUnchanged"] = interceptor.Patches.Count == patchesBefore;
        report["byProfiler"] = TypePlan(interceptor, nameof(ApiTypeTargets.Profiled), () => ApiTypeTargets.Profiled(7), p =>
        {
            p.SkipPlanStackCheck = true;
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        });

        void Widen(GenerationPlan p)
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        }
        void FloatBits(GenerationPlan p)
        {
            p.LoadArgumentAddress(0);
            p.Emit(OpCodes.Call, typeof(ApiTypeTargets).GetMethod(nameof(ApiTypeTargets.ReadInt))!);
            p.Emit(OpCodes.Ret);
        }
        report["widenRefused"] = TypePlan(interceptor, nameof(ApiTypeTargets.Widen), () => ApiTypeTargets.Widen(1234), Widen);
        report["widen"] = UnverifiablePlan(interceptor, nameof(ApiTypeTargets.Widen), () => ApiTypeTargets.Widen(1234), 1234L,
            Widen);
        report["floatBitsRefused"] = TypePlan(interceptor, nameof(ApiTypeTargets.FloatBits),
            () => ApiTypeTargets.FloatBits(1.5f), FloatBits);
        report["floatBits"] = UnverifiablePlan(interceptor, nameof(ApiTypeTargets.FloatBits),
            () => ApiTypeTargets.FloatBits(1.5f), BitConverter.SingleToInt32Bits(1.5f), FloatBits);

        // Type-safe bodies whose merges are not of one type: accepted and run.
        report["unrelatedClassesMerge"] = SafePlan(interceptor, nameof(ApiTypeTargets.CountOf),
            () => ApiTypeTargets.CountOf(1) * 10 + ApiTypeTargets.CountOf(0), 0, p =>
            {
                PlanLabel hashSet = p.DefineLabel(), join = p.DefineLabel();
                p.Emit(OpCodes.Ldarg_0);
                p.Emit(OpCodes.Brtrue, hashSet);
                p.Emit(OpCodes.Newobj, typeof(List<int>).GetConstructor(Type.EmptyTypes)!);
                p.Emit(OpCodes.Br, join);
                p.MarkLabel(hashSet);
                p.Emit(OpCodes.Newobj, typeof(HashSet<int>).GetConstructor(Type.EmptyTypes)!);
                p.MarkLabel(join);
                p.Emit(OpCodes.Callvirt, typeof(ICollection<int>).GetProperty(nameof(ICollection<int>.Count))!.GetMethod!);
                p.Emit(OpCodes.Ret);
            });
        report["nullMeetsClassT"] = SafePlan(interceptor, nameof(ApiTypeTargets.OrNull),
            () => (ApiTypeTargets.OrNull("kept", true) ?? "null") + "," + (ApiTypeTargets.OrNull("dropped", false) ?? "null"),
            "kept,null", p =>
            {
                PlanLabel keep = p.DefineLabel(), join = p.DefineLabel();
                p.Emit(OpCodes.Ldarg_1);
                p.Emit(OpCodes.Brtrue, keep);
                p.Emit(OpCodes.Ldnull);
                p.Emit(OpCodes.Br, join);
                p.MarkLabel(keep);
                p.Emit(OpCodes.Ldarg_0);
                p.MarkLabel(join);
                p.Emit(OpCodes.Ret);
            });
        return report;
    }

    // A type-safe plan the check must accept: applied, what the target returns, then removed.
    private static JsonObject SafePlan<T>(Interceptor interceptor, string name, Func<T> call, T expected,
        Action<GenerationPlan> body)
    {
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "type-safe merge" };
        body(plan);
        var report = new JsonObject { ["original"] = JsonSerializer.SerializeToNode(Warm(call)) };
        try
        {
            Patch patch = interceptor.Apply(plan);
            report["result"] = Poll(call, expected);
            patch.Remove();
            report["removed"] = JsonSerializer.SerializeToNode(call());
        }
        catch (Exception e)
        {
            report["thrown"] = Thrown(e);
        }
        return report;
    }

    // Apply a plan for ApiTypeTargets.`name`: what it threw, and what the target returns before and after.
    private static JsonObject TypePlan<T>(Interceptor interceptor, string name, Func<T> call, Action<GenerationPlan> body)
    {
        var report = new JsonObject { ["original"] = JsonSerializer.SerializeToNode(Warm(call)) };
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "type check" };
        body(plan);
        try
        {
            Patch applied = interceptor.Apply(plan);
            report["threw"] = null;
            report["applied"] = applied.ReadLastGeneration()?.State.ToString();
        }
        catch (Exception e)
        {
            report["thrown"] = Thrown(e);
        }
        report["targetResult"] = JsonSerializer.SerializeToNode(Warm(call));
        report["listing"] = plan.ToString();
        return report;
    }

    // The same plan with AllowUnverifiable: applied, what the target returns, then removed.
    private static JsonObject UnverifiablePlan<T>(Interceptor interceptor, string name, Func<T> call, T expected,
        Action<GenerationPlan> body)
    {
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "unverifiable" };
        body(plan);
        plan.AllowUnverifiable();
        var report = new JsonObject { ["original"] = JsonSerializer.SerializeToNode(Warm(call)), ["isUnverifiable"] = plan.IsUnverifiable };
        try
        {
            Patch patch = interceptor.Apply(plan);
            report["result"] = Poll(call, expected);
            report["generation"] = Generation(patch.ReadLastGeneration());
            patch.Remove();
            report["removed"] = JsonSerializer.SerializeToNode(call());
        }
        catch (Exception e)
        {
            report["thrown"] = Thrown(e);
        }
        return report;
    }

    // ------------------------------------------------------------------ helpers

    private static JsonObject Step(Patch patch, Func<int> call, int expected) => new()
    {
        ["result"] = Poll(call, expected),
        ["state"] = patch.ReadTelemetry().State.ToString(),
        ["isInstalled"] = patch.IsInstalled,
        ["telemetry"] = Telemetry(patch.ReadTelemetry()),
    };

    private static JsonObject PlanStep(Patch patch, Func<int> call, int expected)
    {
        JsonObject step = Step(patch, call, expected);
        step["generationId"] = patch.GenerationId;
        step["generation"] = Generation(patch.ReadLastGeneration());
        return step;
    }

    private static JsonObject Poll<T>(Func<T> call, T expected) => Patcher.Poll(call, expected);

    private static T Warm<T>(Func<T> call)
    {
        T last = call();
        for (int i = 0; i < 3; i++)
            last = call();
        return last;
    }

    private static MethodInfo Method(Type type, string name) => Patcher.Method(type, name);

    private static JsonObject Telemetry(PatchTelemetry t) => new()
    {
        ["state"] = t.State.ToString(),
        ["lastStatus"] = t.LastStatus.ToString(),
        ["pendingCommands"] = t.PendingCommands,
        ["commandsCompleted"] = t.CommandsCompleted,
        ["ownerCount"] = t.OwnerCount,
        ["methodToken"] = t.MethodToken,
        ["getReJITParameters"] = t.GetReJITParametersCallbacks,
        ["rejitStarted"] = t.ReJITCompilationsStarted,
        ["rejitFinished"] = t.ReJITCompilationsFinished,
        ["rejitErrors"] = t.ReJITErrors,
        ["requestHResult"] = t.RequestHResult,
        ["compilationHResult"] = t.CompilationHResult,
        ["metadataHResult"] = t.MetadataHResult,
        ["replacementNonZero"] = t.ReplacementEntryPoint != 0,
        ["commandElapsedMs"] = t.CommandElapsed.TotalMilliseconds,
        ["compileElapsedMs"] = t.CompileElapsed.TotalMilliseconds,
        ["text"] = t.ToString(),
    };

    private static JsonObject? Generation(GenerationInfo? g)
    {
        if (g is null)
            return null;
        var relocations = new JsonArray();
        foreach (RelocationInfo r in g.Relocations)
            relocations.Add(new JsonObject
            {
                ["kind"] = r.Kind.ToString(),
                ["table"] = (uint)r.Token >> 24,
                ["reused"] = r.Reused,
                ["hresult"] = r.HResult,
                ["description"] = r.Description,
            });
        return new JsonObject
        {
            ["id"] = g.Id,
            ["priorId"] = g.PriorId,
            ["state"] = g.State.ToString(),
            ["status"] = g.StatusName,
            ["compilationHResult"] = g.CompilationHResult,
            ["relocations"] = relocations,
        };
    }

    private static JsonObject Thrown(Exception e)
    {
        var json = new JsonObject { ["threw"] = e.GetType().Name, ["message"] = e.Message };
        switch (e)
        {
            case InterceptionUnavailableException u:
                json["reason"] = u.Reason.ToString();
                break;
            case SignatureMismatchException s:
                json["kind"] = s.Kind.ToString();
                json["parameterIndex"] = s.ParameterIndex;
                json["expected"] = s.Expected?.ToString();
                json["actual"] = s.Actual?.ToString();
                break;
            case PatchException p:
                json["status"] = p.StatusName;
                json["statusEnum"] = p.Status.ToString();
                break;
            case StackTypeMismatchException t:
                json["ilOffset"] = t.ILOffset;
                json["instruction"] = t.Instruction;
                json["found"] = t.Found.ToString();
                json["expected"] = t.Expected.ToString();
                json["foundType"] = t.FoundType?.ToString();
                json["expectedType"] = t.ExpectedType?.ToString();
                json["detectedByProfiler"] = t.DetectedByProfiler;
                json["generationState"] = t.Generation?.State.ToString();
                json["generationStatus"] = t.Generation?.StatusName;
                break;
        }
        return json;
    }
}
