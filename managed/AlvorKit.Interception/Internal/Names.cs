using System.Reflection;
using System.Text;

namespace AlvorKit.Interception.Internal;

/// <summary>C#-like names of types and methods for messages: <c>Box&lt;int&gt;</c>,
/// <c>ref int</c>, <c>World.Update(float)</c>.</summary>
internal static class Names
{
    private static readonly Dictionary<Type, string> Keywords = new()
    {
        [typeof(void)] = "void", [typeof(bool)] = "bool", [typeof(char)] = "char", [typeof(sbyte)] = "sbyte",
        [typeof(byte)] = "byte", [typeof(short)] = "short", [typeof(ushort)] = "ushort", [typeof(int)] = "int",
        [typeof(uint)] = "uint", [typeof(long)] = "long", [typeof(ulong)] = "ulong", [typeof(float)] = "float",
        [typeof(double)] = "double", [typeof(decimal)] = "decimal", [typeof(string)] = "string",
        [typeof(object)] = "object", [typeof(nint)] = "nint", [typeof(nuint)] = "nuint",
    };

    /// <summary>The name of the AssemblyLoadContext an assembly was loaded in ("Default", or the
    /// name its creator gave it).</summary>
    public static string ContextOf(Assembly assembly) =>
        System.Runtime.Loader.AssemblyLoadContext.GetLoadContext(assembly)?.Name ?? "(unnamed)";

    public static string Of(Type? type)
    {
        if (type is null)
            return "(none)";
        if (type.IsByRef)
            return "ref " + Of(type.GetElementType());
        if (type.IsPointer)
            return Of(type.GetElementType()) + "*";
        if (type.IsArray)
            return Of(type.GetElementType()) + "[" + new string(',', type.GetArrayRank() - 1) + "]";
        if (type.IsGenericParameter)
            return type.Name;
        if (Keywords.TryGetValue(type, out string? keyword))
            return keyword;
        string name = type.Name;
        int tick = name.IndexOf('`');
        if (tick >= 0)
            name = name[..tick];
        if (type.IsNested && !type.IsGenericParameter)
            name = Of(type.DeclaringType!.IsGenericType ? type.DeclaringType.GetGenericTypeDefinition() : type.DeclaringType)
                       .Split('<')[0] + "." + name;
        if (!type.IsGenericType)
            return name;
        Type[] args = type.GetGenericArguments();
        if (type.IsNested && type.DeclaringType!.IsGenericType)
            args = args[type.DeclaringType.GetGenericArguments().Length..];
        return args.Length == 0 ? name : $"{name}<{string.Join(", ", args.Select(Of))}>";
    }

    public static string Of(MethodBase method)
    {
        var text = new StringBuilder();
        if (method is ConstructorInfo { IsStatic: false })
            text.Append("new ").Append(Of(method.DeclaringType));
        else
            text.Append(method.DeclaringType is null ? "<module>" : Of(method.DeclaringType)).Append('.').Append(method.Name);
        if (method is MethodInfo { IsGenericMethod: true } generic)
            text.Append('<').AppendJoin(", ", generic.GetGenericArguments().Select(Of)).Append('>');
        text.Append('(').AppendJoin(", ", method.GetParameters().Select(p => Parameter(p))).Append(')');
        return text.ToString();
    }

    public static string Of(FieldInfo field) =>
        $"{(field.DeclaringType is null ? "<module>" : Of(field.DeclaringType))}.{field.Name}";

    private static string Parameter(ParameterInfo p)
    {
        if (!p.ParameterType.IsByRef)
            return Of(p.ParameterType);
        string element = Of(p.ParameterType.GetElementType());
        return p.IsOut ? "out " + element : p.IsIn ? "in " + element : "ref " + element;
    }
}
