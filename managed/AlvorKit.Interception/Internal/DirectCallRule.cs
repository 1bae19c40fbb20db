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
/// the default context while the target's context holds no other assembly of that name and does
/// not override <see cref="AssemblyLoadContext"/>.Load (a context falls back to the default one
/// for names it does not load itself, but an override is asked first and typically loads its
/// own copy). And the reference's signature (the target's, receiver first) must bind to the
/// replacement: the runtime compares custom modifiers too, so every parameter and the return
/// carry the same required and optional modifiers (an <c>in</c> parameter of a virtual target,
/// an <c>init</c> setter, a <c>ref readonly</c> return have a modreq that a static method's
/// <c>in</c>, <c>void</c> or <c>ref</c> lacks) and the receiver none. The profiler checks the
/// rest (accessible, static, non-virtual, non-generic, with IL) and says why when it falls back.
/// </summary>
internal static class DirectCallRule
{
    public static bool CanReference(MethodBase target, MethodInfo replacement)
    {
        if (!ModifiersMatch(target, replacement))
            return false;
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
        if (replacementContext != AssemblyLoadContext.Default || OverridesLoad(targetContext))
            return false;
        string? name = to.GetName().Name;
        return !targetContext.Assemblies.Any(a =>
            a != to && string.Equals(a.GetName().Name, name, StringComparison.OrdinalIgnoreCase));
    }

    /// <summary>Whether the parameters and returns of `target` (receiver first) and `replacement`
    /// carry the same custom modifiers, as a MemberRef of the target's signature needs to bind.</summary>
    public static bool ModifiersMatch(MethodBase target, MethodInfo replacement)
    {
        ParameterInfo[] expected = target.GetParameters(), actual = replacement.GetParameters();
        int shift = target.IsStatic ? 0 : 1;
        if (actual.Length != expected.Length + shift)
            return false;
        if (shift == 1 && HasModifiers(actual[0]))
            return false; /* the receiver has none in the target's signature */
        for (int i = 0; i < expected.Length; i++)
        {
            if (!SameModifiers(expected[i], actual[i + shift]))
                return false;
        }
        return target is MethodInfo m
            ? SameModifiers(m.ReturnParameter, replacement.ReturnParameter)
            : !HasModifiers(replacement.ReturnParameter);
    }

    private static bool HasModifiers(ParameterInfo p) =>
        p.GetRequiredCustomModifiers().Length > 0 || p.GetOptionalCustomModifiers().Length > 0;

    private static bool SameModifiers(ParameterInfo a, ParameterInfo b) =>
        a.GetRequiredCustomModifiers().SequenceEqual(b.GetRequiredCustomModifiers()) &&
        a.GetOptionalCustomModifiers().SequenceEqual(b.GetOptionalCustomModifiers());

    /// <summary>Whether `context`'s type (or a base below AssemblyLoadContext) overrides Load.</summary>
    private static bool OverridesLoad(AssemblyLoadContext context)
    {
        MethodInfo? load = context.GetType().GetMethod("Load", BindingFlags.Instance | BindingFlags.Public |
            BindingFlags.NonPublic, null, [typeof(AssemblyName)], null);
        return load is null || load.DeclaringType != typeof(AssemblyLoadContext);
    }
}
