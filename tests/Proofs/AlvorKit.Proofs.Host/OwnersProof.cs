using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

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
    public static OwnersReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => OwnersTargets.Shared(Input);
        int original = call();
        var target = Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.Shared));
        PatchStep Step(AlvkStatus sync, ulong handle, ulong telemetryOf, int expected) =>
            new(patcher.Finish(sync, handle), Patcher.PollFor(call, expected), patcher.ReadTelemetry(telemetryOf));

        AlvkInstallRequest first = patcher.Request(target, Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)), First);
        PatchStep firstInstall = Step(library.PatchInstall(first, out ulong handle), handle, handle, Input + 100);

        AlvkInstallRequest second = patcher.Request(target, Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedB)), Second);
        PatchStep secondInstall = Step(library.PatchInstall(second, out ulong joined), joined, handle, Input + 200);
        bool sameHandle = joined == handle;

        string removeSync = library.PatchRemove(handle, Stranger).ToString();
        string replaceSync = library.PatchReplace(handle, Stranger,
            Patcher.EntryPoint(Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)))).ToString();
        var stranger = new StrangerAttempt(removeSync, replaceSync, call(), patcher.ReadTelemetry(handle));

        PatchStep firstRemove = Step(library.PatchRemove(handle, First), handle, handle, Input + 200);
        PatchStep secondRemove = Step(library.PatchRemove(handle, Second), handle, handle, Input + 1);

        string removeAgain = library.PatchRemove(handle, Second).ToString();
        string replace = library.PatchReplace(handle, First,
            Patcher.EntryPoint(Patcher.Method(typeof(OwnersTargets), nameof(OwnersTargets.SharedA)))).ToString();
        var afterEnd = new EndedPatchCalls(removeAgain, replace, call());

        // The owner whose replacement is in force leaves: the other owner's comes back.
        CommandOutcome command = patcher.Finish(library.PatchInstall(first, out ulong again), again);
        Polled<int> result = Patcher.PollFor(call, Input + 100);
        patcher.Finish(library.PatchInstall(second, out _), again);
        Polled<int> joinedResult = Patcher.PollFor(call, Input + 200);
        PatchStep leave = Step(library.PatchRemove(again, Second), again, again, Input + 100);
        patcher.Finish(library.PatchRemove(again, First), again);
        var successor = new SuccessorReport(command, result, joinedResult, leave, Patcher.PollFor(call, Input + 1));
        return new OwnersReport(original, firstInstall, secondInstall, sameHandle, stranger, firstRemove, secondRemove,
            afterEnd, successor);
    }
}
