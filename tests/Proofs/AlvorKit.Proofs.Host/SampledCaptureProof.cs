using System.Diagnostics;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Sampled allocation profiling (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled, set by the
/// proofs) around SampledWorkload's known allocations. The host reports what each window says
/// beside the truth; the proofs judge.
///   windows - ten windows of the five types (sampled and count-only in turn, each waiting for
///             sampling), a sixth type allocated only before each opens and after it ends; a
///             window with every stack, one with every tenth; one of large and pinned arrays
///   cycles  - 1,000 plain Begin/End windows, then 1,000 waiting for sampling: the state, the
///             managed heap and RssAnon before and after, and 100 MB allocated with no window open
///   threads - the process's first Begin timed on the calling thread; then windows ended from
///             another thread while four threads allocate
///   exact   - (=exact) the workload at 1/100 scale in a count-only and a sampled window
///   flag    - (a malformed value) the startup status and the refused capture
/// </summary>
public static class SampledCaptureProof
{
    private const int AccuracyWindows = 10;
    private const int OutsidePerSide = 320_000; // 10.24 MB of SampledOutside: ~100 events' worth
    private static readonly double LnQ = Math.Log(1 - 1.0 / 102_400);

    private static uint RuntimeProfiling()
    {
        ProfilerLibrary.Open().GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        return runtime.AllocationProfiling;
    }

    public static SampledWindowsReport Windows()
    {
        var clock = Stopwatch.StartNew();
        AllocationCapture capture = Interceptor.Open().Allocations;
        Dictionary<string, long> sizes = MeasureSizes();
        int[] counts = SampledWorkload.Counts(1);

        // Warm-up: the workload compiled, the first session started (and stopped).
        SampledWorkload.Run(SampledWorkload.Counts(0.001));
        SampledWorkload.AllocateOutside(10);
        using (AllocationWindow w = capture.Begin(new AllocationCaptureOptions(WaitUntilSampling: true)))
        {
            SampledWorkload.Run(SampledWorkload.Counts(0.001));
            w.End();
        }
        SampledWorkload.RecordLines();

        var accuracy = new List<EstimatedWindow>();
        for (int i = 0; i < AccuracyWindows; i++)
        {
            var mode = i % 2 == 0 ? AllocationCaptureMode.Sampled : AllocationCaptureMode.CountOnly;
            accuracy.Add(Window(capture, $"accuracy {i} {mode}", new AllocationCaptureOptions(mode, WaitUntilSampling: true),
                counts, outside: true));
        }

        // Every stack: a fifth of a unit (~50 events of each type; the storage keeps 1,024).
        EstimatedWindow stacks = Window(capture, "stacks", new AllocationCaptureOptions(WaitUntilSampling: true),
            SampledWorkload.Counts(0.2), outside: false, out AllocationReport stackReport);
        // Every tenth stack, over two units (~2,500 events).
        EstimatedWindow everyTenth = Window(capture, "every tenth",
            new AllocationCaptureOptions(StackEvery: 10, WaitUntilSampling: true), SampledWorkload.Counts(2),
            outside: false);

        // Large and pinned arrays, counted exactly.
        const int large = 40, pinned = 60;
        var heapTruth = new HeapTruth(SampledWorkload.LargeCells, large, sizes[SampledWorkload.LargeCells],
            SampledWorkload.PinnedCells, pinned, sizes[SampledWorkload.PinnedCells]);
        EstimatedWindow heaps = HeapsWindow(capture, heapTruth);

        var sites = SampledWorkload.Types.Select(t => new WorkloadSite(t.Type,
            $"{typeof(SampledWorkload).FullName}.{t.Method}", "SampledWorkload.cs", SampledWorkload.Lines[t.Method])).ToList();
        return new SampledWindowsReport(RuntimeProfiling(), capture.Profiling.ToString(), sizes, sites,
            SampledWorkload.Outside, OutsidePerSide, accuracy, stacks, Attributions(stackReport), everyTenth, heaps, heapTruth,
            State(capture), clock.ElapsedMilliseconds);
    }

    // Each fixed-size type's object size and the cell arrays' total, as the GC counts them.
    private static Dictionary<string, long> MeasureSizes()
    {
        var sizes = new Dictionary<string, long>(StringComparer.Ordinal);
        Measure(sizes, SampledWorkload.Tiny, 10_000, SampledWorkload.AllocateTiny);
        Measure(sizes, SampledWorkload.Small, 10_000, SampledWorkload.AllocateSmall);
        Measure(sizes, SampledWorkload.Wide, 1_000, SampledWorkload.AllocateWide);
        Measure(sizes, SampledWorkload.Words, 1_000, SampledWorkload.AllocateWords);
        Measure(sizes, SampledWorkload.Outside, 1_000, SampledWorkload.AllocateOutside);
        Measure(sizes, SampledWorkload.LargeCells, 4, SampledWorkload.AllocateLarge);
        Measure(sizes, SampledWorkload.PinnedCells, 100, SampledWorkload.AllocatePinned);
        SampledWorkload.AllocateCells(64);
        long before = GC.GetAllocatedBytesForCurrentThread();
        SampledWorkload.AllocateCells(6_400);
        sizes["cells total (6,400 arrays)"] = GC.GetAllocatedBytesForCurrentThread() - before;
        sizes["cells total by formula"] = Enumerable.Range(0, 6_400).Sum(SampledWorkload.CellArraySize);
        return sizes;
    }

    private static void Measure(Dictionary<string, long> sizes, string type, int n, Action<int> allocate)
    {
        allocate(1);
        long before = GC.GetAllocatedBytesForCurrentThread();
        allocate(n);
        long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
        sizes[type] = bytes % n == 0 ? bytes / n : -bytes; // negative: not n equal objects
    }

    private static EstimatedWindow Window(AllocationCapture capture, string label, AllocationCaptureOptions options,
        int[] counts, bool outside) => Window(capture, label, options, counts, outside, out _);

    private static EstimatedWindow Window(AllocationCapture capture, string label, AllocationCaptureOptions options,
        int[] counts, bool outside, out AllocationReport report)
    {
        if (outside)
            SampledWorkload.AllocateOutside(OutsidePerSide);
        bool open;
        long allocated;
        using (AllocationWindow window = capture.Begin(options))
        {
            // Begin waited for the session (WaitUntilSampling): the window samples already.
            open = capture.GetState().Phase == AllocationCapturePhase.Open;
            long before = GC.GetAllocatedBytesForCurrentThread();
            SampledWorkload.Run(counts);
            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            report = window.End();
        }
        if (outside)
            SampledWorkload.AllocateOutside(OutsidePerSide);
        var truths = new List<Truth>();
        for (int t = 0; t < counts.Length; t++)
        {
            string type = SampledWorkload.Types[t].Type;
            var truth = new Truth(type);
            if (type == SampledWorkload.Cells)
            {
                for (int i = 0; i < counts[t]; i++)
                    truth.Add(SampledWorkload.CellArraySize(i), 1);
            }
            else
                truth.Add(SampledWorkload.FixedSize(type), counts[t]);
            truths.Add(truth);
        }
        if (outside)
            truths.Add(new Truth(SampledWorkload.Outside)); // truth 0: it must be absent
        return Summarize(label, report, open, allocated, truths);
    }

    private static EstimatedWindow HeapsWindow(AllocationCapture capture, HeapTruth truth)
    {
        AllocationReport report;
        bool open;
        long allocated;
        using (AllocationWindow window = capture.Begin(new AllocationCaptureOptions(WaitUntilSampling: true)))
        {
            open = capture.GetState().Phase == AllocationCapturePhase.Open;
            long before = GC.GetAllocatedBytesForCurrentThread();
            SampledWorkload.AllocateLarge((int)truth.LargeCount);
            SampledWorkload.AllocatePinned((int)truth.PinnedCount);
            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            report = window.End();
        }
        var large = new Truth(truth.LargeType);
        large.Add(SampledWorkload.FixedSize(truth.LargeType), (int)truth.LargeCount);
        var pinned = new Truth(truth.PinnedType);
        pinned.Add(SampledWorkload.FixedSize(truth.PinnedType), (int)truth.PinnedCount);
        return Summarize("heaps", report, open, allocated, [large, pinned]);
    }

    private static EstimatedWindow Summarize(string label, AllocationReport r, bool open, long allocated,
        IEnumerable<Truth> truths)
    {
        var types = new List<EstimatedType>();
        foreach (Truth truth in truths)
        {
            TypeAllocation? t = r.Type(truth.Name);
            AllocationSample[] stacks = [.. r.Samples.Where(s => s.TypeName == truth.Name)];
            types.Add(new EstimatedType(truth.Name, t is not null, truth.Count, truth.Bytes, truth.SumP,
                Math.Sqrt(truth.CountVariance), Math.Sqrt(truth.BytesVariance),
                t?.Count ?? 0, t?.CountLow ?? 0, t?.CountHigh ?? 0, t?.Bytes ?? 0, t?.BytesLow ?? 0, t?.BytesHigh ?? 0,
                t?.Samples ?? 0, t?.ExactCount ?? 0, t?.ExactBytes ?? 0, t?.IsEstimate ?? false, stacks.Length,
                (ulong)stacks.Sum(s => (decimal)s.WeightBytes),
                stacks.Length == 0 ? 0 : stacks.Min(s => s.WeightBytes),
                stacks.Length == 0 ? 0 : stacks.Max(s => s.WeightBytes),
                (ulong)stacks.Sum(s => (decimal)s.EstimatedObjects)));
        }
        return new EstimatedWindow(label, r.Mode.ToString(), r.Source.ToString(), r.IsEstimate, open, r.SampledEvents,
            r.Samples.Count, r.DroppedSamples, r.TotalObjects, r.TotalBytes, r.LargeObjects, r.LargeBytes, r.PinnedObjects,
            r.PinnedBytes, r.SamplingStarted?.TotalMilliseconds, r.SessionStopPending, r.SessionRefused,
            r.ClosedBeforeSampling, r.SessionHResult, r.StackEvery, allocated,
            (ulong)r.Samples.Sum(s => (decimal)s.WeightBytes), (ulong)r.Types.Sum(t => (decimal)t.Samples), types);
    }

    // Samples grouped by type and the innermost frame of this assembly (AllocationsProof's rule).
    private static List<Attribution> Attributions(AllocationReport r)
    {
        string prefix = typeof(SampledWorkload).Namespace + ".";
        var groups = r.Samples.GroupBy(s =>
        {
            AllocationFrame? f = s.Frames.FirstOrDefault(f => f.Method.StartsWith(prefix, StringComparison.Ordinal));
            return (s.TypeName, Method: f?.Method ?? "", File: f?.File is { } file ? Path.GetFileName(file) : "",
                Line: f?.Line ?? 0, ILOffset: f?.ILOffset ?? -1);
        });
        return [.. groups.OrderByDescending(g => g.Count()).Select(g => new Attribution(g.Key.TypeName, g.Key.Method,
            g.Key.File, g.Key.Line, g.Key.ILOffset, g.Count(), (ulong)g.Sum(s => (decimal)s.WeightBytes),
            g.First().Frames is { Count: > 0 } frames ? frames[0].DisplayName : null))];
    }

    private static CaptureStateFigures State(AllocationCapture capture)
    {
        AllocationCaptureState s = capture.GetState();
        return new CaptureStateFigures(s.Phase.ToString(), s.Profiling.ToString(), s.SessionHResult, s.SessionsStarted,
            s.SessionsStopped, s.StopHangs, s.EventsInWindows, s.EventsOutsideWindows, s.WindowsOpened,
            s.CurrentWindowEvents);
    }

    public static SampledCyclesReport Cycles()
    {
        const int cycles = 1000;
        AllocationCapture capture = Interceptor.Open().Allocations;
        SampledWorkload.Run(SampledWorkload.Counts(0.001));
        SampledWorkload.AllocateOutside(1000);

        // Warm-up: the first session (waited for), then plain windows.
        int warmupClosedBefore = 0;
        using (AllocationWindow w = capture.Begin(new AllocationCaptureOptions(WaitUntilSampling: true)))
            warmupClosedBefore += w.End().ClosedBeforeSampling ? 1 : 0;
        int refusedStopping = 0;
        for (int i = 0; i < 20; i++)
            warmupClosedBefore += Cycle(capture, AllocationCaptureOptions.Sampled, ref refusedStopping).Report.ClosedBeforeSampling ? 1 : 0;
        WaitIdle(capture);
        (long managedBefore, long rssBefore) = Memory();
        CaptureStateFigures stateBefore = State(capture);

        int plainClosedBefore = 0, waitingClosedBefore = 0, stopPending = 0, refused = 0;
        ulong plainEvents = 0, waitingEvents = 0;
        double maxPlain = 0, maxWaiting = 0;
        var loop = Stopwatch.StartNew();
        for (int i = 0; i < cycles; i++)
        {
            (AllocationReport r, double ms) = Cycle(capture, AllocationCaptureOptions.Sampled, ref refusedStopping);
            plainClosedBefore += r.ClosedBeforeSampling ? 1 : 0;
            stopPending += r.SessionStopPending && !r.ClosedBeforeSampling ? 1 : 0;
            refused += r.SessionRefused ? 1 : 0;
            plainEvents += r.SampledEvents;
            maxPlain = Math.Max(maxPlain, ms);
        }
        double plainMs = loop.Elapsed.TotalMilliseconds;
        loop.Restart();
        var waiting = new AllocationCaptureOptions(WaitUntilSampling: true);
        for (int i = 0; i < cycles; i++)
        {
            (AllocationReport r, double ms) = Cycle(capture, waiting, ref refusedStopping);
            waitingClosedBefore += r.ClosedBeforeSampling ? 1 : 0;
            stopPending += r.SessionStopPending && !r.ClosedBeforeSampling ? 1 : 0;
            refused += r.SessionRefused ? 1 : 0;
            waitingEvents += r.SampledEvents;
            maxWaiting = Math.Max(maxWaiting, ms);
        }
        double waitingMs = loop.Elapsed.TotalMilliseconds;
        WaitIdle(capture);
        CaptureStateFigures afterCycles = State(capture);
        (long managedAfter, long rssAfter) = Memory();

        // No window open: a stale keyword would deliver events now (about one per 100 KB).
        long outsideBefore = GC.GetAllocatedBytesForCurrentThread();
        SampledWorkload.AllocateOutside(3_200_000);
        long outsideBytes = GC.GetAllocatedBytesForCurrentThread() - outsideBefore;
        CaptureStateFigures afterOutside = State(capture);
        return new SampledCyclesReport(cycles, cycles, plainMs, waitingMs, maxPlain, maxWaiting, warmupClosedBefore,
            plainClosedBefore,
            waitingClosedBefore, stopPending, refused, plainEvents, waitingEvents, managedBefore, managedAfter, rssBefore,
            rssAfter, stateBefore, afterCycles, afterOutside, outsideBytes, refusedStopping);
    }

    // One window as a game frame: about 200 KB allocated (two sampled events, on average).
    private static (AllocationReport Report, double Ms) Cycle(AllocationCapture capture, AllocationCaptureOptions options,
        ref int refusedStopping)
    {
        long start = Stopwatch.GetTimestamp();
        AllocationReport r;
        using (AllocationWindow w = BeginRetrying(capture, options, ref refusedStopping))
        {
            SampledWorkload.AllocateTiny(8_000);
            r = w.End();
        }
        return (r, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
    }

    // A window closed before its session's start returned leaves the session's stop pending
    // (the capture-control thread stops it once the start returns, without blocking End), and
    // Begin answers CaptureStopping until then: a game tries again next frame, and so does
    // this, for 10 s at most. `refused` counts the refusals.
    private static AllocationWindow BeginRetrying(AllocationCapture capture, AllocationCaptureOptions options,
        ref int refused)
    {
        var clock = Stopwatch.StartNew();
        for (; ; )
        {
            try
            {
                return capture.Begin(options);
            }
            catch (AllocationCaptureException e) when (e.Status == InterceptionStatus.CaptureStopping &&
                                                       clock.Elapsed < TimeSpan.FromSeconds(10))
            {
                refused++;
                Thread.Sleep(1);
            }
        }
    }

    // Until no session is starting or stopping (for the state's counters to balance), 10 s at most.
    private static void WaitIdle(AllocationCapture capture)
    {
        var clock = Stopwatch.StartNew();
        while (capture.GetState().Phase != AllocationCapturePhase.Idle && clock.Elapsed < TimeSpan.FromSeconds(10))
            Thread.Sleep(1);
    }

    // The managed heap after full collections, and the process's anonymous resident memory.
    private static (long Managed, long RssAnonKb) Memory()
    {
        for (int i = 0; i < 2; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        long managed = GC.GetTotalMemory(forceFullCollection: true);
        long rss = -1;
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith("RssAnon:", StringComparison.Ordinal))
                rss = long.Parse(line["RssAnon:".Length..].Trim().Split(' ')[0], System.Globalization.CultureInfo.InvariantCulture);
        }
        return (managed, rss);
    }

    public static SampledThreadsReport Threads()
    {
        const int threads = 4, windows = 12;
        AllocationCapture capture = Interceptor.Open().Allocations;
        capture.GetState();
        SampledWorkload.AllocateFastPath(1000);

        // The process's first window, opened on this (the "game") thread without waiting.
        long start = Stopwatch.GetTimestamp();
        AllocationWindow first = capture.Begin(AllocationCaptureOptions.Sampled);
        double firstBeginMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        string firstPhaseAtReturn = capture.GetState().Phase.ToString();
        start = Stopwatch.GetTimestamp();
        bool firstWaited = first.WaitUntilSampling(TimeSpan.FromSeconds(10));
        double firstWaitMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        first.End();

        int stop = 0;
        long allocatedTotal = 0;
        var allocators = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            allocators[t] = new Thread(() =>
            {
                long before = GC.GetAllocatedBytesForCurrentThread();
                while (Volatile.Read(ref stop) == 0)
                    SampledWorkload.AllocateFastPath(20_000);
                Interlocked.Add(ref allocatedTotal, GC.GetAllocatedBytesForCurrentThread() - before);
            });
            allocators[t].IsBackground = true;
            allocators[t].Start();
        }

        var ends = new List<CrossThreadEnd>();
        int refusedStopping = 0;
        for (int i = 0; i < windows; i++)
        {
            AllocationWindow window = BeginRetrying(capture, AllocationCaptureOptions.Sampled, ref refusedStopping);
            // Every third window ends 5 ms after Begin, maybe before its session delivers; the
            // others once it delivers (however long the shared machine makes that), 30 ms later.
            if (i % 3 != 0 && !window.WaitUntilSampling(TimeSpan.FromSeconds(10)))
                throw new InvalidOperationException($"window {i}: the session did not deliver within 10 s");
            Thread.Sleep(i % 3 == 0 ? 5 : 30);
            CrossThreadEnd? result = null;
            var ender = new Thread(() =>
            {
                long t0 = Stopwatch.GetTimestamp();
                try
                {
                    AllocationReport r = window.End();
                    result = new CrossThreadEnd(Stopwatch.GetElapsedTime(t0).TotalMilliseconds, r.SampledEvents,
                        r.TotalBytes, r.SessionStopPending, r.ClosedBeforeSampling, null);
                }
                catch (Exception e)
                {
                    result = new CrossThreadEnd(Stopwatch.GetElapsedTime(t0).TotalMilliseconds, 0, 0, false, false,
                        $"{e.GetType().Name}: {e.Message}");
                }
            });
            ender.IsBackground = true;
            ender.Start();
            if (!ender.Join(TimeSpan.FromSeconds(20)))
            {
                ends.Add(new CrossThreadEnd(20_000, 0, 0, false, false, "End did not return within 20 s"));
                break;
            }
            ends.Add(result!);
        }
        Volatile.Write(ref stop, 1);
        foreach (Thread t in allocators)
            t.Join(TimeSpan.FromSeconds(20));
        WaitIdle(capture);
        return new SampledThreadsReport(firstBeginMs, firstPhaseAtReturn, firstWaited, firstWaitMs, threads, ends,
            Interlocked.Read(ref allocatedTotal), State(capture), refusedStopping);
    }

    public static ExactProfilingReport Exact()
    {
        AllocationCapture capture = Interceptor.Open().Allocations;
        int[] counts = SampledWorkload.Counts(0.01);
        SampledWorkload.Run(SampledWorkload.Counts(0.001));
        SampledWorkload.RecordLines();
        bool waited;
        double waitMs;
        string phaseAtBegin;
        using (AllocationWindow w = capture.Begin(AllocationCaptureOptions.CountOnly))
        {
            phaseAtBegin = capture.GetState().Phase.ToString();
            long start = Stopwatch.GetTimestamp();
            waited = w.WaitUntilSampling(TimeSpan.FromSeconds(10));
            waitMs = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
            w.End();
        }
        EstimatedWindow countOnly = Window(capture, "exact count-only", AllocationCaptureOptions.CountOnly, counts,
            outside: true);
        EstimatedWindow sampled = Window(capture, "exact sampled", AllocationCaptureOptions.Sampled, counts, outside: true);
        return new ExactProfilingReport(RuntimeProfiling(), capture.Profiling.ToString(), capture.IsEnabled,
            capture.GetState().Profiling.ToString(), phaseAtBegin, waited, waitMs, countOnly, sampled);
    }

    public static ProfilingFlagReport Flag()
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        AllocationCapture capture = Interceptor.Open().Allocations;
        string? refusal = null, call = null;
        try
        {
            using AllocationWindow w = capture.Begin(AllocationCaptureOptions.Sampled);
        }
        catch (AllocationCaptureException e)
        {
            refusal = e.Status.ToString();
            call = e.Call;
        }
        string stateCall;
        try
        {
            stateCall = $"phase {capture.GetState().Phase}";
        }
        catch (InterceptionException e)
        {
            stateCall = $"{e.Status}";
        }
        return new ProfilingFlagReport(runtime.Attached, runtime.StartupStatus.ToString(), runtime.AllocationProfiling,
            capture.Profiling.ToString(), capture.IsEnabled, refusal, call, stateCall);
    }

    /// <summary>What the workload allocated of one type, and the estimator's spread for it.</summary>
    private sealed class Truth(string name)
    {
        public string Name { get; } = name;
        public ulong Count { get; private set; }
        public ulong Bytes { get; private set; }
        public double SumP { get; private set; }
        public double CountVariance { get; private set; }
        public double BytesVariance { get; private set; }

        // `n` objects of `size` bytes, each sampled with p = 1 - q^size.
        public void Add(long size, int n)
        {
            double p = 1 - Math.Exp(size * LnQ);
            Count += (ulong)n;
            Bytes += (ulong)(size * n);
            SumP += n * p;
            CountVariance += n * (1 - p) / p;
            BytesVariance += n * (double)size * size * (1 - p) / p;
        }
    }
}
