using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>The targets of the inliner-count proof (host mode "inlinercount").</summary>
public static class InlinerCountTargets
{
    // Small enough to be inlined into every caller once the caller is optimized.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SmallA(int x) => x * 2;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int SmallB(int x) => x * 3;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallerA(int x) => SmallA(x) + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallerB(int x) => SmallB(x) + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallerAB(int x) => SmallA(x) + SmallB(x);

    public static int ReplacementA(int x) => x * 2 + 500;

    public static int ReplacementB(int x) => x * 3 + 7000;
}

/// <summary>
/// The managed API's inliner count, as a game developer reads it: SmallA and SmallB patched one
/// after the other (Interceptor.Install), each inlined by its own hot caller and both by a third;
/// the callers run after the second install. Each patch must count its own inliners (CallerA and
/// CallerAB for A, CallerB and CallerAB for B), not the latest request's; then A's removal
/// re-JITs A's inliners, counted for A alone.
/// </summary>
public static class InlinerCountProof
{
    private const int Input = 7;

    public static InlinerCountReport Run()
    {
        using var interceptor = Interceptor.Open();
        // Hot enough for tier 1 (which inlines the targets): batches with pauses so the tiering
        // background work gets to promote the callers.
        long warm = 0;
        for (int batch = 0; batch < 10; batch++)
        {
            for (int i = 0; i < 10_000; i++)
                warm += InlinerCountTargets.CallerA(i) + InlinerCountTargets.CallerB(i) + InlinerCountTargets.CallerAB(i);
            Thread.Sleep(30);
        }
        var originals = new InlinerCountCalls(InlinerCountTargets.CallerA(Input), InlinerCountTargets.CallerB(Input),
            InlinerCountTargets.CallerAB(Input));

        Patch a = interceptor.Install(Method(nameof(InlinerCountTargets.SmallA)), Method(nameof(InlinerCountTargets.ReplacementA)));
        int aAtInstall = a.ReadTelemetry().InlinersReJITted;
        Patch b = interceptor.Install(Method(nameof(InlinerCountTargets.SmallB)), Method(nameof(InlinerCountTargets.ReplacementB)));
        int bAtInstall = b.ReadTelemetry().InlinersReJITted;

        var patched = new InlinerCountPolls(
            Patcher.PollFor(() => InlinerCountTargets.CallerA(Input), Input * 2 + 500 + 1),
            Patcher.PollFor(() => InlinerCountTargets.CallerB(Input), Input * 3 + 7000 + 1),
            Patcher.PollFor(() => InlinerCountTargets.CallerAB(Input), Input * 2 + 500 + Input * 3 + 7000));
        InlinerCountTelemetry afterRun = new(Count(a), Count(b));

        a.Remove();
        var removed = new InlinerCountPolls(
            Patcher.PollFor(() => InlinerCountTargets.CallerA(Input), Input * 2 + 1),
            Patcher.PollFor(() => InlinerCountTargets.CallerB(Input), Input * 3 + 7000 + 1),
            Patcher.PollFor(() => InlinerCountTargets.CallerAB(Input), Input * 2 + Input * 3 + 7000));
        InlinerCountTelemetry afterRemove = new(Count(a), Count(b));
        b.Remove();
        return new InlinerCountReport(warm, originals, aAtInstall, bAtInstall, patched, afterRun, removed, afterRemove);
    }

    private static MethodInfo Method(string name) => Patcher.Method(typeof(InlinerCountTargets), name);

    private static InlinerCount Count(Patch patch)
    {
        PatchTelemetry t = patch.ReadTelemetry();
        return new InlinerCount(t.InlinersReJITted, t.ToString());
    }
}
