namespace AlvorKit.Interception;

/// <summary>Marks a static method of a patch class as a prefix (Harmony's HarmonyPrefix), whatever its name.
/// See <see cref="Interceptor.Hook"/> for what a prefix may take and return.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchPrefixAttribute : Attribute;

/// <summary>Marks a static method of a patch class as a postfix (Harmony's HarmonyPostfix), whatever its name.
/// See <see cref="Interceptor.Hook"/> for what a postfix may take and return.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchPostfixAttribute : Attribute;

/// <summary>Marks a static method of a patch class as a finalizer (Harmony's HarmonyFinalizer), whatever its
/// name. See <see cref="Interceptor.Hook"/> for what a finalizer may take and return.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchFinalizerAttribute : Attribute;
