using AlvorKit.Interception.Hooks;

namespace AlvorKit.Interception;

/// <summary>
/// Binds a hook parameter under another name (Harmony's HarmonyArgument). On a parameter:
/// <c>[PatchArgument("amount")] int damage</c> binds <c>damage</c> as the target's parameter <c>amount</c>
/// (or as an injected name: <c>[PatchArgument("__instance")] Enemy self</c>); <c>[PatchArgument(0)]</c> as the
/// target's parameter at that position. On the hook method (or on its patch class, for every hook of it):
/// <c>[PatchArgument("amount", "damage")]</c> binds the hook's parameter <c>damage</c> as <c>amount</c>; several
/// attributes rename several parameters. The parameter's own attribute wins over the method's, the method's
/// over the class's. See <see cref="Interceptor.Hook"/> for what each name binds.
/// </summary>
[AttributeUsage(AttributeTargets.Parameter | AttributeTargets.Method | AttributeTargets.Class, AllowMultiple = true)]
public sealed class PatchArgumentAttribute : Attribute, IHookArgumentName
{
    /// <summary>On a parameter: it binds as <paramref name="originalName"/>.</summary>
    /// <param name="originalName">A parameter name of the target, or an injected name (<c>__instance</c>...).</param>
    public PatchArgumentAttribute(string originalName) : this(originalName, null)
    {
    }

    /// <summary>On a parameter: it binds as the target's parameter at <paramref name="index"/>.</summary>
    /// <param name="index">The target parameter's position (0-based, the receiver not counted).</param>
    public PatchArgumentAttribute(int index) : this(index, null)
    {
    }

    /// <summary>On a hook method or patch class: the hook parameter <paramref name="newName"/> binds as
    /// <paramref name="originalName"/>.</summary>
    /// <param name="originalName">A parameter name of the target, or an injected name.</param>
    /// <param name="newName">The hook parameter's name.</param>
    public PatchArgumentAttribute(string originalName, string? newName)
    {
        ArgumentException.ThrowIfNullOrEmpty(originalName);
        OriginalName = originalName;
        Index = -1;
        NewName = newName;
    }

    /// <summary>On a hook method or patch class: the hook parameter <paramref name="newName"/> binds as the target's
    /// parameter at <paramref name="index"/>.</summary>
    /// <param name="index">The target parameter's position (0-based, the receiver not counted).</param>
    /// <param name="newName">The hook parameter's name.</param>
    public PatchArgumentAttribute(int index, string? newName)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        Index = index;
        NewName = newName;
    }

    /// <summary>The name the parameter binds as; null when <see cref="Index"/> is used.</summary>
    public string? OriginalName { get; }

    /// <summary>The target parameter's position; -1 when <see cref="OriginalName"/> is used.</summary>
    public int Index { get; }

    /// <summary>On a hook method or patch class: the hook parameter this renames; null on a parameter.</summary>
    public string? NewName { get; }
}
