#pragma warning disable CA1710 // Harmony's attribute names, so a Harmony mod ports unchanged

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>Marks a static method of a patch class as a prefix, whatever its name (see
/// <see cref="Interceptor.Hook"/> for what it may take and return).</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyPrefix : Attribute;

/// <summary>Marks a static method of a patch class as a transpiler, whatever its name. Here a transpiler takes and
/// returns <see cref="BodyInstruction"/>s (and may take the <see cref="GenerationPlan"/> where Harmony's takes an
/// ILGenerator): see <see cref="Interceptor.Hook"/>.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyTranspiler : Attribute;

/// <summary>Marks a static method of a patch class as a postfix, whatever its name.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyPostfix : Attribute;

/// <summary>Marks a static method of a patch class as a finalizer, whatever its name.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyFinalizer : Attribute;

/// <summary>Marks the method that returns the class's target (a MethodBase, never null), whatever its name; a
/// method named TargetMethod works without it. It may take the <see cref="Harmony"/> instance.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyTargetMethod : Attribute;

/// <summary>Marks the method that returns the class's targets (IEnumerable&lt;MethodBase&gt;), whatever its name;
/// a method named TargetMethods works without it. It may take the <see cref="Harmony"/> instance.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyTargetMethods : Attribute;

/// <summary>Marks the class's Prepare method, whatever its name (a method named Prepare works without it): called
/// once without a target (false skips the class), then once per target (false skips it). Parameters by type, any
/// subset: <c>MethodBase original</c> (null on the first call) and the <see cref="Harmony"/> instance.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyPrepare : Attribute;

/// <summary>Marks the class's Cleanup method, whatever its name (a method named Cleanup works without it): called
/// once per target and once at the end. Parameters by type, any subset: <c>MethodBase original</c>,
/// <c>Exception ex</c> (what failed, or null) and the <see cref="Harmony"/> instance; returning Exception replaces
/// the exception (null suppresses it).</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class HarmonyCleanup : Attribute;
