using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.Hooks;

/// <summary>One inner hook in a composition: the bound hook, its owner, its set's install order and index
/// (for <see cref="HookOrder"/>), its set's PreferCalli.</summary>
internal sealed record ComposedInfix(BoundInfix Infix, string OwnerName, long SetOrder, int Index, bool PreferCalli);

/// <summary>
/// Weaves inner prefixes and postfixes around calls inside a plan's instructions (after the transpilers,
/// before the outer hooks). Each chosen <c>call</c>/<c>callvirt</c> of the callee becomes:
/// <code>
///     stloc argN-1 ... stloc arg0; [stloc receiver]        (the call's operands kept in locals)
///     [ldloca result; initobj R]  [ldc.i4.1; stloc run]
///     inner prefixes                                       (a false return clears run; all of them run)
///     [ldloc run; brfalse SKIP]  [ldloc receiver] ldloc arg0..argN-1; the call; [stloc result]
/// SKIP: nop; inner postfixes; [ldloc result]
/// </code>
/// The call instruction itself is kept (its labels move to the first stloc). The hooks of each kind run
/// in <see cref="HookOrder"/>'s order (priority, Before/After, install order).
/// </summary>
internal static class InfixWeaver
{
    /// <summary>Weaves every inner hook into `plan`; <see cref="HookBindingException"/>
    /// (<see cref="HookBindingKind.InnerCall"/>) when the body does not make the call an inner hook names, as
    /// often as its occurrence says, or makes it with the <c>constrained.</c> prefix.</summary>
    public static void Run(GenerationPlan plan, IReadOnlyList<ComposedInfix> infixes, MethodBase target)
    {
        if (infixes.Count == 0)
            return;
        foreach (IGrouping<MethodInfo, ComposedInfix> group in infixes.GroupBy(i => i.Infix.Callee, SameCallee.Instance))
        {
            MethodInfo callee = group.Key;
            List<BodyInstruction> sites = [.. plan.Instructions.Where(i =>
                (i.OpCode == OpCodes.Call || i.OpCode == OpCodes.Callvirt) && i.Operand is MethodInfo m &&
                SameCallee.Instance.Equals(m, callee))];
            foreach (ComposedInfix infix in group)
            {
                int occurrence = infix.Infix.Occurrence;
                if (sites.Count == 0 || Math.Abs(occurrence) > sites.Count)
                    throw InfixBinder.Refuse(HookBindingKind.InnerCall, infix.Infix.Method, target, -1,
                        occurrence == 0 ? "a call" : $"call {occurrence}", $"{sites.Count} call(s)",
                        $"The {infix.Infix.Kind} {Names.Of(infix.Infix.Method)} names " +
                        (occurrence == 0 ? "the calls" : $"call {occurrence}") + $" of {Names.Of(callee)} in " +
                        $"{Names.Of(target)}, whose body (after its transpilers) calls it {sites.Count} time(s). " +
                        $"Give an occurrence from 1 to {sites.Count} (or -1 for the last, 0 for every call)" +
                        (sites.Count == 0 ? ", or name a method the target calls." : "."));
            }
            for (int s = 0; s < sites.Count; s++)
            {
                List<ComposedInfix> here = [.. group.Where(i => Matches(i.Infix.Occurrence, s + 1, sites.Count))];
                if (here.Count == 0)
                    continue;
                BodyInstruction site = sites[s];
                int at = plan.Instructions.IndexOf(site);
                if (at > 0 && plan.Instructions[at - 1].OpCode == OpCodes.Constrained)
                    throw InfixBinder.Refuse(HookBindingKind.InnerCall, here[0].Infix.Method, target, -1, null, null,
                        $"Call {s + 1} of {Names.Of(callee)} in {Names.Of(target)} has the constrained. prefix (a call on a " +
                        "generic receiver's address), which inner hooks do not support. Hook the callee itself instead.");
                if (at > 0 && plan.Instructions[at - 1].OpCode == OpCodes.Tailcall)
                    plan.Instructions.RemoveAt(at - 1);
                List<BodyInstruction> sequence = Around(plan, site, callee, target, Ordered(here, true), Ordered(here, false));
                plan.Replace(i => ReferenceEquals(i, site), _ => sequence);
            }
        }
    }

    /// <summary>Harmony's occurrence rule: 0 every call; n the n-th (1-based); -n the n-th from the last.</summary>
    private static bool Matches(int occurrence, int index, int total) =>
        occurrence == 0 || occurrence == index || (occurrence < 0 && index == total + occurrence + 1);

    private static List<ComposedInfix> Ordered(List<ComposedInfix> infixes, bool prefixes)
    {
        List<ComposedInfix> kind = [.. infixes.Where(i => i.Infix.IsPrefix == prefixes)];
        List<HookOrderItem> items = [.. kind.Select(i => new HookOrderItem(i.Infix.Hook.Priority, i.OwnerName,
            i.Infix.Hook.Before, i.Infix.Hook.After, (i.SetOrder, i.Index)))];
        return [.. HookOrder.Sort(items).Select(i => kind[i])];
    }

    private static List<BodyInstruction> Around(GenerationPlan plan, BodyInstruction site, MethodInfo callee,
        MethodBase target, List<ComposedInfix> prefixes, List<ComposedInfix> postfixes)
    {
        var code = new List<BodyInstruction>();
        ParameterInfo[] parameters = callee.GetParameters();
        PlanLocal[] args = [.. parameters.Select(p => plan.DeclareLocal(p.ParameterType))];
        PlanLocal? receiver = callee.IsStatic ? null : plan.DeclareLocal(callee.DeclaringType!);
        PlanLocal? result = callee.ReturnType == typeof(void) ? null : plan.DeclareLocal(callee.ReturnType);
        bool canSkip = prefixes.Any(p => p.Infix.ReturnsBool);
        PlanLocal? run = canSkip ? plan.DeclareLocal(typeof(bool)) : null;
        for (int i = args.Length - 1; i >= 0; i--)
            code.Add(new BodyInstruction(OpCodes.Stloc, args[i]));
        if (receiver is not null)
            code.Add(new BodyInstruction(OpCodes.Stloc, receiver));
        if (result is not null)
        {
            code.Add(new BodyInstruction(OpCodes.Ldloca, result));
            code.Add(new BodyInstruction(OpCodes.Initobj, result.LocalType));
        }
        if (run is not null)
        {
            code.Add(new BodyInstruction(OpCodes.Ldc_I4_1));
            code.Add(new BodyInstruction(OpCodes.Stloc, run));
        }
        foreach (ComposedInfix prefix in prefixes)
        {
            Call(code, prefix, target, args, receiver, result);
            if (prefix.Infix.ReturnsBool)
            {
                PlanLabel keep = plan.DefineLabel();
                code.Add(new BodyInstruction(OpCodes.Brtrue, keep));
                code.Add(new BodyInstruction(OpCodes.Ldc_I4_0));
                code.Add(new BodyInstruction(OpCodes.Stloc, run!));
                var landing = new BodyInstruction(OpCodes.Nop);
                landing.Labels.Add(keep);
                code.Add(landing);
            }
        }
        PlanLabel skip = plan.DefineLabel();
        if (run is not null)
        {
            code.Add(new BodyInstruction(OpCodes.Ldloc, run));
            code.Add(new BodyInstruction(OpCodes.Brfalse, skip));
        }
        if (receiver is not null)
            code.Add(new BodyInstruction(OpCodes.Ldloc, receiver));
        foreach (PlanLocal arg in args)
            code.Add(new BodyInstruction(OpCodes.Ldloc, arg));
        code.Add(site);
        if (result is not null)
            code.Add(new BodyInstruction(OpCodes.Stloc, result));
        var after = new BodyInstruction(OpCodes.Nop);
        after.Labels.Add(skip);
        code.Add(after);
        foreach (ComposedInfix postfix in postfixes)
            Call(code, postfix, target, args, receiver, result);
        if (result is not null)
            code.Add(new BodyInstruction(OpCodes.Ldloc, result));
        return code;
    }

    private static void Call(List<BodyInstruction> code, ComposedInfix composed, MethodBase target, PlanLocal[] args,
        PlanLocal? receiver, PlanLocal? result)
    {
        BoundInfix infix = composed.Infix;
        foreach (InfixArgument argument in infix.Arguments)
        {
            PlanLocal slot = argument.Source switch
            {
                InfixSource.Instance => receiver!,
                InfixSource.Result => result!,
                _ => args[argument.Index],
            };
            code.Add(new BodyInstruction(argument.ByRef ? OpCodes.Ldloca : OpCodes.Ldloc, slot));
            if (argument.Box)
                code.Add(new BodyInstruction(OpCodes.Box, slot.LocalType));
        }
        MethodInfo method = infix.Method;
        if (HookWeaver.CallsDirectly(target, method, composed.PreferCalli))
        {
            code.Add(new BodyInstruction(OpCodes.Call, method));
            return;
        }
        code.Add(new BodyInstruction(OpCodes.Ldc_I8, (long)Interceptor.EntryPoint(method)));
        code.Add(new BodyInstruction(OpCodes.Conv_I));
        code.Add(new BodyInstruction(OpCodes.Calli, new CalliSignature(false, method.ReturnType,
            [.. method.GetParameters().Select(p => p.ParameterType)])));
    }

    /// <summary>The same called method: one definition (module, token), on the same declaring type, with the
    /// same type arguments for a generic method.</summary>
    private sealed class SameCallee : IEqualityComparer<MethodInfo>
    {
        public static readonly SameCallee Instance = new();

        public bool Equals(MethodInfo? a, MethodInfo? b) =>
            a is not null && b is not null && a.MetadataToken == b.MetadataToken && a.Module == b.Module &&
            a.DeclaringType == b.DeclaringType &&
            (!a.IsGenericMethod || (b.IsGenericMethod && a.GetGenericArguments().SequenceEqual(b.GetGenericArguments())));

        public int GetHashCode(MethodInfo m) => HashCode.Combine(m.MetadataToken, m.Module);
    }
}
