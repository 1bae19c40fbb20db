using AlvorKit.Interception;

namespace AlvorKit.Hooks.Tests;

// Targets and inner hooks of the infix tests (never run patched here: no profiler).
#pragma warning disable CA1822, CA1051, CA1805, IDE0060, CA1062, CA1707, CA1002, CA1815 // shapes of game code and patches, not API

public static class Mill
{
    public static int Grind(int grain) => grain * 10;

    public static int GrindTwice(int x) => Grind(x) + Grind(x + 1);

    public static int Press(Wheel wheel, int x) => wheel.Turn(x) + wheel.Turn(2);

    public static int PressStruct(Gear gear) => gear.Spin(1);
}

public sealed class Wheel
{
    public int Speed = 3;

    public int Turn(int times) => Speed * times;
}

public struct Gear
{
    public int Teeth;

    public readonly int Spin(int turns) => Teeth * turns;
}

public static class InnerHooks
{
    public static bool Skip(ref int grain, ref int __result)
    {
        grain++;
        __result = 1;
        return false;
    }

    public static void After(int grain, ref int __result) => __result += grain;

    public static void ByIndex(int __0, Wheel __instance, object __result) { }

    public static void Unknown(int corn) { }

    public static void WrongType(long grain) { }

    public static int WrongReturn(int grain) => grain;

    public static void Receiver(Wheel __instance) { }

    public static void AnyGear(int turns) { }
}

[Patch(typeof(Mill), nameof(Mill.GrindTwice))]
public static class MillInfixPatch
{
    [PatchInnerPrefix(typeof(Mill), nameof(Mill.Grind), 2)]
    public static void Second(ref int grain) => grain = 0;

    [PatchInnerPostfix(typeof(Mill), nameof(Mill.Grind), -1)]
    public static void Last(ref int __result) => __result++;
}

[Patch(typeof(Mill), nameof(Mill.GrindTwice))]
public static class MissingCalleePatch
{
    [PatchInnerPrefix(typeof(Mill), "Crush")]
    public static void Prefix() { }
}
