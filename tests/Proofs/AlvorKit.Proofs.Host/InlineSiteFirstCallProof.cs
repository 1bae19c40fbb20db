using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets the JIT inlines, each with a hot caller that is never called before its target is
// patched: one hooked, one replaced whole.
public static class InlineSiteFirstCallTargets
{
    public static int HookedTiny(int x) => x * 3 + 1;

    public static int ReplacedTiny(int x) => x * 3 + 1;

    public static int ReplacedTinyReplacement(int x) => x * 3 + 2;

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
}

/// <summary>
/// A hook and a whole-body replacement put on two methods the JIT inlines, each before its hot
/// caller is first called: the caller's first compilation comes while its target has a ReJIT
/// version, which the runtime never inlines (nor reports to the profiler as an inline), so the
/// caller is no known inliner. The profiler finds it as it is compiled, routes it to the
/// target's carrier and re-JITs it. Phases (each cut by InlineSitePhaseN in the JIT's listings):
/// hooked, hook removed, replaced, replacement removed; each with its caller's value and the
/// prefix's runs. The proof reads each caller's final listing of each phase from
/// DOTNET_JitStdOutFile.
/// </summary>
public static class InlineSiteFirstCallProof
{
    private const int Calls = 100;

    public static InlineSiteReport Run()
    {
        bool tieringOn = Environment.GetEnvironmentVariable("DOTNET_TieredCompilation") != "0";
        int expected = 0;
        for (int i = 0; i < Calls; i++)
            expected += i * 3 + 1;
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
            WovenPatch hook = interceptor.Hook(Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.HookedTiny)),
                prefix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.CountingPrefix)),
                postfix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.EmptyPostfix)), owner: owner);
            phases.Add(Phase(0, "hooked", InlineSiteFirstCallTargets.InlineSiteFirstHookCaller));
            hook.Remove();
            phases.Add(Phase(1, "hookRemoved", InlineSiteFirstCallTargets.InlineSiteFirstHookCaller));

            Patch replaced = interceptor.Install(Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.ReplacedTiny)),
                Method(typeof(InlineSiteFirstCallTargets), nameof(InlineSiteFirstCallTargets.ReplacedTinyReplacement)), owner);
            phases.Add(Phase(2, "replaced", InlineSiteFirstCallTargets.InlineSiteFirstInstallCaller));
            replaced.Remove();
            phases.Add(Phase(3, "replaceRemoved", InlineSiteFirstCallTargets.InlineSiteFirstInstallCaller));
            return new InlineSiteReport(tieringOn, null, expected, [.. phases]);
        }
    }

    private static readonly Func<int>[] Marks =
    [
        InlineSiteTargets.InlineSitePhase0, InlineSiteTargets.InlineSitePhase1, InlineSiteTargets.InlineSitePhase2,
        InlineSiteTargets.InlineSitePhase3,
    ];

    // The phase's mark (its listing cuts the JIT's output), the caller's code settled, then one call.
    private static InlineSitePhase Phase(int index, string name, Func<int, int> caller)
    {
        Marks[index]();
        Settle(caller);
        int before = InlineSiteHooks.Runs;
        int value = caller(Calls);
        return new InlineSitePhase(name, value, InlineSiteHooks.Runs - before, null, 0);
    }

    // The caller called in batches with pauses until the JIT's compile count stays the same over
    // several batches (its code is final): at least 2 s, at most 20 s.
    private static void Settle(Func<int, int> caller)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long last = -1;
        int quiet = 0;
        while (clock.ElapsedMilliseconds < 20_000)
        {
            for (int i = 0; i < 50; i++)
                caller(Calls);
            Thread.Sleep(20);
            long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
            quiet = compiled == last ? quiet + 1 : 0;
            last = compiled;
            if (quiet >= 10 && clock.ElapsedMilliseconds >= 2_000)
                return;
        }
    }

    private static MethodInfo Method(Type type, string name) =>
        type.GetMethod(name, BindingFlags.Public | BindingFlags.Static) ?? throw new MissingMethodException(type.Name, name);
}
