using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Builds a reverse patch's generation (Harmony's HarmonyReversePatch, ReversePatchType.Original): the STUB's new
/// body is the original's IL as its module has it (no generation applied since: not the hooks woven into it),
/// optionally edited by a transpiler, every symbol re-resolved in the stub's module. Checked before anything
/// reaches the profiler: the stub's signature (static; the original's receiver first, then its parameters; its
/// return type), a non-generic original, and that the stub's assembly may access every type and member the
/// body uses (<see cref="StubAccess"/>).
/// </summary>
internal static class ReversePatcher
{
    /// <summary>For the proofs: skips the access check, to show what CoreCLR does with a body its stub may not
    /// access (the stub throws MethodAccessException or FieldAccessException when called).</summary>
    internal static bool SkipAccessCheck { get; set; }

    public static GenerationPlan Plan(MethodBase original, MethodInfo stub, HookMethod? transpiler)
    {
        ArgumentNullException.ThrowIfNull(original);
        ArgumentNullException.ThrowIfNull(stub);
        string originalName = Names.Of(original), stubName = Names.Of(stub);
        if (original.IsGenericMethod || original.DeclaringType is { IsGenericType: true })
            throw Refuse(ReversePatchRefusal.GenericOriginal, original, stub, null,
                $"{originalName} is generic (or a method of a generic type): its body is written over generic " +
                $"parameters the stub {stubName} does not have. Reverse-patch a non-generic method.");
        if (stub.Module.Equals(original.Module) && stub.MetadataToken == original.MetadataToken)
            throw Refuse(ReversePatchRefusal.StubIsOriginal, original, stub, null,
                $"The stub {stubName} is the original itself; give a separate static method (its body is replaced).");
        if (original.IsAbstract || original.GetMethodBody() is null)
            throw Refuse(ReversePatchRefusal.NoBody, original, stub, null,
                $"{originalName} has no IL body (abstract, extern or runtime-implemented): there is nothing to copy.");
        if (stub.IsAbstract || stub.GetMethodBody() is null)
            throw Refuse(ReversePatchRefusal.NoBody, original, stub, null,
                $"The stub {stubName} has no IL body to replace (abstract, extern or runtime-implemented); declare it " +
                $"as an ordinary static method: static {ReplacementRules.Describe(original)} => throw null!;");
        CheckSignature(original, stub);
        GenerationPlan plan = GenerationPlan.FromOriginalOf(original, stub);
        if (transpiler is not null)
            Transpilers.Run(plan, [Transpilers.Bind(original, transpiler)], original);
        if (!SkipAccessCheck)
            CheckAccess(original, stub, plan);
        return plan;
    }

    /// <summary>The stub must be what a call of the original could be compiled against: static, the
    /// original's receiver first (the declaring class, or ref T for a struct), then exactly its parameter types,
    /// and its return type.</summary>
    private static void CheckSignature(MethodBase original, MethodInfo stub)
    {
        string expected = $"static {ReplacementRules.Describe(original)}";
        string stubName = Names.Of(stub);
        if (!stub.IsStatic)
            throw Mismatch(SignatureMismatchKind.NotStatic, -1, null, null,
                $"The reverse-patch stub {stubName} must be static: it takes " +
                (original.IsStatic ? "the original's arguments" : "the original's receiver as its first parameter") +
                $". Expected: {expected}.");
        if (stub.ContainsGenericParameters)
            throw Mismatch(SignatureMismatchKind.OpenGeneric, -1, null, null,
                $"The reverse-patch stub {stubName} is generic; it must be a non-generic method. Expected: {expected}.");
        Type[] parameters = ReplacementRules.ExpectedParameters(original);
        ParameterInfo[] actual = stub.GetParameters();
        if (actual.Length != parameters.Length)
            throw Mismatch(SignatureMismatchKind.ParameterCount, -1, null, null,
                $"The reverse-patch stub {stubName} has {actual.Length} parameter(s); the body of {Names.Of(original)} " +
                $"uses {parameters.Length}{(original.IsStatic ? "" : " (its receiver first)")}. Expected: {expected}.");
        for (int i = 0; i < parameters.Length; i++)
        {
            if (actual[i].ParameterType != parameters[i])
                throw Mismatch(SignatureMismatchKind.ParameterType, i, parameters[i], actual[i].ParameterType,
                    $"Parameter {i} ('{actual[i].Name}') of the reverse-patch stub {stubName} is " +
                    $"{Names.Of(actual[i].ParameterType)}; expected {Names.Of(parameters[i])}" +
                    (!original.IsStatic && i == 0 ? $" (the receiver of {Names.Of(original)})" : "") +
                    $". Expected: {expected}.");
        }
        Type returns = ReplacementRules.ReturnTypeOf(original);
        if (stub.ReturnType != returns)
            throw Mismatch(SignatureMismatchKind.ReturnType, -1, returns, stub.ReturnType,
                $"The reverse-patch stub {stubName} returns {Names.Of(stub.ReturnType)}; expected {Names.Of(returns)}, " +
                $"what {Names.Of(original)} returns. Expected: {expected}.");

        SignatureMismatchException Mismatch(SignatureMismatchKind kind, int index, Type? expectedType, Type? actualType,
            string message) => new(original, stub, kind, index, expectedType, actualType, message);
    }

    /// <summary>Every type and member the body uses (operands, locals, catch types) must be accessible from the
    /// stub's assembly, or the JIT makes the stub throw when it is called.</summary>
    private static void CheckAccess(MethodBase original, MethodInfo stub, GenerationPlan plan)
    {
        Assembly from = stub.Module.Assembly;
        HashSet<string> ignored = StubAccess.IgnoredBy(from);
        IEnumerable<MemberInfo> used = plan.Instructions.Select(i => i.Operand).OfType<MemberInfo>()
            .Concat(plan.Locals.Select(l => l.LocalType))
            .Concat(plan.ExceptionRegions.Select(r => r.CatchType).OfType<Type>());
        foreach (MemberInfo member in used)
        {
            if (StubAccess.Denied(member, from, ignored) is not { } denied)
                continue;
            string owner = (denied as Type ?? denied.DeclaringType)?.Assembly.GetName().Name ?? "?";
            string what = denied is Type type ? $"the type {Names.Of(type)}" : $"{Describe(denied)}";
            string fix = denied.Module.Assembly == from
                ? $"it is private or protected in the stub's own assembly {from.GetName().Name}, which no attribute " +
                  "opens: make it internal, or declare the stub in another assembly that ignores access checks to this one"
                : $"add [assembly: System.Runtime.CompilerServices.IgnoresAccessChecksTo(\"{owner}\")] to " +
                  $"{from.GetName().Name}, with the attribute class declared in it: namespace " +
                  "System.Runtime.CompilerServices { [AttributeUsage(AttributeTargets.Assembly, AllowMultiple = true)] " +
                  "internal sealed class IgnoresAccessChecksToAttribute(string assemblyName) : Attribute { public string " +
                  "AssemblyName { get; } = assemblyName; } } (CoreCLR honours it for a compiled assembly)";
            throw Refuse(ReversePatchRefusal.InaccessibleMember, original, stub, denied,
                $"The body of {Names.Of(original)} uses {what} of {owner}, which the stub {Names.Of(stub)} in " +
                $"{from.GetName().Name} may not access: called, the stub would throw " +
                $"{(denied is FieldInfo ? "FieldAccessException" : denied is Type ? "TypeAccessException" : "MethodAccessException")}. " +
                $"To let it: {fix}.");
        }
    }

    private static string Describe(MemberInfo member) => member switch
    {
        FieldInfo f => $"the {Access(f.Attributes & FieldAttributes.FieldAccessMask)} field {Names.Of(f)}",
        MethodBase m => $"the {Access((FieldAttributes)(int)(m.Attributes & MethodAttributes.MemberAccessMask))} " +
                        $"method {Names.Of(m)}",
        _ => member.Name,
    };

    private static string Access(FieldAttributes access) => access switch
    {
        FieldAttributes.Assembly => "internal",
        FieldAttributes.Family => "protected",
        FieldAttributes.FamORAssem => "protected internal",
        FieldAttributes.FamANDAssem => "private protected",
        FieldAttributes.Public => "public",
        _ => "private",
    };

    private static ReversePatchException Refuse(ReversePatchRefusal kind, MethodBase original, MethodInfo stub,
        MemberInfo? member, string message) => new(kind, original, stub, member, message);
}
