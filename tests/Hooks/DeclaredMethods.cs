using System.Reflection;

namespace AlvorKit.Hooks.Tests;

/// <summary>Every method and constructor the types of an assembly declare (those of its types that
/// load), for the tests that go over real assemblies.</summary>
internal static class DeclaredMethods
{
    public const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                         BindingFlags.Static | BindingFlags.DeclaredOnly;

    public static IEnumerable<MethodBase> Of(Assembly assembly)
    {
        Type[] types;
        try
        {
            types = assembly.GetTypes();
        }
        catch (ReflectionTypeLoadException e)
        {
            types = [.. e.Types.OfType<Type>()];
        }
        foreach (Type type in types)
        {
            foreach (MethodInfo method in type.GetMethods(Declared))
                yield return method;
            foreach (ConstructorInfo constructor in type.GetConstructors(Declared))
                yield return constructor;
        }
    }
}
