namespace AlvorKit.Interception;

/// <summary>Marks a static method of a patch class as an inner prefix (Harmony's inner prefix of an infix):
/// it runs just before the chosen call of <see cref="PatchInnerHookAttribute.CalleeType"/>.<see cref="PatchInnerHookAttribute.CalleeName"/>
/// inside the target the class's (or the method's) [Patch] names. See <see cref="Interceptor.HookCall"/> for
/// what an inner prefix may take and return.</summary>
/// <param name="calleeType">The type that declares the called method.</param>
/// <param name="calleeName">The called method's name.</param>
/// <param name="occurrence">Which call of it in the target: 1 the first, 2 the second..., -1 the last, -2 the
/// one before...; 0 every call.</param>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class PatchInnerPrefixAttribute(Type calleeType, string calleeName, int occurrence = 0)
    : PatchInnerHookAttribute(calleeType, calleeName, occurrence);

/// <summary>Marks a static method of a patch class as an inner postfix (Harmony's inner postfix of an infix):
/// it runs just after the chosen call. See <see cref="Interceptor.HookCall"/> for what an inner postfix may take.</summary>
/// <param name="calleeType">The type that declares the called method.</param>
/// <param name="calleeName">The called method's name.</param>
/// <param name="occurrence">Which call of it in the target: 1 the first, -1 the last; 0 every call.</param>
[AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
public sealed class PatchInnerPostfixAttribute(Type calleeType, string calleeName, int occurrence = 0)
    : PatchInnerHookAttribute(calleeType, calleeName, occurrence);

/// <summary>What an inner prefix or postfix attribute names: the called method and which of its calls.</summary>
/// <param name="calleeType">The type that declares the called method.</param>
/// <param name="calleeName">The called method's name.</param>
/// <param name="occurrence">Which call of it in the target (1-based; negative counts from the last; 0 every call).</param>
public abstract class PatchInnerHookAttribute(Type calleeType, string calleeName, int occurrence) : Attribute
{
    /// <summary>The type that declares the called method.</summary>
    public Type CalleeType { get; } = calleeType;

    /// <summary>The called method's name.</summary>
    public string CalleeName { get; } = calleeName;

    /// <summary>Which call of it in the target (1-based; negative counts from the last; 0 every call).</summary>
    public int Occurrence { get; } = occurrence;

    /// <summary>The called method's parameter types, when its name has several overloads (null: the name alone).</summary>
    public Type[]? ArgumentTypes { get; set; }
}
