using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>Why a hook cannot be woven into its target (<see cref="HookBindingException.Kind"/>).</summary>
public enum HookBindingKind
{
    /// <summary>The hook is not a static method.</summary>
    NotStatic,

    /// <summary>The hook is a generic method, or declared on an open generic type: it has no single entry point.</summary>
    GenericHook,

    /// <summary>The target (or the hook) takes varargs.</summary>
    Varargs,

    /// <summary>The target has no IL to weave into: abstract, extern, an interface method, runtime-implemented.</summary>
    TargetWithoutBody,

    /// <summary>The target's body uses <c>jmp</c>, which leaves the method without returning through the woven exit.</summary>
    TargetUsesJmp,

    /// <summary>A hook parameter's name is none of the injected names (<c>__instance</c>, <c>__result</c>,
    /// <c>__state</c>, <c>__exception</c>, <c>__runOriginal</c>, <c>__originalMethod</c>, <c>__args</c>,
    /// <c>__0</c>, <c>__1</c>...) nor a parameter name of the target.</summary>
    UnknownParameter,

    /// <summary>A hook parameter's type (or by-reference form) does not fit what it receives.</summary>
    ParameterType,

    /// <summary>The hook's return type is not one its kind allows (prefix: void or bool; postfix: void or the
    /// target's return type, passed through; finalizer: void or Exception).</summary>
    ReturnType,

    /// <summary><c>__instance</c> on a static target.</summary>
    NoInstance,

    /// <summary><c>__result</c> (or a pass-through postfix) on a target that returns void.</summary>
    NoResult,

    /// <summary><c>__exception</c> on a prefix or a postfix (only finalizers receive it).</summary>
    ExceptionOutsideFinalizer,

    /// <summary>The hooks of one set disagree on the <c>__state</c> type, or a prefix takes it by value.</summary>
    StateType,

    /// <summary>A <see cref="PatchAttribute"/> names no member of its type.</summary>
    TargetNotFound,

    /// <summary>A <see cref="PatchAttribute"/> without argument types names several overloads.</summary>
    TargetAmbiguous,

    /// <summary>A patch class (or a Hook call) has no hooks, or a patch class's hooks have no target.</summary>
    NoHooks,

    /// <summary><c>__result</c> in a prefix or a finalizer of a ref-returning target: before the original returned
    /// (and after it threw) there is no reference to pass.</summary>
    RefResultNotReturned,

    /// <summary>A bool prefix (it could skip the original) that takes no <c>__resultRef</c>, or an Exception-returning
    /// finalizer (it could swallow the exception), on a ref-returning target: the target would return no reference.</summary>
    NullReferenceReturn,

    /// <summary>The hook's assembly is collectible: the woven body would call into a context that can unload.</summary>
    CollectibleHook,

    /// <summary>The <c>__state</c> type (or a type in it) cannot be named from the target's module: it is not the
    /// module's, none of its AssemblyRefs reaches it, and a new AssemblyRef would not bind to its assembly from
    /// the target's AssemblyLoadContext.</summary>
    UnreachableType,

    /// <summary>A <c>___field</c> parameter names no field of the target's declaring type or its base classes (or a
    /// constant, which has no storage).</summary>
    UnknownField,

    /// <summary>A <c>___field</c> parameter names an instance field, but the target is static.</summary>
    InstanceFieldOnStaticTarget,

    /// <summary>A <c>___field</c> parameter names a field the target's own code cannot name: private to a base class,
    /// or internal to another assembly (the woven body is the target's body, bound by the runtime's access rules).</summary>
    InaccessibleField,

    /// <summary><c>__resultRef</c> on a target that does not return a reference, or in a finalizer (it runs once the
    /// result is final).</summary>
    ResultRef,

    /// <summary>An inner hook names a call the target does not make (that often), or a call infixes do not
    /// support (a constructor, a struct's instance method, by-ref parameters or result, a constrained. call).</summary>
    InnerCall,
}

/// <summary>
/// A hook that cannot be woven into its target, found before anything reached the profiler
/// (<see cref="InterceptionException.Status"/> is null). The message says what does not fit, which parameter,
/// what was expected and found, and a declaration that would work.
/// </summary>
public sealed class HookBindingException : InterceptionException
{
    internal HookBindingException(HookBindingKind kind, MethodInfo? hook, MethodBase? target, int parameterIndex,
        string? expected, string? actual, string message) : base(message)
    {
        Kind = kind;
        Hook = hook;
        Target = target;
        ParameterIndex = parameterIndex;
        Expected = expected;
        Actual = actual;
    }

    /// <summary>What does not fit.</summary>
    public HookBindingKind Kind { get; }

    /// <summary>The hook (null when the problem is a patch class's target or a missing hook).</summary>
    public MethodInfo? Hook { get; }

    /// <summary>The target (null when a <see cref="PatchAttribute"/> names none).</summary>
    public MethodBase? Target { get; }

    /// <summary>The hook parameter's position (0-based); -1 when the problem is the hook itself (its return,
    /// its being static or generic) or the target.</summary>
    public int ParameterIndex { get; }

    /// <summary>A type that would fit there, in C# terms (such as <c>int</c> or <c>out long</c>; the message lists
    /// every form that fits), or for a return, what the kind allows.</summary>
    public string? Expected { get; }

    /// <summary>What the hook has there, in C# terms.</summary>
    public string? Actual { get; }
}
