using System.Reflection;
using System.Runtime.CompilerServices;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Whether code in one assembly (a reverse patch's stub) may use a type or member, as CoreCLR's JIT checks it when
/// it compiles the stub's new body: a public member of a public type (nested in public types) anywhere; an
/// internal one of its own assembly or of an assembly whose InternalsVisibleTo names it; anything of another
/// assembly that the stub's assembly names in <c>[assembly: IgnoresAccessChecksTo("Name")]</c> (the attribute
/// class, System.Runtime.CompilerServices.IgnoresAccessChecksToAttribute, declared by the mod itself: CoreCLR
/// matches it by name). Private and protected members of the stub's OWN assembly stay out of reach (the stub is
/// not in their class), as does protected anything (the stub's class derives from nothing of the game's).
/// </summary>
internal static class StubAccess
{
    private const string IgnoresAccessChecksTo = "System.Runtime.CompilerServices.IgnoresAccessChecksToAttribute";

    /// <summary>The simple names the assembly's IgnoresAccessChecksTo attributes name.</summary>
    public static HashSet<string> IgnoredBy(Assembly assembly) =>
        [.. assembly.GetCustomAttributesData()
            .Where(a => a.AttributeType.FullName == IgnoresAccessChecksTo && a.ConstructorArguments.Count == 1 &&
                        a.ConstructorArguments[0].Value is string)
            .Select(a => (string)a.ConstructorArguments[0].Value!)];

    /// <summary>Null when `from` may use `member`; otherwise the type or member it may not use (the
    /// innermost: a private nested type, or the member itself).</summary>
    public static MemberInfo? Denied(MemberInfo member, Assembly from, HashSet<string> ignored)
    {
        switch (member)
        {
            case Type type:
                return DeniedType(type, from, ignored);
            case MethodBase method:
                if (method.DeclaringType is { } declaring && DeniedType(declaring, from, ignored) is { } t)
                    return t;
                if (method is MethodInfo { IsGenericMethod: true } generic)
                    foreach (Type argument in generic.GetGenericArguments())
                        if (DeniedType(argument, from, ignored) is { } a)
                            return a;
                return Allowed(method.Attributes & MethodAttributes.MemberAccessMask, method.Module.Assembly, from, ignored)
                    ? null : method;
            case FieldInfo field:
                if (field.DeclaringType is { } owner && DeniedType(owner, from, ignored) is { } o)
                    return o;
                return Allowed((MethodAttributes)(int)(field.Attributes & FieldAttributes.FieldAccessMask),
                    field.Module.Assembly, from, ignored) ? null : field;
            default:
                return null;
        }
    }

    private static Type? DeniedType(Type type, Assembly from, HashSet<string> ignored)
    {
        if (type.HasElementType)
            return DeniedType(type.GetElementType()!, from, ignored);
        if (type.IsGenericParameter)
            return null;
        if (type.IsConstructedGenericType)
        {
            foreach (Type argument in type.GetGenericArguments())
                if (DeniedType(argument, from, ignored) is { } a)
                    return a;
            type = type.GetGenericTypeDefinition();
        }
        for (Type? level = type; level is not null; level = level.DeclaringType)
        {
            TypeAttributes visibility = level.Attributes & TypeAttributes.VisibilityMask;
            MethodAttributes access = visibility switch
            {
                TypeAttributes.Public or TypeAttributes.NestedPublic => MethodAttributes.Public,
                TypeAttributes.NotPublic or TypeAttributes.NestedAssembly => MethodAttributes.Assembly,
                TypeAttributes.NestedFamORAssem => MethodAttributes.FamORAssem,
                TypeAttributes.NestedFamily => MethodAttributes.Family,
                TypeAttributes.NestedFamANDAssem => MethodAttributes.FamANDAssem,
                _ => MethodAttributes.Private,
            };
            if (!Allowed(access, level.Assembly, from, ignored))
                return level;
        }
        return null;
    }

    /// <summary>Whether `from` may use something of `owner` with `access` (a MemberAccessMask value).</summary>
    private static bool Allowed(MethodAttributes access, Assembly owner, Assembly from, HashSet<string> ignored)
    {
        if (access == MethodAttributes.Public)
            return true;
        bool own = owner == from;
        if (!own && ignored.Contains(owner.GetName().Name ?? ""))
            return true;
        return access is MethodAttributes.Assembly or MethodAttributes.FamORAssem && (own || FriendOf(owner, from));
    }

    private static bool FriendOf(Assembly owner, Assembly from)
    {
        string name = from.GetName().Name ?? "";
        return owner.GetCustomAttributes<InternalsVisibleToAttribute>().Any(a =>
            string.Equals(a.AssemblyName.Split(',')[0].Trim(), name, StringComparison.Ordinal));
    }
}
