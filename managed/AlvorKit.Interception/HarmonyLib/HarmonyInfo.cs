namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// What one Harmony attribute says (Harmony's HarmonyMethod fields, unset as null; priority -1 when unset), and
/// Harmony's merging: the attributes of a class (or of a method) are merged in order, a later set field winning;
/// a method's merged attributes are merged over its class's, the method's field winning where set, except the
/// priority: where both are set, the higher one.
/// </summary>
internal sealed class HarmonyInfo
{
    public Type? DeclaringType { get; set; }

    public string? MethodName { get; set; }

    public MethodType? MethodType { get; set; }

    public Type[]? ArgumentTypes { get; set; }

    public int Priority { get; set; } = -1;

    public string[]? Before { get; set; }

    public string[]? After { get; set; }

    public string? Category { get; set; }

    /// <summary>The attributes in order, a later set field winning (Harmony's HarmonyMethod.Merge).</summary>
    public static HarmonyInfo Merge(IEnumerable<HarmonyInfo> infos)
    {
        var result = new HarmonyInfo();
        foreach (HarmonyInfo info in infos)
        {
            result.DeclaringType = info.DeclaringType ?? result.DeclaringType;
            result.MethodName = info.MethodName ?? result.MethodName;
            result.MethodType = info.MethodType ?? result.MethodType;
            result.ArgumentTypes = info.ArgumentTypes ?? result.ArgumentTypes;
            result.Priority = info.Priority != -1 ? info.Priority : result.Priority;
            result.Before = info.Before ?? result.Before;
            result.After = info.After ?? result.After;
            result.Category = info.Category ?? result.Category;
        }
        return result;
    }

    /// <summary><paramref name="detail"/> (a method's) over this (its class's): the detail's set fields win,
    /// except the priority, where both set gives the higher (Harmony's HarmonyMethodExtensions.Merge).</summary>
    public HarmonyInfo Over(HarmonyInfo detail) => new()
    {
        DeclaringType = detail.DeclaringType ?? DeclaringType,
        MethodName = detail.MethodName ?? MethodName,
        MethodType = detail.MethodType ?? MethodType,
        ArgumentTypes = detail.ArgumentTypes ?? ArgumentTypes,
        Priority = Priority == -1 ? detail.Priority : detail.Priority == -1 ? Priority : Math.Max(Priority, detail.Priority),
        Before = detail.Before ?? Before,
        After = detail.After ?? After,
        Category = detail.Category ?? Category,
    };
}
