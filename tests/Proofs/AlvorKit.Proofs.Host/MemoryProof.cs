using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

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

    public static JsonObject Run(int replacements)
    {
        var patcher = new Patcher();
        var report = new JsonObject { ["replacements"] = replacements };
        report["replaces"] = Replaces(patcher, replacements);
        report["signatures"] = Signatures(patcher);
        return report;
    }

    private static JsonObject Status(ProfilerLibrary library)
    {
        library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return new JsonObject
        {
            ["tokensEmitted"] = s.MetadataTokensEmitted,
            ["bytesEmitted"] = s.MetadataBytesEmitted,
            ["tokensReused"] = s.MetadataTokensReused,
            ["snapshotBytes"] = s.SnapshotBytes,
            ["snapshotCount"] = s.SnapshotCount,
            ["rss"] = Environment.WorkingSet,
        };
    }

    private static JsonObject Replaces(Patcher patcher, int replacements)
    {
        ProfilerLibrary library = patcher.Library;
        var value = Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.Value));
        IntPtr ten = Patcher.EntryPoint(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTen)));
        IntPtr twenty = Patcher.EntryPoint(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTwenty)));
        var report = new JsonObject { ["original"] = MemoryTargets.Value(1) };
        library.PatchInstall(patcher.Request(value, Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.PlusTen)), Owner),
            out ulong handle);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus installed);
        report["install"] = installed.ToString();
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
        report["before"] = Status(library);
        for (int i = 0; i < replacements; i++)
            failures += Replace(i) ? 0 : 1;
        report["after"] = Status(library);
        report["failures"] = failures;
        library.PatchRemove(handle, Owner);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus removed);
        report["remove"] = removed.ToString();
        report["afterRemove"] = MemoryTargets.Value(1);
        report["final"] = Status(library);
        return report;
    }

    // Generations whose locals signature is new each time (1..16 int32 locals), then the first
    // one again: a new signature is one more token and its bytes; a known one is reused.
    private static JsonObject Signatures(Patcher patcher)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(MemoryTargets), nameof(MemoryTargets.Locals)));
        var report = new JsonObject { ["original"] = MemoryTargets.Locals(5), ["before"] = Status(library) };
        ulong prior = 0, handle = 0;
        var results = new JsonArray();
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
            JsonObject status = Status(library);
            results.Add(new JsonObject
            {
                ["locals"] = count,
                ["blobLength"] = blob.Length,
                ["submit"] = s.ToString(),
                ["result"] = result.ToString(),
                ["value"] = MemoryTargets.Locals(5),
                ["tokensEmitted"] = status["tokensEmitted"]!.GetValue<ulong>(),
                ["bytesEmitted"] = status["bytesEmitted"]!.GetValue<ulong>(),
                ["tokensReused"] = status["tokensReused"]!.GetValue<ulong>(),
            });
        }
        report["steps"] = results;
        library.PatchRemove(handle, LocalsOwner);
        library.CommandWait(library.LastCommand(), Patcher.WaitMs, out AlvkStatus removed);
        report["remove"] = removed.ToString();
        report["afterRemove"] = MemoryTargets.Locals(5);
        return report;
    }
}
