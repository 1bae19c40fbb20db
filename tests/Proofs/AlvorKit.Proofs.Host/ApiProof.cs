using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.InteropServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

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

    public static ApiReport Run()
    {
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            return new ApiReport(null, Thrown(e), null, null);
        }
        using (interceptor)
        {
            var open = new ApiOpen(interceptor.ProfilerPath, interceptor.AbiVersion.ToString(), interceptor.IsPatchingEnabled,
                interceptor.PatchingRefusal, interceptor.PatchableModules);
            if (!interceptor.IsPatchingEnabled)
                return new ApiReport(open, null, Refused(interceptor), null);
            ApiDescribe describe = Describe(interceptor);
            ApiLifecycle lifecycle = Lifecycle(interceptor);
            InstanceTargetsReport instanceTargets = InstanceTargets(interceptor);
            OwnerScopeReport ownerScope = OwnerScope(interceptor);
            TwoOwnersReport twoOwners = TwoOwners(interceptor);
            MismatchReport mismatch = Mismatch(interceptor);
            SymbolicPlanReport plan = SymbolicPlan(interceptor);
            PlanApplied crossModulePlan = CrossModulePlan(interceptor);
            PlanApplied typeOperands = TypeOperands(interceptor);
            ExceptionRegionReport exceptionRegion = ExceptionRegion(interceptor);
            ApiGenericTargets genericTargets = GenericTargets(interceptor);
            MixedReport mixed = Mixed(interceptor);
            IReadOnlyDictionary<string, PlanAttempt> planRefusals = PlanRefusals();
            RejectedPlanReport rejectedPlan = RejectedPlan(interceptor);
            ApiTypeSafety typeSafety = TypeSafety(interceptor);
            return new ApiReport(open, null, null, new ApiScenarios(describe, lifecycle, instanceTargets, ownerScope, twoOwners,
                mismatch, plan, crossModulePlan, typeOperands, exceptionRegion, genericTargets, mixed, planRefusals,
                rejectedPlan, typeSafety, interceptor.Patches.Count));
        }
    }

    private static ThrownReport? Refused(Interceptor interceptor)
    {
        try
        {
            interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)),
                Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
            return null;
        }
        catch (Exception e)
        {
            return Thrown(e);
        }
    }

    private static ApiDescribe Describe(Interceptor interceptor)
    {
        MethodDescription d = interceptor.Describe(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)));
        MethodDescription instance = interceptor.Describe(Method(typeof(ApiVector), nameof(ApiVector.Scale)));
        return new ApiDescribe(d.MetadataToken, typeof(ApiTargets).GetMethod(nameof(ApiTargets.Compute))!.MetadataToken,
            d.ModuleVersionId == typeof(ApiTargets).Module.ModuleVersionId, d.Traits.ToString(), instance.Traits.ToString(),
            d.ParameterCount, d.CodeSize, d.SignatureHash.ToString(), d.BodyIdentity.ToString(), d.ModuleEpoch);
    }

    // Install A, replace with B, remove: what Compute returns, and the Patch's state and
    // telemetry after each step.
    private static ApiLifecycle Lifecycle(Interceptor interceptor)
    {
        Func<int> call = () => ApiTargets.Compute(Input);
        int original = Patcher.Warm(call);
        Patch patch = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Compute)),
            Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
        ApiStep install = Step(patch, call, Input + 100);
        install = install with { Owner = patch.Owner.Name, Listed = interceptor.Patches.Contains(patch) };
        patch.Replace(Method(typeof(ApiTargets), nameof(ApiTargets.ComputeB)));
        ApiStep replace = Step(patch, call, Input + 1000) with { Replacement = patch.Replacement?.Name };
        patch.Remove();
        ApiStep remove = Step(patch, call, Input + 1);
        remove = remove with { Listed = interceptor.Patches.Contains(patch) };
        patch.Remove(); // a second remove does nothing
        string removeAgainState = patch.ReadTelemetry().State.ToString();
        ThrownReport? replaceAfterRemove = null;
        try
        {
            patch.Replace(Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
        }
        catch (InvalidOperationException e)
        {
            replaceAfterRemove = Thrown(e);
        }
        return new ApiLifecycle(original, install, replace, remove, removeAgainState, replaceAfterRemove, call());
    }

    // Receivers: a class instance method (the class first) and a struct one (ref struct first).
    private static InstanceTargetsReport InstanceTargets(Interceptor interceptor)
    {
        var counter = new ApiCounter();
        Func<int> add = () =>
        {
            counter.Count = 0;
            return counter.Add(3);
        };
        var vector = new ApiVector { X = 4 };
        Func<int> scale = () => vector.Scale(3);
        int classOriginal = Patcher.Warm(add), structOriginal = Patcher.Warm(scale);
        Patch c = interceptor.Install(Method(typeof(ApiCounter), nameof(ApiCounter.Add)),
            Method(typeof(ApiCounter), nameof(ApiCounter.AddTwice)));
        ApiStep classStep = Step(c, add, 6);
        Patch s = interceptor.Install(Method(typeof(ApiVector), nameof(ApiVector.Scale)),
            Method(typeof(ApiVector), nameof(ApiVector.ScaleNegated)));
        ApiStep structStep = Step(s, scale, -12);
        c.Dispose();
        s.Dispose();
        Polled<int> classRemoved = Poll(add, 3);
        return new InstanceTargetsReport(classOriginal, structOriginal, classStep, structStep, classRemoved, Poll(scale, 12));
    }

    // One owner, two targets: disposing the owner removes both at once.
    private static OwnerScopeReport OwnerScope(Interceptor interceptor)
    {
        Func<int> alpha = () => ApiTargets.Alpha(Input), beta = () => ApiTargets.Beta(Input);
        int alphaOriginal = Patcher.Warm(alpha), betaOriginal = Patcher.Warm(beta);
        var owner = new PatchOwner("level editor");
        Patch a = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Alpha)),
            Method(typeof(ApiTargets), nameof(ApiTargets.AlphaPatched)), owner);
        Patch b = interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Beta)),
            Method(typeof(ApiTargets), nameof(ApiTargets.BetaPatched)), owner);
        Polled<int> alphaInstalled = Poll(alpha, Input + 10);
        Polled<int> betaInstalled = Poll(beta, Input + 20);
        var installed = new OwnerScopeInstalled(alphaInstalled, betaInstalled, owner.Patches.Count,
            a.ReadTelemetry().State.ToString(), b.ReadTelemetry().State.ToString());
        owner.Dispose();
        Polled<int> alphaDisposed = Poll(alpha, Input + 1);
        Polled<int> betaDisposed = Poll(beta, Input + 2);
        var disposed = new OwnerScopeDisposed(alphaDisposed, betaDisposed, owner.Patches.Count, owner.IsDisposed,
            a.ReadTelemetry().State.ToString(), b.ReadTelemetry().State.ToString(), Telemetry(a.ReadTelemetry()),
            Telemetry(b.ReadTelemetry()));
        ThrownReport? installWithDisposedOwner = null;
        try
        {
            interceptor.Install(Method(typeof(ApiTargets), nameof(ApiTargets.Alpha)),
                Method(typeof(ApiTargets), nameof(ApiTargets.AlphaPatched)), owner);
        }
        catch (ObjectDisposedException e)
        {
            installWithDisposedOwner = Thrown(e);
        }
        return new OwnerScopeReport(alphaOriginal, betaOriginal, installed, disposed, installWithDisposedOwner, alpha());
    }

    // Two owners on one target: the second joins; the original returns only after the last.
    private static TwoOwnersReport TwoOwners(Interceptor interceptor)
    {
        Func<int> call = () => ApiTargets.Shared(Input);
        int original = Patcher.Warm(call);
        MethodInfo target = Method(typeof(ApiTargets), nameof(ApiTargets.Shared));
        var first = new PatchOwner("first");
        var second = new PatchOwner("second");
        Patch p1 = interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedFirst)), first);
        ApiStep firstStep = Step(p1, call, Input + 100);
        Patch p2 = interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedSecond)), second);
        ApiStep secondStep = Step(p2, call, Input + 200);
        bool another = !ReferenceEquals(p1, p2);
        ThrownReport? sameOwnerAgain = null;
        try
        {
            interceptor.Install(target, Method(typeof(ApiTargets), nameof(ApiTargets.SharedFirst)), first);
        }
        catch (InvalidOperationException e)
        {
            sameOwnerAgain = Thrown(e);
        }
        first.Dispose();
        ApiStep firstDisposed = Step(p2, call, Input + 200);
        firstDisposed = firstDisposed with { FirstPatchState = p1.ReadTelemetry().State.ToString() };
        second.Dispose();
        ApiStep secondDisposed = Step(p2, call, Input + 1);
        secondDisposed = secondDisposed with { FirstPatchState = p1.ReadTelemetry().State.ToString() };
        return new TwoOwnersReport(original, firstStep, secondStep, another, sameOwnerAgain, firstDisposed, secondDisposed);
    }

    // Replacements that do not fit: refused with SignatureMismatchException before any native
    // call. Guarded holds a live patch, so a command that reached the profiler would show in its
    // telemetry (a join or replace is a finished command either way).
    private static MismatchReport Mismatch(Interceptor interceptor)
    {
        Func<int> guarded = () => ApiTargets.Guarded(Input);
        int y = 2;
        Func<int> untouched = () => ApiTargets.Untouched(Input, ref y);
        int guardedOriginal = Patcher.Warm(guarded), untouchedOriginal = Patcher.Warm(untouched);
        MethodInfo guardedTarget = Method(typeof(ApiTargets), nameof(ApiTargets.Guarded));
        using var keeper = new PatchOwner("keeper");
        Patch live = interceptor.Install(guardedTarget, Method(typeof(ApiTargets), nameof(ApiTargets.GuardedPatched)), keeper);
        Polled<int> guardedPatched = Poll(guarded, Input + 50);
        PatchTelemetry before = live.ReadTelemetry();
        int livePatches = interceptor.Patches.Count;
        var intruder = new PatchOwner("intruder");

        var cases = new SortedDictionary<string, ThrownReport?>(StringComparer.Ordinal);
        void Try(string name, Action action)
        {
            try
            {
                action();
                cases[name] = null;
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

        PatchTelemetry after = live.ReadTelemetry();
        int guardedAfter = guarded();
        int untouchedAfter = untouched();
        return new MismatchReport(guardedOriginal, untouchedOriginal, guardedPatched, cases, Telemetry(before), Telemetry(after),
            before == after, guardedAfter, untouchedAfter, intruder.Patches.Count, interceptor.Patches.Count == livePatches);
    }

    // One plan: unmanaged calli (StandAloneSig), a MethodSpec (Echo<int>), a TypeSpec
    // (ApiBox<int>) parenting a constructor and a field MemberRef, a local (locals
    // StandAloneSig), a branch. Compute(x) = x == 0 ? 12345 : new ApiBox<int>(Echo(abs(x))).Value * 10 + 1.
    // A second generation (* 100) chains after the first; Remove restores x.
    private static SymbolicPlanReport SymbolicPlan(Interceptor interceptor)
    {
        ApiPlanTargets.AbsPointer = CRuntime.Abs();
        Func<int> call = () => ApiPlanTargets.Compute(-7);
        Func<int> zero = () => ApiPlanTargets.Compute(0);
        int original = Patcher.Warm(call);
        GenerationPlan first = ComputePlan(10);
        string listing = first.ToString();
        Patch patch = interceptor.Apply(first);
        ApiStep firstStep = PlanStep(patch, call, 71);
        firstStep = firstStep with { Zero = zero() };
        Patch again = interceptor.Apply(ComputePlan(100));
        ApiStep secondStep = PlanStep(again, call, 701) with { SamePatch = ReferenceEquals(patch, again) };
        patch.Remove();
        Polled<int> removed = Poll(call, -7);
        int removedZero = zero();
        string state = patch.ReadTelemetry().State.ToString();
        ApiTelemetry telemetry = Telemetry(patch.ReadTelemetry());
        var remove = new PlanRemoval(removed, removedZero, state, telemetry, Patcher.Report(patch.ReadLastGeneration()));
        return new SymbolicPlanReport(original, listing, firstStep, secondStep, remove);
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
    private static PlanApplied CrossModulePlan(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.CrossModule(5);
        Func<int> big = () => ApiPlanTargets.CrossModule(500);
        int original = Patcher.Warm(call);
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
        string listing = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        ApiStep applied = PlanStep(patch, call, 100);
        applied = applied with { Big = big() };
        patch.Remove();
        return new PlanApplied(original, listing, applied, Poll(call, 5));
    }

    // Type operands: TypeOperands(x) = (int)(object)x + new ApiBox<int>[3].Length + typeof(List<int>).Name.Length.
    private static PlanApplied TypeOperands(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.TypeOperands(5);
        int original = Patcher.Warm(call);
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
        string listing = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        ApiStep applied = PlanStep(patch, call, 5 + 3 + "List`1".Length);
        patch.Remove();
        return new PlanApplied(original, listing, applied, Poll(call, 5));
    }

    // try { return 100 / x; } catch (Exception) { return -1; } with labels and a catch region.
    private static ExceptionRegionReport ExceptionRegion(Interceptor interceptor)
    {
        Func<int> zero = () => ApiPlanTargets.SafeDivide(0), four = () => ApiPlanTargets.SafeDivide(4);
        int zeroOriginal = Patcher.Warm(zero), fourOriginal = Patcher.Warm(four);
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
        string listing = plan.ToString();
        Patch patch = interceptor.Apply(plan);
        ApiStep zeroStep = PlanStep(patch, zero, -1);
        Polled<int> fourPatched = Poll(four, 25);
        patch.Remove();
        return new ExceptionRegionReport(zeroOriginal, fourOriginal, listing, zeroStep, fourPatched, Poll(zero, 0));
    }

    // Generic targets: Install refuses them up front; a plan's body serves every instantiation.
    // Pick<T>(a, b) returns b; ApiBox<T>.Peek(other) returns this.Value (a field of ApiBox<!0>).
    private static ApiGenericTargets GenericTargets(Interceptor interceptor)
    {
        Func<string> pick = () => $"{ApiPlanTargets.Pick(1, 2)}|{ApiPlanTargets.Pick("a", "b")}";
        Func<string> peek = () => $"{new ApiBox<int>(1).Peek(2)}|{new ApiBox<string>("a").Peek("b")}";
        string pickOriginal = Patcher.Warm(pick), peekOriginal = Patcher.Warm(peek);
        MethodInfo pickTarget = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Pick));
        ThrownReport? installRefused = null;
        try
        {
            interceptor.Install(pickTarget, Method(typeof(ApiTargets), nameof(ApiTargets.ComputeA)));
        }
        catch (NotSupportedException e)
        {
            installRefused = Thrown(e);
        }
        var pickPlan = new GenerationPlan(pickTarget);
        pickPlan.LoadArgument(1);
        pickPlan.Return();
        Patch picked = interceptor.Apply(pickPlan);
        Polled<string> picked2 = Poll(pick, "2|b");

        MethodInfo peekTarget = typeof(ApiBox<>).GetMethod(nameof(ApiBox<int>.Peek))!;
        var peekPlan = new GenerationPlan(peekTarget);
        peekPlan.LoadArgument(0);
        peekPlan.Emit(OpCodes.Ldfld, typeof(ApiBox<>).GetField(nameof(ApiBox<int>.Value))!);
        peekPlan.Return();
        string peekListing = peekPlan.ToString();
        Patch peeked = interceptor.Apply(peekPlan);
        Polled<string> peekPatched = Poll(peek, "1|a");
        ApiGeneration? peekGeneration = Patcher.Report(peeked.ReadLastGeneration());
        picked.Remove();
        peeked.Remove();
        Polled<string> pickRemoved = Poll(pick, "1|a");
        return new ApiGenericTargets(pickOriginal, peekOriginal, installRefused, picked2, peekListing, peekPatched, peekGeneration,
            pickRemoved, Poll(peek, "2|b"));
    }

    // Exact dispatch and plans on one target, one owner: install, plan (the chain is found
    // after the install), replace, plan again, remove.
    private static MixedReport Mixed(Interceptor interceptor)
    {
        Func<int> call = () => ApiPlanTargets.Mixed(Input);
        MethodInfo target = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Mixed));
        int original = Patcher.Warm(call);
        var owner = new PatchOwner("mixed");
        Patch patch = interceptor.Install(target, Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.MixedDispatchA)), owner);
        Polled<int> install = Poll(call, Input + 100);
        Patch planned = interceptor.Apply(Times(target, 3), owner);
        ApiStep plan = PlanStep(planned, call, Input * 3) with { SamePatch = ReferenceEquals(patch, planned) };
        patch.Replace(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.MixedDispatchB)));
        Polled<int> replace = Poll(call, Input + 200);
        patch.Apply(Times(target, 4));
        ApiStep planAgain = PlanStep(patch, call, Input * 4);
        owner.Dispose();
        Polled<int> removed = Poll(call, Input);
        return new MixedReport(original, install, plan, replace, planAgain, removed, patch.ReadTelemetry().State.ToString());
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
    private static SortedDictionary<string, PlanAttempt> PlanRefusals()
    {
        var report = new SortedDictionary<string, PlanAttempt>(StringComparer.Ordinal);
        MethodInfo target = Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Compute));
        void Try(string name, Action<GenerationPlan> edit)
        {
            var plan = new GenerationPlan(target);
            try
            {
                edit(plan);
                report[name] = new PlanAttempt(null, plan.ToString());
            }
            catch (Exception e)
            {
                report[name] = new PlanAttempt(Thrown(e), null);
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
    private static RejectedPlanReport RejectedPlan(Interceptor interceptor)
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
        string original = Patcher.Warm(call);
        var plan = new GenerationPlan(Method(typeof(ApiPlanTargets), nameof(ApiPlanTargets.Rejected))) { MaxStack = 8 };
        plan.Emit(OpCodes.Pop); // pops an empty stack
        plan.Emit(OpCodes.Ldc_I4_0);
        plan.Emit(OpCodes.Ret);
        // Both stack-type checks would refuse it; the JIT's rejection is what this is about.
        plan.AllowUnverifiable();
        bool unverifiable = plan.IsUnverifiable;
        Patch patch = interceptor.Apply(plan);
        string? applied = patch.ReadLastGeneration()?.State.ToString();
        var outcomes = new List<string>();
        string last = "";
        for (int i = 0; i < 200 && last != Input.ToString(); i++)
        {
            last = call();
            if (outcomes.Count < 6)
                outcomes.Add(last);
            Thread.Sleep(5);
        }
        ApiGeneration? lastGeneration = Patcher.Report(patch.ReadLastGeneration());
        patch.Remove();
        return new RejectedPlanReport(original, unverifiable, applied, outcomes, last, lastGeneration, call());
    }

    // The stack-type check: plans that return or pass the wrong type, or meet with different
    // stacks, are refused by Apply before anything reaches the profiler (no patch appears); with
    // the plan's check off the profiler refuses the same body, as the same exception; plans that
    // are unverifiable but correct run when AllowUnverifiable says so.
    private static ApiTypeSafety TypeSafety(Interceptor interceptor)
    {
        int patchesBefore = interceptor.Patches.Count;
        TypePlanReport<string> intForString = TypePlan(interceptor, nameof(ApiTypeTargets.Name), () => ApiTypeTargets.Name(7), p =>
        {
            p.Emit(OpCodes.Ldarg_0);
            p.Emit(OpCodes.Ret);
        });
        TypePlanReport<double> stringForDouble = TypePlan(interceptor, nameof(ApiTypeTargets.Ratio), () => ApiTypeTargets.Ratio(7), p =>
        {
            p.Emit(OpCodes.Ldsfld, typeof(ApiTypeTargets).GetField(nameof(ApiTypeTargets.Label))!);
            p.Emit(OpCodes.Ret);
        });
        TypePlanReport<int> callArgument = TypePlan(interceptor, nameof(ApiTypeTargets.CallArgument),
            () => ApiTypeTargets.CallArgument(7), p =>
            {
                p.Emit(OpCodes.Ldnull);
                p.Emit(OpCodes.Call, typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!);
                p.Emit(OpCodes.Ret);
            });
        TypePlanReport<int> mergeDepth = TypePlan(interceptor, nameof(ApiTypeTargets.MergeDepth), () => ApiTypeTargets.MergeDepth(7),
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
        bool patchesUnchanged = interceptor.Patches.Count == patchesBefore;
        TypePlanReport<string> byProfiler = TypePlan(interceptor, nameof(ApiTypeTargets.Profiled), () => ApiTypeTargets.Profiled(7), p =>
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
        TypePlanReport<long> widenRefused = TypePlan(interceptor, nameof(ApiTypeTargets.Widen), () => ApiTypeTargets.Widen(1234), Widen);
        AllowedPlanReport<long> widen = UnverifiablePlan(interceptor, nameof(ApiTypeTargets.Widen), () => ApiTypeTargets.Widen(1234), 1234L,
            Widen);
        TypePlanReport<int> floatBitsRefused = TypePlan(interceptor, nameof(ApiTypeTargets.FloatBits),
            () => ApiTypeTargets.FloatBits(1.5f), FloatBits);
        AllowedPlanReport<int> floatBits = UnverifiablePlan(interceptor, nameof(ApiTypeTargets.FloatBits),
            () => ApiTypeTargets.FloatBits(1.5f), BitConverter.SingleToInt32Bits(1.5f), FloatBits);

        // Type-safe bodies whose merges are not of one type: accepted and run.
        AllowedPlanReport<int> unrelatedClassesMerge = SafePlan(interceptor, nameof(ApiTypeTargets.CountOf),
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
        AllowedPlanReport<string> nullMeetsClassT = SafePlan(interceptor, nameof(ApiTypeTargets.OrNull),
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
        return new ApiTypeSafety(intForString, stringForDouble, callArgument, mergeDepth, patchesUnchanged, byProfiler,
            widenRefused, widen, floatBitsRefused, floatBits, unrelatedClassesMerge, nullMeetsClassT);
    }

    // A type-safe plan the check must accept: applied, what the target returns, then removed.
    private static AllowedPlanReport<T> SafePlan<T>(Interceptor interceptor, string name, Func<T> call, T expected,
        Action<GenerationPlan> body)
    {
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "type-safe merge" };
        body(plan);
        T original = Patcher.Warm(call);
        try
        {
            Patch patch = interceptor.Apply(plan);
            Polled<T> result = Poll(call, expected);
            patch.Remove();
            return new AllowedPlanReport<T>(original, null, new AppliedPlan<T>(result, null, call()), null);
        }
        catch (Exception e)
        {
            return new AllowedPlanReport<T>(original, null, null, Thrown(e));
        }
    }

    // Apply a plan for ApiTypeTargets.`name`: what it threw, and what the target returns before and after.
    private static TypePlanReport<T> TypePlan<T>(Interceptor interceptor, string name, Func<T> call, Action<GenerationPlan> body)
    {
        T original = Patcher.Warm(call);
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "type check" };
        body(plan);
        ThrownReport? thrown = null;
        string? applied = null;
        try
        {
            Patch patch = interceptor.Apply(plan);
            applied = patch.ReadLastGeneration()?.State.ToString();
        }
        catch (Exception e)
        {
            thrown = Thrown(e);
        }
        T targetResult = Patcher.Warm(call);
        return new TypePlanReport<T>(original, thrown, applied, targetResult, plan.ToString());
    }

    // The same plan with AllowUnverifiable: applied, what the target returns, then removed.
    private static AllowedPlanReport<T> UnverifiablePlan<T>(Interceptor interceptor, string name, Func<T> call, T expected,
        Action<GenerationPlan> body)
    {
        var plan = new GenerationPlan(Method(typeof(ApiTypeTargets), name)) { Name = "unverifiable" };
        body(plan);
        plan.AllowUnverifiable();
        T original = Patcher.Warm(call);
        try
        {
            Patch patch = interceptor.Apply(plan);
            Polled<T> result = Poll(call, expected);
            ApiGeneration? generation = Patcher.Report(patch.ReadLastGeneration());
            patch.Remove();
            return new AllowedPlanReport<T>(original, plan.IsUnverifiable, new AppliedPlan<T>(result, generation, call()), null);
        }
        catch (Exception e)
        {
            return new AllowedPlanReport<T>(original, plan.IsUnverifiable, null, Thrown(e));
        }
    }

    // ------------------------------------------------------------------ helpers

    private static ApiStep Step(Patch patch, Func<int> call, int expected)
    {
        Polled<int> result = Poll(call, expected);
        string state = patch.ReadTelemetry().State.ToString();
        return new ApiStep(result, state, patch.IsInstalled, Telemetry(patch.ReadTelemetry()));
    }

    private static ApiStep PlanStep(Patch patch, Func<int> call, int expected)
    {
        ApiStep step = Step(patch, call, expected);
        return step with { GenerationId = patch.GenerationId, Generation = Patcher.Report(patch.ReadLastGeneration()) };
    }

    private static Polled<T> Poll<T>(Func<T> call, T expected) => Patcher.PollFor(call, expected);

    private static MethodInfo Method(Type type, string name) => Patcher.Method(type, name);

    private static ApiTelemetry Telemetry(PatchTelemetry t) => new(
        t.State.ToString(),
        t.LastStatus.ToString(),
        t.PendingCommands,
        t.CommandsCompleted,
        t.OwnerCount,
        t.MethodToken,
        t.GetReJITParametersCallbacks,
        t.ReJITCompilationsStarted,
        t.ReJITCompilationsFinished,
        t.ReJITErrors,
        t.RequestHResult,
        t.CompilationHResult,
        t.MetadataHResult,
        t.ReplacementEntryPoint != 0,
        t.CommandElapsed.TotalMilliseconds,
        t.CompileElapsed.TotalMilliseconds,
        t.ToString());

    private static ThrownReport Thrown(Exception e)
    {
        var thrown = new ThrownReport(e.GetType().Name, e.Message, null, null, null, null, null, null, null, null, null, null,
            null, null, null, null, null);
        return e switch
        {
            InterceptionUnavailableException u => thrown with { Reason = u.Reason.ToString() },
            SignatureMismatchException s => thrown with
            {
                Kind = s.Kind.ToString(),
                ParameterIndex = s.ParameterIndex,
                Expected = s.Expected?.ToString(),
                Actual = s.Actual?.ToString(),
            },
            PatchException p => thrown with { Status = p.StatusName, StatusEnum = p.Status.ToString() },
            StackTypeMismatchException t => thrown with
            {
                IlOffset = t.ILOffset,
                Instruction = t.Instruction,
                Found = t.Found.ToString(),
                Expected = t.Expected.ToString(),
                FoundType = t.FoundType?.ToString(),
                ExpectedType = t.ExpectedType?.ToString(),
                DetectedByProfiler = t.DetectedByProfiler,
                GenerationState = t.Generation?.State.ToString(),
                GenerationStatus = t.Generation?.StatusName,
            },
            _ => thrown,
        };
    }
}
