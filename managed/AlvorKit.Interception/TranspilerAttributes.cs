namespace AlvorKit.Interception;

/// <summary>Marks a static method of a patch class as a transpiler (Harmony's HarmonyTranspiler), whatever its
/// name: it edits the target's original instructions before the prefixes, postfixes and finalizers are woven
/// around them. See <see cref="Interceptor.Hook"/> for what a transpiler takes and returns.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchTranspilerAttribute : Attribute;

/// <summary>Marks a static stub of a patch class as a reverse patch (Harmony's HarmonyReversePatch,
/// ReversePatchType.Original): <see cref="Interceptor.PatchAll(Type, PatchOwner?)"/> gives it the original
/// body of the method its <see cref="PatchAttribute"/> names (on the stub, else the class's single one), as
/// <see cref="Interceptor.ReversePatch"/> does. See <see cref="Interceptor.ReversePatch"/> for the stub's shape.</summary>
[AttributeUsage(AttributeTargets.Method)]
public sealed class PatchReversePatchAttribute : Attribute
{
    /// <summary>The name of a static method of the same patch class that edits the copied instructions first
    /// (a transpiler, as for <see cref="Interceptor.Hook"/>); null: none.</summary>
    public string? Transpiler { get; init; }
}
