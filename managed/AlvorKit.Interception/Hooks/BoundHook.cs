using System.Reflection;

namespace AlvorKit.Interception.Hooks;

/// <summary>The kinds of hooks.</summary>
internal enum HookKind
{
    Prefix,
    Postfix,
    Finalizer,

    /// <summary>Edits the original's instructions (not woven as a call: run when the body is built).</summary>
    Transpiler,

    /// <summary>Runs before a call inside the original (<see cref="PatchInnerPrefixAttribute"/>; bound by <see cref="InfixBinder"/>).</summary>
    InnerPrefix,

    /// <summary>Runs after a call inside the original (<see cref="PatchInnerPostfixAttribute"/>).</summary>
    InnerPostfix,
}

/// <summary>What a hook returns, as the weaver uses it.</summary>
internal enum HookReturn
{
    /// <summary>Nothing (any kind).</summary>
    Void,

    /// <summary>A prefix's bool: false skips the original.</summary>
    RunOriginal,

    /// <summary>A pass-through postfix: the new result.</summary>
    PassThrough,

    /// <summary>A finalizer's Exception: null swallows, another is thrown.</summary>
    Exception,
}

/// <summary>Where a hook parameter's value comes from.</summary>
internal enum HookSource
{
    Instance,
    Result,
    State,
    Exception,
    RunOriginal,
    OriginalMethod,
    Argument,
    Args,

    /// <summary>A pass-through postfix's first parameter: the result so far.</summary>
    PassThrough,

    /// <summary>A field of the target's declaring type or a base (<c>___name</c>): <see cref="HookArgument.Field"/>.</summary>
    Field,

    /// <summary><c>__resultRef</c>: the address of the woven body's RefResult local; a delegate set in it supplies
    /// the returned reference.</summary>
    ResultRef,
}

/// <summary>How the value is handed over.</summary>
internal enum HookPassing
{
    /// <summary>The slot's value as is (ldarg, ldloc).</summary>
    Value,

    /// <summary>The slot's address (ldarga, ldloca).</summary>
    Address,

    /// <summary>The slot holds a reference: the value it points to (ldobj <see cref="HookArgument.ValueType"/>).</summary>
    Load,

    /// <summary>The slot's value boxed (box <see cref="HookArgument.ValueType"/>).</summary>
    Box,

    /// <summary>The slot holds a reference: the value it points to, boxed.</summary>
    LoadBox,

    /// <summary>A <c>ref object</c> over a slot of another type (Harmony's): the slot's value (read through it when it
    /// holds a reference) boxed into a temporary object local, whose address is passed; after the hook, the
    /// temporary is unboxed (unbox.any <see cref="HookArgument.ValueType"/>) back into the slot.</summary>
    BoxedTemporary,

    /// <summary>A slot whose type involves the target's generic parameters, taken as one instantiation of it (T as
    /// int): box <see cref="HookArgument.ValueType"/>, unbox.any the hook's type (the hook runs only for that
    /// instantiation, so the JIT folds the pair).</summary>
    Convert,

    /// <summary><see cref="Convert"/> by reference: the converted value in a temporary of the hook's type, whose
    /// address is passed; after the hook it is converted back into the slot.</summary>
    ConvertedTemporary,
}

/// <summary>One hook parameter bound: its source, how it is passed, the target argument (for
/// <see cref="HookSource.Argument"/>: the IL argument index, the receiver counted), the type to
/// load or box, the type the hook declares (castclass when narrower, for __originalMethod), and for
/// <see cref="HookSource.Field"/> the field.</summary>
internal sealed record HookArgument(HookSource Source, HookPassing Passing, int ArgumentIndex, Type ValueType,
    Type ParameterType, FieldInfo? Field = null);

/// <summary>One generic parameter of the target (T of Bag&lt;T&gt;, or of M&lt;T&gt;) that a hook's parameter types
/// bind to one argument (int): the hook runs only where the running instantiation has it.</summary>
internal sealed record GenericBinding(Type Parameter, Type Argument);

/// <summary>A hook whose every parameter is bound to its target; <see cref="Instantiation"/>: the generic
/// arguments its parameter types fix (empty: it runs for every instantiation).</summary>
internal sealed record BoundHook(HookMethod Hook, HookKind Kind, HookReturn Return, IReadOnlyList<HookArgument> Arguments,
    IReadOnlyList<GenericBinding> Instantiation)
{
    public MethodInfo Method => Hook.Method;

    public bool Uses(HookSource source) => Arguments.Any(a => a.Source == source);
}
