using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>What a transpiler parameter receives, bound by its type (Harmony's rule: by type, in any order).</summary>
internal enum TranspilerInput
{
    /// <summary>The instructions so far (the original's, or the previous transpiler's output).</summary>
    Instructions,

    /// <summary>The plan being built (Harmony's ILGenerator: DefineLabel, DeclareLocal).</summary>
    Plan,

    /// <summary>The method whose body is transpiled.</summary>
    Original,
}

/// <summary>A transpiler whose every parameter is bound.</summary>
internal sealed record BoundTranspiler(HookMethod Hook, IReadOnlyList<TranspilerInput> Inputs)
{
    public MethodInfo Method => Hook.Method;
}

/// <summary>One transpiler in the composed order, with its owner's name.</summary>
internal sealed record ComposedTranspiler(BoundTranspiler Transpiler, string OwnerName);

/// <summary>
/// Binds transpilers (<c>IEnumerable&lt;BodyInstruction&gt; Transpiler(IEnumerable&lt;BodyInstruction&gt;
/// instructions, GenerationPlan plan, MethodBase original)</c>, the last two optional, in any order) and runs
/// them over a <see cref="GenerationPlan.FromOriginal"/> plan's instruction list, each on the previous one's
/// output. A parameter is bound by its type: <see cref="GenerationPlan"/> receives the plan;
/// <see cref="MethodBase"/> (or <see cref="MemberInfo"/>) the original; a type a
/// <c>List&lt;BodyInstruction&gt;</c> converts to (IEnumerable, IList, IReadOnlyList, List of BodyInstruction)
/// the instructions. Each at most once.
/// </summary>
internal static class Transpilers
{
    private const string Shape =
        "static IEnumerable<BodyInstruction> Transpiler(IEnumerable<BodyInstruction> instructions, " +
        "GenerationPlan plan, MethodBase original)";

    /// <summary>Binds one hook set's hooks: the prefixes, postfixes and finalizers by
    /// <see cref="HookBinder.BindSet"/> (a set of transpilers alone binds none), the transpilers here.</summary>
    public static (BoundSet Hooks, IReadOnlyList<BoundTranspiler> Transpilers) BindSet(MethodBase target,
        IReadOnlyList<HookMethod> prefixes, IReadOnlyList<HookMethod> postfixes, IReadOnlyList<HookMethod> finalizers,
        IReadOnlyList<HookMethod> transpilers, MethodBase? given = null)
    {
        ArgumentNullException.ThrowIfNull(target);
        if (prefixes.Count + postfixes.Count + finalizers.Count + transpilers.Count == 0)
            throw HookBinder.Refuse(HookBindingKind.NoHooks, null, target, -1, null, null,
                $"No prefix, postfix, finalizer or transpiler was given for {Names.Of(target)}.");
        List<BoundTranspiler> bound = [.. transpilers.Select(t => Bind(target, t))];
        if (prefixes.Count + postfixes.Count + finalizers.Count == 0)
        {
            HookBinder.CheckTarget(target);
            return (new BoundSet([], [], [], null), bound);
        }
        return (HookBinder.BindSet(target, prefixes, postfixes, finalizers, given), bound);
    }

    /// <summary>Binds one transpiler to `target` (HookBindingException: what does not fit, and a declaration
    /// that does).</summary>
    public static BoundTranspiler Bind(MethodBase target, HookMethod transpiler)
    {
        ArgumentNullException.ThrowIfNull(transpiler);
        MethodInfo method = transpiler.Method;
        string name = $"transpiler {Names.Of(method)}";
        HookBinder.CheckTarget(target, method);
        if (!method.IsStatic)
            throw HookBinder.Refuse(HookBindingKind.NotStatic, method, target, -1, null, null,
                $"The {name} must be static: it is called with the instructions, not on an instance. Expected: {Shape}.");
        if (method.ContainsGenericParameters)
            throw HookBinder.Refuse(HookBindingKind.GenericHook, method, target, -1, null, null,
                $"The {name} is generic (or declared on an open generic type): it has no single method to call. " +
                $"Expected: {Shape}.");
        if (!typeof(IEnumerable<BodyInstruction>).IsAssignableFrom(method.ReturnType))
            throw HookBinder.Refuse(HookBindingKind.ReturnType, method, target, -1, "IEnumerable<BodyInstruction>",
                Names.Of(method.ReturnType),
                $"The {name} returns {Names.Of(method.ReturnType)}; a transpiler returns the new instructions, as " +
                $"IEnumerable<BodyInstruction> (or a type that is one, such as List<BodyInstruction>). Expected: {Shape}.");
        ParameterInfo[] parameters = method.GetParameters();
        var inputs = new List<TranspilerInput>();
        for (int i = 0; i < parameters.Length; i++)
        {
            Type type = parameters[i].ParameterType;
            TranspilerInput? input = type.IsByRef ? null
                : type == typeof(GenerationPlan) ? TranspilerInput.Plan
                : type == typeof(MethodBase) || type == typeof(MemberInfo) ? TranspilerInput.Original
                : type != typeof(object) && type.IsAssignableFrom(typeof(List<BodyInstruction>)) ? TranspilerInput.Instructions
                : null;
            if (input is not { } kind)
                throw HookBinder.Refuse(HookBindingKind.ParameterType, method, target, i,
                    "IEnumerable<BodyInstruction>, GenerationPlan or MethodBase", Names.Of(type),
                    $"Parameter {i} ('{parameters[i].Name}') of the {name} is {Names.Of(type)}; a transpiler's " +
                    "parameters are bound by type, by value: IEnumerable<BodyInstruction> (the instructions), " +
                    $"GenerationPlan (the plan, to define labels and declare locals) or MethodBase (the original). " +
                    $"Expected: {Shape}.");
            if (inputs.Contains(kind))
                throw HookBinder.Refuse(HookBindingKind.ParameterType, method, target, i, null, Names.Of(type),
                    $"Parameter {i} ('{parameters[i].Name}') of the {name} is a second {Describe(kind)} parameter; " +
                    $"each is given once. Expected: {Shape}.");
            inputs.Add(kind);
        }
        return new BoundTranspiler(transpiler, inputs);
    }

    private static string Describe(TranspilerInput input) => input switch
    {
        TranspilerInput.Instructions => "instructions (IEnumerable<BodyInstruction>)",
        TranspilerInput.Plan => "GenerationPlan",
        _ => "MethodBase (the original)",
    };

    /// <summary>Runs the transpilers in order over `plan`'s instruction list (a FromOriginal plan), each on
    /// the previous one's output, then lowers the result once to check it: TranspilerException when one
    /// throws, returns null or a null instruction, or when the body they made cannot be lowered.</summary>
    public static void Run(GenerationPlan plan, IReadOnlyList<BoundTranspiler> transpilers, MethodBase original)
    {
        if (transpilers.Count == 0)
            return;
        foreach (BoundTranspiler transpiler in transpilers)
        {
            List<BodyInstruction> input = [.. plan.Instructions];
            object?[] arguments = [.. transpiler.Inputs.Select(i => i switch
            {
                TranspilerInput.Instructions => (object)input,
                TranspilerInput.Plan => plan,
                _ => original,
            })];
            List<BodyInstruction> output;
            try
            {
                var result = (IEnumerable<BodyInstruction>?)transpiler.Method.Invoke(null, arguments);
                if (result is null)
                    throw new TranspilerException(transpiler.Method, original,
                        $"The transpiler {Names.Of(transpiler.Method)} returned null for {Names.Of(original)}; it " +
                        "returns the new instructions (the ones it was given, for no change). Nothing was applied.");
                // A lazy transpiler (yield return) runs here.
                output = [.. result];
            }
            catch (Exception e) when (e is not TranspilerException)
            {
                Exception thrown = e is TargetInvocationException { InnerException: { } inner } ? inner : e;
                throw new TranspilerException(transpiler.Method, original,
                    $"The transpiler {Names.Of(transpiler.Method)} threw {thrown.GetType().Name} on {Names.Of(original)}: " +
                    $"{thrown.Message.TrimEnd('.')}. Nothing was applied; the target keeps the body it had.", thrown);
            }
            int hole = output.IndexOf(null!);
            if (hole >= 0)
                throw new TranspilerException(transpiler.Method, original,
                    $"The transpiler {Names.Of(transpiler.Method)} returned a null instruction at index {hole} for " +
                    $"{Names.Of(original)}. Nothing was applied.");
            plan.Instructions.Clear();
            foreach (BodyInstruction instruction in output)
                plan.Instructions.Add(instruction);
        }
        string names = string.Join(", then ", transpilers.Select(t => Names.Of(t.Method)));
        MethodInfo? single = transpilers.Count == 1 ? transpilers[0].Method : null;
        string made = $"The body the transpiler{(transpilers.Count == 1 ? "" : "s")} {names} made of {Names.Of(original)}";
        // The plan's checks follow the stack; the JIT alone would refuse a body whose control runs off its end.
        BodyInstruction? last = plan.Instructions.Count > 0 ? plan.Instructions[^1] : null;
        if (last is null || !(last.OpCode.FlowControl is FlowControl.Return or FlowControl.Branch or FlowControl.Throw ||
                              last.OpCode == OpCodes.Jmp))
            throw new TranspilerException(single, original,
                $"{made} is not a valid method body: control runs off its end (its last instruction is " +
                $"{(last is null ? "none: the body is empty" : last.ToString())}; a body ends with ret, br, leave, throw or " +
                "rethrow). Nothing was applied; the target keeps the body it had.");
        try
        {
            plan.Lower();
        }
        catch (Exception e) when (e is PlanException or StackTypeMismatchException)
        {
            throw new TranspilerException(single, original,
                $"{made} is not a valid method body: {e.Message} Nothing was applied; the target keeps the body it had.", e);
        }
    }
}
