using System.Runtime.CompilerServices;

namespace AlvorKit.Interception.Rehearsal;

/// <summary>
/// The one method a hot reload watch's warm-up patches (and unpatches) before the game's first
/// update: it returns a constant and does nothing else, so a body put in its place can change
/// nothing but the string it returns.
/// </summary>
public static class RehearsalTarget
{
    /// <summary>What <see cref="Value"/> returns unpatched.</summary>
    public const string Original = "original";

    /// <summary>Returns <see cref="Original"/> (never inlined, so a patch of it is seen by a call).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Value() => Original;
}
