using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

public static class StressTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Stressed(int x) => x + 1;

    public static int StressedA(int x) => x + 100;

    public static int StressedB(int x) => x + 1000;
}

public static class StressProof
{
    private const int Threads = 4;
    private const int CyclesPerThread = 250;
    private const int Input = 1;
    private static readonly TimeSpan Budget = TimeSpan.FromSeconds(60);

    // One target, a caller that never stops calling it, and four threads each running
    // install -> replace -> remove cycles under their own owner ID: every result the
    // caller sees is the original, A or B, and everything ends with the original.
    public static StressReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        var target = Patcher.Method(typeof(StressTargets), nameof(StressTargets.Stressed));
        AlvkInstallRequest template = patcher.Request(target,
            Patcher.Method(typeof(StressTargets), nameof(StressTargets.StressedA)), 1);
        IntPtr entryB = Patcher.EntryPoint(Patcher.Method(typeof(StressTargets), nameof(StressTargets.StressedB)));

        var syncStatuses = new ConcurrentDictionary<string, int>();
        var waitStatuses = new ConcurrentDictionary<string, int>();
        var handles = new ConcurrentDictionary<ulong, byte>();
        long calls = 0, violations = 0, seenOriginal = 0, seenA = 0, seenB = 0;
        int cycles = 0;
        bool stop = false;
        var clock = Stopwatch.StartNew();

        var caller = new Thread(() =>
        {
            while (!Volatile.Read(ref stop))
            {
                int r = StressTargets.Stressed(Input);
                calls++;
                switch (r)
                {
                    case Input + 1: seenOriginal++; break;
                    case Input + 100: seenA++; break;
                    case Input + 1000: seenB++; break;
                    default: violations++; break;
                }
            }
        })
        { IsBackground = true, Name = "stress-caller" };
        caller.Start();

        void Count(ConcurrentDictionary<string, int> counts, AlvkStatus status) =>
            counts.AddOrUpdate(status.ToString(), 1, (_, n) => n + 1);

        AlvkStatus Wait(ulong handle)
        {
            AlvkStatus status = library.PatchWait(handle, Patcher.WaitMs);
            Count(waitStatuses, status);
            return status;
        }

        var workers = Enumerable.Range(0, Threads).Select(t => new Thread(() =>
        {
            ulong owner = 0x6000 + (ulong)t + 1;
            AlvkInstallRequest request = template;
            request.Owner = owner;
            for (int i = 0; i < CyclesPerThread && clock.Elapsed < Budget; i++)
            {
                AlvkStatus status = library.PatchInstall(request, out ulong handle);
                Count(syncStatuses, status);
                if (status == AlvkStatus.Ok)
                {
                    handles.TryAdd(handle, 0);
                    Wait(handle);
                    status = library.PatchReplace(handle, owner, entryB);
                    Count(syncStatuses, status);
                    if (status == AlvkStatus.Ok)
                        Wait(handle);
                    status = library.PatchRemove(handle, owner);
                    Count(syncStatuses, status);
                    if (status == AlvkStatus.Ok)
                        Wait(handle);
                }
                Interlocked.Increment(ref cycles);
            }
        })
        { Name = $"stress-patcher-{t}" }).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        long patchMs = clock.ElapsedMilliseconds;

        foreach (ulong handle in handles.Keys)
            library.PatchWait(handle, Patcher.WaitMs);
        Volatile.Write(ref stop, true);
        caller.Join();

        var states = new ConcurrentDictionary<string, int>();
        foreach (ulong handle in handles.Keys)
        {
            AlvkStatus rc = library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
            states.AddOrUpdate(rc == AlvkStatus.Ok ? t.State.ToString() : rc.ToString(), 1, (_, n) => n + 1);
        }
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        return new StressReport(cycles, patchMs, calls, violations, seenOriginal, seenA, seenB,
            Sorted(syncStatuses), Sorted(waitStatuses), handles.Count, Sorted(states),
            Patcher.PollFor(() => StressTargets.Stressed(Input), Input + 1), runtime.QueueDepth);
    }

    private static SortedDictionary<string, int> Sorted(ConcurrentDictionary<string, int> counts) =>
        new(counts, StringComparer.Ordinal);
}
