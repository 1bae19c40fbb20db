using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// A target the JIT inlines (`x * 3 + 1`, no attribute), its one hot caller, and a carrier: the
// body HookWeaver weaves around Tiny with these hooks (a run-original flag, the prefix, the
// original, the postfix) as a method of its own that is never ReJIT'd.
public static class InlineSiteTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InlineSiteCaller(int n)
    {
        int sum = 0;
        for (int i = 0; i < n; i++)
            sum += Tiny(i);
        return sum;
    }

    public static int TinyCarrier(int x)
    {
        bool runOriginal = true;
        InlineSiteHooks.CountingPrefix();
        int result = 0;
        if (runOriginal)
            result = x * 3 + 1;
        InlineSiteHooks.EmptyPostfix();
        return result;
    }

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
/// What the runtime allows for hooks on a method the JIT inlines. Tiny is hooked (a counting
/// prefix, an empty postfix); the runtime re-JITs its hot caller, which may not inline the ReJIT'd
/// Tiny. The caller is then re-JIT'd with IL calling TinyCarrier (the woven body in a method that
/// has no ReJIT version) in Tiny's place, which the JIT may inline; then that redirect and the hook
/// are removed. Each phase records the caller's value and how often the prefix ran; the listings
/// come from DOTNET_JitDisasm=InlineSiteCaller,InlineSitePhase* written to DOTNET_JitStdOutFile,
/// which the proof reads after the process ends. The phase-marking methods are called only
/// after a phase's code is final: the JIT's compile count has stopped growing.
/// </summary>
public static class InlineSiteProof
{
    private const int Calls = 100;
    private static readonly Func<int>[] Marks =
    [
        InlineSiteTargets.InlineSitePhase0, InlineSiteTargets.InlineSitePhase1, InlineSiteTargets.InlineSitePhase2,
        InlineSiteTargets.InlineSitePhase3, InlineSiteTargets.InlineSitePhase4,
    ];

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
        using (var owner = new PatchOwner("inline sites"))
        {
            MethodInfo tiny = Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.Tiny));
            var phases = new List<InlineSitePhase> { Phase(0, "before") };

            WovenPatch hook = interceptor.Hook(tiny,
                prefix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.CountingPrefix)),
                postfix: Method(typeof(InlineSiteHooks), nameof(InlineSiteHooks.EmptyPostfix)), owner: owner);
            phases.Add(Phase(1, "hooked"));

            var plan = GenerationPlan.FromOriginal(Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.InlineSiteCaller)));
            if (plan.ReplaceCalls(tiny, Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.TinyCarrier))) != 1)
                throw new InvalidOperationException("the caller does not call Tiny once");
            Patch redirect = interceptor.Apply(plan, owner);
            phases.Add(Phase(2, "redirected"));

            redirect.Remove();
            phases.Add(Phase(3, "redirectRemoved"));

            hook.Remove();
            phases.Add(Phase(4, "hookRemoved"));
            return new InlineSiteReport(tieringOn, null, expected, [.. phases]);
        }
    }

    private static InlineSitePhase Phase(int index, string name)
    {
        Marks[index]();
        Settle();
        int before = InlineSiteHooks.Runs;
        int value = InlineSiteTargets.InlineSiteCaller(Calls);
        // The listings are filled in by the proof from the JIT's file.
        return new InlineSitePhase(name, value, InlineSiteHooks.Runs - before, null, 0);
    }

    // Calls the caller in batches with pauses (tiering's call counting and background compiles)
    // until the JIT's compile count stays the same over several batches: the caller's code is
    // final. At least 2 s, at most 20 s.
    private static void Settle()
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        long last = -1;
        int quiet = 0;
        while (clock.ElapsedMilliseconds < 20_000)
        {
            for (int i = 0; i < 50; i++)
                InlineSiteTargets.InlineSiteCaller(Calls);
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
