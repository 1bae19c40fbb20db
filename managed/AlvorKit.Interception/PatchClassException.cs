using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>
/// A patch class whose lifecycle methods (Prepare, Cleanup, TargetMethod, TargetMethods: see
/// <see cref="PatchPrepareAttribute"/>) or whose shape cannot be used: one threw (its exception is the
/// <see cref="Exception.InnerException"/>), returned what it must not (a null target, a wrong type), is not
/// static, or the class combines targets that exclude each other. The message says what was expected, what was
/// found and a declaration that works. Found before anything reached the profiler, unless a Cleanup returned it.
/// </summary>
public sealed class PatchClassException : InterceptionException
{
    internal PatchClassException(Type patchClass, MethodInfo? method, MethodBase? target, string message,
        Exception? inner = null) : base(message, inner)
    {
        PatchClass = patchClass;
        Method = method;
        Target = target;
    }

    /// <summary>The patch class.</summary>
    public Type PatchClass { get; }

    /// <summary>The lifecycle method at fault (null when the problem is the class's shape).</summary>
    public MethodInfo? Method { get; }

    /// <summary>The target it was called for (null: the call without a target).</summary>
    public MethodBase? Target { get; }
}
