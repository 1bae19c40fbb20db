using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>One hook set a patch class declares for one target.</summary>
internal sealed record DiscoveredSet(MethodBase Target, IReadOnlyList<HookMethod> Prefixes,
    IReadOnlyList<HookMethod> Postfixes, IReadOnlyList<HookMethod> Finalizers, Type PatchClass)
{
    /// <summary>The set's transpilers (methods marked <see cref="PatchTranspilerAttribute"/> or named Transpiler).</summary>
    public IReadOnlyList<HookMethod> Transpilers { get; init; } = [];

    /// <summary>The set's inner prefixes (methods marked <see cref="PatchInnerPrefixAttribute"/>).</summary>
    public IReadOnlyList<HookMethod> InnerPrefixes { get; init; } = [];

    /// <summary>The set's inner postfixes (methods marked <see cref="PatchInnerPostfixAttribute"/>).</summary>
    public IReadOnlyList<HookMethod> InnerPostfixes { get; init; } = [];
}

/// <summary>
/// Finds the hook sets of patch classes (<see cref="Interceptor.PatchAll(Type, PatchOwner?)"/>): the hooks
/// of a class are its methods marked <see cref="PatchPrefixAttribute"/>, <see cref="PatchPostfixAttribute"/>
/// or <see cref="PatchFinalizerAttribute"/>, or named Prefix, Postfix or Finalizer (declared by the class
/// itself, public or not; an instance method is refused by the binder as not static). A hook with its own
/// <see cref="PatchAttribute"/>s patches those targets alone; the others patch every target the class's
/// <see cref="PatchAttribute"/>s name. One set per (class, target), its hooks in declaration order.
/// Priority, Before and After come from the method's attributes, else the class's.
/// </summary>
internal static class PatchDiscovery
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    /// <summary>The patch classes of an assembly: types with a class-level [Patch], or with a method that has one.</summary>
    public static IReadOnlyList<Type> PatchClasses(Assembly assembly)
    {
        Type[] types;
        try
        {
            types = assembly.GetTypes();
        }
        catch (ReflectionTypeLoadException e)
        {
            types = [.. e.Types.OfType<Type>()];
        }
        return [.. types.Where(t => t.IsClass &&
            (t.IsDefined(typeof(PatchAttribute), false) ||
             t.GetMethods(Declared).Any(m => m.IsDefined(typeof(PatchAttribute), false))))
            .OrderBy(t => t.MetadataToken)];
    }

    /// <summary>The hook sets of one patch class; HookBindingException when it has none, or names a target
    /// that does not exist.</summary>
    public static IReadOnlyList<DiscoveredSet> Discover(Type patchClass)
    {
        ArgumentNullException.ThrowIfNull(patchClass);
        List<MethodBase> classTargets = [.. patchClass.GetCustomAttributes<PatchAttribute>(false)
            .Select(a => Resolve(a, patchClass, null))];
        var sets = new List<(MethodBase Target, List<HookMethod>[] Hooks)>();
        bool any = false;
        foreach (MethodInfo method in patchClass.GetMethods(Declared).OrderBy(m => m.MetadataToken))
        {
            if (KindOf(method) is not { } kind)
                continue;
            any = true;
            HookMethod hook = WithOrder(method, patchClass);
            List<MethodBase> targets = [.. method.GetCustomAttributes<PatchAttribute>(false)
                .Select(a => Resolve(a, patchClass, method))];
            if (targets.Count == 0)
                targets = classTargets;
            if (targets.Count == 0)
                throw HookBinder.Refuse(HookBindingKind.NoHooks, method, null, -1, null, null,
                    $"The {HookBinder.Kind(kind)} {Names.Of(method)} of the patch class {Names.Of(patchClass)} has no " +
                    "target: put [Patch(typeof(TheType), \"TheMethod\")] on the class or on the method.");
            foreach (MethodBase target in targets)
            {
                int at = sets.FindIndex(s => Patch.SameMethod(s.Target, target));
                if (at < 0)
                {
                    sets.Add((target, [[], [], [], [], [], []]));
                    at = sets.Count - 1;
                }
                sets[at].Hooks[(int)kind].Add(hook);
            }
        }
        if (!any)
            throw HookBinder.Refuse(HookBindingKind.NoHooks, null, classTargets.FirstOrDefault(), -1, null, null,
                $"The patch class {Names.Of(patchClass)} has no hooks: declare static methods named Prefix, Postfix, " +
                "Finalizer or Transpiler, or mark them [PatchPrefix], [PatchPostfix], [PatchFinalizer], [PatchTranspiler], " +
                "[PatchInnerPrefix] or [PatchInnerPostfix].");
        if (sets.Count == 0)
            throw HookBinder.Refuse(HookBindingKind.NoHooks, null, null, -1, null, null,
                $"The patch class {Names.Of(patchClass)} names no target: put [Patch(typeof(TheType), \"TheMethod\")] " +
                "on the class or on its hooks.");
        return [.. sets.Select(s => new DiscoveredSet(s.Target, s.Hooks[0], s.Hooks[1], s.Hooks[2], patchClass)
        {
            Transpilers = s.Hooks[3],
            InnerPrefixes = s.Hooks[4],
            InnerPostfixes = s.Hooks[5],
        })];
    }

    /// <summary>The kind a method of a patch class has: its attribute, else its name; null: not a hook.</summary>
    public static HookKind? KindOf(MethodInfo method) =>
        method.IsDefined(typeof(PatchPrefixAttribute), false) ? HookKind.Prefix
        : method.IsDefined(typeof(PatchPostfixAttribute), false) ? HookKind.Postfix
        : method.IsDefined(typeof(PatchFinalizerAttribute), false) ? HookKind.Finalizer
        : method.IsDefined(typeof(PatchTranspilerAttribute), false) ? HookKind.Transpiler
        : method.IsDefined(typeof(PatchInnerPrefixAttribute), false) ? HookKind.InnerPrefix
        : method.IsDefined(typeof(PatchInnerPostfixAttribute), false) ? HookKind.InnerPostfix
        : method.Name switch
        {
            "Prefix" => HookKind.Prefix,
            "Postfix" => HookKind.Postfix,
            "Finalizer" => HookKind.Finalizer,
            "Transpiler" => HookKind.Transpiler,
            _ => null,
        };

    private static HookMethod WithOrder(MethodInfo method, Type patchClass) => new(method)
    {
        Priority = (method.GetCustomAttribute<PatchPriorityAttribute>(false) ??
                    patchClass.GetCustomAttribute<PatchPriorityAttribute>(false))?.Priority ?? HookPriority.Normal,
        Before = (method.GetCustomAttribute<PatchBeforeAttribute>(false) ??
                  patchClass.GetCustomAttribute<PatchBeforeAttribute>(false))?.Owners ?? [],
        After = (method.GetCustomAttribute<PatchAfterAttribute>(false) ??
                 patchClass.GetCustomAttribute<PatchAfterAttribute>(false))?.Owners ?? [],
    };

    /// <summary>The member a [Patch] names, as the target hooks are woven into: for a member of a constructed
    /// generic type or a generic method instantiation, its definition (one woven body serves every
    /// instantiation).</summary>
    public static MethodBase Resolve(PatchAttribute patch, Type patchClass, MethodInfo? hook)
    {
        ArgumentNullException.ThrowIfNull(patch);
        Type? declaring = patch.DeclaringType;
        string where = $"[Patch] on {(hook is null ? Names.Of(patchClass) : Names.Of(hook))}";
        if (declaring is null)
            throw HookBinder.Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{where} names no type.");
        var candidates = new List<MethodBase>();
        string what;
        switch (patch.Kind)
        {
            case PatchMethodKind.Constructor:
                what = $"constructor of {Names.Of(declaring)}";
                candidates.AddRange(declaring.GetConstructors(BindingFlags.Public | BindingFlags.NonPublic |
                                                              BindingFlags.Instance | BindingFlags.DeclaredOnly));
                break;
            case PatchMethodKind.Getter or PatchMethodKind.Setter:
                bool getter = patch.Kind == PatchMethodKind.Getter;
                what = $"{(getter ? "getter" : "setter")} of the property {Names.Of(declaring)}.{patch.MethodName}";
                candidates.AddRange(declaring.GetProperties(Declared)
                    .Where(p => p.Name == patch.MethodName)
                    .Select(p => getter ? p.GetGetMethod(true) : p.GetSetMethod(true))
                    .OfType<MethodInfo>());
                break;
            default:
                what = $"method {Names.Of(declaring)}.{patch.MethodName}";
                candidates.AddRange(declaring.GetMethods(Declared).Where(m => m.Name == patch.MethodName));
                break;
        }
        List<MethodBase> matches = patch.ArgumentTypes is { } types
            ? [.. candidates.Where(c => c.GetParameters().Select(p => p.ParameterType).SequenceEqual(types))]
            : candidates;
        string overloads = candidates.Count == 0 ? "" : $" It has: {string.Join("; ", candidates.Select(Names.Of))}.";
        if (matches.Count == 0)
            throw HookBinder.Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{where} names the {what}{(patch.ArgumentTypes is { } a ? $"({string.Join(", ", a.Select(Names.Of))})" : "")}, " +
                $"which {Names.Of(declaring)} does not declare.{overloads}");
        if (matches.Count > 1)
            throw HookBinder.Refuse(HookBindingKind.TargetAmbiguous, hook, null, -1, null, null,
                $"{where} names the {what}, which has {matches.Count} overloads; give the argument types " +
                $"([Patch(typeof({Names.Of(declaring)}), \"{patch.MethodName}\", typeof(...))]).{overloads}");
        return Definition(matches[0]);
    }

    /// <summary>The definition of a method of a constructed generic type or of a generic method instantiation.</summary>
    public static MethodBase Definition(MethodBase target) => Plans.TargetDefinition.Of(target);
}
