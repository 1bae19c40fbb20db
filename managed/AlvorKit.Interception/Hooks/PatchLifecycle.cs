using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Calls the lifecycle methods of a patch class as Harmony does: Prepare (bool or void; false skips), Cleanup
/// (void, or Exception to replace the exception it is given: null suppresses it), TargetMethod (a MethodBase,
/// never null) and TargetMethods (IEnumerable&lt;MethodBase&gt;, no null element). Their parameters are filled by
/// type, in any order and any subset, as Harmony's AccessTools.ActualParameters does: each parameter takes the
/// first input its type accepts (the target, the exception, then the context: the owner and interceptor, or the
/// Harmony instance), or its type's default value when none does (a declared default value is not used).
/// Whatever a lifecycle method throws comes back as a <see cref="PatchClassException"/> around it.
/// </summary>
internal static class PatchLifecycle
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    /// <summary>The class's method <paramref name="marked"/> accepts (its attribute; the first in declaration order),
    /// else the one named <paramref name="name"/>; null when neither exists.</summary>
    public static MethodInfo? Find(Type patchClass, Func<MethodInfo, bool> marked, string name)
    {
        MethodInfo[] methods = [.. patchClass.GetMethods(Declared).OrderBy(m => m.MetadataToken)];
        if (methods.FirstOrDefault(marked) is { } byAttribute)
            return byAttribute;
        MethodInfo[] named = [.. methods.Where(m => m.Name == name)];
        if (named.Length > 1)
            throw new PatchClassException(patchClass, named[1], null,
                $"The patch class {Names.Of(patchClass)} declares {named.Length} methods named {name} " +
                $"({string.Join("; ", named.Select(Names.Of))}); expected one: keep one, or mark the one to use.");
        return named.FirstOrDefault();
    }

    /// <summary>Prepare(original): true when the class has none or it returned true (or void).</summary>
    public static bool Prepare(PatchClassModel model, MethodBase? original, object[] context)
    {
        if (model.Lifecycle.Prepare is not { } prepare)
            return true;
        CheckReturn(model, prepare, original, typeof(bool), "bool or void",
            "static bool Prepare(MethodBase original)");
        object? result = Invoke(model, prepare, original, [original, null, .. context]);
        return prepare.ReturnType == typeof(void) || (bool)result!;
    }

    /// <summary>Cleanup(original, exception): the exception left afterwards (the one given, or what a Cleanup
    /// that returns Exception returned).</summary>
    public static Exception? Cleanup(PatchClassModel model, MethodBase? original, Exception? exception, object[] context)
    {
        if (model.Lifecycle.Cleanup is not { } cleanup)
            return exception;
        object? result = Invoke(model, cleanup, original, [original, exception, .. context]);
        return cleanup.ReturnType == typeof(Exception) ? (Exception?)result : exception;
    }

    /// <summary>The targets TargetMethods returns, else the one TargetMethod returns; null when the class has
    /// neither (an empty list when TargetMethods returned none: the attributes' targets apply).</summary>
    public static IReadOnlyList<MethodBase>? Targets(PatchClassModel model, object[] context)
    {
        if (model.Lifecycle.TargetMethods is { } many)
        {
            CheckReturn(model, many, null, typeof(IEnumerable<MethodBase>), "IEnumerable<MethodBase>",
                "static IEnumerable<MethodBase> TargetMethods()");
            if (many.ReturnType == typeof(void))
                return null;
            var result = (IEnumerable<MethodBase>?)Invoke(model, many, null, [null, null, .. context]);
            List<MethodBase?> targets;
            try
            {
                targets = result is null ? [] : [.. result];
            }
            catch (Exception e)
            {
                throw new PatchClassException(model.Type, many, null,
                    $"{Names.Of(many)} of the patch class {Names.Of(model.Type)} threw while its targets were read: {e.Message}", e);
            }
            if (result is null || targets.Any(t => t is null))
                throw new PatchClassException(model.Type, many, null,
                    $"{Names.Of(many)} of the patch class {Names.Of(model.Type)} returned {(result is null ? "null" : "a null element")}; " +
                    "expected methods or constructors (to skip patching, return false from a Prepare method).");
            return [.. targets.Select(t => t!)];
        }
        if (model.Lifecycle.TargetMethod is { } one)
        {
            CheckReturn(model, one, null, typeof(MethodBase), "MethodBase (MethodInfo, ConstructorInfo)",
                "static MethodBase TargetMethod()");
            var target = one.ReturnType == typeof(void) ? null : (MethodBase?)Invoke(model, one, null, [null, null, .. context]);
            if (target is null)
                throw new PatchClassException(model.Type, one, null,
                    $"{Names.Of(one)} of the patch class {Names.Of(model.Type)} returned null; expected the method or " +
                    "constructor to patch (to skip patching, return false from a Prepare method).");
            return [target];
        }
        return null;
    }

    /// <summary>Harmony's argument filling: each parameter takes the first non-null input its type accepts, or
    /// its type's default value.</summary>
    public static object?[] Arguments(MethodInfo method, object?[] inputs) =>
        [.. method.GetParameters().Select(p =>
        {
            Type type = p.ParameterType;
            object? match = inputs.FirstOrDefault(i => i is not null && type.IsInstanceOfType(i));
            return match ?? (type.IsValueType && !type.IsByRefLike ? Activator.CreateInstance(type) : null);
        })];

    private static void CheckReturn(PatchClassModel model, MethodInfo method, MethodBase? original, Type expected,
        string expectedText, string works)
    {
        if (method.ReturnType != typeof(void) && !expected.IsAssignableFrom(method.ReturnType))
            throw new PatchClassException(model.Type, method, original,
                $"{Names.Of(method)} of the patch class {Names.Of(model.Type)} returns {Names.Of(method.ReturnType)}; " +
                $"expected {expectedText}, as in: {works}.");
    }

    private static object? Invoke(PatchClassModel model, MethodInfo method, MethodBase? original, object?[] inputs)
    {
        if (!method.IsStatic)
            throw new PatchClassException(model.Type, method, original,
                $"{Names.Of(method)} of the patch class {Names.Of(model.Type)} is an instance method; expected a " +
                $"static one: static {Names.Of(method.ReturnType)} {method.Name}(...).");
        if (method.ContainsGenericParameters)
            throw new PatchClassException(model.Type, method, original,
                $"{Names.Of(method)} of the patch class {Names.Of(model.Type)} is generic; expected a non-generic " +
                $"static method: static {Names.Of(method.ReturnType)} {method.Name}(...).");
        try
        {
            return method.Invoke(null, Arguments(method, inputs));
        }
        catch (TargetInvocationException e) when (e.InnerException is { } inner)
        {
            throw new PatchClassException(model.Type, method, original,
                $"{Names.Of(method)} of the patch class {Names.Of(model.Type)} threw " +
                $"{inner.GetType().Name}{(original is null ? "" : $" for {Names.Of(original)}")}: {inner.Message}", inner);
        }
    }
}
