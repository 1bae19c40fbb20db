using System.Diagnostics;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class InliningTargets
{
    // Small enough to be inlined into HotCaller once HotCaller is optimized.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Small(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int HotCaller(int x) => Small(x) + 1;

    public static int SmallReplacement(int x) => x * 2 + 500;
}

public static class InliningProof
{
    private const ulong Owner = 0x2001;
    private const int Input = 7;

    // Patch a method its hot caller has inlined: the caller must see the replacement, and
    // the original again after removal. `fallback` selects ALVK_INSTALL_INLINER_FALLBACK.
    public static InliningReport Run(bool fallback)
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        // Hot enough for tier 1 (which inlines Small): batches with pauses so the tiering
        // background work gets to promote HotCaller.
        long warm = 0;
        var clock = Stopwatch.StartNew();
        for (int batch = 0; batch < 10; batch++)
        {
            for (int i = 0; i < 10_000; i++)
                warm += InliningTargets.HotCaller(i);
            Thread.Sleep(30);
        }
        long warmMs = clock.ElapsedMilliseconds;
        int original = InliningTargets.HotCaller(Input);

        AlvkInstallRequest request = patcher.Request(
            Patcher.Method(typeof(InliningTargets), nameof(InliningTargets.Small)),
            Patcher.Method(typeof(InliningTargets), nameof(InliningTargets.SmallReplacement)), Owner,
            fallback ? AlvkInstallFlags.InlinerFallback : AlvkInstallFlags.None);
        AlvkStatus sync = library.PatchInstall(request, out ulong handle);
        PatchStep install = Step(patcher, sync, handle, Input * 2 + 500 + 1);
        PatchStep remove = Step(patcher, library.PatchRemove(handle, Owner), handle, Input * 2 + 1);
        return new InliningReport(fallback, warm, warmMs, original, install, remove);
    }

    private static PatchStep Step(Patcher patcher, AlvkStatus sync, ulong handle, int expected) =>
        new(patcher.Finish(sync, handle), Patcher.PollFor(() => InliningTargets.HotCaller(Input), expected),
            patcher.ReadTelemetry(handle));
}
