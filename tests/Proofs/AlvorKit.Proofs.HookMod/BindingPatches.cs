using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.HookMod;

// Patch classes of the parameter-binding proof (BindingProof) over the host's BindingTargets: each
// changes the target's result through what its parameters bind, so the proof reads the binding in
// the values the patched methods return.

/// <summary>The original method of a generic type's method is the running instantiation:
/// __result += 1000 for BindingBag&lt;int&gt;, 2000 for BindingBag&lt;string&gt;, 9000 for the open definition.</summary>
[Patch(typeof(BindingBag<>), nameof(BindingBag<int>.Add))]
public static class OriginalInstantiationPatch
{
    /// <summary>The last original method seen, as text.</summary>
    public static string? Last { get; private set; }

    public static void Postfix(ref int __result, MethodBase __originalMethod)
    {
        Last = __originalMethod.DeclaringType + "." + __originalMethod.Name;
        Type declaring = __originalMethod.DeclaringType!;
        __result += 1000 * (declaring.ContainsGenericParameters ? 9
            : declaring.GetGenericArguments()[0] == typeof(int) ? 1
            : declaring.GetGenericArguments()[0] == typeof(string) ? 2 : 8);
    }
}

/// <summary>The original method of a generic method is the running instantiation: __result += 1000 for
/// Pick&lt;int&gt;, 2000 for Pick&lt;string&gt;, 9000 for the definition.</summary>
[Patch(typeof(BindingPicker), nameof(BindingPicker.Pick))]
public static class OriginalGenericMethodPatch
{
    /// <summary>The last original method seen, as text.</summary>
    public static string? Last { get; private set; }

    public static void Postfix(ref int __result, MethodBase __originalMethod)
    {
        var method = (MethodInfo)__originalMethod;
        Last = method.ToString();
        __result += 1000 * (method.IsGenericMethodDefinition ? 9
            : method.GetGenericArguments()[0] == typeof(int) ? 1
            : method.GetGenericArguments()[0] == typeof(string) ? 2 : 8);
    }
}

/// <summary>Fields of the receiver (private), of its base class (protected) and a static one of the base, by
/// value and by reference: the prefix adds armor * 100 to hp; the postfix counts the call in the population
/// and returns hp + 10 000.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Hit))]
public static class FieldPatch
{
    public static void Prefix(ref int ____hp, int ___armor) => ____hp += ___armor * 100;

    public static void Postfix(ref int __result, int ____hp, ref int ___population)
    {
        ___population++;
        __result = ____hp + 10_000;
    }
}

/// <summary>A struct receiver's field, by reference: the prefix adds 1000 to it before the original adds.</summary>
[Patch(typeof(BindingTally), nameof(BindingTally.Next))]
public static class StructFieldPatch
{
    public static void Prefix(ref int ____value) => ____value += 1000;
}

/// <summary>A static target's static field (of the base class), by reference: + 5 before the original reads it.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Census))]
public static class StaticFieldPatch
{
    public static void Prefix(ref int ___population) => ___population += 5;
}

/// <summary>Fields of a generic type: one over T (boxed, as object), one plain (int): __result += 100 * (3 for a
/// string item, 4 for an int) + 10 * size.</summary>
[Patch(typeof(BindingBag<>), nameof(BindingBag<int>.Add))]
public static class GenericFieldPatch
{
    public static void Postfix(ref int __result, object ____last, int ____size) =>
        __result += 100 * (____last is string ? 3 : ____last is int ? 4 : 0) + 10 * ____size;
}

/// <summary>A field the target's type does not have: refused (UnknownField), nothing woven.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Hit))]
public static class MissingFieldPatch
{
    public static void Prefix(int ___health) => _ = ___health;
}

/// <summary>A private field of the base class: the target's body cannot name it (InaccessibleField).</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Hit))]
public static class PrivateBaseFieldPatch
{
    public static void Prefix(int ____secret) => _ = ____secret;
}

/// <summary>Arguments renamed by attribute: on parameters (by name, by position, to __instance) and on the hook
/// method. The prefix makes amount = amount * 10 + bonus and adds 1 to the knight's hp; the postfix adds
/// bonus * 1000.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Heal))]
public static class RenamedArgumentPatch
{
    public static void Prefix([PatchArgument("amount")] ref int heal, [PatchArgument(1)] int extra,
        [PatchArgument("__instance")] BindingKnight self)
    {
        heal = heal * 10 + extra;
        self.Hp += 1;
    }

    [PatchArgument("bonus", "plus")]
    public static void Postfix(ref int __result, int plus) => __result += plus * 1000;
}

/// <summary>A __state the prefix keeps as a List&lt;int&gt; and the postfix reads as IEnumerable&lt;int&gt;:
/// __result += 100 * the sum of [a, a].</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Sum))]
public static class CompatibleStatePatch
{
    public static void Prefix(int a, out List<int> __state) => __state = [a, a];

    public static void Postfix(ref int __result, IEnumerable<int> __state) => __result += __state.Sum() * 100;
}

/// <summary>A value-type __state (int) the postfix takes as object (boxed): __result += 7000.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Boxed))]
public static class BoxedStatePatch
{
    public static void Prefix(out int __state) => __state = 7;

    public static void Postfix(ref int __result, object __state) => __result += (int)__state * 1000;
}

/// <summary><c>ref object __instance</c> on a struct receiver: the prefix replaces the boxed copy, which is
/// unboxed back into the receiver before the original runs (value 5 becomes 105).</summary>
[Patch(typeof(BindingTally), nameof(BindingTally.Grow))]
public static class RefObjectInstancePatch
{
    public static void Prefix(ref object __instance) => __instance = new BindingTally(((BindingTally)__instance).Value + 100);
}

/// <summary><c>ref object</c> over value-type arguments (one by value, one by reference) and over a value-type
/// result: factor + 1 and total + 10 before the original; the result + 500 after it.</summary>
[Patch(typeof(BindingKnight), nameof(BindingKnight.Scale))]
public static class RefObjectValuesPatch
{
    public static void Prefix(ref object factor, ref object total)
    {
        factor = (int)factor + 1;
        total = (int)total + 10;
    }

    public static void Postfix(ref object __result) => __result = (int)__result + 500;
}

/// <summary>Hooks typed for BindingBag&lt;int&gt; (int item, the receiver as BindingBag&lt;int&gt;): they run for that
/// instantiation only: __result += item * 1000 + 1 when the receiver kept the item.</summary>
[Patch(typeof(BindingBag<>), nameof(BindingBag<int>.Put))]
public static class IntInstantiationPatch
{
    public static void Postfix(int item, BindingBag<int> __instance, ref int __result) =>
        __result += item * 1000 + (__instance.Last == item ? 1 : 0);
}

/// <summary>A hook that takes nothing generic, on a target named as one instantiation (BindingBag&lt;int&gt;.Tag):
/// as Harmony binds a patch of one instantiation, it runs for that one only: __result += 100.</summary>
[Patch(typeof(BindingBag<int>), nameof(BindingBag<int>.Tag))]
public static class GivenInstantiationPatch
{
    public static void Postfix(ref int __result) => __result += 100;
}

/// <summary>A hook the host adds with Hook(BindingBag&lt;string&gt;.Tag): __result += 1000 there only.</summary>
public static class GivenInstantiationHooks
{
    public static void PlusThousand(ref int __result) => __result += 1000;
}

/// <summary>Hooks typed for BindingBag&lt;string&gt; (shared code with every reference type): the prefix appends
/// "!" to the item by reference; the postfix adds its length * 100 000. Not for BindingBag&lt;object&gt;.</summary>
[Patch(typeof(BindingBag<>), nameof(BindingBag<int>.Put))]
public static class StringInstantiationPatch
{
    public static void Prefix(ref string item) => item += "!";

    public static void Postfix(string item, ref int __result) => __result += item.Length * 100_000;
}

/// <summary>A hook typed object runs for every instantiation: + 1.</summary>
[Patch(typeof(BindingBag<>), nameof(BindingBag<int>.Put))]
public static class AnyInstantiationPatch
{
    public static void Postfix(object item, ref int __result) => __result += item is null ? 0 : 1;
}

/// <summary>A generic method's hook typed for Measure&lt;string&gt;: + length * 10, there only.</summary>
[Patch(typeof(BindingPicker), nameof(BindingPicker.Measure))]
public static class GenericMethodInstantiationPatch
{
    public static void Postfix(string value, ref int __result) => __result += value.Length * 10;
}

/// <summary>__resultRef: a prefix that skips the original for i = 9 and supplies the spare cell instead; a postfix
/// that redirects i = 1 to cell 2.</summary>
[Patch(typeof(BindingCells), nameof(BindingCells.Cell))]
public static class ResultRefPatch
{
    public static bool Prefix(int i, ref RefResult<int> __resultRef)
    {
        if (i != 9)
            return true;
        __resultRef = () => ref BindingCells.Spare[0];
        return false;
    }

    public static void Postfix(int i, ref RefResult<int> __resultRef)
    {
        if (i == 1)
            __resultRef = () => ref BindingCells.All[2];
    }
}
