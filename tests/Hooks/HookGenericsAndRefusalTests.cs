using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Plans;
using Xunit;

namespace AlvorKit.Hooks.Tests;

#pragma warning disable IDE0060, CA1707, CA1051 // hook parameters are bound by name, not used; public fields of targets

/// <summary>A generic struct whose own type appears as a receiver and as an argument.</summary>
public struct Pair<T>
{
    public T? Left;

    public readonly bool Same(Pair<T> other) => EqualityComparer<T>.Default.Equals(Left, other.Left);
}

/// <summary>A generic exception type, for a catch clause naming its definition.</summary>
public class GenericFaultException<T> : Exception
{
}

public class Cell
{
    public int Value;

    public ref int Slot() => ref Value;
}

public static class FixHooks
{
    public static void BoxedReceiverAndArgs(object __instance, object[] __args)
    {
    }

    public static void ReceiverOnly(object __instance)
    {
    }

    public static void PrefixResult(ref int __result)
    {
    }

    public static bool SkippingPrefix() => true;

    public static void VoidPrefix()
    {
    }

    public static void FinalizerResult(int __result)
    {
    }

    public static Exception? SwallowingFinalizer(Exception __exception) => __exception;

    public static void ObservingFinalizer(Exception __exception)
    {
    }

    public static void PostfixResult(ref int __result)
    {
    }
}

/// <summary>Generic types in woven hooks, and the hooks refused (a generic definition out of
/// its context, ref returns that would read a null reference, a collectible assembly, a state type the
/// target cannot name), each pinned without a runtime.</summary>
public sealed class HookGenericsAndRefusalTests
{
    private static MethodInfo Hook(string name) => typeof(FixHooks).GetMethod(name)!;

    private static LoweredGeneration Weave(MethodBase target, IEnumerable<HookMethod> prefixes)
    {
        BoundSet set = HookBinder.BindSet(target, prefixes, [], []);
        return HookWeaver.Weave(HookComposition.Compose(target, [new HookSetInfo(set, "mod", 0, "Hook call")]))
            .Lower();
    }

    [Fact]
    public void AGenericStructsOwnTypeIsATypeSpecOutsideLdtoken()
    {
        // CoreCLR refuses a TypeDef of a generic type anywhere but ldtoken: box/ldobj/unbox.any of Pair<T>
        // inside Pair<T>.Same must name Pair<!0> (a TypeSpec), not the TypeDef Pair`1.
        MethodInfo same = typeof(Pair<>).GetMethod(nameof(Pair<int>.Same))!;
        LoweredGeneration lowered = Weave(same, [Hook(nameof(FixHooks.BoxedReceiverAndArgs))]);

        foreach (string opcode in new[] { "box ", "ldobj ", "unbox.any " })
        {
            // One TypeSpec for every use: its description names each (the first, then its sites).
            Assert.Contains(lowered.Relocations, r => r.Kind == RelocationKind.TypeSpec &&
                                                      r.Description.Split("; ").Any(d => d.StartsWith(opcode, StringComparison.Ordinal)) &&
                                                      r.Description.Contains("Pair", StringComparison.Ordinal));
        }
    }

    [Fact]
    public void AGenericTypeDefinitionOutsideItsOwnGenericContextIsRefused()
    {
        // Outside ldtoken a definition becomes a TypeSpec over VAR 0..n: right only inside that type itself.
        MethodInfo slot = typeof(Cell).GetMethod(nameof(Cell.Slot))!;
        MethodInfo same = typeof(Pair<>).GetMethod(nameof(Pair<int>.Same))!;

        var plain = new GenerationPlan(slot);
        PlanException noContext = Assert.Throws<PlanException>(() => plain.Emit(OpCodes.Box, typeof(Pair<>)));
        Assert.Contains("is a generic type definition", noContext.Message, StringComparison.Ordinal);
        Assert.Contains("MakeGenericType", noContext.Message, StringComparison.Ordinal);
        plain.Emit(OpCodes.Ldtoken, typeof(Pair<>)); // ldtoken names the definition itself: fine

        var inPair = new GenerationPlan(same);
        Assert.Throws<PlanException>(() => inPair.Emit(OpCodes.Box, typeof(Dictionary<,>))); // another arity
        Assert.Throws<PlanException>(() => inPair.Emit(OpCodes.Box, typeof(List<>)));         // same arity, not Pair
        inPair.Emit(OpCodes.Box, typeof(Pair<>));                                              // Pair<!0>: fine

        // A catch clause naming a generic exception's definition: the same rule (no TypeDef token).
        var catching = new GenerationPlan(slot);
        PlanException caught = Assert.Throws<PlanException>(() => catching.AddCatchRegion(catching.DefineLabel(),
            catching.DefineLabel(), catching.DefineLabel(), catching.DefineLabel(), typeof(GenericFaultException<>)));
        Assert.Contains("catch", caught.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void RefReturningTargetsRefuseWhatWouldReadOrReturnANullReference()
    {
        MethodInfo slot = typeof(Cell).GetMethod(nameof(Cell.Slot))!;

        HookBindingException prefixResult = Assert.Throws<HookBindingException>(() =>
            HookBinder.Bind(slot, Hook(nameof(FixHooks.PrefixResult)), HookKind.Prefix));
        Assert.Equal(HookBindingKind.RefResultNotReturned, prefixResult.Kind);
        Assert.Equal(0, prefixResult.ParameterIndex);
        Assert.Contains("a prefix runs before it", prefixResult.Message, StringComparison.Ordinal);

        HookBindingException finalizerResult = Assert.Throws<HookBindingException>(() =>
            HookBinder.Bind(slot, Hook(nameof(FixHooks.FinalizerResult)), HookKind.Finalizer));
        Assert.Equal(HookBindingKind.RefResultNotReturned, finalizerResult.Kind);

        HookBindingException skipping = Assert.Throws<HookBindingException>(() =>
            HookBinder.Bind(slot, Hook(nameof(FixHooks.SkippingPrefix)), HookKind.Prefix));
        Assert.Equal(HookBindingKind.NullReferenceReturn, skipping.Kind);
        Assert.Contains("skipping the original would return no reference", skipping.Message, StringComparison.Ordinal);

        HookBindingException swallowing = Assert.Throws<HookBindingException>(() =>
            HookBinder.Bind(slot, Hook(nameof(FixHooks.SwallowingFinalizer)), HookKind.Finalizer));
        Assert.Equal(HookBindingKind.NullReferenceReturn, swallowing.Kind);

        // What stays: void prefixes, observing finalizers, postfixes taking the returned reference.
        HookBinder.Bind(slot, Hook(nameof(FixHooks.VoidPrefix)), HookKind.Prefix);
        HookBinder.Bind(slot, Hook(nameof(FixHooks.ObservingFinalizer)), HookKind.Finalizer);
        HookBinder.Bind(slot, Hook(nameof(FixHooks.PostfixResult)), HookKind.Postfix);
        // A prefix's __result on a value-returning target is still fine.
        HookBinder.Bind(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!, Hook(nameof(FixHooks.PrefixResult)), HookKind.Prefix);
    }

    [Fact]
    public void AHookOfACollectibleAssemblyIsRefused()
    {
        AssemblyBuilder assembly = AssemblyBuilder.DefineDynamicAssembly(new AssemblyName("AlvorKit.Hooks.Tests.Collectible"),
            AssemblyBuilderAccess.RunAndCollect);
        TypeBuilder type = assembly.DefineDynamicModule("Collectible").DefineType("CollectibleHooks",
            TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
        type.DefineMethod("Prefix", MethodAttributes.Public | MethodAttributes.Static, typeof(void), Type.EmptyTypes)
            .GetILGenerator().Emit(OpCodes.Ret);
        MethodInfo prefix = type.CreateType().GetMethod("Prefix")!;

        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            HookBinder.Bind(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!, prefix, HookKind.Prefix));
        Assert.Equal(HookBindingKind.CollectibleHook, e.Kind);
        Assert.Contains("collectible assembly AlvorKit.Hooks.Tests.Collectible", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AStateTypeTheTargetsModuleCannotNameIsRefusedAtBinding()
    {
        // A mod loaded in its own AssemblyLoadContext: its __state type cannot be named from the target's
        // module (the default context does not resolve the mod's name to it).
        MethodInfo prefix = ModInOwnContext.Prefix;
        HookBindingException e = Assert.Throws<HookBindingException>(() =>
            HookBinder.BindSet(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!, [prefix], [], []));
        Assert.Equal(HookBindingKind.UnreachableType, e.Kind);
        Assert.Equal(0, e.ParameterIndex);
        Assert.Equal("ModState", e.Actual);
        Assert.Contains("is loaded in the AssemblyLoadContext 'hook fix mods'", e.Message, StringComparison.Ordinal);
    }
}

/// <summary>static void Prefix(out ModState __state) in an assembly loaded from its bytes into its own
/// (non-collectible) AssemblyLoadContext.</summary>
internal static class ModInOwnContext
{
    private static readonly Lazy<MethodInfo> Loaded = new(Build);

    public static MethodInfo Prefix => Loaded.Value;

    private static MethodInfo Build()
    {
        var builder = new PersistedAssemblyBuilder(new AssemblyName("AlvorKit.Hooks.Tests.Mod"), typeof(object).Assembly);
        ModuleBuilder module = builder.DefineDynamicModule("AlvorKit.Hooks.Tests.Mod");
        TypeBuilder state = module.DefineType("ModState", TypeAttributes.Public | TypeAttributes.Class);
        state.DefineDefaultConstructor(MethodAttributes.Public);
        TypeBuilder hooks = module.DefineType("ModHooks", TypeAttributes.Public | TypeAttributes.Class |
                                                         TypeAttributes.Abstract | TypeAttributes.Sealed);
        MethodBuilder prefix = hooks.DefineMethod("Prefix", MethodAttributes.Public | MethodAttributes.Static,
            typeof(void), [state.MakeByRefType()]);
        prefix.DefineParameter(1, ParameterAttributes.Out, "__state");
        ILGenerator il = prefix.GetILGenerator();
        il.Emit(OpCodes.Ldarg_0);
        il.Emit(OpCodes.Ldnull);
        il.Emit(OpCodes.Stind_Ref);
        il.Emit(OpCodes.Ret);
        state.CreateType();
        hooks.CreateType();
        using var stream = new MemoryStream();
        builder.Save(stream);
        stream.Position = 0;
        Assembly loaded = new AssemblyLoadContext("hook fix mods").LoadFromStream(stream);
        return loaded.GetType("ModHooks")!.GetMethod("Prefix")!;
    }
}
