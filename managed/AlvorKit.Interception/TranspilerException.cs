using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>
/// A transpiler threw, returned nothing, or produced a body that cannot be a method body (a branch to a label
/// no instruction carries, an instruction given an operand it does not take, a body that is not type-safe...).
/// Found while the new body was built, before anything reached the profiler: the change (adding or removing
/// hooks) was refused and the target keeps the body it had. <see cref="Exception.InnerException"/> is what the
/// transpiler threw, or the plan's own refusal (<see cref="PlanException"/>, <see cref="StackTypeMismatchException"/>).
/// </summary>
public sealed class TranspilerException : InterceptionException
{
    internal TranspilerException(MethodInfo? transpiler, MethodBase target, string message, Exception? inner = null)
        : base(message, inner)
    {
        Transpiler = transpiler;
        Target = target;
    }

    /// <summary>The transpiler at fault; null when the body the transpilers made together cannot be lowered
    /// (the message lists them in the order they ran).</summary>
    public MethodInfo? Transpiler { get; }

    /// <summary>The method whose body was being transpiled (a hook target, or a reverse patch's original).</summary>
    public MethodBase Target { get; }
}
