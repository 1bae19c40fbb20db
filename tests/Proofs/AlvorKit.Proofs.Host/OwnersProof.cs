using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

namespace AlvorKit.Proofs.Host;

public static class OwnersTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Shared(int x) => x + 1;

    public static int SharedA(int x) => x + 100;

    public static int SharedB(int x) => x + 200;
}

public static class OwnersProof
{
    private const ulong First = 0x4001, Second = 0x4002, Stranger = 0x4003;
    private const int Input = 5;

    // Two owners on one target: the second install joins the first's patch; the original
    // comes back only when the last owner removes it; a stranger changes nothing.
    public static JsonObject Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => OwnersTargets.Shared(Input);
        var report = new JsonObject { ["original"] = call() };
        var target = Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.Shared));

        AlvkInstallRequest first = patcher.Request(target, Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)), First);
        JsonObject step = patcher.Command(library.PatchInstall(first, out ulong handle), handle);
        step["result"] = Patcher.Poll(call, Input + 100);
        step["telemetry"] = patcher.Telemetry(handle);
        report["firstInstall"] = step;

        AlvkInstallRequest second = patcher.Request(target, Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedB)), Second);
        step = patcher.Command(library.PatchInstall(second, out ulong joined), joined);
        step["sameHandle"] = joined == handle;
        step["result"] = Patcher.Poll(call, Input + 200);
        step["telemetry"] = patcher.Telemetry(handle);
        report["secondInstall"] = step;

        step = new JsonObject
        {
            ["removeSync"] = library.PatchRemove(handle, Stranger).ToString(),
            ["replaceSync"] = library.PatchReplace(handle, Stranger,
                Patcher.EntryPoint(Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)))).ToString(),
            ["result"] = call(),
            ["telemetry"] = patcher.Telemetry(handle),
        };
        report["stranger"] = step;

        step = patcher.Command(library.PatchRemove(handle, First), handle);
        step["result"] = Patcher.Poll(call, Input + 200);
        step["telemetry"] = patcher.Telemetry(handle);
        report["firstRemove"] = step;

        step = patcher.Command(library.PatchRemove(handle, Second), handle);
        step["result"] = Patcher.Poll(call, Input + 1);
        step["telemetry"] = patcher.Telemetry(handle);
        report["secondRemove"] = step;

        report["afterEnd"] = new JsonObject
        {
            ["removeAgain"] = library.PatchRemove(handle, Second).ToString(),
            ["replace"] = library.PatchReplace(handle, First,
                Patcher.EntryPoint(Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)))).ToString(),
            ["result"] = call(),
        };

        // The owner whose replacement is in force leaves: the other owner's comes back.
        step = patcher.Command(library.PatchInstall(first, out ulong again), again);
        step["result"] = Patcher.Poll(call, Input + 100);
        patcher.Command(library.PatchInstall(second, out _), again);
        step["joinedResult"] = Patcher.Poll(call, Input + 200);
        JsonObject leave = patcher.Command(library.PatchRemove(again, Second), again);
        leave["result"] = Patcher.Poll(call, Input + 100);
        leave["telemetry"] = patcher.Telemetry(again);
        step["newestOwnerLeaves"] = leave;
        patcher.Command(library.PatchRemove(again, First), again);
        step["finalResult"] = Patcher.Poll(call, Input + 1);
        report["successor"] = step;
        return report;
    }
}
