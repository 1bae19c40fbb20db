namespace AlvorKit.Interception;

/// <summary>Marks the static method of a patch class that decides whether the class patches (Harmony's
/// HarmonyPrepare; a method named Prepare works without it). It returns bool (false skips) or void (patches),
/// and is called once before anything else with no target, then once per target with it (false skips that
/// target). Its parameters are filled by type, in any order, any subset: <c>MethodBase original</c> (null on
/// the first call), <see cref="PatchOwner"/> and <see cref="Interceptor"/> (Harmony's surface passes its
/// Harmony instance); any other parameter gets its type's default value.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchPrepareAttribute : Attribute;

/// <summary>Marks the static method of a patch class called after patching (Harmony's HarmonyCleanup; a method
/// named Cleanup works without it): once per target with it, then once with no target. Parameters by type as
/// for <see cref="PatchPrepareAttribute"/>, plus <c>Exception</c>: what failed (null on success). Returning
/// Exception replaces that exception (null suppresses it); void leaves it.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchCleanupAttribute : Attribute;

/// <summary>Marks the static method of a patch class that returns its one target as a MethodBase (Harmony's
/// HarmonyTargetMethod; a method named TargetMethod works without it). Null is refused. Parameters by type as
/// for <see cref="PatchPrepareAttribute"/> (no target). The class's hooks must not name targets of their own.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchTargetMethodAttribute : Attribute;

/// <summary>Marks the static method of a patch class that returns its targets as an
/// <c>IEnumerable&lt;MethodBase&gt;</c> (Harmony's HarmonyTargetMethods; a method named TargetMethods works
/// without it): every hook of the class patches each. A null element is refused; no element at all falls back
/// to the targets the attributes name. Wins over <see cref="PatchTargetMethodAttribute"/>.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchTargetMethodsAttribute : Attribute;
