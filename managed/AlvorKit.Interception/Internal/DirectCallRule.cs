using System.Reflection;
using System.Runtime.Loader;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// Whether the target's module can name the replacement by reference, the condition of the
/// direct-call path that only the managed side can judge: the profiler emits an AssemblyRef by
/// the replacement's assembly name into the target's module, so that name must bind, from the
/// target's AssemblyLoadContext, to the very assembly that holds the replacement. Checked here:
/// the assembly is neither dynamic nor collectible (a non-collectible module cannot reference a
/// collectible one), and it is the target's own, loaded in the target's context, or loaded in
/// the default context while the target's context holds no other assembly of that name (a
/// context falls back to the default one for names it does not load itself). The profiler
/// checks the rest (public, static, non-generic, with IL) and says why when it falls back.
/// </summary>
internal static class DirectCallRule
{
    public static bool CanReference(MethodBase target, MethodInfo replacement)
    {
        Assembly from = target.Module.Assembly, to = replacement.Module.Assembly;
        if (to.IsDynamic || to.IsCollectible)
            return false;
        if (to == from)
            return true;
        AssemblyLoadContext? targetContext = AssemblyLoadContext.GetLoadContext(from);
        AssemblyLoadContext? replacementContext = AssemblyLoadContext.GetLoadContext(to);
        if (targetContext is null || replacementContext is null)
            return false;
        if (targetContext == replacementContext)
            return true;
        if (replacementContext != AssemblyLoadContext.Default)
            return false;
        string? name = to.GetName().Name;
        return !targetContext.Assemblies.Any(a =>
            a != to && string.Equals(a.GetName().Name, name, StringComparison.OrdinalIgnoreCase));
    }
}
