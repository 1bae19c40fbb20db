namespace AlvorKit.Interception.Hooks;

/// <summary>
/// A hook parameter that stands for a target value under another name: on a parameter, the value its
/// name would not bind (<see cref="OriginalName"/>: a target parameter's name or an injected name such as
/// <c>__instance</c>; or <see cref="Index"/>: the target parameter at that position); on the hook method,
/// the same for the parameter named <see cref="NewName"/>. The binder reads every attribute that implements
/// it (the core attribute and the Harmony-shaped one), so both spellings bind one way.
/// </summary>
internal interface IHookArgumentName
{
    /// <summary>The name the parameter binds as; null when <see cref="Index"/> is used.</summary>
    string? OriginalName { get; }

    /// <summary>The target parameter's position (0-based, the receiver not counted); -1 when
    /// <see cref="OriginalName"/> is used.</summary>
    int Index { get; }

    /// <summary>On the hook method: the hook parameter this renames; null on a parameter.</summary>
    string? NewName { get; }
}
