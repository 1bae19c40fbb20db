using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets the JIT inlines, each with a hot caller: a static one hooked and one replaced whole, whose
// callers are never called before their target is patched; a static one whose caller is called once
// before its hook (tiering on: its Tier0 code, which inlines nothing); a class's instance method
// (called with callvirt), a struct's, and a class's and a struct's implicit interface implementation
// (virtual final, called through the class or the struct), whose callers are never called before
// their hook.
public static class InlineSiteFirstCallTargets
{
    private static readonly InlineSiteFirstCounter Counter = new(3);
    private static readonly InlineSiteFirstEnemy Enemy = new(3);
    private static readonly InlineSiteFirstArmor Armor = new() { Factor = 3 };
    private static readonly InlineSiteFirstVector Vector = new() { Factor = 3 };

    public static int HookedTiny(int x) => x * 3 + 1;

    public static int ReplacedTiny(int x) => x * 3 + 1;

    public static int ReplacedTinyReplacement(int x) => x * 3 + 2;

    public static int Tier0Tiny(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstHookCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += HookedTiny(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstInstallCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += ReplacedTiny(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteTier0Caller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Tier0Tiny(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstClassCaller(int n)
    {
        InlineSiteFirstCounter counter = Counter;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += counter.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstFinalCaller(int n)
    {
        InlineSiteFirstEnemy enemy = Enemy;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += enemy.Damage(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstStructFinalCaller(int n)
    {
        InlineSiteFirstArmor armor = Armor;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += armor.Damage(i);
        return sum;
    }

    // Refused carriers: a virtual method (the caller's receiver of an exact type, so the JIT
    // devirtualizes and inlines it unpatched), a generic type's method, a static method over 32 IL bytes.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteVirtualCaller(int n)
    {
        var shape = new InlineSiteFirstShape();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += shape.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteGenericCaller(int n)
    {
        var box = new InlineSiteFirstBox<int>();
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += box.Scaled(i);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteBigCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += BigTiny(i);
        return sum;
    }

    // x * 3 + 1 in more than 32 IL bytes.
    public static int BigTiny(int x)
    {
        int a = x * 2;
        int b = a + x;
        int c = b * 5;
        int d = c - b * 4;
        int e = d + a - a;
        int f = e * 7 - e * 6;
        int g = f * 3 - f * 2;
        int h = g + b - d;
        int k = h * 9 - h * 8;
        return k + 1;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteFirstStructCaller(int n)
    {
        InlineSiteFirstVector vector = Vector;
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += vector.Scaled(i);
        return sum;
    }
}

public sealed class InlineSiteFirstCounter(int factor)
{
    public int Factor { get; } = factor;

    public int Scaled(int x) => x * Factor + 1;
}

// Not sealed: Damage is final (an implicit interface implementation), not the class.
public class InlineSiteFirstEnemy(int factor) : IInlineSiteDamageable
{
    public int Factor { get; } = factor;

    public int Damage(int x) => x * Factor + 1;
}

// A struct's implicit interface implementation: virtual final too, its carrier takes the struct by ref.
public struct InlineSiteFirstArmor : IInlineSiteDamageable
{
    public int Factor { get; init; }

    public readonly int Damage(int x) => x * Factor + 1;
}

// Not sealed, its Scaled overridable: its carrier is refused.
public class InlineSiteFirstShape
{
    public virtual int Scaled(int x) => x * 3 + 1;
}

public sealed class InlineSiteFirstBox<T>
{
    public int Scaled(int x) => x * 3 + 1;
}

public struct InlineSiteFirstVector
{
    public int Factor { get; init; }

    public readonly int Scaled(int x) => x * Factor + 1;
}

/// <summary>
/// Hooks and a whole-body replacement put on methods the JIT inlines, one target at a time. Four of
/// them before their hot caller is first called (a static method hooked, one replaced whole, a
/// class's instance method and a struct's hooked): the caller's first compilation comes while its
/// target has a ReJIT version, which the runtime never inlines (nor reports to the profiler as an
/// inline), so the caller is no known inliner. One static method after its caller ran once (tiering
/// on: at Tier0, which inlines nothing, so again no known inliner), found at tiering's next
/// compilation of it.
/// The profiler finds each caller as it is compiled, routes it to the target's carrier and re-JITs
/// it. Then three targets whose carrier is refused (a virtual method, a generic type's method, a
/// static method over 32 IL bytes), their callers never called before the hook: they keep the
/// call. Last, a class's and a struct's implicit interface implementation (virtual final) hooked
/// before their callers are first called: carried as the class's and the struct's instance methods
/// are. Phases (each cut by InlineSitePhaseN in the JIT's listings): hooked, hook removed, replaced,
/// replacement removed, tier0Hooked, classHooked, structHooked, virtualHooked, genericHooked,
/// bigHooked, finalHooked, structFinalHooked; each with its caller's value, the
/// prefix's runs and, while patched, the patch's carrier telemetry. The proof reads each caller's
/// listings of each phase from DOTNET_JitStdOutFile.
/// </summary>
public static class InlineSiteFirstCallProof
{
    public static InlineSiteReport Run()
    {
        bool tieringOn = Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") != "0";
        int expected = InlineSiteSteps.Expected();
        // Its caller's first code, before anything is patched: Tier0 with tiering on.
        InlineSiteFirstCallTargets.InlineSiteTier0Caller(InlineSiteSteps.Calls);
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
        using (var owner = new PatchOwner("inline sites, first call"))
        {
            // One target at a time: a target's original version is made active again at its removal
            // only while no other method of its module is patched (docs/Limits.md), and only then
            // do its callers inline it again.
            var phases = new List<InlineSitePhase>();
            WovenPatch hook = Hook(interceptor, owner, Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.HookedTiny)));
            phases.Add(Phase(0, "hooked", InlineSiteFirstCallTargets.InlineSiteFirstHookCaller, hook.ReadTelemetry));
            hook.Remove();
            phases.Add(Phase(1, "hookRemoved", InlineSiteFirstCallTargets.InlineSiteFirstHookCaller));

            Patch replaced = interceptor.Install(Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.ReplacedTiny)),
                Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.ReplacedTinyReplacement)), owner);
            phases.Add(Phase(2, "replaced", InlineSiteFirstCallTargets.InlineSiteFirstInstallCaller, replaced.ReadTelemetry));
            replaced.Remove();
            phases.Add(Phase(3, "replaceRemoved", InlineSiteFirstCallTargets.InlineSiteFirstInstallCaller));

            hook = Hook(interceptor, owner, Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.Tier0Tiny)));
            phases.Add(Phase(4, "tier0Hooked", InlineSiteFirstCallTargets.InlineSiteTier0Caller, hook.ReadTelemetry));
            hook.Remove();

            hook = Hook(interceptor, owner, typeof(InlineSiteFirstCounter).GetMethod(nameof(InlineSiteFirstCounter.Scaled))!);
            phases.Add(Phase(5, "classHooked", InlineSiteFirstCallTargets.InlineSiteFirstClassCaller, hook.ReadTelemetry));
            hook.Remove();

            hook = Hook(interceptor, owner, typeof(InlineSiteFirstVector).GetMethod(nameof(InlineSiteFirstVector.Scaled))!);
            phases.Add(Phase(6, "structHooked", InlineSiteFirstCallTargets.InlineSiteFirstStructCaller, hook.ReadTelemetry));
            hook.Remove();

            // Carriers refused: each caller keeps its call of the hooked target, and the telemetry says why.
            hook = Hook(interceptor, owner, typeof(InlineSiteFirstShape).GetMethod(nameof(InlineSiteFirstShape.Scaled))!);
            phases.Add(Phase(7, "virtualHooked", InlineSiteFirstCallTargets.InlineSiteVirtualCaller, hook.ReadTelemetry));
            hook.Remove();

            hook = Hook(interceptor, owner, typeof(InlineSiteFirstBox<>).GetMethod(nameof(InlineSiteFirstBox<int>.Scaled))!);
            phases.Add(Phase(8, "genericHooked", InlineSiteFirstCallTargets.InlineSiteGenericCaller, hook.ReadTelemetry));
            hook.Remove();

            hook = Hook(interceptor, owner, Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.BigTiny)));
            phases.Add(Phase(9, "bigHooked", InlineSiteFirstCallTargets.InlineSiteBigCaller, hook.ReadTelemetry));
            hook.Remove();

            // A final virtual: no class can override it, so its callers' callvirt is carried.
            hook = Hook(interceptor, owner, typeof(InlineSiteFirstEnemy).GetMethod(nameof(InlineSiteFirstEnemy.Damage))!);
            phases.Add(Phase(10, "finalHooked", InlineSiteFirstCallTargets.InlineSiteFirstFinalCaller, hook.ReadTelemetry));
            hook.Remove();

            hook = Hook(interceptor, owner, typeof(InlineSiteFirstArmor).GetMethod(nameof(InlineSiteFirstArmor.Damage))!);
            phases.Add(Phase(11, "structFinalHooked", InlineSiteFirstCallTargets.InlineSiteFirstStructFinalCaller, hook.ReadTelemetry));
            hook.Remove();
            return new InlineSiteReport(tieringOn, null, expected, [.. phases]);
        }
    }

    private static WovenPatch Hook(Interceptor interceptor, PatchOwner owner, MethodInfo target) =>
        interceptor.Hook(target,
            prefix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.CountingPrefix)),
            postfix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.EmptyPostfix)), owner: owner);

    // The phase's mark (its listing cuts the JIT's output), the caller's code settled, the patch's
    // carrier telemetry, then one call.
    private static InlineSitePhase Phase(int index, string name, Func<int, int> caller, Func<PatchTelemetry?>? telemetry = null)
    {
        InlineSiteSteps.Mark(index);
        InlineSiteSteps.Settle(caller);
        InlineSiteCarrier? carrier = InlineSiteSteps.Carrier(telemetry?.Invoke());
        int before = InlineSiteHooks.Runs;
        int value = caller(InlineSiteSteps.Calls);
        return new InlineSitePhase(name, value, InlineSiteHooks.Runs - before, null, 0, Carrier: carrier);
    }

    private static MethodInfo Method(Type type, string name) => InlineSiteSteps.Method(type, name);
}
