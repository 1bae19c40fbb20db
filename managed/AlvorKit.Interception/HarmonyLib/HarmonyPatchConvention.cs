using System.Reflection;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// Harmony's reading of a patch class, for the core discovery: a patch class has a class-level Harmony attribute
/// (<see cref="HarmonyAttribute"/>); its HarmonyPatch attributes are merged into one description, a hook's own
/// merged over it (<see cref="HarmonyInfo"/>); a hook is a method named Prefix, Postfix or Finalizer or marked
/// with their attribute (Harmony's order: the first kind whose name or attribute matches); the lifecycle methods
/// by attribute or name; a class without hooks patches nothing.
/// </summary>
internal sealed class HarmonyPatchConvention : IPatchConvention
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    public static HarmonyPatchConvention Instance { get; } = new();

    public bool IsPatchClass(Type type) => (type.IsClass || type.IsValueType) && type.IsDefined(typeof(HarmonyAttribute), true);

    /// <summary>The category of a patch class (its class-level attributes merged); null: none.</summary>
    public static string? CategoryOf(Type patchClass) =>
        HarmonyInfo.Merge(patchClass.GetCustomAttributes<HarmonyAttribute>(true).Select(a => a.Info)).Category;

    public PatchClassModel Read(Type patchClass)
    {
        ArgumentNullException.ThrowIfNull(patchClass);
        HarmonyInfo onClass = HarmonyInfo.Merge(patchClass.GetCustomAttributes<HarmonyAttribute>(true).Select(a => a.Info));
        onClass.MethodType ??= MethodType.Normal;
        var hooks = new List<PatchClassHook>();
        foreach (MethodInfo method in patchClass.GetMethods(Declared).OrderBy(m => m.MetadataToken))
        {
            if (KindOf(method) is not { } kind)
                continue;
            HarmonyInfo merged = onClass.Over(HarmonyInfo.Merge(method.GetCustomAttributes<HarmonyAttribute>(true).Select(a => a.Info)));
            var hook = new HookMethod(method)
            {
                Priority = merged.Priority == -1 ? Priority.Normal : merged.Priority,
                Before = merged.Before ?? [],
                After = merged.After ?? [],
            };
            bool namesMember = merged.MethodName is not null || merged.MethodType is not (null or MethodType.Normal) ||
                               merged.ArgumentTypes is not null;
            hooks.Add(new PatchClassHook(method, kind, hook,
                Spec(merged, $"[HarmonyPatch] on {Names.Of(method)} (merged with its class's)") is { } spec ? [spec] : [],
                namesMember));
        }
        bool wholeType = patchClass.IsDefined(typeof(HarmonyPatchAll), true);
        return new PatchClassModel(patchClass, onClass.Category, [], hooks,
            new PatchLifecycleMethods(
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(HarmonyPrepare), false), "Prepare"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(HarmonyCleanup), false), "Cleanup"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(HarmonyTargetMethod), false), "TargetMethod"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(HarmonyTargetMethods), false), "TargetMethods")),
            wholeType ? onClass.DeclaringType : null, wholeType && onClass.DeclaringType is null, SilentWithoutHooks: true);
    }

    /// <summary>Harmony's patch type of a method: the first of Prefix, Postfix, Transpiler, Finalizer, ReversePatch,
    /// InnerPrefix, InnerPostfix whose name the method has or whose attribute it carries. The kinds this surface does
    /// not read are refused (NotSupportedException) rather than skipped.</summary>
    public static HookKind? KindOf(MethodInfo method)
    {
        string[] order = ["Prefix", "Postfix", "Transpiler", "Finalizer", "ReversePatch", "InnerPrefix", "InnerPostfix"];
        foreach (string kind in order)
        {
            bool marked = kind switch
            {
                "Prefix" => method.IsDefined(typeof(HarmonyPrefix), false),
                "Postfix" => method.IsDefined(typeof(HarmonyPostfix), false),
                "Finalizer" => method.IsDefined(typeof(HarmonyFinalizer), false),
                "Transpiler" => method.IsDefined(typeof(HarmonyTranspiler), false),
                _ => false,
            };
            if (!marked && method.Name != kind)
                continue;
            return kind switch
            {
                "Prefix" => HookKind.Prefix,
                "Postfix" => HookKind.Postfix,
                "Finalizer" => HookKind.Finalizer,
                "Transpiler" => HookKind.Transpiler,
                _ => throw new NotSupportedException(
                    $"{Names.Of(method)} is a {kind} (by its name), which this Harmony surface does not read " +
                    "(reverse patches: [PatchReversePatch] or Interceptor.ReversePatch; infixes: see the port table); " +
                    "rename it if it is not meant as one."),
            };
        }
        return null;
    }

    /// <summary>The target a merged description names (Harmony's GetOriginalMethod), or null when it names none
    /// (no name for a kind that needs one).</summary>
    private static TargetSpec? Spec(HarmonyInfo info, string where)
    {
        MethodType type = info.MethodType ?? MethodType.Normal;
        string? name = info.MethodName;
        Type? declaring = info.DeclaringType;
        return type switch
        {
            MethodType.Normal or MethodType.Enumerator or MethodType.Async or MethodType.EventAdd or MethodType.EventRemove
                when string.IsNullOrEmpty(name) => null,
            MethodType.Normal => new TargetSpec(declaring, name, PatchMethodKind.Method, info.ArgumentTypes, where),
            MethodType.Getter or MethodType.Setter => new TargetSpec(declaring, name,
                type == MethodType.Getter ? PatchMethodKind.Getter : PatchMethodKind.Setter,
                string.IsNullOrEmpty(name) ? info.ArgumentTypes : null, where),
            MethodType.Constructor => new TargetSpec(declaring, null, PatchMethodKind.Constructor, info.ArgumentTypes, where,
                ExactConstructor: true),
            MethodType.StaticConstructor => new TargetSpec(declaring, null, PatchMethodKind.StaticConstructor, null, where),
            MethodType.Enumerator => new TargetSpec(declaring, name, PatchMethodKind.Enumerator, info.ArgumentTypes, where),
            MethodType.Async => new TargetSpec(declaring, name, PatchMethodKind.Async, info.ArgumentTypes, where),
            MethodType.Finalizer => new TargetSpec(declaring, null, PatchMethodKind.Finalizer, null, where),
            MethodType.EventAdd => new TargetSpec(declaring, name, PatchMethodKind.EventAdd, null, where),
            MethodType.EventRemove => new TargetSpec(declaring, name, PatchMethodKind.EventRemove, null, where),
            _ => new TargetSpec(declaring, "op_" + type.ToString()["Operator".Length..], PatchMethodKind.Method,
                info.ArgumentTypes, where),
        };
    }
}
