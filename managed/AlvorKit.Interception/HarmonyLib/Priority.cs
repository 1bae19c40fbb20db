namespace AlvorKit.Interception.HarmonyLib;

/// <summary>Harmony's hook priorities (the same values as <see cref="HookPriority"/>): per kind, a hook of higher
/// priority runs earlier; the default is <see cref="Normal"/>.</summary>
public static class Priority
{
    /// <summary>Runs after every other priority (0).</summary>
    public const int Last = HookPriority.Last;

    /// <summary>100.</summary>
    public const int VeryLow = HookPriority.VeryLow;

    /// <summary>200.</summary>
    public const int Low = HookPriority.Low;

    /// <summary>300.</summary>
    public const int LowerThanNormal = HookPriority.LowerThanNormal;

    /// <summary>The default (400).</summary>
    public const int Normal = HookPriority.Normal;

    /// <summary>500.</summary>
    public const int HigherThanNormal = HookPriority.HigherThanNormal;

    /// <summary>600.</summary>
    public const int High = HookPriority.High;

    /// <summary>700.</summary>
    public const int VeryHigh = HookPriority.VeryHigh;

    /// <summary>Runs before every other priority (800).</summary>
    public const int First = HookPriority.First;
}
