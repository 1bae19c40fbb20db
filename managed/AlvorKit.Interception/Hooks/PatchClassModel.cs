using System.Reflection;

namespace AlvorKit.Interception.Hooks;

/// <summary>A target as a patch class's attributes name it (core <see cref="PatchAttribute"/>, or Harmony's merged
/// HarmonyPatch): resolved by <see cref="PatchTargets.Resolve"/>. <see cref="Where"/> says where it came from, for
/// messages; <see cref="ExactConstructor"/>: a constructor without argument types is the parameterless one
/// (Harmony's rule) rather than the only one.</summary>
internal sealed record TargetSpec(Type? DeclaringType, string? MethodName, PatchMethodKind Kind,
    IReadOnlyList<Type>? ArgumentTypes, string Where, bool ExactConstructor = false);

/// <summary>One hook method of a patch class: its kind, the hook with its order, and the targets it names itself
/// (empty: the class's). <see cref="NamesMember"/>: its attributes (or the class's, merged in) name a member, which
/// TargetMethod(s) and whole-type patching do not allow beside them.</summary>
internal sealed record PatchClassHook(MethodInfo Method, HookKind Kind, HookMethod Hook, IReadOnlyList<TargetSpec> Targets,
    bool NamesMember);

/// <summary>The lifecycle methods of a patch class (null: absent).</summary>
internal sealed record PatchLifecycleMethods(MethodInfo? Prepare, MethodInfo? Cleanup, MethodInfo? TargetMethod,
    MethodInfo? TargetMethods);

/// <summary>
/// A patch class as one convention reads it (core attributes, or Harmony's): what <see cref="PatchDiscovery"/>
/// turns into hook sets. <see cref="WholeType"/>: whole-type patching of that type (Harmony's HarmonyPatchAll);
/// <see cref="WholeTypeWithoutType"/>: the attribute is there but no type is named. <see cref="SilentWithoutHooks"/>:
/// a class without hooks (or whose hooks have no target) patches nothing instead of being refused (Harmony's
/// behaviour: an annotated outer class of nested patch classes).
/// </summary>
internal sealed record PatchClassModel(Type Type, string? Category, IReadOnlyList<TargetSpec> ClassTargets,
    IReadOnlyList<PatchClassHook> Hooks, PatchLifecycleMethods Lifecycle, Type? WholeType, bool WholeTypeWithoutType,
    bool SilentWithoutHooks);

/// <summary>A family of patch-class attributes: which types it reads as patch classes, and how.</summary>
internal interface IPatchConvention
{
    /// <summary>Whether <paramref name="type"/> is a patch class of this convention (found by PatchAll).</summary>
    bool IsPatchClass(Type type);

    /// <summary>The class as this convention reads it.</summary>
    PatchClassModel Read(Type patchClass);
}
