using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>Where an inner hook parameter's value comes from.</summary>
internal enum InfixSource
{
    /// <summary>The inner call's receiver (<c>__instance</c>).</summary>
    Instance,

    /// <summary>One of the inner call's arguments (by the callee's parameter name, or <c>__0</c>, <c>__1</c>...).</summary>
    Argument,

    /// <summary>The inner call's result (<c>__result</c>).</summary>
    Result,
}

/// <summary>One inner hook parameter bound: its source, the callee argument (for
/// <see cref="InfixSource.Argument"/>), whether it is passed by reference, whether the value is boxed.</summary>
internal readonly record struct InfixArgument(InfixSource Source, int Index, bool ByRef, bool Box);

/// <summary>An inner prefix or postfix bound to one call of a target: the callee, which of its calls
/// (1-based; negative from the last; 0 every call), and where each parameter comes from.</summary>
internal sealed record BoundInfix(HookMethod Hook, bool IsPrefix, MethodInfo Callee, int Occurrence,
    bool ReturnsBool, IReadOnlyList<InfixArgument> Arguments)
{
    public MethodInfo Method => Hook.Method;

    public string Kind => IsPrefix ? "inner prefix" : "inner postfix";
}

/// <summary>
/// Binds inner prefixes and postfixes (<see cref="Interceptor.HookCall"/>, <see cref="PatchInnerPrefixAttribute"/>,
/// <see cref="PatchInnerPostfixAttribute"/>) to a call inside a target, or refuses them with a
/// <see cref="HookBindingException"/> saying what was expected, what was found and a declaration that works.
/// </summary>
internal static class InfixBinder
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    /// <summary>A patch class's set with its inner hooks: the other kinds bound as usual (none is fine when it
    /// has inner hooks), the inner hooks bound to the calls their attributes name.</summary>
    public static BoundClassSet BindDiscovered(DiscoveredSet set)
    {
        List<BoundInfix> infixes = [.. set.InnerPrefixes.Select(h => BindAttributed(set.Target, h, true)),
            .. set.InnerPostfixes.Select(h => BindAttributed(set.Target, h, false))];
        if (infixes.Count > 0 && set.Prefixes.Count + set.Postfixes.Count + set.Finalizers.Count + set.Transpilers.Count == 0)
            return new BoundClassSet(set, new BoundSet([], [], [], null), [], infixes);
        (BoundSet hooks, IReadOnlyList<BoundTranspiler> transpilers) =
            Transpilers.BindSet(set.Target, set.Prefixes, set.Postfixes, set.Finalizers, set.Transpilers, set.Given);
        return new BoundClassSet(set, hooks, transpilers, infixes);
    }

    private static BoundInfix BindAttributed(MethodBase target, HookMethod hook, bool prefix)
    {
        PatchInnerHookAttribute at = prefix
            ? hook.Method.GetCustomAttribute<PatchInnerPrefixAttribute>(false)!
            : hook.Method.GetCustomAttribute<PatchInnerPostfixAttribute>(false)!;
        return Bind(target, hook, prefix, ResolveCallee(at, hook.Method), at.Occurrence);
    }

    /// <summary>The method an inner hook attribute names (one declared method of that name, or the overload
    /// with <see cref="PatchInnerHookAttribute.ArgumentTypes"/>).</summary>
    public static MethodInfo ResolveCallee(PatchInnerHookAttribute at, MethodInfo hook)
    {
        string where = $"The inner hook {Names.Of(hook)}";
        if (at.CalleeType is null || string.IsNullOrEmpty(at.CalleeName))
            throw Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{where} names no called method: expected [PatchInnerPrefix(typeof(TheType), \"TheMethod\", 1)].");
        MethodInfo[] named = [.. at.CalleeType.GetMethods(Declared).Where(m => m.Name == at.CalleeName)];
        MethodInfo[] matches = at.ArgumentTypes is { } types
            ? [.. named.Where(m => m.GetParameters().Select(p => p.ParameterType).SequenceEqual(types))]
            : named;
        string overloads = named.Length == 0 ? "" : $" It has: {string.Join("; ", named.Select(Names.Of))}.";
        if (matches.Length == 0)
            throw Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{where} names the method {Names.Of(at.CalleeType)}.{at.CalleeName}, which that type does not declare.{overloads}");
        if (matches.Length > 1)
            throw Refuse(HookBindingKind.TargetAmbiguous, hook, null, -1, null, null,
                $"{where} names {Names.Of(at.CalleeType)}.{at.CalleeName}, which has {matches.Length} overloads; give " +
                $"the argument types (ArgumentTypes = [typeof(...)] on the attribute).{overloads}");
        return matches[0];
    }

    /// <summary>Binds one inner hook to the calls of `callee` in `target`.</summary>
    public static BoundInfix Bind(MethodBase target, HookMethod hook, bool prefix, MethodInfo callee, int occurrence)
    {
        ArgumentNullException.ThrowIfNull(hook);
        ArgumentNullException.ThrowIfNull(callee);
        MethodInfo method = hook.Method;
        string kind = prefix ? "inner prefix" : "inner postfix";
        string name = $"The {kind} {Names.Of(method)}";
        HookBinder.CheckTarget(target, method);
        CheckCallee(target, method, callee);
        if (!method.IsStatic)
            throw Refuse(HookBindingKind.NotStatic, method, target, -1, null, null,
                $"{name} must be static: the woven body calls it without an instance. Declare it " +
                $"'static {(prefix ? "bool" : "void")} {method.Name}(...)'.");
        if (method.ContainsGenericParameters)
            throw Refuse(HookBindingKind.GenericHook, method, target, -1, null, null,
                $"{name} is generic (or declared on an open generic type): it has no single method to call. " +
                "Declare it non-generic, on a non-generic class.");
        Type returns = method.ReturnType;
        if (returns != typeof(void) && !(prefix && returns == typeof(bool)))
            throw Refuse(HookBindingKind.ReturnType, method, target, -1, prefix ? "void or bool" : "void",
                Names.Of(returns),
                $"{name} returns {Names.Of(returns)}; expected {(prefix ? "void, or bool (false skips the call)" : "void")}. " +
                $"To change the call's result, take 'ref {Names.Of(callee.ReturnType)} __result'.");
        ParameterInfo[] calleeParameters = callee.GetParameters();
        ParameterInfo[] parameters = method.GetParameters();
        var arguments = new List<InfixArgument>();
        for (int i = 0; i < parameters.Length; i++)
        {
            ParameterInfo p = parameters[i];
            string pname = p.Name ?? "";
            InfixSource source;
            int index = -1;
            Type slot;
            if (pname == "__instance")
            {
                if (callee.IsStatic)
                    throw Refuse(HookBindingKind.NoInstance, method, target, i, null, null,
                        $"Parameter {i} ('__instance') of the {kind} {Names.Of(method)}: the called {Names.Of(callee)} is " +
                        "static, so the call has no receiver. Remove the parameter.");
                source = InfixSource.Instance;
                slot = callee.DeclaringType!;
            }
            else if (pname == "__result")
            {
                if (callee.ReturnType == typeof(void))
                    throw Refuse(HookBindingKind.NoResult, method, target, i, null, null,
                        $"Parameter {i} ('__result') of the {kind} {Names.Of(method)}: the called {Names.Of(callee)} " +
                        "returns void. Remove the parameter.");
                source = InfixSource.Result;
                slot = callee.ReturnType;
            }
            else
            {
                index = Array.FindIndex(calleeParameters, c => c.Name == pname);
                if (index < 0 && pname.StartsWith("__", StringComparison.Ordinal) &&
                    int.TryParse(pname.AsSpan(2), System.Globalization.NumberStyles.None,
                        System.Globalization.CultureInfo.InvariantCulture, out int n) && n < calleeParameters.Length)
                    index = n;
                if (index < 0)
                    throw Refuse(HookBindingKind.UnknownParameter, method, target, i, null, pname,
                        $"Parameter {i} ('{pname}') of the {kind} {Names.Of(method)} names nothing of the call of " +
                        $"{Names.Of(callee)}: expected one of its parameters " +
                        $"({string.Join(", ", calleeParameters.Select(c => c.Name))}), __0...__{Math.Max(0, calleeParameters.Length - 1)}, " +
                        "__instance or __result.");
                source = InfixSource.Argument;
                slot = calleeParameters[index].ParameterType;
            }
            Type declared = p.ParameterType;
            bool byRef = declared.IsByRef;
            Type element = byRef ? declared.GetElementType()! : declared;
            bool box = false;
            bool fits = byRef
                ? element == slot && source != InfixSource.Instance
                : element == slot || (!slot.IsValueType && element.IsAssignableFrom(slot)) ||
                  (slot.IsValueType && element == typeof(object) && (box = true));
            if (!fits)
            {
                string works = source == InfixSource.Instance ? $"{Names.Of(slot)} {pname}"
                    : $"{Names.Of(slot)} {pname}' or 'ref {Names.Of(slot)} {pname}";
                throw Refuse(HookBindingKind.ParameterType, method, target, i, Names.Of(slot), Names.Of(declared),
                    $"Parameter {i} ('{pname}') of the {kind} {Names.Of(method)} is {Names.Of(declared)}, but the call of " +
                    $"{Names.Of(callee)} has {Names.Of(slot)} there. Declare it '{works}'.");
            }
            arguments.Add(new InfixArgument(source, index, byRef, box));
        }
        return new BoundInfix(hook, prefix, callee, occurrence, returns == typeof(bool), arguments);
    }

    /// <summary>Refuses a callee infixes do not support: what the weaver cannot keep in locals across the hooks.</summary>
    private static void CheckCallee(MethodBase target, MethodInfo hook, MethodInfo callee)
    {
        string? why = callee.ContainsGenericParameters ? "it is an open generic method (give the instantiation the target calls)"
            : !callee.IsStatic && callee.DeclaringType!.IsValueType ? "it is an instance method of a struct (its receiver is an address)"
            : callee.ReturnType.IsByRef ? "it returns by reference"
            : callee.GetParameters().Any(p => p.ParameterType.IsByRef) ? "it takes a parameter by reference"
            : (callee.CallingConvention & CallingConventions.VarArgs) != 0 ? "it takes varargs" : null;
        if (why is not null)
            throw Refuse(HookBindingKind.InnerCall, hook, target, -1, null, null,
                $"The inner hook {Names.Of(hook)} names calls of {Names.Of(callee)}, which inner hooks do not support: {why}. " +
                "Hook the callee itself, or edit the call with a transpiler.");
    }

    internal static HookBindingException Refuse(HookBindingKind kind, MethodInfo? hook, MethodBase? target, int index,
        string? expected, string? actual, string message) =>
        HookBinder.Refuse(kind, hook, target, index, expected, actual, message);
}
