using System.Reflection;

#pragma warning disable CA1710, CA1019 // Harmony's attribute names and constructors, so a Harmony mod ports unchanged

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>The base of the Harmony attributes that make a class a patch class for <see cref="Harmony.PatchAll()"/>
/// (<see cref="HarmonyPatch"/>, <see cref="HarmonyPatchCategory"/>, <see cref="HarmonyPatchAll"/>,
/// <see cref="HarmonyPriority"/>, <see cref="HarmonyBefore"/>, <see cref="HarmonyAfter"/>); not meant to be used
/// directly. Unlike Harmony's, it has no public <c>info</c> field.</summary>
public abstract class HarmonyAttribute : Attribute
{
    private protected HarmonyAttribute()
    {
    }

    internal HarmonyInfo Info { get; } = new();
}

/// <summary>
/// Names the target of a patch class (on the class) or of one hook (on the method), with Harmony's constructors
/// and merging: every HarmonyPatch on the class is merged into one description (a later one's set parts win), and
/// a hook's own are merged over it, so <c>[HarmonyPatch(typeof(Enemy))]</c> on the class and
/// <c>[HarmonyPatch(nameof(Enemy.Hit))]</c> on a hook name <c>Enemy.Hit</c>. Without argument types the name must
/// have one overload; with them, the overload whose parameter types are exactly these (ref and out as by-reference
/// types: <see cref="ArgumentType"/>). An empty <c>[HarmonyPatch]</c> goes with TargetMethod(s).
/// </summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Method, AllowMultiple = true)]
public sealed class HarmonyPatch : HarmonyAttribute
{
    /// <summary>Names nothing: the class is a patch class whose targets come from TargetMethod(s) or other
    /// attributes.</summary>
    public HarmonyPatch()
    {
    }

    /// <summary>Names the declaring type.</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    public HarmonyPatch(Type declaringType) => Info.DeclaringType = declaringType;

    /// <summary>Names the declaring type and the argument types (a constructor's, with <see cref="MethodType.Constructor"/>).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="argumentTypes">The target's parameter types.</param>
    public HarmonyPatch(Type declaringType, Type[] argumentTypes)
    {
        Info.DeclaringType = declaringType;
        Info.ArgumentTypes = argumentTypes;
    }

    /// <summary>Names a method (or property, with <see cref="MethodType.Getter"/>/<see cref="MethodType.Setter"/>).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The method's (or property's, or event's) name.</param>
    public HarmonyPatch(Type declaringType, string methodName)
    {
        Info.DeclaringType = declaringType;
        Info.MethodName = methodName;
    }

    /// <summary>Names one overload of a method.</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The method's name.</param>
    /// <param name="argumentTypes">The overload's parameter types (empty: the one without parameters).</param>
    public HarmonyPatch(Type declaringType, string methodName, params Type[] argumentTypes)
    {
        Info.DeclaringType = declaringType;
        Info.MethodName = methodName;
        Info.ArgumentTypes = argumentTypes;
    }

    /// <summary>Names one overload of a method, with ref, out and pointer parameters.</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The method's name.</param>
    /// <param name="argumentTypes">The overload's parameter types, as element types.</param>
    /// <param name="argumentVariations">How each is passed (as many as the types, or fewer: the rest by value).</param>
    public HarmonyPatch(Type declaringType, string methodName, Type[] argumentTypes, ArgumentType[] argumentVariations)
    {
        Info.DeclaringType = declaringType;
        Info.MethodName = methodName;
        Info.ArgumentTypes = Variations(argumentTypes, argumentVariations);
    }

    /// <summary>Names a member by kind (a constructor, a static constructor, a finalizer...).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodType">Which member.</param>
    public HarmonyPatch(Type declaringType, MethodType methodType)
    {
        Info.DeclaringType = declaringType;
        Info.MethodType = methodType;
    }

    /// <summary>Names a member by kind and argument types (a constructor's overload, an indexer's).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodType">Which member.</param>
    /// <param name="argumentTypes">Its parameter types.</param>
    public HarmonyPatch(Type declaringType, MethodType methodType, params Type[] argumentTypes)
    {
        Info.DeclaringType = declaringType;
        Info.MethodType = methodType;
        Info.ArgumentTypes = argumentTypes;
    }

    /// <summary>Names a member by kind and argument types, with ref, out and pointer parameters.</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodType">Which member.</param>
    /// <param name="argumentTypes">Its parameter types, as element types.</param>
    /// <param name="argumentVariations">How each is passed.</param>
    public HarmonyPatch(Type declaringType, MethodType methodType, Type[] argumentTypes, ArgumentType[] argumentVariations)
    {
        Info.DeclaringType = declaringType;
        Info.MethodType = methodType;
        Info.ArgumentTypes = Variations(argumentTypes, argumentVariations);
    }

    /// <summary>Names a member by name and kind (a property's getter or setter, an iterator's MoveNext...).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The member's name.</param>
    /// <param name="methodType">Which member.</param>
    public HarmonyPatch(Type declaringType, string methodName, MethodType methodType)
    {
        Info.DeclaringType = declaringType;
        Info.MethodName = methodName;
        Info.MethodType = methodType;
    }

    /// <summary>Names the method (the type comes from another HarmonyPatch, typically the class's).</summary>
    /// <param name="methodName">The method's name.</param>
    public HarmonyPatch(string methodName) => Info.MethodName = methodName;

    /// <summary>Names one overload of a method (the type from another HarmonyPatch).</summary>
    /// <param name="methodName">The method's name.</param>
    /// <param name="argumentTypes">The overload's parameter types.</param>
    public HarmonyPatch(string methodName, params Type[] argumentTypes)
    {
        Info.MethodName = methodName;
        Info.ArgumentTypes = argumentTypes;
    }

    /// <summary>Names one overload of a method with ref, out and pointer parameters (the type from another HarmonyPatch).</summary>
    /// <param name="methodName">The method's name.</param>
    /// <param name="argumentTypes">The overload's parameter types, as element types.</param>
    /// <param name="argumentVariations">How each is passed.</param>
    public HarmonyPatch(string methodName, Type[] argumentTypes, ArgumentType[] argumentVariations)
    {
        Info.MethodName = methodName;
        Info.ArgumentTypes = Variations(argumentTypes, argumentVariations);
    }

    /// <summary>Names a member by name and kind (the type from another HarmonyPatch).</summary>
    /// <param name="methodName">The member's name.</param>
    /// <param name="methodType">Which member.</param>
    public HarmonyPatch(string methodName, MethodType methodType)
    {
        Info.MethodName = methodName;
        Info.MethodType = methodType;
    }

    /// <summary>Names the kind of member (the type and name from other HarmonyPatch attributes).</summary>
    /// <param name="methodType">Which member.</param>
    public HarmonyPatch(MethodType methodType) => Info.MethodType = methodType;

    /// <summary>Names the kind of member and its argument types.</summary>
    /// <param name="methodType">Which member.</param>
    /// <param name="argumentTypes">Its parameter types.</param>
    public HarmonyPatch(MethodType methodType, params Type[] argumentTypes)
    {
        Info.MethodType = methodType;
        Info.ArgumentTypes = argumentTypes;
    }

    /// <summary>Names the kind of member and its argument types, with ref, out and pointer parameters.</summary>
    /// <param name="methodType">Which member.</param>
    /// <param name="argumentTypes">Its parameter types, as element types.</param>
    /// <param name="argumentVariations">How each is passed.</param>
    public HarmonyPatch(MethodType methodType, Type[] argumentTypes, ArgumentType[] argumentVariations)
    {
        Info.MethodType = methodType;
        Info.ArgumentTypes = Variations(argumentTypes, argumentVariations);
    }

    /// <summary>Names the argument types (the rest from other HarmonyPatch attributes).</summary>
    /// <param name="argumentTypes">The target's parameter types.</param>
    public HarmonyPatch(Type[] argumentTypes) => Info.ArgumentTypes = argumentTypes;

    /// <summary>Names the argument types with ref, out and pointer parameters.</summary>
    /// <param name="argumentTypes">The target's parameter types, as element types.</param>
    /// <param name="argumentVariations">How each is passed.</param>
    public HarmonyPatch(Type[] argumentTypes, ArgumentType[] argumentVariations) =>
        Info.ArgumentTypes = Variations(argumentTypes, argumentVariations);

    /// <summary>Names the declaring type by its full name (searched in the loaded assemblies), a member and its kind.</summary>
    /// <param name="typeName">The declaring type's full name (or, failing that, its name).</param>
    /// <param name="methodName">The member's name.</param>
    /// <param name="methodType">Which member.</param>
    public HarmonyPatch(string typeName, string methodName, MethodType methodType = HarmonyLib.MethodType.Normal)
    {
        Info.DeclaringType = TypeByName(typeName);
        Info.MethodName = methodName;
        Info.MethodType = methodType;
    }

    /// <summary>The declaring type this attribute names (null: another attribute names it).</summary>
    public Type? DeclaringType => Info.DeclaringType;

    /// <summary>The member's name this attribute names (null: another attribute names it).</summary>
    public string? MethodName => Info.MethodName;

    /// <summary>The kind of member this attribute names (null: another attribute names it, else Normal).</summary>
    public MethodType? MethodType => Info.MethodType;

    /// <summary>The argument types this attribute names, by-reference and pointer forms applied (null: unset).</summary>
    public IReadOnlyList<Type>? ArgumentTypes => Info.ArgumentTypes;

    // Harmony's ParseSpecialArguments: each type in the form its variation says.
    private static Type[] Variations(Type[] types, ArgumentType[]? variations)
    {
        ArgumentNullException.ThrowIfNull(types);
        if (variations is null || variations.Length == 0)
            return types;
        if (types.Length < variations.Length)
            throw new ArgumentException(
                $"argumentVariations has {variations.Length} elements but argumentTypes only {types.Length}; expected at " +
                "most one variation per type, as in [HarmonyPatch(typeof(T), \"M\", new[] { typeof(int) }, new[] { ArgumentType.Ref })].",
                nameof(variations));
        return [.. types.Select((t, i) => i >= variations.Length ? t : variations[i] switch
        {
            ArgumentType.Ref or ArgumentType.Out => t.MakeByRefType(),
            ArgumentType.Pointer => t.MakePointerType(),
            _ => t,
        })];
    }

    // Harmony's AccessTools.TypeByName: by full name, then among the loaded assemblies by full name, then by name.
    private static Type? TypeByName(string name)
    {
        if (Type.GetType(name, throwOnError: false) is { } direct)
            return direct;
        Assembly[] assemblies = AppDomain.CurrentDomain.GetAssemblies();
        foreach (Assembly assembly in assemblies)
        {
            if (assembly.GetType(name, throwOnError: false) is { } found)
                return found;
        }
        return assemblies.SelectMany(Types).FirstOrDefault(t => t.FullName == name || t.Name == name);

        static IEnumerable<Type> Types(Assembly assembly)
        {
            try
            {
                return assembly.GetTypes();
            }
            catch (ReflectionTypeLoadException e)
            {
                return e.Types.OfType<Type>();
            }
        }
    }
}

/// <summary>Puts a patch class in a category: <see cref="Harmony.PatchCategory(string)"/> patches the classes of one
/// category, <see cref="Harmony.PatchAllUncategorized()"/> those without one, <see cref="Harmony.PatchAll()"/> all.</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct, AllowMultiple = false)]
public sealed class HarmonyPatchCategory : HarmonyAttribute
{
    /// <summary>The class's category.</summary>
    /// <param name="category">The category's name (compared exactly).</param>
    public HarmonyPatchCategory(string category) => Info.Category = category;

    /// <summary>The category's name.</summary>
    public string? Category => Info.Category;
}

/// <summary>Whole-type patching: with <c>[HarmonyPatch(typeof(TheType))]</c>, every hook of the class patches every
/// constructor and method TheType declares (see <see cref="PatchDeclaredMembersAttribute"/>: members without IL are
/// left out, where Harmony fails on them).</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct)]
public sealed class HarmonyPatchAll : HarmonyAttribute;

/// <summary>The priority of a class's hooks, or of one hook (where both are set, the higher wins, as in Harmony).</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Method)]
public sealed class HarmonyPriority : HarmonyAttribute
{
    /// <summary>The priority.</summary>
    /// <param name="priority">A <see cref="HarmonyLib.Priority"/> value: higher runs earlier.</param>
    public HarmonyPriority(int priority) => Info.Priority = priority;

    /// <summary>The priority.</summary>
    public int Priority => Info.Priority;
}

/// <summary>Harmony IDs whose hooks the class's hooks (or this hook; the method's wins) run before.</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Method)]
public sealed class HarmonyBefore : HarmonyAttribute
{
    /// <summary>Runs before the hooks of these Harmony IDs.</summary>
    /// <param name="before">The Harmony IDs.</param>
    public HarmonyBefore(params string[] before) => Info.Before = before;

    /// <summary>The Harmony IDs.</summary>
    public IReadOnlyList<string> Before => Info.Before ?? [];
}

/// <summary>Harmony IDs whose hooks the class's hooks (or this hook; the method's wins) run after.</summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Method)]
public sealed class HarmonyAfter : HarmonyAttribute
{
    /// <summary>Runs after the hooks of these Harmony IDs.</summary>
    /// <param name="after">The Harmony IDs.</param>
    public HarmonyAfter(params string[] after) => Info.After = after;

    /// <summary>The Harmony IDs.</summary>
    public IReadOnlyList<string> After => Info.After ?? [];
}
