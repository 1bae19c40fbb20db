using System.Reflection;
using System.Text.RegularExpressions;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Hooks.Tests;

/// <summary>The woven body of a few targets: its listing, and the plan's own stack-type check when it is
/// lowered (FromOriginal only reads metadata: no profiler).</summary>
public sealed partial class WeavingTests(ITestOutputHelper output)
{
    private static MethodInfo Hook(string name) => typeof(Hooks).GetMethod(name)!;

    private GenerationPlan Weave(MethodBase target, IEnumerable<HookMethod>? prefixes = null,
        IEnumerable<HookMethod>? postfixes = null, IEnumerable<HookMethod>? finalizers = null, bool calli = false)
    {
        BoundSet set = HookBinder.BindSet(target, prefixes ?? [], postfixes ?? [], finalizers ?? []);
        GenerationPlan plan = HookWeaver.Weave(
            HookComposition.Compose(target, [new HookSetInfo(set, "mod", 0, "Hook call", calli)]));
        plan.Lower(); // the stack-type check, relocations, limits
        output.WriteLine(plan.ToString());
        return plan;
    }

    // The listing without tokens and entry points (they depend on the build and the process).
    private static string Listing(GenerationPlan plan) =>
        EntryPoint().Replace(Comment().Replace(plan.ToString(), ""), "ldc.i8 <entry>").Trim();

    [GeneratedRegex(@"  // [^\n]*")]
    private static partial Regex Comment();

    [GeneratedRegex(@"ldc\.i8 \d+")]
    private static partial Regex EntryPoint();

    [Fact]
    public void PrefixAndPostfixAroundAReturningMethod()
    {
        GenerationPlan plan = Weave(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!,
            [Hook(nameof(Hooks.Prefix))], [Hook(nameof(Hooks.Postfix))]);

        // runOriginal = true; br PRE / the original, its returns to POST / POST: postfix, return
        // the result / PRE: the prefix (false clears runOriginal), then the original or POST.
        Assert.Equal("""
            // new body of Enemy.Damage(int)
              .locals (V_0 (int), V_1 (bool), V_2 (long))
            L5:
              IL_0000: ldc.i4.1
              IL_0001: stloc V_1 (bool)
              IL_0002: br L4
            L3:
              IL_0007: ldarg.1
              IL_0008: ldc.i4.0
              IL_0009: bge L1
              IL_000E: ldarg.0
              IL_000F: ldfld Enemy.Health
              IL_0014: stloc V_0 (int)
              IL_0015: br L2
            L1:
              IL_001A: ldarg.0
              IL_001B: ldarg.0
              IL_001C: ldfld Enemy.Health
              IL_0021: ldarg.1
              IL_0022: sub
              IL_0023: stfld Enemy.Health
              IL_0028: ldarg.0
              IL_0029: ldfld Enemy.Health
              IL_002E: stloc V_0 (int)
              IL_002F: br L2
            L2:
              IL_0034: ldloc V_0 (int)
              IL_0035: ldloc V_2 (long)
              IL_0036: ldloc V_1 (bool)
              IL_0037: call Hooks.Postfix(int, long, bool)
              IL_003C: ldloc V_0 (int)
              IL_003D: ret
            L4:
              IL_003E: ldarg 0
              IL_0042: ldarga 1
              IL_0046: ldloca V_0 (int)
              IL_0048: ldloca V_2 (long)
              IL_004A: call Hooks.Prefix(Enemy, ref int, ref int, out long)
              IL_004F: brtrue L8
              IL_0054: ldc.i4 0
              IL_0059: stloc V_1 (bool)
            L8:
              IL_005A: ldloc V_1 (bool)
              IL_005B: brfalse L2
              IL_0060: br L3
            """, Listing(plan));
    }

    [Fact]
    public void FinalizersGetOneTryCatchAroundEverythingAndRunOnBothPaths()
    {
        GenerationPlan plan = Weave(typeof(Enemy).GetMethod(nameof(Enemy.Risky))!,
            [Hook(nameof(Hooks.Nothing))], [Hook(nameof(Hooks.PassThroughOnly))],
            [Hook(nameof(Hooks.Observe)), Hook(nameof(Hooks.Swallow))], calli: true);

        // The original's returns leave to POST inside the try; the handler (L10) runs the finalizers
        // on the caught exception, then leaves (swallowed), rethrows (the same one) or throws (another);
        // the success path (L8) runs them with null and throws what one returns.
        Assert.Equal("""
            // new body of Enemy.Risky(int)
              .locals (V_0 (int), V_1 (int), V_2 (bool), V_3 (Exception), V_4 (Exception))
            L7:
              IL_0000: ldc.i4.1
              IL_0001: stloc V_2 (bool)
              IL_0002: br L6
            L1:
            L5:
              IL_0007: ldc.i4.s 10
              IL_0009: ldarg.1
              IL_000A: div
              IL_000B: stloc.0
              IL_000C: leave L3
            L2:
              IL_0011: pop
              IL_0012: ldc.i4.m1
              IL_0013: stloc.0
              IL_0014: leave L3
            L3:
              IL_0019: ldloc.0
              IL_001A: stloc V_1 (int)
              IL_001B: leave L4
            L4:
              IL_0020: ldloc V_1 (int)
              IL_0021: ldc.i8 <entry>
              IL_002A: conv.i
              IL_002B: calli StandAloneSig default int(int)
              IL_0030: stloc V_1 (int)
              IL_0031: leave L8
            L6:
              IL_0036: ldc.i8 <entry>
              IL_003F: conv.i
              IL_0040: calli StandAloneSig default void()
              IL_0045: ldloc V_2 (bool)
              IL_0046: brfalse L4
              IL_004B: br L5
            L10:
              IL_0050: stloc V_3 (Exception)
              IL_0051: ldloc V_3 (Exception)
              IL_0052: stloc V_4 (Exception)
              IL_0054: ldloc V_4 (Exception)
              IL_0056: ldarg 1
              IL_005A: ldc.i8 <entry>
              IL_0063: conv.i
              IL_0064: calli StandAloneSig default void(Exception, int)
              IL_0069: ldloc V_4 (Exception)
              IL_006B: ldc.i8 <entry>
              IL_0074: conv.i
              IL_0075: calli StandAloneSig default Exception(Exception)
              IL_007A: stloc V_4 (Exception)
              IL_007C: ldloc V_4 (Exception)
              IL_007E: brtrue L11
              IL_0083: leave L9
            L11:
              IL_0088: ldloc V_4 (Exception)
              IL_008A: ldloc V_3 (Exception)
              IL_008B: beq L12
              IL_0090: ldloc V_4 (Exception)
              IL_0092: throw
            L12:
              IL_0093: rethrow
            L8:
              IL_0095: ldnull
              IL_0096: stloc V_4 (Exception)
              IL_0098: ldloc V_4 (Exception)
              IL_009A: ldarg 1
              IL_009E: ldc.i8 <entry>
              IL_00A7: conv.i
              IL_00A8: calli StandAloneSig default void(Exception, int)
              IL_00AD: ldloc V_4 (Exception)
              IL_00AF: ldc.i8 <entry>
              IL_00B8: conv.i
              IL_00B9: calli StandAloneSig default Exception(Exception)
              IL_00BE: stloc V_4 (Exception)
              IL_00C0: ldloc V_4 (Exception)
              IL_00C2: brfalse L9
              IL_00C7: ldloc V_4 (Exception)
              IL_00C9: throw
            L9:
              IL_00CA: ldloc V_1 (int)
              IL_00CB: ret
              .try L1..L2 catch DivideByZeroException L2..L3
              .try L7..L10 catch Exception L10..L8
            """, Listing(plan));
        Assert.Equal(2, plan.ExceptionRegions.Count); // the original's catch, and the finalizers'
    }

    [Fact]
    public void ArgsAreBuiltBeforeAndWrittenBackAfterTheHook()
    {
        string listing = Listing(Weave(typeof(Enemy).GetMethod(nameof(Enemy.Heal))!, [Hook(nameof(Hooks.WithArgs))]));

        Assert.Contains("newarr object", listing, StringComparison.Ordinal);
        // ref int amount written back through its location; out string text too.
        Assert.Contains("unbox.any int", listing, StringComparison.Ordinal);
        Assert.Contains("stobj int", listing, StringComparison.Ordinal);
        Assert.Contains("stobj string", listing, StringComparison.Ordinal);
    }

    [Fact]
    public void OtherShapesWeaveAndPassTheStackCheck()
    {
        // A struct receiver by reference, a generic type's values boxed, a constructor's prefix, the
        // original method, a ref return, a static void target with only a postfix.
        Weave(typeof(Point).GetMethod(nameof(Point.Sum))!, [Hook(nameof(Hooks.PointSum)), Hook(nameof(Hooks.PointCopy))]);
        Weave(typeof(Box<>).GetMethod("Get")!, postfixes: [Hook(nameof(Hooks.BoxGet))]);
        Weave(typeof(Spawner).GetConstructors()[0], [Hook(nameof(Hooks.SpawnerPrefix))]);
        Weave(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!, [Hook(nameof(Hooks.WithOriginal))]);
        Weave(typeof(Enemy).GetMethod(nameof(Enemy.Tick))!, postfixes: [Hook(nameof(Hooks.Nothing))]);
        string listing = Listing(Weave(typeof(Enemy).GetMethod(nameof(Enemy.HealthRef))!,
            postfixes: [Hook(nameof(Hooks.RefResult))]));
        Assert.Contains("ldloc V_0 (ref int)", listing, StringComparison.Ordinal);
    }

    [Fact]
    public void ALaterPrefixThatCouldChangeTheOutcomeIsSkippedOnceOneReturnedFalse()
    {
        // Harmony's rule: a bool prefix first; then one that only reads a value-type argument
        // (runs regardless); then one with ref __result (runs only while runOriginal holds).
        string[] lines = Listing(Weave(typeof(Enemy).GetMethod(nameof(Enemy.Damage))!,
            [Hook(nameof(Hooks.Prefix)), Hook(nameof(Hooks.ObserveAmount)), Hook(nameof(Hooks.SetResult))]))
            .Split('\n').Select(l => l.Trim()).ToArray();
        int observe = Array.FindIndex(lines, l => l.EndsWith("call Hooks.ObserveAmount(int)", StringComparison.Ordinal));
        int set = Array.FindIndex(lines, l => l.EndsWith("call Hooks.SetResult(ref int)", StringComparison.Ordinal));
        int first = Array.FindIndex(lines, l => l.Contains("call Hooks.Prefix(", StringComparison.Ordinal));
        Assert.True(first >= 0 && observe > first && set > observe, string.Join('\n', lines));
        // Between the observing prefix and the one before it: no test of runOriginal.
        Assert.DoesNotContain(lines[(first + 1)..observe], l => l.Contains("brfalse", StringComparison.Ordinal));
        // Before the affecting one: ldloc runOriginal; brfalse past it.
        Assert.Matches(@"ldloc V_\d+ \(bool\)$", lines[set - 3]);
        Assert.Contains("brfalse", lines[set - 2], StringComparison.Ordinal);
        // The first prefix has nothing to test: no prefix ran before it.
        Assert.DoesNotContain("brfalse", lines[first - 1], StringComparison.Ordinal);
    }

    [Fact]
    public void EachSetKeepsThePreferCalliItWasAddedWith()
    {
        // Two sets on one target: the first added with PreferCalli (its prefix through calli), the second
        // without (its postfix called directly), whichever of them the body is woven for.
        MethodInfo damage = typeof(Enemy).GetMethod(nameof(Enemy.Damage))!;
        BoundSet calli = HookBinder.BindSet(damage, [Hook(nameof(Hooks.Prefix))], [], []);
        BoundSet direct = HookBinder.BindSet(damage, [], [Hook(nameof(Hooks.PassThrough))], []);
        GenerationPlan plan = HookWeaver.Weave(HookComposition.Compose(damage,
            [new HookSetInfo(calli, "mod A", 0, "Hook call", PreferCalli: true),
             new HookSetInfo(direct, "mod B", 1, "Hook call", PreferCalli: false)]));
        plan.Lower();
        string listing = Listing(plan);
        output.WriteLine(listing);

        Assert.Contains("call Hooks.PassThrough(int, int)", listing, StringComparison.Ordinal);
        Assert.DoesNotContain("call Hooks.Prefix", listing, StringComparison.Ordinal);
        Assert.Contains("calli StandAloneSig default bool(Enemy, ref int, ref int, ref long)", listing,
            StringComparison.Ordinal);
    }

    [Fact]
    public void ABodyWithJmpIsRefusedWithItsOwnKind()
    {
        MethodInfo forward = JmpAssembly.Forward;
        BoundSet set = HookBinder.BindSet(forward, [], [Hook(nameof(Hooks.Nothing))], []);

        HookBindingException e = Assert.Throws<HookBindingException>(() => HookWeaver.Weave(
            HookComposition.Compose(forward, [new HookSetInfo(set, "mod", 0, "Hook call")])));

        Assert.Equal(HookBindingKind.TargetUsesJmp, e.Kind);
        Assert.Same(forward, e.Target);
        Assert.Contains("JmpTarget.Forward(int) cannot be hooked: its body uses jmp", e.Message, StringComparison.Ordinal);
    }
}
