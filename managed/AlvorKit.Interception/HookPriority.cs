namespace AlvorKit.Interception;

/// <summary>
/// Priorities of hooks (<see cref="HookMethod.Priority"/>, <see cref="PatchPriorityAttribute"/>), Harmony's
/// values: per kind (prefixes, postfixes, finalizers) a hook of higher priority runs earlier. The default is
/// <see cref="Normal"/>.
/// </summary>
public static class HookPriority
{
    /// <summary>Runs after every other priority (0).</summary>
    public const int Last = 0;

    /// <summary>100.</summary>
    public const int VeryLow = 100;

    /// <summary>200.</summary>
    public const int Low = 200;

    /// <summary>300.</summary>
    public const int LowerThanNormal = 300;

    /// <summary>The default (400).</summary>
    public const int Normal = 400;

    /// <summary>500.</summary>
    public const int HigherThanNormal = 500;

    /// <summary>600.</summary>
    public const int High = 600;

    /// <summary>700.</summary>
    public const int VeryHigh = 700;

    /// <summary>Runs before every other priority (800).</summary>
    public const int First = 800;
}
