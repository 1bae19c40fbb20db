using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class CommandTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Value(int x) => x + 1;

    public static int Doubled(int x) => 2 * x;
    public static int Tripled(int x) => 3 * x;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Chained(int x) => x - 1;
}

/// <summary>
/// Command identity: every accepted command has its own ID and alvk_command_wait answers for
/// exactly that one, whatever else the patch queued; refused calls issue no command and
/// consume no generation ID, even when the queue is full.
/// </summary>
public static unsafe class CommandsProof
{
    private const ulong Owner = 0x7101, Joiner = 0x7102, Stranger = 0x7103, ChainOwner = 0x7104;
    private const int Input = 7;

    public static CommandsReport Run()
    {
        var patcher = new Patcher();
        OwnCommandReport ownCommand = OwnCommand(patcher);
        return new CommandsReport(ownCommand, GenerationIds(patcher));
    }

    // A replace and, behind it on the same patch, a join the worker rejects: each waiter gets
    // its own command's status; alvk_patch_wait reports the latest finished one.
    private static OwnCommandReport OwnCommand(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        var value = Patcher.Method(typeof(CommandTargets), nameof(CommandTargets.Value));
        var doubled = Patcher.Method(typeof(CommandTargets), nameof(CommandTargets.Doubled));
        var tripled = Patcher.Method(typeof(CommandTargets), nameof(CommandTargets.Tripled));
        int original = CommandTargets.Value(Input);
        AlvkStatus install = library.PatchInstall(patcher.Request(value, doubled, Owner), out ulong handle);
        ulong installCommand = library.LastCommand();
        WaitedCommand installed = Waited(library, install, installCommand);
        Polled<int> afterInstall = Patcher.PollFor(() => CommandTargets.Value(Input), 2 * Input);

        AlvkStatus replace = library.PatchReplace(handle, Owner, Patcher.EntryPoint(tripled));
        ulong replaceCommand = library.LastCommand();
        AlvkInstallRequest bad = patcher.Request(value, doubled, Joiner);
        bad.BodyIdentity[0] ^= 0xFF;
        AlvkStatus join = library.PatchInstall(bad, out ulong joined);
        ulong joinCommand = library.LastCommand();
        bool sameHandle = joined == handle;
        WaitedCommand replaced = Waited(library, replace, replaceCommand);
        WaitedCommand joinWaited = Waited(library, join, joinCommand);
        bool distinctIds = installCommand != 0 && replaceCommand > installCommand && joinCommand > replaceCommand;
        string patchWait = library.PatchWait(handle, Patcher.WaitMs).ToString();
        Polled<int> afterReplace = Patcher.PollFor(() => CommandTargets.Value(Input), 3 * Input);

        AlvkStatus refused = library.PatchRemove(handle, Stranger);
        var refusedRemove = new RefusedCall(refused.ToString(), library.LastCommand());
        string unknownZero = library.CommandWait(0, 0, out _).ToString();
        string unknownFuture = library.CommandWait(ulong.MaxValue, 0, out _).ToString();

        AlvkStatus remove = library.PatchRemove(handle, Owner);
        WaitedCommand removed = Waited(library, remove, library.LastCommand());
        return new OwnCommandReport(original, installed, afterInstall, sameHandle, replaced, joinWaited, distinctIds,
            patchWait, afterReplace, refusedRemove, unknownZero, unknownFuture, removed,
            Patcher.PollFor(() => CommandTargets.Value(Input), Input + 1));
    }

    private static WaitedCommand Waited(ProfilerLibrary library, AlvkStatus sync, ulong command)
    {
        if (sync != AlvkStatus.Ok)
            return new WaitedCommand(sync.ToString(), command, null, null);
        AlvkStatus wait = library.CommandWait(command, Patcher.WaitMs, out AlvkStatus result);
        return new WaitedCommand(sync.ToString(), command, wait.ToString(), result.ToString());
    }

    // A chain of generations submitted as fast as one thread can, so the bounded queue fills:
    // the refusals (QUEUE_FULL) take no ID, so the accepted IDs are consecutive; every accepted
    // one ends with a result, and the last one is what the target runs.
    private static GenerationIdsReport GenerationIds(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(CommandTargets), nameof(CommandTargets.Chained)));
        int original = CommandTargets.Chained(Input);
        var ids = new List<ulong>();
        var commands = new List<ulong>();
        int queueFull = 0, stale = 0, other = 0;
        ulong handle = 0, prior = 0;
        // Stale first: refused at the call, issues nothing.
        AlvkStatus staleFirst = Body(1).Submit(library, target, 12345, ChainOwner, out _, out ulong staleId);
        var staleAtCall = new RefusedSubmission(staleFirst.ToString(), staleId, library.LastCommand());
        var clock = System.Diagnostics.Stopwatch.StartNew();
        while ((ids.Count < 100 || queueFull == 0) && clock.Elapsed < TimeSpan.FromSeconds(20))
        {
            AlvkStatus s = Body(ids.Count + 1).Submit(library, target, prior, ChainOwner, out ulong h, out ulong id);
            if (s == AlvkStatus.Ok)
            {
                handle = h;
                prior = id;
                ids.Add(id);
                commands.Add(library.LastCommand());
            }
            else if (s == AlvkStatus.QueueFull)
            {
                queueFull++;
                if (library.LastCommand() != 0)
                    other++;
                Thread.Yield();
            }
            else if (s == AlvkStatus.StaleGeneration)
                stale++;
            else
                other++;
        }
        int gaps = 0, ended = 0;
        for (int i = 1; i < ids.Count; i++)
            if (ids[i] != ids[i - 1] + 1)
                gaps++;
        foreach (ulong command in commands)
            if (library.CommandWait(command, Patcher.WaitMs, out _) == AlvkStatus.Ok)
                ended++;
        Polled<int> last = Patcher.PollFor(() => CommandTargets.Chained(Input), Input * 100 + ids.Count);
        WaitedCommand remove = Waited(library, library.PatchRemove(handle, ChainOwner), library.LastCommand());
        return new GenerationIdsReport(original, staleAtCall, ids.Count, queueFull, stale, other, gaps, ended, last, remove,
            Patcher.PollFor(() => CommandTargets.Chained(Input), Input - 1));
    }

    // x * 100 + n
    private static GenerationBuilder Body(int n)
    {
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI4(100);
        b.IL.OpCode(ILOpCode.Mul);
        b.IL.LoadConstantI4(n);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        return b;
    }
}
