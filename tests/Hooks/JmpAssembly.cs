using System.Reflection;
using System.Reflection.Emit;

namespace AlvorKit.Hooks.Tests;

/// <summary>An assembly with a method whose body is <c>jmp</c> (C# cannot write one), emitted with
/// PersistedAssemblyBuilder and loaded from its bytes: a real, non-dynamic assembly with metadata.</summary>
internal static class JmpAssembly
{
    private static readonly Lazy<Type> Loaded = new(Build);

    /// <summary>static int Forward(int x) { jmp Target }; static int Target(int x) => x.</summary>
    public static MethodInfo Forward => Loaded.Value.GetMethod("Forward")!;

    private static Type Build()
    {
        var builder = new PersistedAssemblyBuilder(new AssemblyName("AlvorKit.Hooks.Tests.Jmp"), typeof(object).Assembly);
        ModuleBuilder module = builder.DefineDynamicModule("AlvorKit.Hooks.Tests.Jmp");
        TypeBuilder type = module.DefineType("JmpTarget", TypeAttributes.Public | TypeAttributes.Class |
                                                          TypeAttributes.Abstract | TypeAttributes.Sealed);
        MethodBuilder target = type.DefineMethod("Target", MethodAttributes.Public | MethodAttributes.Static,
            typeof(int), [typeof(int)]);
        ILGenerator il = target.GetILGenerator();
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ret);
        MethodBuilder forward = type.DefineMethod("Forward", MethodAttributes.Public | MethodAttributes.Static,
            typeof(int), [typeof(int)]);
        il = forward.GetILGenerator();
        il.Emit(OpCodes.Jmp, target);
        type.CreateType();
        using var stream = new MemoryStream();
        builder.Save(stream);
        return Assembly.Load(stream.ToArray()).GetType("JmpTarget")!;
    }
}
