using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// The core attributes' reading of a patch class: each <see cref="PatchAttribute"/> on the class is a target of
/// its own (several: several targets); one on a hook method is that hook's alone; <see cref="PatchPriorityAttribute"/>,
/// <see cref="PatchBeforeAttribute"/> and <see cref="PatchAfterAttribute"/> on a method win over the class's;
/// lifecycle methods by attribute or by name; <see cref="PatchCategoryAttribute"/> and
/// <see cref="PatchDeclaredMembersAttribute"/> with a type-only <c>[Patch(typeof(T))]</c>.
/// </summary>
internal sealed class CorePatchConvention : IPatchConvention
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    public static CorePatchConvention Instance { get; } = new();

    /// <summary>A class with a class-level [Patch], [PatchCategory] or [PatchDeclaredMembers], or with a method
    /// that has [Patch], [PatchTargetMethod] or [PatchTargetMethods].</summary>
    public bool IsPatchClass(Type type) =>
        type.IsClass &&
        (type.IsDefined(typeof(PatchAttribute), false) || type.IsDefined(typeof(PatchCategoryAttribute), false) ||
         type.IsDefined(typeof(PatchDeclaredMembersAttribute), false) ||
         type.GetMethods(Declared).Any(m => m.IsDefined(typeof(PatchAttribute), false) ||
                                            m.IsDefined(typeof(PatchTargetMethodAttribute), false) ||
                                            m.IsDefined(typeof(PatchTargetMethodsAttribute), false)));

    public PatchClassModel Read(Type patchClass)
    {
        ArgumentNullException.ThrowIfNull(patchClass);
        PatchAttribute[] onClass = [.. patchClass.GetCustomAttributes<PatchAttribute>(false)];
        List<TargetSpec> classTargets = [.. onClass.Where(NamesMember).Select(a => Spec(a, $"[Patch] on {Names.Of(patchClass)}"))];
        var hooks = new List<PatchClassHook>();
        foreach (MethodInfo method in patchClass.GetMethods(Declared).OrderBy(m => m.MetadataToken))
        {
            if (PatchDiscovery.KindOf(method) is not { } kind)
                continue;
            List<TargetSpec> own = [.. method.GetCustomAttributes<PatchAttribute>(false)
                .Select(a => Spec(a, $"[Patch] on {Names.Of(method)}"))];
            hooks.Add(new PatchClassHook(method, kind, PatchDiscovery.WithOrder(method, patchClass), own,
                own.Count > 0 || classTargets.Count > 0));
        }
        bool wholeType = patchClass.IsDefined(typeof(PatchDeclaredMembersAttribute), false);
        Type? declaring = onClass.FirstOrDefault(a => !NamesMember(a))?.DeclaringType;
        return new PatchClassModel(patchClass, patchClass.GetCustomAttribute<PatchCategoryAttribute>(false)?.Category,
            classTargets, hooks,
            new PatchLifecycleMethods(
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(PatchPrepareAttribute), false), "Prepare"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(PatchCleanupAttribute), false), "Cleanup"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(PatchTargetMethodAttribute), false), "TargetMethod"),
                PatchLifecycle.Find(patchClass, m => m.IsDefined(typeof(PatchTargetMethodsAttribute), false), "TargetMethods")),
            wholeType ? declaring : null, wholeType && declaring is null, SilentWithoutHooks: false);
    }

    // A [Patch] that names a member, not only a type ([Patch(typeof(T))]).
    private static bool NamesMember(PatchAttribute patch) =>
        patch.MethodName is not null || patch.Kind != PatchMethodKind.Method || patch.ArgumentTypes is not null;

    internal static TargetSpec Spec(PatchAttribute patch, string where) =>
        new(patch.DeclaringType, patch.MethodName, patch.Kind, patch.ArgumentTypes, where);
}
