using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class MemoryTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Value(int x) => x + 1;

    public static int PlusTen(int x) => x + 10;
    public static int PlusTwenty(int x) => x + 20;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Locals(int x) => x - 1;
}

/// <summary>
/// What a patch costs as it is replaced again and again: the profiler's own memory (its
/// snapshots) stays bounded, the calli signature is emitted once and reused, and every new
/// signature a generation brings is counted in the runtime status. The process's RSS per
/// replacement is reported: that growth is the runtime's (each ReJIT is a new IL version).
/// </summary>
public static unsafe class MemoryProof
{
    private const ulong Owner = 0x7201, LocalsOwner = 0x7202;

    public static MemoryReport Run(int replacements)
    {
        var patcher = new Patcher();
        ReplacesReport replaces = Replaces(patcher, replacements);
        return new MemoryReport(replacements, replaces, Signatures(patcher));
    }

    private static MemoryCounters Status(ProfilerLibrary library)
    {
        library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return new MemoryCounters(s.MetadataTokensEmitted, s.MetadataBytesEmitted, s.MetadataTokensReused,
            s.SnapshotBytes, s.SnapshotCount, Environment.WorkingSet);
    }

    private static ReplacesReport Replaces(Patcher patcher, int replacements)
    {
        ProfilerLibrary library = patcher.Library;
        var value = Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.Value));
        IntPtr ten = Patcher.EntryPoint(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTen)));
        IntPtr twenty = Patcher.EntryPoint(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTwenty)));
        int original = MemoryTargets.Value(1);
        library.PatchInstall(patcher.Request(value, Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTen)), Owner),
            out ulong handle);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus installed);

        // Warm up: the first replacements settle the runtime's tiering and our caches.
        int failures = 0;
        bool Replace(int i)
        {
            AlvkStatus s = library.PatchReplace(handle, Owner, i % 2 == 0 ? twenty : ten);
            if (s == AlvkStatus.Ok && library.CommandWait(library.LastCommand(), Patcher.WaitMs, out s) == AlvkStatus.Ok &&
                s == AlvkStatus.Ok)
                return MemoryTargets.Value(1) == (i % 2 == 0 ? 21 : 11);
            return false;
        }
        for (int i = 0; i < 50; i++)
            failures += Replace(i) ? 0 : 1;
        MemoryCounters before = Status(library);
        for (int i = 0; i < replacements; i++)
            failures += Replace(i) ? 0 : 1;
        MemoryCounters after = Status(library);
        library.PatchRemove(handle, Owner);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus removed);
        int afterRemove = MemoryTargets.Value(1);
        return new ReplacesReport(original, installed.ToString(), before, after, failures, removed.ToString(), afterRemove,
            Status(library));
    }

    // Generations whose locals signature is new each time (1..16 int32 locals), then the first
    // one again: a new signature is one more token and its bytes; a known one is reused.
    private static SignaturesReport Signatures(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.Locals)));
        int original = MemoryTargets.Locals(5);
        MemoryCounters before = Status(library);
        ulong prior = 0, handle = 0;
        var results = new List<SignatureStep>();
        foreach (int count in Enumerable.Range(1, 16).Append(1))
        {
            var b = new GenerationBuilder();
            byte[] blob = HostMetadata.Blob(e =>
            {
                var locals = e.LocalVariableSignature(count);
                for (int i = 0; i < count; i++)
                    locals.AddVariable().Type().Int32();
            });
            b.Locals(blob);
            b.IL.LoadArgument(0);
            b.IL.StoreLocal(count - 1);
            b.IL.LoadLocal(count - 1);
            b.IL.LoadConstantI4(count);
            b.IL.OpCode(ILOpCode.Add);
            b.IL.OpCode(ILOpCode.Ret);
            AlvkStatus s = b.Submit(library, target, prior, LocalsOwner, out handle, out ulong id);
            AlvkStatus result = AlvkStatus.Internal;
            if (s == AlvkStatus.Ok)
            {
                library.CommandWait(library.LastCommand(), Patcher.WaitMs, out result);
                prior = id;
            }
            int value = MemoryTargets.Locals(5);
            MemoryCounters status = Status(library);
            results.Add(new SignatureStep(count, blob.Length, s.ToString(), result.ToString(), value,
                status.TokensEmitted, status.BytesEmitted, status.TokensReused));
        }
        library.PatchRemove(handle, LocalsOwner);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus removed);
        return new SignaturesReport(original, before, results, removed.ToString(), MemoryTargets.Locals(5));
    }
}
