using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Binds every parameter of a hook to what the woven body passes it, or refuses the hook with a
/// <see cref="HookBindingException"/> naming the parameter, what it expected, what it found and a
/// declaration that works: all before anything reaches the profiler. The rules are those of
/// <see cref="Interceptor.Hook"/>.
/// </summary>
internal static class HookBinder
{
    private static readonly string[] InjectedNames =
        ["__instance", "__result", "__resultRef", "__state", "__exception", "__runOriginal", "__originalMethod", "__args",
            "__0, __1, ...", "___field"];

    /// <summary>Refuses a target hooks cannot be woven into (no IL, varargs).</summary>
    public static void CheckTarget(MethodBase target, MethodInfo? hook = null)
    {
        ArgumentNullException.ThrowIfNull(target);
        string name = Names.Of(target);
        if (target is DynamicMethod or MethodBuilder or ConstructorBuilder)
            throw Refuse(HookBindingKind.TargetWithoutBody, hook, target, -1, null, null,
                $"{name} is being emitted at runtime; only methods of loaded assemblies can be hooked.");
        MethodImplAttributes impl = target.MethodImplementationFlags;
        string? why = target.IsAbstract ? "it is abstract"
            : (target.Attributes & MethodAttributes.PinvokeImpl) != 0 ? "it is extern (a P/Invoke)"
            : (impl & MethodImplAttributes.InternalCall) != 0 ? "it is implemented inside the runtime (InternalCall)"
            : (impl & MethodImplAttributes.CodeTypeMask) != MethodImplAttributes.IL ? "the runtime implements it"
            : target.GetMethodBody() is null ? "it has no IL body" : null;
        if (why is not null)
            throw Refuse(HookBindingKind.TargetWithoutBody, hook, target, -1, null, null,
                $"{name} cannot be hooked: {why}, so there is no body to weave hooks into. Hook a method with IL " +
                "(for an interface or abstract method, the implementing class's method).");
        if ((target.CallingConvention & CallingConventions.VarArgs) != 0)
            throw Refuse(HookBindingKind.Varargs, hook, target, -1, null, null,
                $"{name} takes varargs (__arglist), which hooks do not support.");
    }

    /// <summary>Binds one hook set (the hooks of one Hook call or one patch class on one target):
    /// every hook, and the set's __state type, which all its hooks must be compatible with.</summary>
    public static BoundSet BindSet(MethodBase target, IEnumerable<HookMethod> prefixes, IEnumerable<HookMethod> postfixes,
        IEnumerable<HookMethod> finalizers, MethodBase? given = null)
    {
        CheckTarget(target);
        IReadOnlyList<GenericBinding> instantiation = given is null ? [] : InstantiationOf(target, given);
        List<BoundHook> pre = [.. prefixes.Select(h => Restrict(Bind(target, h, HookKind.Prefix), instantiation, given))];
        List<BoundHook> post = [.. postfixes.Select(h => Restrict(Bind(target, h, HookKind.Postfix), instantiation, given))];
        List<BoundHook> fin = [.. finalizers.Select(h => Restrict(Bind(target, h, HookKind.Finalizer), instantiation, given))];
        if (pre.Count + post.Count + fin.Count == 0)
            throw Refuse(HookBindingKind.NoHooks, null, target, -1, null, null,
                $"No prefix, postfix or finalizer was given for {Names.Of(target)}.");
        Type? state = StateType(target, [.. pre, .. post, .. fin]);
        if (state is not null && Unreachable(target, state) is { } unreachable)
        {
            BoundHook holder = pre.Concat(post).Concat(fin).First(h => h.Arguments.Any(a => a.Source == HookSource.State));
            int at = holder.Arguments.ToList().FindIndex(a => a.Source == HookSource.State);
            throw Refuse(HookBindingKind.UnreachableType, holder.Method, target, at, null, Names.Of(state),
                $"Parameter {at} ('__state') of the {Kind(holder.Kind)} {Names.Of(holder.Method)} is {Names.Of(state)}, " +
                $"a local of the woven body, but {target.Module.Name} cannot name {Names.Of(unreachable.Type)}: " +
                $"{unreachable.Why}. Use a type of the target's assembly, of one it references, or of the framework " +
                "(such as object, or a tuple of framework types).");
        }
        return new BoundSet(pre, post, fin, state);
    }

    /// <summary>The type of a set's one __state local (null: no hook takes it). As in Harmony, the local has the type
    /// the prefix declares (the first hook that takes it by ref or out; without one, the most derived type the hooks
    /// declare) and every hook of the set gets that local; a hook that takes it by value may declare any type the
    /// local's value is assignable to (a base class, an interface, object: a value-type state is boxed), by ref
    /// exactly the local's type. Anything else is refused here (Harmony would emit code that fails at run time).</summary>
    private static Type? StateType(MethodBase target, IReadOnlyList<BoundHook> hooks)
    {
        var uses = new List<(BoundHook Hook, int Index, Type Type, bool ByRef)>();
        foreach (BoundHook hook in hooks)
        {
            for (int i = 0; i < hook.Arguments.Count; i++)
            {
                if (hook.Arguments[i].Source == HookSource.State)
                    uses.Add((hook, i, hook.Arguments[i].ValueType, hook.Arguments[i].Passing == HookPassing.Address));
            }
        }
        if (uses.Count == 0)
            return null;
        (BoundHook Hook, int Index, Type Type, bool ByRef) first = uses.FirstOrDefault(u => u.ByRef);
        if (first.Hook is null)
            first = uses.FirstOrDefault(u => uses.All(other => Fits(u.Type, other.Type, other.ByRef)));
        if (first.Hook is null)
            first = uses[0];
        foreach ((BoundHook hook, int i, Type type, bool byRef) in uses)
        {
            if (Fits(first.Type, type, byRef))
                continue;
            string kind = Kind(hook.Kind);
            throw Refuse(HookBindingKind.StateType, hook.Method, target, i, Names.Of(first.Type), Names.Of(type),
                $"Parameter {i} ('__state') of the {kind} {Names.Of(hook.Method)} is " +
                $"{Names.Of(hook.Method.GetParameters()[i].ParameterType)}, but the {Kind(first.Hook.Kind)} " +
                $"{Names.Of(first.Hook.Method)} of the same hook set keeps a {Names.Of(first.Type)} there: a set has one " +
                $"__state local, which a hook takes by ref as that very type, or by value as a type it is assignable to " +
                $"(a base class, an interface, object). Expected: " +
                $"{Declaration(hook.Method, i, (hook.Kind == HookKind.Prefix ? "ref " : "") + Names.Of(first.Type))}.");
        }
        return first.Type;

        // Whether a hook taking `type` (by ref: its location) can be handed a local of type `local`.
        static bool Fits(Type local, Type type, bool byRef) =>
            local == type || (!byRef && type.IsAssignableFrom(local) && (!local.IsValueType || Boxable(local)));
    }

    /// <summary>The generic arguments a constructed target names for its definition's generic parameters (the
    /// declaring type's, then the method's): a hook set given <c>Bag&lt;int&gt;.Add</c> runs for that instantiation
    /// only, as Harmony binds a patch of one instantiation. Empty for a definition (or a partly open one).</summary>
    internal static IReadOnlyList<GenericBinding> InstantiationOf(MethodBase definition, MethodBase given)
    {
        var bindings = new List<GenericBinding>();
        if (definition.DeclaringType is { IsGenericTypeDefinition: true } open &&
            given.DeclaringType is { IsConstructedGenericType: true, ContainsGenericParameters: false } closed)
            bindings.AddRange(open.GetGenericArguments().Zip(closed.GetGenericArguments(), (p, a) => new GenericBinding(p, a)));
        if (definition is MethodInfo { IsGenericMethodDefinition: true } method &&
            given is MethodInfo { IsGenericMethod: true, IsGenericMethodDefinition: false, ContainsGenericParameters: false } instance)
            bindings.AddRange(method.GetGenericArguments().Zip(instance.GetGenericArguments(), (p, a) => new GenericBinding(p, a)));
        return bindings;
    }

    /// <summary>A hook bound for the instantiation the target was given as: its own typed parameters must name
    /// the same generic arguments (ParameterType otherwise), and it runs for that instantiation only.</summary>
    private static BoundHook Restrict(BoundHook hook, IReadOnlyList<GenericBinding> instantiation, MethodBase? given)
    {
        if (instantiation.Count == 0)
            return hook;
        foreach (GenericBinding own in hook.Instantiation)
        {
            if (instantiation.FirstOrDefault(b => b.Parameter == own.Parameter) is { Argument: { } argument } &&
                argument != own.Argument)
                throw Refuse(HookBindingKind.ParameterType, hook.Method, given, -1, Names.Of(argument),
                    Names.Of(own.Argument),
                    $"The {Kind(hook.Kind)} {Names.Of(hook.Method)} is typed for {own.Parameter.Name} = " +
                    $"{Names.Of(own.Argument)}, but the target was given as {Names.Of(given!)}, where " +
                    $"{own.Parameter.Name} is {Names.Of(argument)}: type its parameters for that instantiation, or as object.");
        }
        List<GenericBinding> merged = [.. instantiation,
            .. hook.Instantiation.Where(own => instantiation.All(b => b.Parameter != own.Parameter))];
        return hook with
        {
            Instantiation = [.. merged.OrderBy(b => b.Parameter.DeclaringMethod is null ? 0 : 1)
                .ThenBy(b => b.Parameter.GenericParameterPosition)],
        };
    }

    /// <summary>The first type inside `type` (itself, its element, its generic arguments) that the target's module
    /// cannot name, and why: the rule the plan's SymbolResolver applies to a type of another assembly.</summary>
    private static (Type Type, string Why)? Unreachable(MethodBase target, Type type)
    {
        if (type.HasElementType)
            return Unreachable(target, type.GetElementType()!);
        if (type.IsGenericParameter)
            return null;
        if (type.IsConstructedGenericType)
        {
            foreach (Type argument in type.GetGenericArguments())
            {
                if (Unreachable(target, argument) is { } inner)
                    return inner;
            }
            type = type.GetGenericTypeDefinition();
        }
        Type outer = type;
        while (outer.DeclaringType is { } enclosing)
            outer = enclosing;
        if (outer.Module == target.Module)
            return null;
        Plans.ModuleContext module = Plans.ModuleContext.For(target.Module);
        if (module.AssemblyRefReaching(outer) != 0)
            return null;
        return DirectCallRule.WhyNotBound(target.Module.Assembly, outer.Assembly) is { } why ? (type, why) : null;
    }

    /// <summary>Binds one hook to `target`.</summary>
    public static BoundHook Bind(MethodBase target, HookMethod hookMethod, HookKind kind)
    {
        ArgumentNullException.ThrowIfNull(hookMethod);
        MethodInfo hook = hookMethod.Method;
        CheckTarget(target, hook);
        string hookName = $"{Kind(kind)} {Names.Of(hook)}";
        if (hook is DynamicMethod)
            throw new NotSupportedException($"The {hookName} is a DynamicMethod; a hook must be a compiled method of a loaded assembly.");
        if (hook.Module.Assembly.IsCollectible)
            throw Refuse(HookBindingKind.CollectibleHook, hook, target, -1, null, null,
                $"The {hookName} lives in the collectible assembly {hook.Module.Assembly.GetName().Name}: the woven body " +
                "would keep calling its entry point after its AssemblyLoadContext unloaded. Declare hooks in an " +
                "assembly that is not collectible.");
        if (!hook.IsStatic)
            throw Refuse(HookBindingKind.NotStatic, hook, target, -1, "static", "instance",
                $"The {hookName} must be static: the woven body calls it without an instance (the target's receiver " +
                $"comes as __instance). Expected: {Declaration(hook, -1, null, forceStatic: true)}.");
        if (hook.ContainsGenericParameters)
            throw Refuse(HookBindingKind.GenericHook, hook, target, -1, null, null,
                $"The {hookName} is generic (or declared on an open generic type), so it has no single entry point " +
                "for the woven body to call. Declare it non-generic; for a generic target, take the values that " +
                "involve its generic parameters as object.");
        if ((hook.CallingConvention & CallingConventions.VarArgs) != 0)
            throw Refuse(HookBindingKind.Varargs, hook, target, -1, null, null,
                $"The {hookName} takes varargs (__arglist); a hook cannot.");

        Type returns = target is MethodInfo m ? m.ReturnType : typeof(void);
        HookReturn returnUse = ReturnOf(target, hook, kind, returns, hookName);
        ParameterInfo[] parameters = hook.GetParameters();
        var arguments = new List<HookArgument>(parameters.Length);
        var instantiation = new Dictionary<Type, Type>();
        for (int i = 0; i < parameters.Length; i++)
        {
            if (i == 0 && returnUse == HookReturn.PassThrough)
            {
                if (parameters[0].ParameterType != returns)
                    throw Refuse(HookBindingKind.ParameterType, hook, target, 0, Names.Of(returns),
                        Names.Of(parameters[0].ParameterType),
                        $"Parameter 0 ('{parameters[0].Name}') of the pass-through {hookName} is " +
                        $"{Names.Of(parameters[0].ParameterType)}; a postfix that returns {Names.Of(returns)} takes the " +
                        $"result so far as its first parameter, of that type. Expected: " +
                        $"{Declaration(hook, 0, Names.Of(returns))}.");
                arguments.Add(new HookArgument(HookSource.PassThrough, HookPassing.Value, -1, returns, returns));
                continue;
            }
            arguments.Add(BindParameter(target, hook, kind, hookName, parameters, i, instantiation));
        }
        bool suppliesReference = arguments.Any(a => a.Source == HookSource.ResultRef);
        if (returns.IsByRef && ((returnUse == HookReturn.RunOriginal && !suppliesReference) ||
                                (kind == HookKind.Finalizer && returnUse == HookReturn.Exception)))
            throw Refuse(HookBindingKind.NullReferenceReturn, hook, target, -1, "void", Names.Of(hook.ReturnType),
                $"The {hookName} returns {Names.Of(hook.ReturnType)}, but {Names.Of(target)} returns a reference " +
                $"({Names.Of(returns)}): {(kind == HookKind.Prefix ? "skipping the original" : "swallowing the exception")} " +
                $"would return no reference at all. Expected: {Declaration(hook, -1, null, returnType: "void")}.");
        return new BoundHook(hookMethod, kind, returnUse, arguments, Bindings(instantiation));
    }

    // The generic arguments a hook fixes, the type's parameters first, each by position (none: the common case,
    // which allocates and sorts nothing).
    private static List<GenericBinding> Bindings(Dictionary<Type, Type> instantiation)
    {
        var bindings = new List<GenericBinding>(instantiation.Count);
        if (instantiation.Count == 0)
            return bindings;
        foreach (KeyValuePair<Type, Type> pair in instantiation)
            bindings.Add(new GenericBinding(pair.Key, pair.Value));
        bindings.Sort(static (a, b) =>
        {
            int order = (a.Parameter.DeclaringMethod is null ? 0 : 1).CompareTo(b.Parameter.DeclaringMethod is null ? 0 : 1);
            return order != 0 ? order : a.Parameter.GenericParameterPosition.CompareTo(b.Parameter.GenericParameterPosition);
        });
        return bindings;
    }

    private static HookReturn ReturnOf(MethodBase target, MethodInfo hook, HookKind kind, Type returns, string hookName)
    {
        Type actual = hook.ReturnType;
        if (actual == typeof(void))
            return HookReturn.Void;
        switch (kind)
        {
            case HookKind.Prefix when actual == typeof(bool):
                return HookReturn.RunOriginal;
            case HookKind.Finalizer when actual == typeof(Exception):
                return HookReturn.Exception;
            case HookKind.Postfix when returns == typeof(void):
                throw Refuse(HookBindingKind.NoResult, hook, target, -1, "void", Names.Of(actual),
                    $"The {hookName} returns {Names.Of(actual)}, but {Names.Of(target)} returns void: there is no " +
                    $"result to pass through. Expected: {Declaration(hook, -1, null, returnType: "void")}.");
            case HookKind.Postfix when actual == returns:
                if (hook.GetParameters().Length == 0)
                    throw Refuse(HookBindingKind.ParameterType, hook, target, 0, Names.Of(returns), null,
                        $"The pass-through {hookName} returns {Names.Of(returns)} but takes no parameter: it receives " +
                        $"the result so far as its first parameter. Expected: static {Names.Of(returns)} " +
                        $"{hook.Name}({Names.Of(returns)} __result).");
                return HookReturn.PassThrough;
        }
        string allowed = kind switch
        {
            HookKind.Prefix => "void, or bool (false skips the original)",
            HookKind.Postfix => $"void, or {Names.Of(returns)} to pass the result through (taking it as the first parameter)",
            _ => "void (the exception is rethrown), or Exception (null swallows it, another is thrown)",
        };
        string fixedReturn = kind == HookKind.Postfix && returns != typeof(void) ? Names.Of(returns) : "void";
        throw Refuse(HookBindingKind.ReturnType, hook, target, -1, allowed, Names.Of(actual),
            $"The {hookName} returns {Names.Of(actual)}; a {Kind(kind)} returns {allowed}. Expected: " +
            $"{Declaration(hook, -1, null, returnType: fixedReturn)}.");
    }

    private static HookArgument BindParameter(MethodBase target, MethodInfo hook, HookKind kind, string hookName,
        ParameterInfo[] parameters, int i, Dictionary<Type, Type> instantiation)
    {
        ParameterInfo parameter = parameters[i];
        string name = BoundName(hook, parameter);
        Type type = parameter.ParameterType;
        Type returns = target is MethodInfo m ? m.ReturnType : typeof(void);

        switch (name)
        {
            case "__instance":
                return Instance();
            case "__result":
                if (returns == typeof(void))
                    throw Refuse(HookBindingKind.NoResult, hook, target, i, null, Names.Of(type),
                        $"Parameter {i} ('__result') of the {hookName} asks for the result, but {Names.Of(target)} " +
                        $"returns void. Expected: {Declaration(hook, i, null)}.");
                return Result();
            case "__state":
                return State();
            case "__resultRef":
                return ResultRef();
            case "__exception":
                if (kind != HookKind.Finalizer)
                    throw Refuse(HookBindingKind.ExceptionOutsideFinalizer, hook, target, i, null, Names.Of(type),
                        $"Parameter {i} ('__exception') of the {hookName}: only finalizers receive the exception " +
                        "(prefixes run before it, postfixes do not run after one). Make it a finalizer, or drop " +
                        $"the parameter: {Declaration(hook, i, null)}.");
                return Exact(typeof(Exception), HookSource.Exception, "Exception (null on success)");
            case "__runOriginal":
                return Exact(typeof(bool), HookSource.RunOriginal, "bool, by value (whether the original runs or ran)");
            case "__originalMethod":
                return OriginalMethod();
            case "__args":
                if (target.GetParameters().FirstOrDefault(p => !Boxable(Unref(p.ParameterType))) is { } unboxable)
                    throw Refuse(HookBindingKind.ParameterType, hook, target, i, null, Names.Of(type),
                        $"Parameter {i} ('__args') of the {hookName}: parameter '{unboxable.Name}' of {Names.Of(target)} is " +
                        $"{Names.Of(unboxable.ParameterType)}, which cannot be boxed into an object[]. Take the arguments " +
                        $"by name instead: {Declaration(hook, i, null)}.");
                return Exact(typeof(object[]), HookSource.Args, "object[] (boxed copies, written back after the hook)");
        }
        if (name.StartsWith(FieldPrefix, StringComparison.Ordinal) && name.Length > FieldPrefix.Length)
            return Field(name[FieldPrefix.Length..]);
        ParameterInfo[] targetParameters = target.GetParameters();
        int index = -1;
        if (name.StartsWith("__", StringComparison.Ordinal) &&
            int.TryParse(name.AsSpan(2), NumberStyles.None, CultureInfo.InvariantCulture, out int n))
        {
            if (n >= targetParameters.Length)
                throw Refuse(HookBindingKind.UnknownParameter, hook, target, i, $"__0..__{targetParameters.Length - 1}", name,
                    $"Parameter {i} ('{name}') of the {hookName} names argument {n}, but {Names.Of(target)} has " +
                    $"{Count(targetParameters.Length)}. Expected: {Declaration(hook, i, null)}.");
            index = n;
        }
        else
        {
            index = Array.FindIndex(targetParameters, p => p.Name == name);
        }
        if (index < 0)
        {
            string targetNames = targetParameters.Length == 0
                ? "it has no parameters"
                : $"its parameters are {string.Join(", ", targetParameters.Select(p => $"'{p.Name}'"))}";
            throw Refuse(HookBindingKind.UnknownParameter, hook, target, i, null, name,
                $"Parameter {i} ('{name}') of the {hookName} matches nothing: it is not an injected name " +
                $"({string.Join(", ", InjectedNames)}) and {Names.Of(target)} has no parameter of that name ({targetNames}). " +
                $"Rename it, or drop it: {Declaration(hook, i, null)}.");
        }
        return Argument(index, targetParameters[index]);

        // ___name: a field of the target's declaring type or a base (___0: its first declared field).
        HookArgument Field(string fieldName)
        {
            Type declaring = target.DeclaringType!;
            FieldInfo? field = FindField(declaring, fieldName);
            if (field is null)
                throw Refuse(HookBindingKind.UnknownField, hook, target, i, null, name,
                    $"Parameter {i} ('{name}') of the {hookName} asks for the field '{fieldName}', but {Names.Of(declaring)} " +
                    $"{(fieldName.All(char.IsAsciiDigit) ? "declares fewer fields" : "and its base classes have no field of that name")} " +
                    $"({FieldList(declaring)}). Name one of them after three underscores, or drop it: {Declaration(hook, i, null)}.");
            if (field.IsLiteral)
                throw Refuse(HookBindingKind.UnknownField, hook, target, i, null, name,
                    $"Parameter {i} ('{name}') of the {hookName} asks for {Names.Of(field)}, a constant, which has no " +
                    $"storage to read or change. Use its value directly: {Declaration(hook, i, null)}.");
            if (!Accessible(field, declaring))
                throw Refuse(HookBindingKind.InaccessibleField, hook, target, i, null, name,
                    $"Parameter {i} ('{name}') of the {hookName} asks for {Names.Of(field)}, which is private to " +
                    $"{Names.Of(field.DeclaringType!)} (or internal to another assembly): the woven body is " +
                    $"{Names.Of(target)}'s own, and the runtime lets it name only fields {Names.Of(declaring)} can see. " +
                    $"Read it another way (a property, reflection), or drop it: {Declaration(hook, i, null)}.");
            if (!field.IsStatic && target.IsStatic)
                throw Refuse(HookBindingKind.InstanceFieldOnStaticTarget, hook, target, i, null, name,
                    $"Parameter {i} ('{name}') of the {hookName} asks for the instance field {Names.Of(field)}, but " +
                    $"{Names.Of(target)} is static: there is no instance to read it from. Static fields of " +
                    $"{Names.Of(declaring)}: {FieldList(declaring, staticOnly: true)}. Expected: {Declaration(hook, i, null)}.");
            Type fieldType = field.FieldType;
            string what = $"the field {Names.Of(field)}";
            if (fieldType.ContainsGenericParameters)
            {
                if (type == typeof(object))
                    return new HookArgument(HookSource.Field, HookPassing.Box, -1, fieldType, type, field);
                throw Mismatch("object (boxed: its type involves the target's generic parameters, and one woven body " +
                               "serves every instantiation)", "object", what);
            }
            if (type == fieldType)
                return new HookArgument(HookSource.Field, HookPassing.Value, -1, fieldType, type, field);
            if (type == fieldType.MakeByRefType())
                return new HookArgument(HookSource.Field, HookPassing.Address, -1, fieldType, type, field);
            if (type == typeof(object) && Boxable(fieldType))
                return new HookArgument(HookSource.Field, fieldType.IsValueType ? HookPassing.Box : HookPassing.Value, -1,
                    fieldType, type, field);
            throw Mismatch(Boxable(fieldType)
                ? $"{Names.Of(fieldType)} (a copy), ref {Names.Of(fieldType)} (to change it) or object (boxed)"
                : $"{Names.Of(fieldType)} or ref {Names.Of(fieldType)}", Names.Of(fieldType), what);
        }

        HookArgument Instance()
        {
            if (target.IsStatic)
                throw Refuse(HookBindingKind.NoInstance, hook, target, i, null, Names.Of(type),
                    $"Parameter {i} ('__instance') of the {hookName} asks for the receiver, but {Names.Of(target)} is " +
                    $"static. Expected: {Declaration(hook, i, null)}.");
            Type declaring = target.DeclaringType!;
            bool generic = declaring.ContainsGenericParameters;
            if (generic && !type.IsByRef && type != typeof(object) && Instantiates(declaring, type))
                return new HookArgument(HookSource.Instance, HookPassing.Convert, 0, declaring, type);
            if (!declaring.IsValueType)
            {
                if (generic ? type == typeof(object) : !type.IsByRef && !type.IsPointer && type.IsAssignableFrom(declaring))
                    return new HookArgument(HookSource.Instance, HookPassing.Value, 0, declaring, type);
                string expected = generic ? "object" : $"{Names.Of(declaring)} (or a base class, an interface it implements, object)";
                throw Mismatch(expected, generic ? "object" : Names.Of(declaring),
                    $"the receiver of {Names.Of(target)}{(generic ? ", whose type involves the target's generic parameters, so it comes boxed as object" : "")}");
            }
            if (!generic && type == declaring.MakeByRefType())
                return new HookArgument(HookSource.Instance, HookPassing.Value, 0, declaring, type);
            if (type == RefObject && Boxable(declaring))
                return new HookArgument(HookSource.Instance, HookPassing.BoxedTemporary, 0, declaring, type);
            if (!generic && type == declaring)
                return new HookArgument(HookSource.Instance, HookPassing.Load, 0, declaring, type);
            if (Boxable(declaring) &&
                (type == typeof(object) || (!generic && !type.IsByRef && type.IsInterface && type.IsAssignableFrom(declaring))))
                return new HookArgument(HookSource.Instance, HookPassing.LoadBox, 0, declaring, type);
            string what = generic
                ? "object (the struct boxed: its type involves the target's generic parameters)"
                : $"ref {Names.Of(declaring)} (by value: a copy; object: boxed)";
            throw Mismatch(what, generic ? "object" : $"ref {Names.Of(declaring)}", $"the receiver of {Names.Of(target)}, a struct");
        }

        HookArgument Result()
        {
            if (returns.IsByRef && kind != HookKind.Postfix)
                throw Refuse(HookBindingKind.RefResultNotReturned, hook, target, i, null, Names.Of(type),
                    $"Parameter {i} ('__result') of the {hookName}: {Names.Of(target)} returns a reference " +
                    $"({Names.Of(returns)}), which exists only once the original returned: " +
                    $"{(kind == HookKind.Prefix ? "a prefix runs before it" : "a finalizer also runs after it threw")}. " +
                    $"Take __result in a postfix, or drop it: {Declaration(hook, i, null)}.");
            if (returns.IsByRef)
            {
                Type element = returns.GetElementType()!;
                if (type == returns)
                    return new HookArgument(HookSource.Result, HookPassing.Value, -1, element, type);
                if (!element.ContainsGenericParameters && type == element)
                    return new HookArgument(HookSource.Result, HookPassing.Load, -1, element, type);
                if (type == typeof(object) && Boxable(element))
                    return new HookArgument(HookSource.Result, HookPassing.LoadBox, -1, element, type);
                throw Mismatch($"{Names.Of(returns)} (the returned reference), {Names.Of(element)} or object",
                    Names.Of(returns), $"the result of {Names.Of(target)}, a reference");
            }
            return ValueSlot(HookSource.Result, -1, returns, $"the result of {Names.Of(target)}");
        }

        // A delegate the hook may set to supply the returned reference (a prefix, or a postfix replacing it).
        HookArgument ResultRef()
        {
            if (!returns.IsByRef || kind == HookKind.Finalizer)
                throw Refuse(HookBindingKind.ResultRef, hook, target, i, null, Names.Of(type),
                    $"Parameter {i} ('__resultRef') of the {hookName} supplies the reference a ref-returning target " +
                    $"returns, but {(returns.IsByRef ? "a finalizer runs after the result is final" : $"{Names.Of(target)} returns {Names.Of(returns)}, not a reference")}. " +
                    $"{(returns.IsByRef ? "Take it in a prefix or a postfix" : "Take __result instead")}: {Declaration(hook, i, null)}.");
            Type element = returns.GetElementType()!;
            string expected = $"ref RefResult<{Names.Of(element)}>";
            if (!element.ContainsGenericParameters && !element.IsByRefLike)
            {
                Type supplier = typeof(RefResult<>).MakeGenericType(element);
                if (type == supplier.MakeByRefType())
                    return new HookArgument(HookSource.ResultRef, HookPassing.Address, -1, supplier, type);
            }
            throw Mismatch(element.ContainsGenericParameters
                ? $"{expected} over one instantiation, which a non-generic hook cannot name (take __result in a postfix)"
                : expected, expected, $"the supplier of the reference {Names.Of(target)} returns");
        }

        HookArgument State()
        {
            if (kind == HookKind.Prefix && !type.IsByRef)
                throw Refuse(HookBindingKind.StateType, hook, target, i, $"out {Names.Of(type)} or ref {Names.Of(type)}",
                    Names.Of(type),
                    $"Parameter {i} ('__state') of the {hookName} is {Names.Of(type)} by value: a prefix sets the " +
                    $"state for the postfixes and finalizers, so it takes it as out or ref. Expected: " +
                    $"{Declaration(hook, i, "out " + Names.Of(type))}.");
            Type element = type.IsByRef ? type.GetElementType()! : type;
            return new HookArgument(HookSource.State, type.IsByRef ? HookPassing.Address : HookPassing.Value, -1, element,
                type);
        }

        HookArgument OriginalMethod()
        {
            Type exact = target is ConstructorInfo ? typeof(ConstructorInfo) : typeof(MethodInfo);
            if (!type.IsByRef && type.IsAssignableFrom(exact))
                return new HookArgument(HookSource.OriginalMethod, HookPassing.Value, -1, typeof(MethodBase), type);
            throw Mismatch($"MethodBase (or {Names.Of(exact)})", "MethodBase", "the target's MethodBase");
        }

        HookArgument Exact(Type expected, HookSource source, string what)
        {
            if (type == expected)
                return new HookArgument(source, HookPassing.Value, -1, expected, type);
            throw Mismatch(what, Names.Of(expected), name);
        }

        HookArgument Argument(int index, ParameterInfo targetParameter)
        {
            int slot = target.IsStatic ? index : index + 1;
            Type p = targetParameter.ParameterType;
            string what = $"parameter '{targetParameter.Name}' of {Names.Of(target)}";
            if (p.IsByRef)
            {
                Type element = p.GetElementType()!;
                if (type == p)
                    return new HookArgument(HookSource.Argument, HookPassing.Value, slot, element, type);
                if (!element.ContainsGenericParameters && type == element)
                    return new HookArgument(HookSource.Argument, HookPassing.Load, slot, element, type);
                if (type == typeof(object) && Boxable(element))
                    return new HookArgument(HookSource.Argument, HookPassing.LoadBox, slot, element, type);
                if (type == RefObject && Boxable(element))
                    return new HookArgument(HookSource.Argument, HookPassing.BoxedTemporary, slot, element, type);
                if (element.ContainsGenericParameters && Boxable(element) && Instantiates(element, Unref(type)))
                    return new HookArgument(HookSource.Argument,
                        type.IsByRef ? HookPassing.ConvertedTemporary : HookPassing.Convert, slot, element, type);
                throw Mismatch(element.ContainsGenericParameters
                        ? $"{Names.Of(p)} or object (boxed: its type involves the target's generic parameters)"
                        : $"{Names.Of(p)} (its location), {Names.Of(element)} (read through it) or object",
                    element.ContainsGenericParameters ? "object" : Names.Of(p), what);
            }
            return ValueSlot(HookSource.Argument, slot, p, what);
        }

        // A value slot (an argument by value, or the result local): T, ref T or object.
        HookArgument ValueSlot(HookSource source, int slot, Type p, string what)
        {
            if (type == RefObject && p != typeof(object) && Boxable(p))
                return new HookArgument(source, HookPassing.BoxedTemporary, slot, p, type);
            if (p.ContainsGenericParameters)
            {
                if (type == typeof(object))
                    return new HookArgument(source, HookPassing.Box, slot, p, type);
                if (Boxable(p) && Instantiates(p, Unref(type)))
                    return new HookArgument(source, type.IsByRef ? HookPassing.ConvertedTemporary : HookPassing.Convert, slot,
                        p, type);
                throw Mismatch("object (boxed: its type involves the target's generic parameters), or one instantiation " +
                               $"of {Names.Of(p)} that agrees with the hook's other parameters (the hook then runs for " +
                               "that instantiation only)", "object", what);
            }
            if (type == p)
                return new HookArgument(source, HookPassing.Value, slot, p, type);
            if (type == p.MakeByRefType())
                return new HookArgument(source, HookPassing.Address, slot, p, type);
            if (type == typeof(object) && Boxable(p))
                return new HookArgument(source, p.IsValueType ? HookPassing.Box : HookPassing.Value, slot, p, type);
            throw Mismatch(Boxable(p)
                ? $"{Names.Of(p)}, ref {Names.Of(p)} (to change it) or object (boxed)"
                : $"{Names.Of(p)} or ref {Names.Of(p)} (a {Names.Of(p)} cannot be boxed)", Names.Of(p), what);
        }

        // Whether the hook's type is an instantiation of the open slot type consistent with what the hook's other
        // parameters already bound (T: int): then the hook runs for that instantiation only.
        bool Instantiates(Type open, Type closed)
        {
            if (closed.ContainsGenericParameters)
                return false;
            var trial = new Dictionary<Type, Type>(instantiation);
            if (!Unify(open, closed, trial))
                return false;
            foreach (KeyValuePair<Type, Type> pair in trial)
                instantiation[pair.Key] = pair.Value;
            return true;
        }

        HookBindingException Mismatch(string expected, string fix, string what) =>
            Refuse(HookBindingKind.ParameterType, hook, target, i, fix, Names.Of(type),
                $"Parameter {i} ('{name}') of the {hookName} is {Names.Of(type)}; expected {expected} ({what}). " +
                $"Expected: {Declaration(hook, i, fix)}.");
    }

    private const string FieldPrefix = "___";

    private static readonly Type RefObject = typeof(object).MakeByRefType();

    private const BindingFlags DeclaredMembers =
        BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;

    /// <summary>The name a hook parameter binds as: its own <see cref="IHookArgumentName"/> attribute's, else the one
    /// of its hook method (then of the method's class) that renames it (NewName), else its own name. A position
    /// binds as <c>__n</c>.</summary>
    /// <remarks>Only the renaming attributes are created (the runtime passes over the others by their
    /// constructor's type): a patch class names each of its targets with an attribute, and creating all of them for
    /// each parameter of each hook on each target made binding grow with the square of the targets.</remarks>
    internal static string BoundName(MethodInfo hook, ParameterInfo parameter)
    {
        string own = parameter.Name ?? "";
        IHookArgumentName? rename =
            parameter.GetCustomAttributes(typeof(IHookArgumentName), false).OfType<IHookArgumentName>().FirstOrDefault() ??
            Renaming(hook.GetCustomAttributes(typeof(IHookArgumentName), false)) ??
            Renaming(hook.DeclaringType?.GetCustomAttributes(typeof(IHookArgumentName), false) ?? []);
        if (rename is null)
            return own;
        if (!string.IsNullOrEmpty(rename.OriginalName))
            return rename.OriginalName;
        return rename.Index >= 0 ? "__" + rename.Index.ToString(CultureInfo.InvariantCulture) : own;

        IHookArgumentName? Renaming(object[] attributes) =>
            attributes.OfType<IHookArgumentName>().FirstOrDefault(a => a.NewName is not null && a.NewName == own);
    }

    /// <summary>The field `name` of `type` or of a base class (the nearest); digits: the field `type` declares at that
    /// position (declaration order), as Harmony's ___0.</summary>
    private static FieldInfo? FindField(Type type, string name)
    {
        if (name.All(char.IsAsciiDigit))
        {
            FieldInfo[] declared = type.GetFields(DeclaredMembers);
            return int.TryParse(name, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n < declared.Length
                ? declared.OrderBy(f => f.MetadataToken).ElementAt(n)
                : null;
        }
        for (Type? t = type; t is not null; t = t.BaseType)
        {
            if (t.GetField(name, DeclaredMembers) is { } field)
                return field;
        }
        return null;
    }

    /// <summary>Whether code of `from` may name `field` (a field of `from` or of a base class): the rule the JIT
    /// applies to the woven body, which is `from`'s own code (not a DynamicMethod that skips visibility).</summary>
    private static bool Accessible(FieldInfo field, Type from)
    {
        bool sameAssembly = field.Module.Assembly == from.Assembly;
        if (field.IsPublic || field.IsFamily || field.IsFamilyOrAssembly)
            return true;
        if (field.IsAssembly || field.IsFamilyAndAssembly)
            return sameAssembly;
        Type owner = Definition(field.DeclaringType!);
        for (Type? t = from; t is not null; t = t.DeclaringType)
        {
            if (Definition(t) == owner)
                return true;
        }
        return false;

        static Type Definition(Type t) => t.IsGenericType ? t.GetGenericTypeDefinition() : t;
    }

    /// <summary>Matches an open type (over the target's generic parameters) with a closed one, recording each
    /// parameter's argument in `map`; false when they differ in shape or a parameter would get two arguments.</summary>
    private static bool Unify(Type open, Type closed, Dictionary<Type, Type> map)
    {
        if (open.IsGenericParameter)
        {
            if (map.TryGetValue(open, out Type? bound))
                return bound == closed;
            if (closed.IsByRefLike || closed.IsPointer || closed.IsFunctionPointer)
                return false;
            map[open] = closed;
            return true;
        }
        if (!open.ContainsGenericParameters)
            return open == closed;
        if (open.HasElementType)
        {
            bool sameShape = (open.IsSZArray && closed.IsSZArray) ||
                             (open.IsArray && closed.IsArray && !open.IsSZArray && !closed.IsSZArray &&
                              open.GetArrayRank() == closed.GetArrayRank()) ||
                             (open.IsByRef && closed.IsByRef) || (open.IsPointer && closed.IsPointer);
            return sameShape && Unify(open.GetElementType()!, closed.GetElementType()!, map);
        }
        if (open.IsGenericType && closed.IsConstructedGenericType &&
            open.GetGenericTypeDefinition() == closed.GetGenericTypeDefinition())
        {
            Type[] a = open.GetGenericArguments(), b = closed.GetGenericArguments();
            for (int k = 0; k < a.Length; k++)
            {
                if (!Unify(a[k], b[k], map))
                    return false;
            }
            return true;
        }
        return false;
    }

    /// <summary>"'hp', 'name' (static)" of `type` and its base classes, for a refusal's message.</summary>
    private static string FieldList(Type type, bool staticOnly = false)
    {
        var names = new List<string>();
        for (Type? t = type; t is not null && t != typeof(object) && t != typeof(ValueType); t = t.BaseType)
        {
            names.AddRange(t.GetFields(DeclaredMembers)
                .Where(f => !f.IsLiteral && (!staticOnly || f.IsStatic))
                .OrderBy(f => f.MetadataToken)
                .Select(f => $"'{f.Name}'{(f.IsStatic && !staticOnly ? " (static)" : "")}{(t == type ? "" : $" (of {Names.Of(t)})")}"));
        }
        return names.Count == 0 ? "it has none" : string.Join(", ", names);
    }

    /// <summary>"static bool Prefix(Enemy __instance, ref int hp)": the hook's declaration with parameter
    /// `index` given `type` (null: dropped), and optionally another return type.</summary>
    internal static string Declaration(MethodInfo hook, int index, string? type, string? returnType = null,
        bool forceStatic = true)
    {
        var parts = new List<string>();
        ParameterInfo[] parameters = hook.GetParameters();
        for (int k = 0; k < parameters.Length; k++)
        {
            if (k == index)
            {
                if (type is not null)
                    parts.Add($"{type} {parameters[k].Name}");
                continue;
            }
            parts.Add($"{TypeOf(parameters[k])} {parameters[k].Name}");
        }
        return $"{(forceStatic ? "static " : "")}{returnType ?? Names.Of(hook.ReturnType)} {hook.Name}({string.Join(", ", parts)})";
    }

    /// <summary>Whether a value of `type` can be boxed (not a ref struct, a pointer or a function pointer).</summary>
    private static bool Boxable(Type type) => !type.IsByRefLike && !type.IsPointer && !type.IsFunctionPointer;

    private static Type Unref(Type type) => type.IsByRef ? type.GetElementType()! : type;

    private static string TypeOf(ParameterInfo p)
    {
        if (!p.ParameterType.IsByRef)
            return Names.Of(p.ParameterType);
        string element = Names.Of(p.ParameterType.GetElementType());
        return p.IsOut ? "out " + element : p.IsIn ? "in " + element : "ref " + element;
    }

    internal static string Kind(HookKind kind) => kind switch
    {
        HookKind.Prefix => "prefix",
        HookKind.Postfix => "postfix",
        HookKind.Transpiler => "transpiler",
        HookKind.InnerPrefix => "inner prefix",
        HookKind.InnerPostfix => "inner postfix",
        _ => "finalizer",
    };

    private static string Count(int n) => n == 1 ? "1 parameter" : $"{n} parameters";

    internal static HookBindingException Refuse(HookBindingKind kind, MethodInfo? hook, MethodBase? target, int index,
        string? expected, string? actual, string message) => new(kind, hook, target, index, expected, actual, message);
}

/// <summary>One hook set bound: its hooks per kind, and the type of its __state local (null: none).</summary>
internal sealed record BoundSet(IReadOnlyList<BoundHook> Prefixes, IReadOnlyList<BoundHook> Postfixes,
    IReadOnlyList<BoundHook> Finalizers, Type? StateType);
