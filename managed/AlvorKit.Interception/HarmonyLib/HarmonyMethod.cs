using System.Reflection;
using AlvorKit.Interception.Internal;

#pragma warning disable CA1051, CA2211 // Harmony's public fields (method, priority, before, after), so a Harmony mod ports unchanged

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// A hook method with its order, for <see cref="Harmony.Patch"/> (Harmony's HarmonyMethod, with its public fields
/// <see cref="method"/>, <see cref="priority"/>, <see cref="before"/>, <see cref="after"/>). Made from a method, it
/// takes the method's own <see cref="HarmonyPriority"/>, <see cref="HarmonyBefore"/> and <see cref="HarmonyAfter"/>;
/// a MethodInfo (or a delegate) converts to one implicitly. It becomes a <see cref="HookMethod"/> (priority -1:
/// <see cref="Priority.Normal"/>).
/// </summary>
public class HarmonyMethod
{
    /// <summary>The hook method.</summary>
    public MethodInfo? method;

    /// <summary>The priority (<see cref="Priority"/> values; -1: unset, which is <see cref="Priority.Normal"/>).</summary>
    public int priority = -1;

    /// <summary>Harmony IDs whose hooks this one runs before (null: none).</summary>
    public string[]? before;

    /// <summary>Harmony IDs whose hooks this one runs after (null: none).</summary>
    public string[]? after;

    /// <summary>An empty HarmonyMethod (set <see cref="method"/> before use).</summary>
    public HarmonyMethod()
    {
    }

    /// <summary>The method as a hook, with the order its own Harmony attributes give.</summary>
    /// <param name="method">A static method.</param>
    public HarmonyMethod(MethodInfo method)
    {
        ArgumentNullException.ThrowIfNull(method);
        Import(method);
    }

    /// <summary>The method as a hook with this order (which replaces the method's own attributes', -1 and null
    /// included, as in Harmony).</summary>
    /// <param name="method">A static method.</param>
    /// <param name="priority">The priority (-1: <see cref="Priority.Normal"/>).</param>
    /// <param name="before">Harmony IDs to run before.</param>
    /// <param name="after">Harmony IDs to run after.</param>
    /// <param name="debug">Ignored (Harmony's debug log has no counterpart).</param>
    public HarmonyMethod(MethodInfo method, int priority = -1, string[]? before = null, string[]? after = null,
        bool? debug = null)
    {
        ArgumentNullException.ThrowIfNull(method);
        _ = debug;
        Import(method);
        this.priority = priority;
        this.before = before;
        this.after = after;
    }

    /// <summary>The delegate's method as a hook.</summary>
    /// <param name="delegate">A delegate of a static method.</param>
    public HarmonyMethod(Delegate @delegate) : this(@delegate?.Method ?? throw new ArgumentNullException(nameof(@delegate)))
    {
    }

    /// <summary>The method <paramref name="methodName"/> of <paramref name="methodType"/> (or of a base type) as a hook.</summary>
    /// <param name="methodType">The type that declares the hook.</param>
    /// <param name="methodName">The hook's name.</param>
    /// <param name="argumentTypes">Its parameter types, when it has overloads.</param>
    public HarmonyMethod(Type methodType, string methodName, Type[]? argumentTypes = null)
    {
        ArgumentNullException.ThrowIfNull(methodType);
        const BindingFlags all = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static | BindingFlags.Instance;
        MethodInfo? found = null;
        for (Type? type = methodType; type is not null && found is null; type = type.BaseType)
            found = argumentTypes is null ? type.GetMethod(methodName, all | BindingFlags.DeclaredOnly)
                : type.GetMethod(methodName, all | BindingFlags.DeclaredOnly, null, argumentTypes, null);
        if (found is null)
            throw new ArgumentException(
                $"{Names.Of(methodType)} has no method {methodName}" +
                (argumentTypes is null ? "" : $"({string.Join(", ", argumentTypes.Select(Names.Of))})") +
                $"; expected a static method of it or a base type, as in new HarmonyMethod(typeof({Names.Of(methodType)}), \"Prefix\").",
                nameof(methodName));
        Import(found);
    }

    /// <summary>The method as a hook (the same as <see cref="HarmonyMethod(MethodInfo)"/>).</summary>
    /// <param name="method">The hook's method.</param>
    public static implicit operator HarmonyMethod(MethodInfo method) => new(method);

    /// <summary>The delegate's method as a hook.</summary>
    /// <param name="delegate">The hook as a delegate.</param>
    public static implicit operator HarmonyMethod(Delegate @delegate) => new(@delegate);

    /// <summary>The core hook this describes.</summary>
    /// <returns>A <see cref="HookMethod"/> with the same method and order.</returns>
    /// <exception cref="InvalidOperationException"><see cref="method"/> is not set.</exception>
    public HookMethod ToHookMethod() => new(method ?? throw new InvalidOperationException(
        "HarmonyMethod.method is null; expected the hook method: new HarmonyMethod(typeof(MyPatch).GetMethod(\"Prefix\"))."))
    {
        Priority = priority == -1 ? Priority.Normal : priority,
        Before = before ?? [],
        After = after ?? [],
    };

    /// <inheritdoc/>
    public override string ToString() =>
        $"HarmonyMethod[{(method is null ? "(no method)" : Names.Of(method))}, priority={priority}" +
        (before is null ? "" : $", before={string.Join(",", before)}") + (after is null ? "" : $", after={string.Join(",", after)}") + "]";

    // Harmony's ImportMethod: the method's own Harmony attributes, merged.
    private void Import(MethodInfo theMethod)
    {
        method = theMethod;
        HarmonyInfo info = HarmonyInfo.Merge(theMethod.GetCustomAttributes<HarmonyAttribute>(true).Select(a => a.Info));
        priority = info.Priority;
        before = info.Before;
        after = info.After;
    }
}
