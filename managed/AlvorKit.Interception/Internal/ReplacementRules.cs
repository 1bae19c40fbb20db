using System.Reflection;
using System.Reflection.Emit;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// The rule exact dispatch needs, checked on the caller's thread before anything reaches the
/// profiler: the replacement is static; its parameters are the target's receiver (the
/// declaring class, or <c>ref TStruct</c> for a struct's instance method) followed by exactly
/// the target's parameter types; it returns exactly the target's return type.
/// </summary>
internal static class ReplacementRules
{
    /// <summary>What a replacement of `target` must take: the receiver first, then the parameters.</summary>
    public static Type[] ExpectedParameters(MethodBase target)
    {
        var expected = new List<Type>();
        if (!target.IsStatic)
        {
            Type declaring = target.DeclaringType!;
            expected.Add(declaring.IsValueType ? declaring.MakeByRefType() : declaring);
        }
        expected.AddRange(target.GetParameters().Select(p => p.ParameterType));
        return [.. expected];
    }

    public static Type ReturnTypeOf(MethodBase target) => target is MethodInfo m ? m.ReturnType : typeof(void);

    /// <summary>Throws NotSupportedException for targets exact dispatch cannot serve.</summary>
    public static void CheckTarget(MethodBase target)
    {
        if (target.IsGenericMethod || target.DeclaringType is { IsGenericType: true })
            throw new NotSupportedException(
                $"{Names.Of(target)} is generic (or belongs to a generic type): one replacement entry point " +
                "cannot serve every instantiation. Write its new body as a GenerationPlan and Apply it instead.");
        if ((target.CallingConvention & CallingConventions.VarArgs) != 0)
            throw new NotSupportedException($"{Names.Of(target)} takes varargs, which exact dispatch does not support.");
        if (target.IsAbstract)
            throw new NotSupportedException($"{Names.Of(target)} is abstract: it has no body to replace.");
    }

    /// <summary>Throws SignatureMismatchException when `replacement` cannot stand in for `target`,
    /// and InterceptionException (ReplacementIsTarget) when it is the target itself: every call
    /// would call itself until the stack overflows.</summary>
    public static void Check(MethodBase target, MethodInfo replacement)
    {
        if (replacement.Module.Equals(target.Module) && replacement.MetadataToken == target.MetadataToken)
            throw new InterceptionException(
                $"{Names.Of(target)} cannot be its own replacement: every call of it would call itself until the stack " +
                "overflows. Give a static method that computes the new result (a hook's Prefix/Postfix can run " +
                "around the original instead).", InterceptionStatus.ReplacementIsTarget);

        string targetName = Names.Of(target), replacementName = Names.Of(replacement);
        if (replacement is DynamicMethod)
            throw new NotSupportedException(
                $"{replacementName} is a DynamicMethod; a replacement must be a compiled method of a loaded assembly.");
        if (!replacement.IsStatic)
            throw Mismatch(SignatureMismatchKind.NotStatic, -1, null, null,
                $"The replacement {replacementName} must be static: it receives " +
                (target.IsStatic ? "the target's arguments" : "the target's receiver as its first parameter") +
                $" instead of running on an instance. Expected: static {Describe(target)}.");
        if (replacement.ContainsGenericParameters)
            throw Mismatch(SignatureMismatchKind.OpenGeneric, -1, null, null,
                $"The replacement {replacementName} is an open generic method, which has no single entry point; " +
                $"close it with MakeGenericMethod, or write a non-generic one. Expected: static {Describe(target)}.");

        Type[] expected = ExpectedParameters(target);
        ParameterInfo[] actual = replacement.GetParameters();
        if (actual.Length != expected.Length)
            throw Mismatch(SignatureMismatchKind.ParameterCount, -1, null, null,
                $"The replacement {replacementName} has {Count(actual.Length)}; {targetName} needs " +
                $"{Count(expected.Length)}{(target.IsStatic ? "" : " (its receiver first)")}. " +
                $"Expected: static {Describe(target)}.");
        for (int i = 0; i < expected.Length; i++)
        {
            if (actual[i].ParameterType == expected[i])
                continue;
            string what = !target.IsStatic && i == 0
                ? $"the receiver of {targetName}" +
                  (expected[0].IsByRef ? ", by reference because it is a struct" : "")
                : $"parameter '{target.GetParameters()[target.IsStatic ? i : i - 1].Name}' of {targetName}";
            throw Mismatch(SignatureMismatchKind.ParameterType, i, expected[i], actual[i].ParameterType,
                $"Parameter {i} ('{actual[i].Name}') of the replacement {replacementName} is " +
                $"{Names.Of(actual[i].ParameterType)}; expected {Names.Of(expected[i])} ({what}). " +
                $"Expected: static {Describe(target)}.");
        }
        Type returns = ReturnTypeOf(target);
        if (replacement.ReturnType != returns)
            throw Mismatch(SignatureMismatchKind.ReturnType, -1, returns, replacement.ReturnType,
                $"The replacement {replacementName} returns {Names.Of(replacement.ReturnType)}; expected " +
                $"{Names.Of(returns)}, the return type of {targetName}. Expected: static {Describe(target)}.");

        SignatureMismatchException Mismatch(SignatureMismatchKind kind, int index, Type? expectedType, Type? actualType,
            string message) => new(target, replacement, kind, index, expectedType, actualType, message);
    }

    /// <summary>"int Name(World self, float dt)": the replacement signature `target` needs.</summary>
    public static string Describe(MethodBase target)
    {
        var parts = new List<string>();
        if (!target.IsStatic)
            parts.Add($"{Names.Of(ExpectedParameters(target)[0])} self");
        parts.AddRange(target.GetParameters().Select(p =>
            $"{(p.ParameterType.IsByRef ? (p.IsOut ? "out " : p.IsIn ? "in " : "ref ") + Names.Of(p.ParameterType.GetElementType()) : Names.Of(p.ParameterType))} {p.Name}"));
        return $"{Names.Of(ReturnTypeOf(target))} {target.Name}({string.Join(", ", parts)})";
    }

    private static string Count(int n) => n == 1 ? "1 parameter" : $"{n} parameters";
}
