using System.Reflection;

namespace AlvorKit.Interception.Plans;

/// <summary>
/// The method a generation replaces: a generation replaces the IL of a method DEFINITION, which
/// every instantiation shares, so a plan (and a hook set) is written and checked against the
/// definition (Holder&lt;T&gt;.Show, M&lt;T&gt;), never one closed instantiation of it.
/// </summary>
internal static class TargetDefinition
{
    /// <summary>The definition of a method of a constructed generic type or of a generic method
    /// instantiation; any other method as it is.</summary>
    public static MethodBase Of(MethodBase target)
    {
        if (target is MethodInfo { IsGenericMethod: true, IsGenericMethodDefinition: false } instantiation)
            target = instantiation.GetGenericMethodDefinition();
        if (target.DeclaringType is { IsGenericType: true, IsGenericTypeDefinition: false })
            target = MethodBase.GetMethodFromHandle(target.MethodHandle,
                target.DeclaringType.GetGenericTypeDefinition().TypeHandle)!;
        return target;
    }
}
