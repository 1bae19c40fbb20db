using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Finds the members patch classes name: one <see cref="TargetSpec"/> (a [Patch] or a merged HarmonyPatch),
/// or every member a type declares (whole-type patching). Each comes back as the target hooks are woven into:
/// for a member of a constructed generic type or a generic method instantiation, its definition (one woven body
/// serves every instantiation).
/// </summary>
internal static class PatchTargets
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    /// <summary>The one member <paramref name="spec"/> names; HookBindingException (TargetNotFound,
    /// TargetAmbiguous) naming what it looked for and what the type has.</summary>
    public static MethodBase Resolve(TargetSpec spec, MethodInfo? hook)
    {
        ArgumentNullException.ThrowIfNull(spec);
        Type? declaring = spec.DeclaringType;
        if (declaring is null)
            throw HookBinder.Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{spec.Where} names no type: name it ([Patch(typeof(TheType), \"TheMethod\")], " +
                "[HarmonyPatch(typeof(TheType), \"TheMethod\")]).");
        IReadOnlyList<Type>? types = spec.ArgumentTypes;
        var candidates = new List<MethodBase>();
        bool filterByParameters = true;
        string what;
        switch (spec.Kind)
        {
            case PatchMethodKind.Constructor:
                what = $"constructor of {Names.Of(declaring)}";
                candidates.AddRange(declaring.GetConstructors(BindingFlags.Public | BindingFlags.NonPublic |
                                                              BindingFlags.Instance | BindingFlags.DeclaredOnly));
                if (types is null && spec.ExactConstructor)
                    types = [];
                break;
            case PatchMethodKind.StaticConstructor:
                what = $"static constructor of {Names.Of(declaring)}";
                if (declaring.TypeInitializer is { } initializer)
                    candidates.Add(initializer);
                filterByParameters = false;
                break;
            case PatchMethodKind.Getter or PatchMethodKind.Setter when string.IsNullOrEmpty(spec.MethodName):
            {
                bool getter = spec.Kind == PatchMethodKind.Getter;
                what = $"{(getter ? "getter" : "setter")} of an indexer of {Names.Of(declaring)}";
                candidates.AddRange(declaring.GetProperties(Declared)
                    .Where(p => p.GetIndexParameters().Length > 0 &&
                                (types is null || p.GetIndexParameters().Select(i => i.ParameterType).SequenceEqual(types)))
                    .Select(p => getter ? p.GetGetMethod(true) : p.GetSetMethod(true))
                    .OfType<MethodInfo>());
                filterByParameters = false;
                break;
            }
            case PatchMethodKind.Getter or PatchMethodKind.Setter:
            {
                bool getter = spec.Kind == PatchMethodKind.Getter;
                what = $"{(getter ? "getter" : "setter")} of the property {Names.Of(declaring)}.{spec.MethodName}";
                candidates.AddRange(declaring.GetProperties(Declared)
                    .Where(p => p.Name == spec.MethodName)
                    .Select(p => getter ? p.GetGetMethod(true) : p.GetSetMethod(true))
                    .OfType<MethodInfo>());
                break;
            }
            case PatchMethodKind.Finalizer:
                what = $"finalizer of {Names.Of(declaring)}";
                candidates.AddRange(declaring.GetMethods(Declared)
                    .Where(m => m.Name == "Finalize" && m.GetParameters().Length == 0 && !m.IsStatic));
                filterByParameters = false;
                break;
            case PatchMethodKind.EventAdd or PatchMethodKind.EventRemove:
            {
                bool add = spec.Kind == PatchMethodKind.EventAdd;
                what = $"{(add ? "add" : "remove")} accessor of the event {Names.Of(declaring)}.{spec.MethodName}";
                candidates.AddRange(declaring.GetEvents(Declared)
                    .Where(e => e.Name == spec.MethodName)
                    .Select(e => add ? e.GetAddMethod(true) : e.GetRemoveMethod(true))
                    .OfType<MethodInfo>());
                filterByParameters = false;
                break;
            }
            default:
                what = $"method {Names.Of(declaring)}.{spec.MethodName}";
                candidates.AddRange(Named(declaring, spec.MethodName));
                break;
        }
        List<MethodBase> matches = filterByParameters && types is not null
            ? [.. candidates.Where(c => c.GetParameters().Select(p => p.ParameterType).SequenceEqual(types))]
            : candidates;
        if (matches.Count == 1 && spec.Kind is not (PatchMethodKind.Enumerator or PatchMethodKind.Async))
            return matches[0];
        string overloads = candidates.Count == 0 ? "" : $" It has: {string.Join("; ", candidates.Select(Names.Of))}.";
        if (matches.Count == 0)
            throw HookBinder.Refuse(HookBindingKind.TargetNotFound, hook, null, -1, null, null,
                $"{spec.Where} names the {what}{(types is null ? "" : $"({string.Join(", ", types.Select(Names.Of))})")}, " +
                $"which {Names.Of(declaring)} does not declare.{overloads}");
        if (matches.Count > 1)
            throw HookBinder.Refuse(HookBindingKind.TargetAmbiguous, hook, null, -1, null, null,
                $"{spec.Where} names the {what}, which has {matches.Count} overloads; give the argument types " +
                $"([Patch(typeof({Names.Of(declaring)}), \"{spec.MethodName}\", typeof(...))]).{overloads}");
        MethodBase found = matches[0];
        if (spec.Kind is PatchMethodKind.Enumerator or PatchMethodKind.Async)
            found = MoveNext(found, spec, hook);
        return found;
    }

    /// <summary>The methods <paramref name="type"/> declares of that name, in metadata order: the runtime's lookup by
    /// name (it keeps the methods of each name it was asked for), not a scan of every method the type declares, which
    /// a patch class naming many methods of one large type would repeat for each. A name the lookup would read as a
    /// prefix (ending in '*') is matched by the scan.</summary>
    private static IEnumerable<MethodInfo> Named(Type type, string? name) =>
        string.IsNullOrEmpty(name) ? []
        : name.EndsWith('*') ? type.GetMethods(Declared).Where(m => m.Name == name)
        : type.GetMember(name, MemberTypes.Method, Declared).Cast<MethodInfo>();

    /// <summary>Whole-type patching: every constructor (static too) and method <paramref name="type"/> declares,
    /// accessors and operators included, in metadata order; members without IL (abstract, extern,
    /// runtime-implemented) are left out.</summary>
    public static IReadOnlyList<MethodBase> DeclaredMembers(Type type)
    {
        ArgumentNullException.ThrowIfNull(type);
        IEnumerable<MethodBase> constructors = type.GetConstructors(Declared).OrderBy(c => c.MetadataToken);
        IEnumerable<MethodBase> methods = type.GetMethods(Declared).OrderBy(m => m.MetadataToken);
        return [.. constructors.Concat(methods).Where(HasBody)];
    }

    /// <summary>Whether a member has IL to weave hooks into.</summary>
    public static bool HasBody(MethodBase method) =>
        !method.IsAbstract && (method.Attributes & MethodAttributes.PinvokeImpl) == 0 &&
        (method.MethodImplementationFlags & (MethodImplAttributes.InternalCall | MethodImplAttributes.CodeTypeMask)) == 0 &&
        method.GetMethodBody() is not null;

    /// <summary>The definition of a method of a constructed generic type or of a generic method instantiation.</summary>
    public static MethodBase Definition(MethodBase target) => Plans.TargetDefinition.Of(target);

    // The MoveNext of an iterator's or an async method's state machine, which holds the method's body.
    private static MethodInfo MoveNext(MethodBase method, TargetSpec spec, MethodInfo? hook)
    {
        StateMachineAttribute? machine = spec.Kind == PatchMethodKind.Async
            ? method.GetCustomAttribute<AsyncStateMachineAttribute>()
            : (StateMachineAttribute?)method.GetCustomAttribute<IteratorStateMachineAttribute>() ??
              method.GetCustomAttribute<AsyncIteratorStateMachineAttribute>();
        MethodInfo? moveNext = machine?.StateMachineType.GetMethod("MoveNext", Declared, Type.EmptyTypes);
        if (moveNext is null)
            throw HookBinder.Refuse(HookBindingKind.TargetNotFound, hook, method, -1, null, null,
                $"{spec.Where} names {Names.Of(method)} as {(spec.Kind == PatchMethodKind.Async ? "an async method" : "an iterator")}, " +
                $"but it has no compiler-generated state machine ({(spec.Kind == PatchMethodKind.Async ? "AsyncStateMachine" : "IteratorStateMachine")} " +
                "attribute): name it as a plain method (PatchMethodKind.Method, MethodType.Normal).");
        return moveNext;
    }
}
