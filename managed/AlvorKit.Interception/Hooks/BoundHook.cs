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
}

/// <summary>One hook parameter bound: its source, how it is passed, the target argument (for
/// <see cref="HookSource.Argument"/>: the IL argument index, the receiver counted), the type to
/// load or box, and the type the hook declares (castclass when narrower, for __originalMethod).</summary>
internal readonly record struct HookArgument(HookSource Source, HookPassing Passing, int ArgumentIndex, Type ValueType,
    Type ParameterType);

/// <summary>A hook whose every parameter is bound to its target.</summary>
internal sealed record BoundHook(HookMethod Hook, HookKind Kind, HookReturn Return, IReadOnlyList<HookArgument> Arguments)
{
    public MethodInfo Method => Hook.Method;

    public bool Uses(HookSource source) => Arguments.Any(a => a.Source == source);
}
