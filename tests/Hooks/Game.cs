namespace AlvorKit.Hooks.Tests;

// Targets the tests bind, order and weave hooks into (never run under hooks here: no profiler).
// CA1707: hook parameters are bound by their injected names (__instance, __result, ...).
#pragma warning disable CA1822, CA1051, CA1805, IDE0060, CA1062, CA1707 // shapes of game code and hooks, not API

public class Enemy
{
    public int Health = 100;

    public int Damage(int amount)
    {
        if (amount < 0)
            return Health;
        Health -= amount;
        return Health;
    }

    public void Heal(ref int amount, out string text)
    {
        Health += amount;
        amount = 0;
        text = "healed";
    }

    public static int Twice(int x) => x * 2;

    public static void Tick()
    {
    }

    public ref int HealthRef() => ref Health;

    public int Risky(int x)
    {
        try
        {
            return 10 / x;
        }
        catch (DivideByZeroException)
        {
            return -1;
        }
    }

    public int Overloaded(int x) => x;

    public int Overloaded(string s) => s.Length;

    public int Level { get; set; }
}

public abstract class Shape
{
    public abstract double Area();
}

public interface IScored
{
    int Score();
}

public struct Point : IScored
{
    public int X;

    public int Sum(int y) => X + y;

    public int Score() => X;
}

public class Box<T>
{
    public T? Value;

    public T Get(T fallback) => Value ?? fallback;
}

public class Spawner(int count)
{
    public int Count = count;
}

public static class Hooks
{
    public static bool Prefix(Enemy __instance, ref int amount, ref int __result, out long __state)
    {
        __state = amount;
        return __instance.Health > 0;
    }

    public static void Postfix(int __result, long __state, bool __runOriginal)
    {
    }

    public static int PassThrough(int result, int amount) => result + amount;

    public static int PassThroughOnly(int result) => result + 1;

    public static Exception? Swallow(Exception? __exception) => null;

    public static void Observe(Exception? __exception, int __0)
    {
    }

    public static void WithArgs(object[] __args)
    {
    }

    public static void WithOriginal(System.Reflection.MethodBase __originalMethod)
    {
    }

    public static void Nothing()
    {
    }

    /// <summary>A prefix that only observes (a value-type argument): it runs even after a prefix
    /// returned false.</summary>
    public static void ObserveAmount(int amount)
    {
    }

    /// <summary>A prefix that could change the outcome (ref __result): skipped once a prefix
    /// returned false.</summary>
    public static void SetResult(ref int __result) => __result = 7;

    public static void BoxGet(object __instance, object fallback, object __result)
    {
    }

    public static void BoxGetTyped(int fallback)
    {
    }

    public static void PointSum(ref Point __instance, int y)
    {
    }

    public static void PointCopy(Point __instance)
    {
    }

    public static void HealFix(ref int amount, int __0, object text)
    {
    }

    public static void RefResult(ref int __result)
    {
    }

    public static void SpawnerPrefix(Spawner __instance, int count)
    {
    }

    public static void WrongName(int damage)
    {
    }

    public static void WrongType(string amount)
    {
    }

    public static string WrongReturn() => "";

    public static void NeedsInstance(object __instance)
    {
    }

    public static void NeedsResult(int __result)
    {
    }

    public static void NeedsException(Exception __exception)
    {
    }

    public static void StateByValue(long __state)
    {
    }

    public static void StateInt(int __state)
    {
    }

    public static void RunOriginalByRef(ref bool __runOriginal)
    {
    }

    public static void Generic<T>(T amount)
    {
    }

    public static void VarargsTarget(__arglist)
    {
    }

    public static void ArgOutOfRange(int __3)
    {
    }
}

public sealed class InstanceHooks
{
    public void Prefix()
    {
    }
}

public static class SpanTargets
{
    public static int Length(ReadOnlySpan<int> values) => values.Length;
}

public static class SpanHooks
{
    public static void Boxed(object values)
    {
    }

    public static void AllArgs(object[] __args)
    {
    }

    public static void ByValue(ReadOnlySpan<int> values)
    {
    }
}
