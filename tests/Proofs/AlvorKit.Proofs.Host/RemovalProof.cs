using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>The targets of the removal proofs (host mode "removal"). Tiny and its levels are small
/// enough for the JIT to inline wherever it may.</summary>
public static class RemovalTargets
{
    public static int Tiny(int x) => x * 3 + 1;

    public static int TinyLevel1(int x) => x * 3 + 100;

    public static int TinyLevel2(int x) => x * 3 + 200;

    public static int TinyReplacement(int x) => x * 3 + 7;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallTiny(int x) => Tiny(x);

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallLevel1(int x) => TinyLevel1(x);

    /// <summary>The caller whose code the JIT lists (DOTNET_JitDisasm=*RemovalTargets:Caller).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Caller(int x) => Tiny(x) + 1;

    // Phase marks: each is first called (so compiled, and listed with DOTNET_JitDisasm=
    // *RemovalTargets:Phase*) as its phase starts, so the listings file says which phase each
    // listing of Caller came in (the JIT's file is written in order, flushed only at exit).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PhaseBefore()
    {
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PhaseDuring()
    {
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void PhaseAfter()
    {
    }
}

/// <summary>
/// Removing a patch undoes that patch and nothing else, and gives the callers the original's
/// inlining back.
/// nested-inner / nested-outer: Tiny is patched to call TinyLevel1 (the outer patch; the JIT
/// inlines TinyLevel1 into Tiny's new body), TinyLevel1 is patched to TinyLevel2 (the inner
/// patch), then the two are removed inner first or outer first: after each removal every caller
/// must see what the patches still installed call for.
/// caller: Caller inlines Tiny; Tiny is patched, then the patch removed; the proof reads the JIT's
/// own listings of Caller (DOTNET_JitDisasm, DOTNET_JitStdOutFile) once the process ended.
/// </summary>
public static class RemovalProof
{
    private const int Input = 7;

    public static NestedRemovalReport Nested(bool innerFirst)
    {
        using var interceptor = Interceptor.Open();
        Warm(() => RemovalTargets.CallTiny(Input) + RemovalTargets.CallLevel1(Input));
        NestedStep original = Step("original", null, null, Input * 3 + 1, Input * 3 + 100);
        var steps = new List<NestedStep>();
        Patch outer = interceptor.Install(Method(nameof(RemovalTargets.Tiny)), Method(nameof(RemovalTargets.TinyLevel1)));
        Warm(() => RemovalTargets.CallTiny(Input));
        steps.Add(Step("outer installed", outer, null, Input * 3 + 100, Input * 3 + 100));
        Patch inner = interceptor.Install(Method(nameof(RemovalTargets.TinyLevel1)), Method(nameof(RemovalTargets.TinyLevel2)));
        steps.Add(Step("inner installed", outer, inner, Input * 3 + 200, Input * 3 + 200));
        if (innerFirst)
        {
            inner.Remove();
            steps.Add(Step("inner removed", outer, inner, Input * 3 + 100, Input * 3 + 100));
            outer.Remove();
            steps.Add(Step("outer removed", outer, inner, Input * 3 + 1, Input * 3 + 100));
        }
        else
        {
            outer.Remove();
            steps.Add(Step("outer removed", outer, inner, Input * 3 + 1, Input * 3 + 200));
            inner.Remove();
            steps.Add(Step("inner removed", outer, inner, Input * 3 + 1, Input * 3 + 100));
        }
        return new NestedRemovalReport(innerFirst ? "inner first" : "outer first", original, steps,
            outer.ReadTelemetry().ToString(), inner.ReadTelemetry().ToString());
    }

    private static NestedStep Step(string name, Patch? outer, Patch? inner, int tiny, int level1)
    {
        Polled<int> t = Patcher.PollFor(() => RemovalTargets.CallTiny(Input), tiny);
        Polled<int> l = Patcher.PollFor(() => RemovalTargets.CallLevel1(Input), level1);
        // Hot again (tiering: the callers' new code promoted), then polled once more: a value
        // that holds only until the next compilation is caught here.
        Warm(() => RemovalTargets.CallTiny(Input) + RemovalTargets.CallLevel1(Input));
        t = Settled(t, Patcher.PollFor(() => RemovalTargets.CallTiny(Input), tiny));
        l = Settled(l, Patcher.PollFor(() => RemovalTargets.CallLevel1(Input), level1));
        return new NestedStep(name, t, l, outer?.IsInstalled ?? false, inner?.IsInstalled ?? false);
    }

    // The first poll, unless the second (after the callers were hot again) disagrees.
    private static Polled<int> Settled(Polled<int> first, Polled<int> second) =>
        first.Ok && !second.Ok ? second : first;

    public static RestoredCallerReport Caller()
    {
        using var interceptor = Interceptor.Open();
        RemovalTargets.PhaseBefore();
        Warm(() => RemovalTargets.Caller(Input));
        Polled<int> before = Patcher.PollFor(() => RemovalTargets.Caller(Input), Input * 3 + 2);

        Patch patch = interceptor.Install(Method(nameof(RemovalTargets.Tiny)), Method(nameof(RemovalTargets.TinyReplacement)));
        RemovalTargets.PhaseDuring();
        Polled<int> during = Patcher.PollFor(() => RemovalTargets.Caller(Input), Input * 3 + 8);
        Warm(() => RemovalTargets.Caller(Input));

        patch.Remove();
        RemovalTargets.PhaseAfter();
        Polled<int> after = Patcher.PollFor(() => RemovalTargets.Caller(Input), Input * 3 + 2);
        Warm(() => RemovalTargets.Caller(Input));
        return new RestoredCallerReport(Environment.GetEnvironmentVariable("DOTNET_JitStdOutFile"), before, during, after,
            patch.ReadTelemetry().ToString());
    }

    // Hot enough for tier 1 under tiering (batches with pauses so the background work promotes
    // the callers); harmless with tiering off.
    private static void Warm(Func<int> call)
    {
        long sum = 0;
        for (int batch = 0; batch < 20; batch++)
        {
            for (int i = 0; i < 5_000; i++)
                sum += call();
            Thread.Sleep(25);
        }
        GC.KeepAlive(sum);
    }

    private static MethodInfo Method(string name) => Patcher.Method(typeof(RemovalTargets), name);
}
