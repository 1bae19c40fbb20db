using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class LifecycleTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Compute(int x) => x + 1;

    public static int ComputeA(int x) => x + 100;

    public static int ComputeB(int x) => x + 1000;
}

public static class LifecycleProof
{
    private const ulong Owner = 0x1001;
    private const int Input = 5;

    // Install A on a hot method, replace it with B, remove it: what Compute returns after
    // each step, and the telemetry once the new behaviour ran.
    public static LifecycleReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        int warm = 0;
        for (int round = 0; round < 2; round++)
        {
            for (int i = 0; i < 200; i++)
                warm += LifecycleTargets.Compute(i);
            Thread.Sleep(150);
        }

        int original = LifecycleTargets.Compute(Input);
        AlvkInstallRequest request = patcher.Request(Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.Compute)),
            Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.ComputeA)), Owner);
        IntPtr entryB = Patcher.EntryPoint(Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.ComputeB)));

        AlvkStatus sync = library.PatchInstall(request, out ulong handle);
        PatchStep install = Step(patcher, sync, handle, Input + 100);
        PatchStep replace = Step(patcher, library.PatchReplace(handle, Owner, entryB), handle, Input + 1000);
        PatchStep remove = Step(patcher, library.PatchRemove(handle, Owner), handle, Input + 1);
        return new LifecycleReport(warm, original, handle != 0,
            install, install.Telemetry.Replacement == request.Replacement,
            replace, replace.Telemetry.Replacement == (ulong)entryB,
            remove, library.PatchWait(handle, Patcher.WaitMs).ToString());
    }

    private static PatchStep Step(Patcher patcher, AlvkStatus sync, ulong handle, int expected) =>
        new(patcher.Finish(sync, handle), Patcher.PollFor(() => LifecycleTargets.Compute(Input), expected),
            patcher.ReadTelemetry(handle));
}
