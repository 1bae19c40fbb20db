using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// A target the JIT inlines (`x * 3 + 1`, no attribute), its one hot caller, a whole-body
// replacement for it, and one marker per phase.
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

    // What Install puts in Tiny's place: a different value, so the caller's sum says which runs.
    public static int TinyReplacement(int x) => x * 3 + 2;

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
/// Hooks and a whole-body replacement on a method the JIT inlines, through the product alone.
/// Tiny is hooked with Interceptor.Hook (a counting prefix, an empty postfix): the runtime never
/// inlines the ReJIT'd Tiny, so the profiler re-JITs its known inliner with IL that calls a carrier
/// of the woven body (a method it defines, with no ReJIT version), which the JIT inlines. Then the
/// hook is removed, Tiny replaced with Interceptor.Install, and that removed too. Each phase records
/// the caller's value and how often the prefix ran; the listings come from
/// DOTNET_JitDisasm=InlineSiteCaller,InlineSitePhase* written to DOTNET_JitStdOutFile, which the
/// proof reads after the process ends. The phase-marking methods are called only after a phase's
/// code is final: the JIT's compile count has stopped growing.
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

            hook.Remove();
            phases.Add(Phase(2, "hookRemoved"));

            Patch replaced = interceptor.Install(tiny,
                Method(typeof(InlineSiteTargets), nameof(InlineSiteTargets.TinyReplacement)), owner);
            phases.Add(Phase(3, "replaced"));

            replaced.Remove();
            phases.Add(Phase(4, "replaceRemoved"));
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
