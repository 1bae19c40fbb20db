using AlvorKit.Interception.Hooks;

#pragma warning disable CA1710 // Harmony's attribute name, so a Harmony mod ports unchanged

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// A hook parameter that binds to a target value under another name (Harmony's HarmonyArgument): on a parameter,
/// the target argument <see cref="OriginalName"/> (or at <see cref="Index"/>) or an injected name such as
/// <c>__instance</c>; on the hook method (or class), the same for the parameter named <see cref="NewName"/>.
/// </summary>
[AttributeUsage(AttributeTargets.Parameter | AttributeTargets.Method | AttributeTargets.Class | AttributeTargets.Struct,
    AllowMultiple = true)]
public sealed class HarmonyArgument : Attribute, IHookArgumentName
{
    /// <summary>Binds the parameter to the target value named <paramref name="originalName"/>.</summary>
    /// <param name="originalName">The target parameter's name, or an injected name.</param>
    public HarmonyArgument(string originalName) : this(originalName, null)
    {
    }

    /// <summary>Binds the parameter to the target argument at <paramref name="index"/>.</summary>
    /// <param name="index">The target parameter's position (0-based, the receiver not counted).</param>
    public HarmonyArgument(int index) : this(index, null)
    {
    }

    /// <summary>On a method: binds its parameter <paramref name="newName"/> to the target value
    /// <paramref name="originalName"/>.</summary>
    /// <param name="originalName">The target parameter's name, or an injected name.</param>
    /// <param name="newName">The hook parameter's name.</param>
    public HarmonyArgument(string originalName, string? newName)
    {
        OriginalName = originalName;
        Index = -1;
        NewName = newName;
    }

    /// <summary>On a method: binds its parameter <paramref name="name"/> to the target argument at
    /// <paramref name="index"/>.</summary>
    /// <param name="index">The target parameter's position (0-based, the receiver not counted).</param>
    /// <param name="name">The hook parameter's name.</param>
    public HarmonyArgument(int index, string? name)
    {
        OriginalName = null;
        Index = index;
        NewName = name;
    }

    /// <summary>The target value's name; null when <see cref="Index"/> is used.</summary>
    public string? OriginalName { get; }

    /// <summary>The target argument's position; -1 when <see cref="OriginalName"/> is used.</summary>
    public int Index { get; }

    /// <summary>On a method: the hook parameter this renames; null on a parameter.</summary>
    public string? NewName { get; }
}
