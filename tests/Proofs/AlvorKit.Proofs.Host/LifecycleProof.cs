using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

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
    public static JsonObject Run()
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

        var report = new JsonObject { ["warmSum"] = warm, ["original"] = LifecycleTargets.Compute(Input) };
        AlvkInstallRequest request = patcher.Request(Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.Compute)),
            Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.ComputeA)), Owner);
        IntPtr entryB = Patcher.EntryPoint(Patcher.Method(typeof(LifecycleTargets), nameof(LifecycleTargets.ComputeB)));

        AlvkStatus sync = library.PatchInstall(request, out ulong handle);
        report["handleNonZero"] = handle != 0;
        report["install"] = Step(patcher, sync, handle, Input + 100);
        report["install"]!["replacementIsA"] = report["install"]!["telemetry"]!["replacement"]?.GetValue<ulong>() == request.Replacement;

        report["replace"] = Step(patcher, library.PatchReplace(handle, Owner, entryB), handle, Input + 1000);
        report["replace"]!["replacementIsB"] = report["replace"]!["telemetry"]!["replacement"]?.GetValue<ulong>() == (ulong)entryB;

        report["remove"] = Step(patcher, library.PatchRemove(handle, Owner), handle, Input + 1);
        report["waitAfterRemoved"] = library.PatchWait(handle, Patcher.WaitMs).ToString();
        return report;
    }

    private static JsonObject Step(Patcher patcher, AlvkStatus sync, ulong handle, int expected)
    {
        JsonObject step = patcher.Command(sync, handle);
        step["result"] = Patcher.Poll(() => LifecycleTargets.Compute(Input), expected);
        step["telemetry"] = patcher.Telemetry(handle);
        return step;
    }
}
