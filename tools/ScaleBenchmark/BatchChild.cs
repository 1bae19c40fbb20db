using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Host;

namespace AlvorKit.ScaleBenchmark;

/// <summary>
/// In a profiled process (ALVORKIT_INTERCEPTION_MODULES=ScaleBenchmark): 1,000 distinct targets
/// (ScaleTargets, linked from the proof host) installed in one batch, then removed, round after
/// round: alvk_patch_install_batch on the calli path and on the direct-call path, and
/// Interceptor.InstallMany (direct call, its checks and one description per target included).
/// Each round reports the time to the batch's command result (every patch active), to every
/// target's first patched call, the removal's time, and the process's memory while the 1,000
/// patches are active and after their removal.
/// </summary>
internal static class BatchChild
{
    private const ulong Owner = 0xBA7C;
    private const int Input = 5, Patched = Input + 1_000_000;

    /// <summary>The replacement of every target.</summary>
    public static int Replacement(int x) => x + 1_000_000;

    private readonly record struct Round(string Name, double CommandMs, double FirstCallsMs, double RemoveMs,
        Memory.Reading Idle, Memory.Reading Active, Memory.Reading Removed, ulong SnapshotBytes, uint Slots, string Errors)
    {
        public ulong SnapshotBytesRemoved { get; init; }
    }

    internal static int Run(int rounds)
    {
        var library = ProfilerLibrary.Open();
        using var interceptor = Interceptor.Open();
        int n = ScaleTargets.Count;
        MethodInfo[] targets = [.. Enumerable.Range(0, n).Select(i =>
            typeof(ScaleTargets).GetMethod($"T{i:D4}", BindingFlags.Public | BindingFlags.Static)!)];
        Func<int, int>[] calls = [.. targets.Select(t => t.CreateDelegate<Func<int, int>>())];
        for (int round = 0; round < 3; round++)
            foreach (Func<int, int> call in calls)
                call(Input);
        MethodInfo replacement = typeof(BatchChild).GetMethod(nameof(Replacement))!;
        RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
        IntPtr entry = replacement.MethodHandle.GetFunctionPointer();
        var requests = new AlvkInstallRequest[n];
        var direct = new AlvkInstallRequest[n];
        for (int i = 0; i < n; i++)
        {
            if (library.DescribeMethod(targets[i].Module.ModuleVersionId, targets[i].MetadataToken,
                    out AlvkMethodDescription d) != AlvkStatus.Ok)
                throw new InvalidOperationException($"cannot describe {targets[i].Name}");
            requests[i] = AlvkInstallRequest.For(d, entry, Owner);
            direct[i] = requests[i];
            direct[i].ReplacementModuleId = d.ModuleId; // the same module: a MethodDef call
            direct[i].ReplacementToken = unchecked((uint)replacement.MetadataToken);
        }

        // The first batch grows the table and ReJITs every target for the first time.
        var results = new List<Round> { Raw(library, requests, calls, "first batch: calli (the table grows)") };
        for (int r = 0; r < rounds; r++)
        {
            results.Add(Raw(library, requests, calls, "alvk_patch_install_batch, calli"));
            results.Add(Raw(library, direct, calls, "alvk_patch_install_batch, direct call"));
            results.Add(Managed(interceptor, library, targets, replacement, calls));
        }

        // Where InstallMany's time goes: one description per target, each a worker round trip.
        long describeStart = Stopwatch.GetTimestamp();
        foreach (MethodInfo target in targets)
            interceptor.Describe(target);
        double describeMs = Stopwatch.GetElapsedTime(describeStart).TotalMilliseconds;

        Console.WriteLine(FormattableString.Invariant(
            $"{n:N0} distinct targets in one batch: a first batch, then {rounds} rounds of each kind (ms; memory process-wide)"));
        Console.WriteLine();
        Console.WriteLine("| batch | until every patch is active (command result) | + every target's first patched call | removal (1,000 single removes) | errors |");
        Console.WriteLine("|---|---:|---:|---:|---|");
        foreach (Round r in results)
            Console.WriteLine(FormattableString.Invariant(
                $"| {r.Name} | {r.CommandMs:F1} | {r.FirstCallsMs:F1} | {r.RemoveMs:F1} | {(r.Errors.Length == 0 ? "none" : r.Errors)} |"));
        Console.WriteLine();
        Console.WriteLine(FormattableString.Invariant(
            $"Interceptor.Describe of the {n:N0} targets, one after another (what InstallMany does first): {describeMs:F1} ms"));
        Console.WriteLine();
        Console.WriteLine("| batch | malloc in use, active - idle (per patch, bytes) | profiler snapshots (per patch, bytes) | patch slots allocated | RSS active - idle (per patch, bytes) | malloc in use, removed - idle (KiB) | malloc held (arena + mmap), removed - active (KiB) | RSS removed - active (KiB) | profiler snapshots after removal (bytes) |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (Round r in results)
            Console.WriteLine(FormattableString.Invariant(
                $"| {r.Name} | {(r.Active.HeapInUse - r.Idle.HeapInUse) / n} | {r.SnapshotBytes / (ulong)n} | {r.Slots} | {(r.Active.VmRssKiB - r.Idle.VmRssKiB) * 1024 / n} | {(r.Removed.HeapInUse - r.Idle.HeapInUse) / 1024} | {(r.Removed.HeapHeld - r.Active.HeapHeld) / 1024} | {r.Removed.VmRssKiB - r.Active.VmRssKiB} | {r.SnapshotBytesRemoved} |"));
        return results.All(r => r.Errors.Length == 0) ? 0 : 1;
    }

    private static Round Raw(ProfilerLibrary library, AlvkInstallRequest[] requests, Func<int, int>[] calls, string name)
    {
        int n = requests.Length;
        var handles = new ulong[n];
        var statuses = new AlvkStatus[n];
        Memory.Reading idle = Memory.Read();
        long start = Stopwatch.GetTimestamp();
        AlvkStatus call = library.PatchInstallBatch(requests, handles, statuses);
        AlvkStatus wait = library.CommandWait(library.LastCommand(), 10_000, out AlvkStatus result);
        double commandMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        int wrong = FirstCalls(calls);
        double firstCallsMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        (Memory.Reading active, ulong snapshots, uint slots) = Active(library);
        start = Stopwatch.GetTimestamp();
        int removeFailures = 0;
        foreach (ulong h in handles)
            if (library.PatchRemove(h, Owner) != AlvkStatus.Ok || library.PatchWait(h, 10_000) != AlvkStatus.Ok)
                removeFailures++;
        double removeMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        Memory.Reading removed = Memory.Read();
        library.GetRuntimeStatus(out AlvkRuntimeStatus after);
        string errors = call != AlvkStatus.Ok || wait != AlvkStatus.Ok || result != AlvkStatus.Ok || wrong != 0 || removeFailures != 0
            ? $"batch {call}/{wait}/{result}, {wrong} not patched, {removeFailures} removals failed" : "";
        return new Round(name, commandMs, firstCallsMs, removeMs, idle, active, removed, snapshots, slots, errors)
        {
            SnapshotBytesRemoved = after.SnapshotBytes,
        };
    }

    private static Round Managed(Interceptor interceptor, ProfilerLibrary library, MethodInfo[] targets, MethodInfo replacement,
        Func<int, int>[] calls)
    {
        var pairs = targets.Select(t => ((MethodBase)t, replacement)).ToList();
        using var owner = new PatchOwner("scale benchmark");
        Memory.Reading idle = Memory.Read();
        long start = Stopwatch.GetTimestamp();
        IReadOnlyList<Patch> patches = interceptor.InstallMany(pairs, owner);
        double commandMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        int wrong = FirstCalls(calls);
        double firstCallsMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        (Memory.Reading active, ulong snapshots, uint slots) = Active(library);
        string path = patches[0].ReadTelemetry().DispatchPath.ToString();
        start = Stopwatch.GetTimestamp();
        owner.Dispose();
        double removeMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        Memory.Reading removed = Memory.Read();
        library.GetRuntimeStatus(out AlvkRuntimeStatus after);
        return new Round($"Interceptor.InstallMany ({path})", commandMs, firstCallsMs, removeMs, idle, active, removed,
            snapshots, slots, wrong != 0 ? $"{wrong} not patched" : "")
        {
            SnapshotBytesRemoved = after.SnapshotBytes,
        };
    }

    // Calls every target once (its first patched call compiles its new body); how many did
    // not return the patched value.
    private static int FirstCalls(Func<int, int>[] calls) => calls.Count(call => call(Input) != Patched);

    private static (Memory.Reading Reading, ulong SnapshotBytes, uint Slots) Active(ProfilerLibrary library)
    {
        Memory.Reading reading = Memory.Read();
        library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return (reading, s.SnapshotBytes, s.PatchSlotsAllocated);
    }
}
