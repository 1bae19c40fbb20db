namespace AlvorKit.Interception;

/// <summary>Marks a static method of a patch class as a transpiler (Harmony's HarmonyTranspiler), whatever its
/// name: it edits the target's original instructions before the prefixes, postfixes and finalizers are woven
/// around them. See <see cref="Interceptor.Hook"/> for what a transpiler takes and returns.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchTranspilerAttribute : Attribute;
