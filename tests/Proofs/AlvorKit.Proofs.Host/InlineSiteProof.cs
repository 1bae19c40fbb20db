using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets the JIT inlines (`x * 3 + 1`, no attribute): a static method, a class's instance method
// (its caller's `callvirt` checks the receiver for null), a struct's, and a class's implicit
// interface implementation (virtual final: its caller's `callvirt` names it, and the JIT
// devirtualizes and inlines it), and a static method and a class's instance method of another
// assembly (CrossModuleInlineTargets, CrossModuleCounter); each one's hot caller, a whole-body replacement for each, and one
// marker per phase.
public static class InlineSiteTargets
{
    private static readonly InlineSiteCounter Counter = new(3);
    private static readonly InlineSiteVector Vector = new() { Factor = 3 };
    private static readonly InlineSiteEnemy Enemy = new(3);
    private static readonly IInlineSiteDamageable Damageable = new InlineSiteEnemy(3);

    public static int Tiny(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Tiny(i);
        return sum;
    }

    // The target of another assembly (AlvorKit.Proofs.Engine), called through a MemberRef.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteCrossCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += AlvorKit.Proofs.Engine.CrossModuleInlineTargets.Tiny(i);
        return sum;
    }

    // A target of another assembly whose signature names a type (a struct of that assembly): its
    // caller here keeps the call while it is patched.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteCrossTypedCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += AlvorKit.Proofs.Engine.CrossModuleInlineTargets.Weigh(new() { Value = i });
        return sum;
    }

    private static readonly AlvorKit.Proofs.Engine.CrossModuleCounter CrossCounter = new(3);

    // The instance method of another assembly's class, called with callvirt through a MemberRef.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteCrossClassCaller(int n)
    {
        AlvorKit.Proofs.Engine.CrossModuleCounter counter = CrossCounter;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += counter.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteClassCaller(int n)
    {
        InlineSiteCounter counter = Counter;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += counter.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteStructCaller(int n)
    {
        InlineSiteVector vector = Vector;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += vector.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFinalCaller(int n)
    {
        InlineSiteEnemy enemy = Enemy;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += enemy.Damage(i);
        return sum;
    }

    // The final target called through its interface (`callvirt IInlineSiteDamageable::Damage`): no
    // call of the target's own token to redirect; the hook runs all the same.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteInterfaceCaller(int n)
    {
        IInlineSiteDamageable damageable = Damageable;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += damageable.Damage(i);
        return sum;
    }

    // A callvirt of the class's target on a null receiver: a NullReferenceException before the
    // target's (or its carrier's) first instruction.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteNullCaller(InlineSiteCounter? counter) => counter!.Scaled(1);

    // The same for the final target.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFinalNullCaller(InlineSiteEnemy? enemy) => enemy!.Damage(1);

    // What Install puts in each target's place: a different value, so the caller's sum says which runs.
    public static int TinyReplacement(int x) => x * 3 + 2;

    public static int ScaledReplacement(InlineSiteCounter self, int x) => x * self.Factor + 2;

    public static int ScaledReplacement(ref InlineSiteVector self, int x) => x * self.Factor + 2;

    public static int DamageReplacement(InlineSiteEnemy self, int x) => x * self.Factor + 2;

    // One per phase, each compiled once at its phase's start: their listings cut the JIT's output
    // (which it writes buffered, so only the finished file can be read) into phases.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase0() => 0;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase1() => 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase2() => 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase3() => 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase4() => 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase5() => 5;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase6() => 6;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase7() => 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase8() => 8;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase9() => 9;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase10() => 10;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSitePhase11() => 11;
}

public sealed class InlineSiteCounter(int factor)
{
    public int Factor { get; } = factor;

    public int Scaled(int x) => x * Factor + 1;
}

public struct InlineSiteVector
{
    public int Factor { get; init; }

    public readonly int Scaled(int x) => x * Factor + 1;
}

public interface IInlineSiteDamageable
{
    int Damage(int x);
}

// Not sealed: its Damage is final (virtual final newslot, as C# marks an implicit interface
// implementation), not the class.
public class InlineSiteEnemy(int factor) : IInlineSiteDamageable
{
    public int Factor { get; } = factor;

    public int Damage(int x) => x * Factor + 1;
}

public static class InlineSiteHooks
{
    public static int Runs { get; private set; }

    public static void CountingPrefix() => Runs++;

    public static void EmptyPostfix()
    {
    }
}

/// <summary>
/// Hooks and a whole-body replacement on a method the JIT inlines, through the product alone, for
/// one kind of target: `static` (Tiny), `class` (InlineSiteCounter.Scaled, called with callvirt),
/// `struct` (InlineSiteVector.Scaled) or `final` (InlineSiteEnemy.Damage, an implicit interface
/// implementation called with callvirt through the class; each phase also calls it through the
/// interface), `cross` (CrossModuleInlineTargets.Tiny of AlvorKit.Proofs.Engine, called
/// from this assembly through a MemberRef: its carrier is named from here by a TypeRef and a
/// MemberRef the profiler emits into this module) or `crossClass` (that assembly's
/// CrossModuleCounter.Scaled, an instance method called with callvirt); `crossTyped`
/// (CrossModuleInlineTargets.Weigh, whose signature names a struct of that assembly: its caller
/// keeps the call). The target is hooked with Interceptor.Hook (a counting prefix, an empty postfix): the runtime never
/// inlines the ReJIT'd Tiny, so the profiler re-JITs its known inliner with IL that calls a carrier
/// of the woven body (a method it defines, with no ReJIT version), which the JIT inlines. Then the
/// hook is removed, Tiny replaced with Interceptor.Install, and that removed too. Each phase records
/// the caller's value, how often the prefix ran and, while patched, the patch's carrier telemetry
/// (read once the caller's code is final); the listings come from
/// DOTNET_JitDisasm=InlineSiteCaller,InlineSitePhase* written to DOTNET_JitStdOutFile, which the
/// proof reads after the process ends. The phase-marking methods are called only after a phase's
/// code is final: the JIT's compile count has stopped growing.
/// </summary>
public static class InlineSiteProof
{
    private sealed record Kind(MethodInfo Target, MethodInfo Replacement, Func<int, int> Caller,
        Func<int, int>? InterfaceCaller = null);

    private static Kind Of(string kind) => kind switch
    {
        "static" => new(Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.Tiny)),
            Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.TinyReplacement)),
            InlineSiteTargets.InlineSiteCaller),
        "cross" => new(Method(typeof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets), nameof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets.Tiny)),
            Method(typeof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets), nameof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets.TinyReplacement)),
            InlineSiteTargets.InlineSiteCrossCaller),
        "crossTyped" => new(Method(typeof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets), nameof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets.Weigh)),
            Method(typeof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets), nameof(AlvorKit.Proofs.Engine.CrossModuleInlineTargets.WeighReplacement)),
            InlineSiteTargets.InlineSiteCrossTypedCaller),
        "crossClass" => new(typeof(AlvorKit.Proofs.Engine.CrossModuleCounter).GetMethod(nameof(AlvorKit.Proofs.Engine.CrossModuleCounter.Scaled))!,
            Method(typeof(AlvorKit.Proofs.Engine.CrossModuleCounter), nameof(AlvorKit.Proofs.Engine.CrossModuleCounter.ScaledReplacement)),
            InlineSiteTargets.InlineSiteCrossClassCaller),
        "class" => new(typeof(InlineSiteCounter).GetMethod(nameof(InlineSiteCounter.Scaled))!,
            typeof(InlineSiteTargets).GetMethod(nameof(InlineSiteTargets.ScaledReplacement), [typeof(InlineSiteCounter), typeof(int)])!,
            InlineSiteTargets.InlineSiteClassCaller),
        "final" => new(typeof(InlineSiteEnemy).GetMethod(nameof(InlineSiteEnemy.Damage))!,
            typeof(InlineSiteTargets).GetMethod(nameof(InlineSiteTargets.DamageReplacement))!,
            InlineSiteTargets.InlineSiteFinalCaller, InlineSiteTargets.InlineSiteInterfaceCaller),
        _ => new(typeof(InlineSiteVector).GetMethod(nameof(InlineSiteVector.Scaled))!,
            typeof(InlineSiteTargets).GetMethod(nameof(InlineSiteTargets.ScaledReplacement), [typeof(InlineSiteVector).MakeByRefType(), typeof(int)])!,
            InlineSiteTargets.InlineSiteStructCaller),
    };

    public static InlineSiteReport Run(string kindName)
    {
        Kind kind = Of(kindName);
        bool tieringOn = Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") != "0";
        int expected = InlineSiteSteps.Expected();
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            return new InlineSiteReport(tieringOn, e.Message, expected, []);
        }
        using (interceptor)
        using (var owner = new PatchOwner("inline sites"))
        {
            var phases = new List<InlineSitePhase> { Phase(kind, 0, "before") };

            WovenPatch hook = interceptor.Hook(kind.Target,
                prefix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.CountingPrefix)),
                postfix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.EmptyPostfix)), owner: owner);
            phases.Add(Phase(kind, 1, "hooked", hook.ReadTelemetry));

            hook.Remove();
            phases.Add(Phase(kind, 2, "hookRemoved"));

            Patch replaced = interceptor.Install(kind.Target, kind.Replacement, owner);
            phases.Add(Phase(kind, 3, "replaced", replaced.ReadTelemetry));

            replaced.Remove();
            phases.Add(Phase(kind, 4, "replaceRemoved"));
            return new InlineSiteReport(tieringOn, null, expected, [.. phases]);
        }
    }

    private static InlineSitePhase Phase(Kind kind, int index, string name, Func<PatchTelemetry?>? telemetry = null)
    {
        InlineSiteSteps.Mark(index);
        InlineSiteSteps.Settle(kind.Caller);
        if (kind.InterfaceCaller is not null)
            InlineSiteSteps.Settle(kind.InterfaceCaller);
        InlineSiteCarrier? carrier = InlineSiteSteps.Carrier(telemetry?.Invoke());
        int before = InlineSiteHooks.Runs;
        int value = kind.Caller(InlineSiteSteps.Calls);
        int runs = InlineSiteHooks.Runs - before;
        int? interfaceValue = null;
        before = InlineSiteHooks.Runs;
        if (kind.InterfaceCaller is not null)
            interfaceValue = kind.InterfaceCaller(InlineSiteSteps.Calls);
        int interfaceRuns = InlineSiteHooks.Runs - before;
        bool? threw = null;
        before = InlineSiteHooks.Runs;
        Action? nullCall = kind.Target.DeclaringType == typeof(InlineSiteCounter) ? () => InlineSiteTargets.InlineSiteNullCaller(null)
            : kind.Target.DeclaringType == typeof(InlineSiteEnemy) ? () => InlineSiteTargets.InlineSiteFinalNullCaller(null)
            : null;
        if (nullCall is not null)
        {
            try
            {
                nullCall();
                threw = false;
            }
            catch (NullReferenceException)
            {
                threw = true;
            }
        }
        // The listings are filled in by the proof from the JIT's file.
        return new InlineSitePhase(name, value, runs, null, 0, threw, InlineSiteHooks.Runs - before, carrier, interfaceValue,
            interfaceRuns);
    }

    private static MethodInfo Method(Type type, string name) => InlineSiteSteps.Method(type, name);
}
