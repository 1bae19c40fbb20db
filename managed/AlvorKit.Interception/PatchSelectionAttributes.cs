namespace AlvorKit.Interception;

/// <summary>Puts a patch class in a category (Harmony's HarmonyPatchCategory):
/// <see cref="Interceptor.PatchCategory"/> patches the classes of one category, and
/// <see cref="Interceptor.PatchAllUncategorized"/> the classes without one;
/// <see cref="Interceptor.PatchAll(System.Reflection.Assembly, PatchOwner?)"/> patches both.</summary>
/// <param name="category">The category's name (compared exactly).</param>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct)]
public sealed class PatchCategoryAttribute(string category) : Attribute
{
    /// <summary>The category's name.</summary>
    public string Category { get; } = category;
}

/// <summary>Whole-type patching (Harmony's HarmonyPatchAll): with <c>[Patch(typeof(TheType))]</c> on the class,
/// every hook of the class patches every constructor (static too) and method <c>TheType</c> declares itself,
/// property and event accessors and operators included, inherited ones not. Members without IL (abstract,
/// extern, runtime-implemented) are left out: they cannot be hooked. The hooks must fit every member (a
/// <c>__result</c> hook refuses a void member): take only what all share, such as <c>__originalMethod</c>.</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct)]
public sealed class PatchDeclaredMembersAttribute : Attribute;
