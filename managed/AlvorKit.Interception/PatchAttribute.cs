namespace AlvorKit.Interception;

/// <summary>Which member of <see cref="PatchAttribute.DeclaringType"/> a <see cref="PatchAttribute"/> names.</summary>
public enum PatchMethodKind
{
    /// <summary>The method named <see cref="PatchAttribute.MethodName"/>.</summary>
    Method,

    /// <summary>The getter of the property named <see cref="PatchAttribute.MethodName"/> (an indexer: "Item").</summary>
    Getter,

    /// <summary>The setter of the property named <see cref="PatchAttribute.MethodName"/>.</summary>
    Setter,

    /// <summary>An instance constructor (<see cref="PatchAttribute.MethodName"/> is ignored: ".ctor" or anything);
    /// <see cref="PatchAttribute.ArgumentTypes"/> selects it among several.</summary>
    Constructor,

    /// <summary>The static constructor (the type initializer; <see cref="PatchAttribute.MethodName"/> is ignored).</summary>
    StaticConstructor,

    /// <summary>The <c>MoveNext</c> of the iterator the method named <see cref="PatchAttribute.MethodName"/> returns
    /// (its body lives there: Harmony's MethodType.Enumerator), found through the compiler's
    /// IteratorStateMachine attribute.</summary>
    Enumerator,

    /// <summary>The <c>MoveNext</c> of the async state machine of the method named <see cref="PatchAttribute.MethodName"/>
    /// (Harmony's MethodType.Async), found through the compiler's AsyncStateMachine attribute.</summary>
    Async,

    /// <summary>The type's finalizer (<c>Finalize</c>; <see cref="PatchAttribute.MethodName"/> is ignored).</summary>
    Finalizer,

    /// <summary>The add accessor of the event named <see cref="PatchAttribute.MethodName"/>.</summary>
    EventAdd,

    /// <summary>The remove accessor of the event named <see cref="PatchAttribute.MethodName"/>.</summary>
    EventRemove,
}

/// <summary>
/// Names a target of a patch class (Harmony's HarmonyPatch) for <see cref="Interceptor.PatchAll(Type, PatchOwner?)"/>.
/// On the class: every hook of the class patches that target (several attributes: several targets, one hook
/// set each). On a hook method: that method alone patches that target.
/// </summary>
/// <remarks>
/// A patch class holds static methods named Prefix, Postfix and Finalizer, or marked with
/// <see cref="PatchPrefixAttribute"/>, <see cref="PatchPostfixAttribute"/> and <see cref="PatchFinalizerAttribute"/>
/// (any name). The target is looked up among the members <see cref="DeclaringType"/> declares, public or not,
/// static or instance. Without argument types (<c>[Patch(typeof(Enemy), "Hit")]</c>) the name must have exactly
/// one overload (else <see cref="HookBindingKind.TargetAmbiguous"/>); with them, the overload whose parameter types
/// are exactly these (a by-reference parameter as <c>typeof(int).MakeByRefType()</c>); an explicit empty array
/// (<c>new Type[0]</c>, <c>argumentTypes: []</c>) selects the overload without parameters. A getter or setter
/// without a name (null or "") is an indexer's, selected by its index parameter types. <c>[Patch(typeof(T))]</c>
/// alone names only the type: for <see cref="PatchDeclaredMembersAttribute"/>, or beside a TargetMethod(s)
/// method (<see cref="PatchTargetMethodsAttribute"/>).
/// </remarks>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method, AllowMultiple = true)]
public sealed class PatchAttribute : Attribute
{
    /// <summary>Names only the type: with <see cref="PatchDeclaredMembersAttribute"/> on the class, every member it
    /// declares.</summary>
    /// <param name="declaringType">The type.</param>
    public PatchAttribute(Type declaringType)
    {
        DeclaringType = declaringType;
    }

    /// <summary>A target: <paramref name="declaringType"/>'s only member <paramref name="methodName"/> (its only
    /// overload; for <see cref="PatchMethodKind.Constructor"/>, the only instance constructor).</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The method's name (the property's for <see cref="PatchMethodKind.Getter"/> and
    /// <see cref="PatchMethodKind.Setter"/>; ignored for <see cref="PatchMethodKind.Constructor"/>).</param>
    public PatchAttribute(Type declaringType, string methodName)
    {
        DeclaringType = declaringType;
        MethodName = methodName;
    }

    /// <summary>A target: the overload of <paramref name="declaringType"/>'s member <paramref name="methodName"/>
    /// whose parameter types are exactly <paramref name="argumentTypes"/>. An empty array selects the overload
    /// without parameters (<c>[Patch(typeof(Enemy), "Reset", new Type[0])]</c> or <c>argumentTypes: []</c>):
    /// with <c>Reset()</c> and <c>Reset(int)</c> both declared, it names <c>Reset()</c>.</summary>
    /// <param name="declaringType">The type that declares the target.</param>
    /// <param name="methodName">The method's name (the property's for <see cref="PatchMethodKind.Getter"/> and
    /// <see cref="PatchMethodKind.Setter"/>; ignored for <see cref="PatchMethodKind.Constructor"/>).</param>
    /// <param name="argumentTypes">The overload's parameter types (empty: none).</param>
    public PatchAttribute(Type declaringType, string methodName, params Type[] argumentTypes)
    {
        DeclaringType = declaringType;
        MethodName = methodName;
        ArgumentTypes = argumentTypes ?? [];
    }

    /// <summary>The type that declares the target.</summary>
    public Type DeclaringType { get; }

    /// <summary>The method's (or property's, or event's) name; null when the attribute names only the type.</summary>
    public string? MethodName { get; }

    /// <summary>The overload's parameter types (empty: the overload without parameters); null: the only overload
    /// of <see cref="MethodName"/> (or the only instance constructor), given by the constructor without argument
    /// types.</summary>
    public IReadOnlyList<Type>? ArgumentTypes { get; }

    /// <summary>Which member the attribute names (<see cref="PatchMethodKind.Method"/> by default).</summary>
    public PatchMethodKind Kind { get; init; }
}
