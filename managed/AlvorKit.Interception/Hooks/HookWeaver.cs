using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Weaves a <see cref="HookComposition"/> into its target's original IL
/// (<see cref="GenerationPlan.FromOriginal"/>): one body for every owner's hooks. Layout, without
/// finalizers:
/// <code>
///     runOriginal = true; br PRE              (inserted at the start; no br without prefixes)
/// ORIG: original body                         (every ret: stloc result; br POST)
/// POST: postfixes; ldloc result; ret
/// PRE:  prefixes (a false return clears runOriginal; after one did, a later prefix that could change
///       the outcome is skipped); ldloc runOriginal; brfalse POST; br ORIG
/// </code>
/// With finalizers, one try/catch(Exception) covers the start, the original, the postfixes and the
/// prefixes (the original's returns leave to POST, inside it); POST ends with <c>leave SUCCESS</c>;
/// the handler stores the exception, runs the finalizers (an Exception-returning one replaces the
/// exception: null swallows), then: none left: <c>leave EXIT</c>; the caught one: <c>rethrow</c>
/// (its stack kept); another: <c>throw</c>. SUCCESS runs the finalizers with a null exception and
/// throws what one returns; EXIT: <c>ldloc result; ret</c>.
/// A hook is called directly (<c>call</c>) when it is public, on a public type, and the target's
/// module can name it (<see cref="CallsDirectly"/>) and its set was not added with PreferCalli (each set's own
/// flag, <see cref="ComposedHook.PreferCalli"/>); otherwise through its entry point
/// (<c>ldc.i8 entry; conv.i; calli</c>, the hook's managed signature).
/// </summary>
internal static class HookWeaver
{
    private static readonly MethodInfo FromHandle =
        typeof(MethodBase).GetMethod(nameof(MethodBase.GetMethodFromHandle), [typeof(RuntimeMethodHandle)])!;

    private static readonly MethodInfo FromHandleInType =
        typeof(MethodBase).GetMethod(nameof(MethodBase.GetMethodFromHandle),
            [typeof(RuntimeMethodHandle), typeof(RuntimeTypeHandle)])!;

    private static readonly MethodInfo TypeFromHandle =
        typeof(Type).GetMethod(nameof(Type.GetTypeFromHandle), [typeof(RuntimeTypeHandle)])!;

    private static readonly MethodInfo TypeEquality =
        typeof(Type).GetMethod("op_Equality", [typeof(Type), typeof(Type)])!;

    /// <summary>The composed body: the target's original IL, edited by every transpiler in the composed order
    /// (each on the previous one's output; <see cref="TranspilerException"/> when one fails or their body is
    /// not valid), then the prefixes, postfixes and finalizers woven around the result.</summary>
    public static GenerationPlan Weave(HookComposition composition)
    {
        MethodBase target = composition.Target;
        GenerationPlan plan = GenerationPlan.FromOriginal(target);
        Transpilers.Run(plan, [.. composition.Transpilers.Select(t => t.Transpiler)], target);
        InfixWeaver.Run(plan, composition.Infixes, target);
        if (!composition.HasHooks && composition.Transpilers.Count + composition.Infixes.Count > 0)
            return plan;
        return new Weaving(composition, plan).Run();
    }

    /// <summary>Whether the woven body calls `hook` directly: a public hook of a public type, and the
    /// target's module can name its type: it defines it, one of its AssemblyRefs reaches it, or a new
    /// AssemblyRef (the plan's ASSEMBLY_REF relocation) binds to the hook's assembly from the target's
    /// load context (<see cref="DirectCallRule.WhyNotBound"/>, the rule the plan itself applies).</summary>
    public static bool CallsDirectly(MethodBase target, MethodInfo hook, bool preferCalli)
    {
        if (preferCalli || !hook.IsPublic || hook.DeclaringType is not { IsVisible: true } declaring)
            return false;
        Plans.ModuleContext module = Plans.ModuleContext.For(target.Module);
        return module.Defines(declaring) || module.AssemblyRefReaching(declaring) != 0 ||
               DirectCallRule.WhyNotBound(target.Module.Assembly, hook.Module.Assembly) is null;
    }

    private sealed class Weaving(HookComposition composition, GenerationPlan plan)
    {
        private readonly MethodBase _target = composition.Target;
        private readonly Type _returns = ReplacementRules.ReturnTypeOf(composition.Target);
        private PlanLocal? _result, _runOriginal, _args, _caught, _current, _resultRef;
        private readonly List<(HookArgument Argument, PlanLocal Temporary)> _temporaries = [];
        private readonly PlanLocal?[] _states = new PlanLocal?[composition.StateTypes.Count];

        public GenerationPlan Run()
        {
            if (plan.Instructions.Any(i => i.OpCode == OpCodes.Jmp))
                throw HookBinder.Refuse(HookBindingKind.TargetUsesJmp, null, _target, -1, null, null,
                    $"{Names.Of(_target)} cannot be hooked: its body uses jmp, which leaves the method without " +
                    "returning, so no postfix or finalizer could run after it. Patch it with a plan instead.");
            bool finalizers = composition.HasFinalizers;
            bool prefixes = composition.Prefixes.Count > 0;
            IEnumerable<BoundHook> all = composition.Prefixes.Concat(composition.Postfixes).Concat(composition.Finalizers)
                .Select(h => h.Hook);
            if (_returns != typeof(void))
                _result = plan.DeclareLocal(_returns);
            if (prefixes || all.Any(h => h.Uses(HookSource.RunOriginal)))
                _runOriginal = plan.DeclareLocal(typeof(bool));
            for (int s = 0; s < _states.Length; s++)
                _states[s] = composition.StateTypes[s] is { } state ? plan.DeclareLocal(state) : null;
            if (all.Any(h => h.Uses(HookSource.Args)))
                _args = plan.DeclareLocal(typeof(object[]));
            if (all.Any(h => h.Uses(HookSource.ResultRef)))
                _resultRef = plan.DeclareLocal(typeof(RefResult<>).MakeGenericType(_returns.GetElementType()!));
            if (finalizers)
            {
                _caught = plan.DeclareLocal(typeof(Exception));
                _current = plan.DeclareLocal(typeof(Exception));
            }

            PlanLabel post = plan.RedirectReturns(_result, useLeave: finalizers);
            PlanLabel original = plan.DefineLabel(), pre = plan.DefineLabel(), tryStart = plan.DefineLabel();
            plan.Instructions[0].Labels.Add(original);
            var start = new List<BodyInstruction>();
            if (_runOriginal is not null)
            {
                start.Add(new BodyInstruction(OpCodes.Ldc_I4_1));
                start.Add(new BodyInstruction(OpCodes.Stloc, _runOriginal));
            }
            if (prefixes)
                start.Add(new BodyInstruction(OpCodes.Br, pre));
            if (finalizers && start.Count == 0)
                start.Add(new BodyInstruction(OpCodes.Nop));
            if (start.Count > 0)
            {
                start[0].Labels.Add(tryStart);
                plan.InsertAtStart(start);
            }

            // POST: the postfixes, then the exit (or, with finalizers, leave to the success path).
            plan.MarkLabel(post);
            foreach (ComposedHook hook in composition.Postfixes)
                Call(hook);
            PlanLabel success = plan.DefineLabel(), exit = plan.DefineLabel();
            if (finalizers)
                plan.Emit(OpCodes.Leave, success);
            else
                Exit();

            // PRE: the prefixes, then the original or POST.
            if (prefixes)
            {
                plan.MarkLabel(pre);
                for (int i = 0; i < composition.Prefixes.Count; i++)
                {
                    ComposedHook hook = composition.Prefixes[i];
                    // Harmony's rule: once a prefix returned false, a later one that could change
                    // the outcome is skipped; one that only observes still runs. The first prefix
                    // needs no check: nothing has returned false before it.
                    PlanLabel? skip = i > 0 && AffectsOriginal(hook.Hook) ? plan.DefineLabel() : null;
                    if (skip is { } skipped)
                    {
                        plan.LoadLocal(_runOriginal!);
                        plan.Emit(OpCodes.Brfalse, skipped);
                    }
                    Call(hook);
                    if (skip is { } after)
                        plan.MarkLabel(after);
                }
                plan.LoadLocal(_runOriginal!);
                plan.Emit(OpCodes.Brfalse, post);
                plan.Emit(OpCodes.Br, original);
            }
            if (!finalizers)
                return plan;

            // The handler: the finalizers see the exception; then swallow, rethrow or throw.
            PlanLabel handler = plan.DefineLabel(), thrown = plan.DefineLabel(), rethrow = plan.DefineLabel();
            plan.MarkLabel(handler);
            plan.StoreLocal(_caught!);
            plan.LoadLocal(_caught!);
            plan.StoreLocal(_current!);
            foreach (ComposedHook hook in composition.Finalizers)
                Call(hook);
            plan.LoadLocal(_current!);
            plan.Emit(OpCodes.Brtrue, thrown);
            plan.Emit(OpCodes.Leave, exit);
            plan.MarkLabel(thrown);
            plan.LoadLocal(_current!);
            plan.LoadLocal(_caught!);
            plan.Emit(OpCodes.Beq, rethrow);
            plan.LoadLocal(_current!);
            plan.Emit(OpCodes.Throw);
            plan.MarkLabel(rethrow);
            plan.Emit(OpCodes.Rethrow);

            // SUCCESS: the finalizers with no exception; one they return is thrown.
            plan.MarkLabel(success);
            plan.AddCatchRegion(tryStart, handler, handler, success, typeof(Exception));
            plan.Emit(OpCodes.Ldnull);
            plan.StoreLocal(_current!);
            foreach (ComposedHook hook in composition.Finalizers)
                Call(hook);
            plan.LoadLocal(_current!);
            plan.Emit(OpCodes.Brfalse, exit);
            plan.LoadLocal(_current!);
            plan.Emit(OpCodes.Throw);
            plan.MarkLabel(exit);
            Exit();
            return plan;
        }

        /// <summary>Whether a prefix could change the outcome (Harmony's PrefixAffectsOriginal): it
        /// returns bool, or takes something other than __instance, __originalMethod and __state by
        /// reference or out, or as a reference type (whose object it could change, __args
        /// included). A prefix that takes only values (value-type arguments, __runOriginal) cannot.</summary>
        private static bool AffectsOriginal(BoundHook hook) =>
            hook.Return == HookReturn.RunOriginal ||
            hook.Arguments.Zip(hook.Method.GetParameters()).Any(pair =>
                pair.First.Source is not (HookSource.Instance or HookSource.OriginalMethod or HookSource.State) &&
                (pair.Second.ParameterType.IsByRef || pair.Second.IsOut || !pair.Second.ParameterType.IsValueType));

        private void Exit()
        {
            if (_result is not null)
                plan.LoadLocal(_result);
            plan.Emit(OpCodes.Ret);
        }

        /// <summary>One hook: __args built, its arguments, the call, its return used, __args written back.</summary>
        private void Call(ComposedHook composed)
        {
            BoundHook hook = composed.Hook;
            bool args = hook.Uses(HookSource.Args);
            if (args)
                BuildArgs();
            _temporaries.Clear();
            PlanLabel? otherInstantiation = hook.Instantiation.Count == 0 ? null : plan.DefineLabel();
            if (otherInstantiation is { } skipped)
                TestInstantiation(hook.Instantiation, skipped);
            foreach (HookArgument argument in hook.Arguments)
                Load(argument, composed.Set);
            MethodInfo method = hook.Method;
            if (CallsDirectly(_target, method, composed.PreferCalli))
            {
                plan.Emit(OpCodes.Call, method);
            }
            else
            {
                plan.Emit(OpCodes.Ldc_I8, (long)Interceptor.EntryPoint(method));
                plan.Emit(OpCodes.Conv_I);
                plan.EmitCalli(OpCodes.Calli, CallingConventions.Standard, method.ReturnType,
                    [.. method.GetParameters().Select(p => p.ParameterType)]);
            }
            switch (hook.Return)
            {
                case HookReturn.RunOriginal:
                    PlanLabel keep = plan.DefineLabel();
                    plan.Emit(OpCodes.Brtrue, keep);
                    plan.LoadConstant(0);
                    plan.StoreLocal(_runOriginal!);
                    plan.MarkLabel(keep);
                    break;
                case HookReturn.PassThrough:
                    plan.StoreLocal(_result!);
                    break;
                case HookReturn.Exception:
                    plan.StoreLocal(_current!);
                    break;
            }
            if (args)
                WriteBackArgs();
            foreach ((HookArgument argument, PlanLocal temporary) in _temporaries)
                WriteBackTemporary(argument, temporary);
            if (hook.Uses(HookSource.ResultRef))
                TakeSuppliedReference();
            if (otherInstantiation is { } end)
            {
                plan.MarkLabel(end);
                plan.Emit(OpCodes.Nop);
            }
        }

        /// <summary>After a hook that takes __resultRef: a delegate it set is called once, its reference becomes the
        /// result, and the local is cleared (Harmony's order).</summary>
        private void TakeSuppliedReference()
        {
            PlanLabel none = plan.DefineLabel();
            plan.LoadLocal(_resultRef!);
            plan.Emit(OpCodes.Brfalse, none);
            plan.LoadLocal(_resultRef!);
            plan.Emit(OpCodes.Callvirt, _resultRef!.LocalType.GetMethod("Invoke")!);
            plan.StoreLocal(_result!);
            plan.Emit(OpCodes.Ldnull);
            plan.StoreLocal(_resultRef!);
            plan.MarkLabel(none);
            plan.Emit(OpCodes.Nop);
        }

        /// <summary>A hook typed for one instantiation runs only there: <c>typeof(T) == typeof(int)</c> for each
        /// generic argument it fixes, else to `skip`. The JIT folds the test where T is exact (value-type
        /// instantiations); shared code compares at run time.</summary>
        private void TestInstantiation(IReadOnlyList<GenericBinding> instantiation, PlanLabel skip)
        {
            foreach (GenericBinding binding in instantiation)
            {
                plan.Emit(OpCodes.Ldtoken, binding.Parameter);
                plan.Emit(OpCodes.Call, TypeFromHandle);
                plan.Emit(OpCodes.Ldtoken, binding.Argument);
                plan.Emit(OpCodes.Call, TypeFromHandle);
                plan.Emit(OpCodes.Call, TypeEquality);
                plan.Emit(OpCodes.Brfalse, skip);
            }
        }

        /// <summary>A <c>ref object</c> over a slot of another type, or a slot of a generic type taken as one
        /// instantiation (by value or by reference): the slot's value (read through it when it holds a reference),
        /// boxed, then unboxed to the hook's type; by reference, stored in a new local of the hook's type whose
        /// address is passed (<see cref="WriteBackTemporary"/> converts it back after the call).</summary>
        private void LoadConverted(HookArgument argument)
        {
            bool throughReference = argument.Source == HookSource.Instance
                ? argument.ValueType.IsValueType
                : argument.Source == HookSource.Argument && ArgumentIsByRef(argument.ArgumentIndex);
            if (argument.Source == HookSource.Result)
                plan.LoadLocal(_result!);
            else
                plan.LoadArgument(argument.Source == HookSource.Instance ? 0 : argument.ArgumentIndex);
            if (throughReference)
                plan.Emit(OpCodes.Ldobj, argument.ValueType);
            BoxIfNeeded(argument.ValueType);
            Type hookType = Unref(argument.ParameterType);
            if (hookType != typeof(object))
                plan.Emit(OpCodes.Unbox_Any, hookType);
            if (argument.Passing == HookPassing.Convert)
                return;
            PlanLocal temporary = plan.DeclareLocal(hookType);
            plan.StoreLocal(temporary);
            plan.LoadLocalAddress(temporary);
            _temporaries.Add((argument, temporary));
        }

        private static Type Unref(Type type) => type.IsByRef ? type.GetElementType()! : type;

        private void WriteBackTemporary(HookArgument argument, PlanLocal temporary)
        {
            bool throughReference = argument.Source == HookSource.Instance ||
                                    (argument.Source == HookSource.Argument && ArgumentIsByRef(argument.ArgumentIndex));
            if (throughReference)
                plan.LoadArgument(argument.Source == HookSource.Instance ? 0 : argument.ArgumentIndex);
            plan.LoadLocal(temporary);
            Type hookType = Unref(argument.ParameterType);
            if (hookType != typeof(object))
                BoxIfNeeded(hookType);
            plan.Emit(OpCodes.Unbox_Any, argument.ValueType);
            if (throughReference)
                plan.Emit(OpCodes.Stobj, argument.ValueType);
            else if (argument.Source == HookSource.Result)
                plan.StoreLocal(_result!);
            else
                plan.StoreArgument(argument.ArgumentIndex);
        }

        private bool ArgumentIsByRef(int slot) => TargetArguments().First(a => a.Slot == slot).ByRef;

        private void Load(HookArgument argument, int set)
        {
            if (argument.Passing is HookPassing.BoxedTemporary or HookPassing.Convert or HookPassing.ConvertedTemporary)
            {
                LoadConverted(argument);
                return;
            }
            switch (argument.Source)
            {
                case HookSource.Instance:
                    plan.LoadArgument(0);
                    Pass(argument.Passing, argument.ValueType);
                    break;
                case HookSource.Argument:
                    if (argument.Passing == HookPassing.Address)
                        plan.LoadArgumentAddress(argument.ArgumentIndex);
                    else
                        plan.LoadArgument(argument.ArgumentIndex);
                    Pass(argument.Passing, argument.ValueType);
                    break;
                case HookSource.Result:
                    if (argument.Passing == HookPassing.Address)
                        plan.LoadLocalAddress(_result!);
                    else
                        plan.LoadLocal(_result!);
                    Pass(argument.Passing, argument.ValueType);
                    break;
                case HookSource.PassThrough:
                    plan.LoadLocal(_result!);
                    break;
                case HookSource.State:
                    if (argument.Passing == HookPassing.Address)
                    {
                        plan.LoadLocalAddress(_states[set]!);
                    }
                    else
                    {
                        plan.LoadLocal(_states[set]!);
                        // A compatible __state: a value-type local taken as object or an interface is boxed.
                        if (composition.StateTypes[set] is { IsValueType: true } local && !argument.ParameterType.IsValueType)
                            plan.Emit(OpCodes.Box, local);
                    }
                    break;
                case HookSource.Field:
                    FieldInfo field = argument.Field!;
                    if (!field.IsStatic)
                        plan.LoadArgument(0);
                    if (argument.Passing == HookPassing.Address)
                        plan.Emit(field.IsStatic ? OpCodes.Ldsflda : OpCodes.Ldflda, field);
                    else
                        plan.Emit(field.IsStatic ? OpCodes.Ldsfld : OpCodes.Ldfld, field);
                    Pass(argument.Passing, argument.ValueType);
                    break;
                case HookSource.Exception:
                    plan.LoadLocal(_current!);
                    break;
                case HookSource.ResultRef:
                    plan.LoadLocalAddress(_resultRef!);
                    break;
                case HookSource.RunOriginal:
                    plan.LoadLocal(_runOriginal!);
                    break;
                case HookSource.OriginalMethod:
                    LoadOriginalMethod(argument.ParameterType);
                    break;
                case HookSource.Args:
                    plan.LoadLocal(_args!);
                    break;
            }
        }

        /// <summary>After the slot's value (or address) is on the stack: read through it, box it.</summary>
        private void Pass(HookPassing passing, Type type)
        {
            switch (passing)
            {
                case HookPassing.Load:
                    plan.Emit(OpCodes.Ldobj, type);
                    break;
                case HookPassing.Box:
                    BoxIfNeeded(type);
                    break;
                case HookPassing.LoadBox:
                    plan.Emit(OpCodes.Ldobj, type);
                    BoxIfNeeded(type);
                    break;
            }
        }

        private void BoxIfNeeded(Type type)
        {
            if (type.IsValueType || type.IsGenericParameter)
                plan.Emit(OpCodes.Box, type);
        }

        /// <summary>The target as the running instantiation: for a generic target, ldtoken of the target and of
        /// its declaring type over their own generic parameters (Bag&lt;!0&gt;::Add, M&lt;!!0&gt;), which the generic
        /// context resolves to Bag&lt;int&gt;.Add or M&lt;string&gt; (Harmony's tokens name the open definition).</summary>
        private void LoadOriginalMethod(Type declared)
        {
            Type? generic = _target.DeclaringType is { IsGenericType: true } declaring ? declaring.GetGenericTypeDefinition() : null;
            if (generic is not null || _target is MethodInfo { IsGenericMethodDefinition: true })
                plan.EmitOwnInstantiation(new Plans.OwnInstantiation(_target));
            else if (_target is MethodInfo method)
                plan.Emit(OpCodes.Ldtoken, method);
            else
                plan.Emit(OpCodes.Ldtoken, (ConstructorInfo)_target);
            if (generic is not null)
            {
                plan.EmitOwnInstantiation(new Plans.OwnInstantiation(generic));
                plan.Emit(OpCodes.Call, FromHandleInType);
            }
            else
            {
                plan.Emit(OpCodes.Call, FromHandle);
            }
            if (declared != typeof(MethodBase) && declared != typeof(object) && declared != typeof(MemberInfo))
                plan.Emit(OpCodes.Castclass, declared);
        }

        private IEnumerable<(int Slot, Type Type, bool ByRef)> TargetArguments()
        {
            ParameterInfo[] parameters = _target.GetParameters();
            int shift = _target.IsStatic ? 0 : 1;
            for (int i = 0; i < parameters.Length; i++)
            {
                Type p = parameters[i].ParameterType;
                yield return (i + shift, p.IsByRef ? p.GetElementType()! : p, p.IsByRef);
            }
        }

        private void BuildArgs()
        {
            List<(int Slot, Type Type, bool ByRef)> arguments = [.. TargetArguments()];
            plan.LoadConstant(arguments.Count);
            plan.Emit(OpCodes.Newarr, typeof(object));
            plan.StoreLocal(_args!);
            for (int i = 0; i < arguments.Count; i++)
            {
                plan.LoadLocal(_args!);
                plan.LoadConstant(i);
                plan.LoadArgument(arguments[i].Slot);
                if (arguments[i].ByRef)
                    plan.Emit(OpCodes.Ldobj, arguments[i].Type);
                BoxIfNeeded(arguments[i].Type);
                plan.Emit(OpCodes.Stelem_Ref);
            }
        }

        private void WriteBackArgs()
        {
            List<(int Slot, Type Type, bool ByRef)> arguments = [.. TargetArguments()];
            for (int i = 0; i < arguments.Count; i++)
            {
                if (arguments[i].ByRef)
                    plan.LoadArgument(arguments[i].Slot);
                plan.LoadLocal(_args!);
                plan.LoadConstant(i);
                plan.Emit(OpCodes.Ldelem_Ref);
                plan.Emit(OpCodes.Unbox_Any, arguments[i].Type);
                if (arguments[i].ByRef)
                    plan.Emit(OpCodes.Stobj, arguments[i].Type);
                else
                    plan.StoreArgument(arguments[i].Slot);
            }
        }
    }
}
