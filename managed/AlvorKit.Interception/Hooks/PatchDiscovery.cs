using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>One hook set a patch class declares for one target.</summary>
internal sealed record DiscoveredSet(MethodBase Target, IReadOnlyList<HookMethod> Prefixes,
    IReadOnlyList<HookMethod> Postfixes, IReadOnlyList<HookMethod> Finalizers, Type PatchClass)
{
    /// <summary>The instantiation the target was named as (<c>Bag&lt;int&gt;.Add</c>), whose hooks run for it only;
    /// null when it was named as its definition (or is not generic). <see cref="Target"/> is the definition.</summary>
    public MethodBase? Given { get; init; }

    /// <summary>The set's transpilers (methods marked <see cref="PatchTranspilerAttribute"/> or named Transpiler).</summary>
    public IReadOnlyList<HookMethod> Transpilers { get; init; } = [];

    /// <summary>The set's inner prefixes (methods marked <see cref="PatchInnerPrefixAttribute"/>).</summary>
    public IReadOnlyList<HookMethod> InnerPrefixes { get; init; } = [];

    /// <summary>The set's inner postfixes (methods marked <see cref="PatchInnerPostfixAttribute"/>).</summary>
    public IReadOnlyList<HookMethod> InnerPostfixes { get; init; } = [];
}

/// <summary>
/// Finds the hook sets of patch classes (<see cref="Interceptor.PatchAll(Type, PatchOwner?)"/>), whichever
/// convention reads them (<see cref="CorePatchConvention"/>, or the Harmony-shaped attributes): the hooks of a
/// class are its methods marked <see cref="PatchPrefixAttribute"/>, <see cref="PatchPostfixAttribute"/> or
/// <see cref="PatchFinalizerAttribute"/>, or named Prefix, Postfix or Finalizer (declared by the class itself,
/// public or not; an instance method is refused by the binder as not static). Their targets, in Harmony's order
/// of precedence: whole-type patching (every member the type declares), else what TargetMethods or TargetMethod
/// returns (every hook patches each), else what the attributes name (a hook's own, else the class's). One set per
/// (class, target), its hooks in declaration order. Priority, Before and After come from the method's
/// attributes, else the class's.
/// </summary>
internal static class PatchDiscovery
{
    /// <summary>The patch classes of an assembly under the core convention: types with a class-level [Patch],
    /// or with a method that has one (see <see cref="CorePatchConvention.IsPatchClass"/>).</summary>
    public static IReadOnlyList<Type> PatchClasses(Assembly assembly) => PatchClasses(assembly, CorePatchConvention.Instance);

    /// <summary>The patch classes of an assembly under <paramref name="convention"/>, in metadata order.</summary>
    public static IReadOnlyList<Type> PatchClasses(Assembly assembly, IPatchConvention convention)
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
        return [.. types.Where(convention.IsPatchClass).OrderBy(t => t.MetadataToken)];
    }

    /// <summary>The hook sets of one core patch class (its TargetMethod(s) called, not its Prepare or Cleanup);
    /// HookBindingException when it has none, or names a target that does not exist.</summary>
    public static IReadOnlyList<DiscoveredSet> Discover(Type patchClass)
    {
        ArgumentNullException.ThrowIfNull(patchClass);
        PatchClassModel model = CorePatchConvention.Instance.Read(patchClass);
        return Sets(model, PatchLifecycle.Targets(model, []));
    }

    /// <summary>The hook sets of a patch class, given what its TargetMethod(s) returned (null: it has neither).</summary>
    public static IReadOnlyList<DiscoveredSet> Sets(PatchClassModel model, IReadOnlyList<MethodBase>? returned)
    {
        ArgumentNullException.ThrowIfNull(model);
        Type patchClass = model.Type;
        if (model.WholeTypeWithoutType)
            throw new PatchClassException(patchClass, null, null,
                $"The patch class {Names.Of(patchClass)} asks for whole-type patching but names no type; expected " +
                "[Patch(typeof(TheType))] beside [PatchDeclaredMembers] ([HarmonyPatch(typeof(TheType))] beside [HarmonyPatchAll]).");
        IReadOnlyList<MethodBase> bulk = model.WholeType is { } whole ? PatchTargets.DeclaredMembers(whole) : returned ?? [];
        if (bulk.Count > 0 && model.Hooks.FirstOrDefault(h => h.NamesMember) is { } named)
            throw new PatchClassException(patchClass, named.Method, null,
                $"The hook {Names.Of(named.Method)} of the patch class {Names.Of(patchClass)} names its target with an " +
                $"attribute, but the class's targets come from {(model.WholeType is null ? "TargetMethod(s)" : "whole-type patching")}; " +
                "expected one or the other: keep only the type on the class ([Patch(typeof(TheType))]) and no target on the hooks.");
        var sets = new List<SetUnderWay>();
        foreach (PatchClassHook hook in model.Hooks)
        {
            IReadOnlyList<MethodBase> targets = bulk.Count > 0 ? bulk
                : [.. (hook.Targets.Count > 0 ? hook.Targets : model.ClassTargets).Select(s => PatchTargets.Resolve(s, hook.Method))];
            if (targets.Count == 0)
                throw HookBinder.Refuse(HookBindingKind.NoHooks, hook.Method, null, -1, null, null,
                    $"The {HookBinder.Kind(hook.Kind)} {Names.Of(hook.Method)} of the patch class {Names.Of(patchClass)} has no " +
                    "target: put [Patch(typeof(TheType), \"TheMethod\")] on the class or on the method" +
                    (returned is { Count: 0 } ? " (its TargetMethods returned no method)." : "."));
            foreach (MethodBase asNamed in targets)
            {
                MethodBase target = PatchTargets.Definition(asNamed);
                MethodBase? given = HookBinder.InstantiationOf(target, asNamed).Count > 0 ? asNamed : null;
                int at = sets.FindIndex(s => Patch.SameMethod(s.Target, target) && SameInstantiation(s.Given, given));
                if (at < 0)
                {
                    sets.Add(new SetUnderWay(target, given, [[], [], [], [], [], []]));
                    at = sets.Count - 1;
                }
                sets[at].Hooks[(int)hook.Kind].Add(hook.Hook);
            }
        }
        if (model.Hooks.Count == 0)
        {
            // Harmony's annotated outer classes patch nothing; a class of reverse-patch stubs alone is applied by them.
            if (model.SilentWithoutHooks || ReversePatchDiscovery.Declares(patchClass))
                return [];
            throw HookBinder.Refuse(HookBindingKind.NoHooks, null, null, -1, null, null,
                $"The patch class {Names.Of(patchClass)} has no hooks: declare static methods named Prefix, Postfix, " +
                "Finalizer or Transpiler, or mark them [PatchPrefix], [PatchPostfix], [PatchFinalizer], [PatchTranspiler], " +
                "[PatchInnerPrefix] or [PatchInnerPostfix].");
        }
        return [.. sets.Select(s => new DiscoveredSet(s.Target, s.Hooks[0], s.Hooks[1], s.Hooks[2], patchClass)
        {
            Given = s.Given,
            Transpilers = s.Hooks[3],
            InnerPrefixes = s.Hooks[4],
            InnerPostfixes = s.Hooks[5],
        })];
    }

    /// <summary>One (class, target) set as its hooks are gathered, by kind (a class, not a value tuple: see
    /// <see cref="MethodKey"/>).</summary>
    private sealed record SetUnderWay(MethodBase Target, MethodBase? Given, List<HookMethod>[] Hooks);

    /// <summary>Whether two targets were named as the same instantiation (both null: as the definition).</summary>
    private static bool SameInstantiation(MethodBase? a, MethodBase? b) =>
        a is null ? b is null
        : b is not null && a.DeclaringType == b.DeclaringType && a.MetadataToken == b.MetadataToken &&
          (a is not MethodInfo { IsGenericMethod: true } ma ||
           ma.GetGenericArguments().SequenceEqual(((MethodInfo)b).GetGenericArguments()));

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

    /// <summary>A core hook with its order: the method's attributes, else the class's.</summary>
    public static HookMethod WithOrder(MethodInfo method, Type patchClass) => new(method)
    {
        Priority = (method.GetCustomAttribute<PatchPriorityAttribute>(false) ??
                    patchClass.GetCustomAttribute<PatchPriorityAttribute>(false))?.Priority ?? HookPriority.Normal,
        Before = (method.GetCustomAttribute<PatchBeforeAttribute>(false) ??
                  patchClass.GetCustomAttribute<PatchBeforeAttribute>(false))?.Owners ?? [],
        After = (method.GetCustomAttribute<PatchAfterAttribute>(false) ??
                 patchClass.GetCustomAttribute<PatchAfterAttribute>(false))?.Owners ?? [],
    };

    /// <summary>The definition of a method of a constructed generic type or of a generic method instantiation.</summary>
    public static MethodBase Definition(MethodBase target) => PatchTargets.Definition(target);
}
