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
    public static bool CanReference(MethodBase target, MethodInfo replacement) =>
        ModifiersMatch(target, replacement) && WhyNotBound(target.Module.Assembly, replacement.Module.Assembly) is null;

    /// <summary>Null when an AssemblyRef by <paramref name="to"/>'s name, emitted into
    /// <paramref name="from"/>'s module, binds to <paramref name="to"/> itself (the load-context
    /// rule above); else why not, as a sentence fragment ("it is collectible ..."). The rule of
    /// the direct call, and of a plan's ASSEMBLY_REF relocation (ABI 3.6).</summary>
    public static string? WhyNotBound(Assembly from, Assembly to)
    {
        string name = to.GetName().Name ?? to.FullName ?? "the assembly";
        if (to.IsDynamic)
            return $"{name} is a dynamic assembly, which no AssemblyRef can name";
        if (to.IsCollectible)
            return $"{name} is collectible, and a non-collectible module cannot reference a collectible assembly";
        if (to == from)
            return null;
        AssemblyLoadContext? fromContext = AssemblyLoadContext.GetLoadContext(from);
        AssemblyLoadContext? toContext = AssemblyLoadContext.GetLoadContext(to);
        if (fromContext is null || toContext is null)
            return $"the load context of {name} or of {from.GetName().Name} is unknown";
        if (fromContext == toContext)
            return null;
        if (toContext != AssemblyLoadContext.Default)
            return $"{name} is loaded in the AssemblyLoadContext '{Names.ContextOf(to)}', not in " +
                   $"'{Names.ContextOf(from)}' (where {from.GetName().Name} is) nor in the default one it falls back to";
        if (OverridesLoad(fromContext))
            return $"the AssemblyLoadContext '{Names.ContextOf(from)}' of {from.GetName().Name} overrides Load, so " +
                   $"it may bind the name {name} to a copy of its own";
        if (fromContext.Assemblies.Any(a =>
                a != to && string.Equals(a.GetName().Name, name, StringComparison.OrdinalIgnoreCase)))
            return $"the AssemblyLoadContext '{Names.ContextOf(from)}' of {from.GetName().Name} holds another " +
                   $"assembly named {name}";
        return null;
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
