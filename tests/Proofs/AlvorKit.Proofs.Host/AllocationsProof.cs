using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Allocations.Exporters;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Allocation capture windows around a workload of known counts (AllocationWorkload), with
/// allocations of the same types before the window opens and after it ends.
///   countonly    - a count-only window
///   sampled      - a sampled window (256-byte mean interval), its frames resolved to
///                  methods and source lines, exported as speedscope, folded and pprof files
///   full-storage - a sampled window whose storage (ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES,
///                  set by the proof) fills: a 64-byte interval over the workload run 4 times
///   off          - the process started without allocation profiling: every call's status
/// Windows of a few allocations before and after the measured one prove the storage size
/// stays what it was at startup.
/// </summary>
public static class AllocationsProof
{
    private const int Before = 77, After = 55;

    public static AllocationsReport Run(string variant, string? outputDirectory)
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        if (variant == "off")
            return new AllocationsReport(variant, runtime.AllocationProfiling, Sizes(), OffCalls(library), null);

        AllocationCapture capture = Interceptor.Open().Allocations;
        (AllocationCaptureOptions options, int scale) = variant switch
        {
            "countonly" => (AllocationCaptureOptions.CountOnly, 1),
            "sampled" => (new AllocationCaptureOptions(AllocationCaptureMode.Sampled, SampleIntervalBytes: 256), 1),
            "full-storage" => (new AllocationCaptureOptions(AllocationCaptureMode.Sampled, SampleIntervalBytes: 64), 4),
            _ => throw new ArgumentException($"unknown allocations variant '{variant}'"),
        };

        // Warm-up: JIT the workload and a whole window (begin, end, read, resolve, export).
        AllocationWorkload.Some(10);
        AllocationWorkload.Run(scale: 0);
        AllocationReport warmup;
        using (AllocationWindow w = capture.Begin(options))
        {
            AllocationWorkload.Some(10);
            warmup = w.End();
        }
        Export(warmup, Path.Combine(Path.GetTempPath(), $"alvk-allocations-warmup-{Environment.ProcessId}"), "warmup",
            delete: true);

        // The refusals of a second begin and of an end with no window open: raw, and as the
        // typed exception of a second window.
        string secondBegin;
        string? secondBeginCall = null, secondBeginMessage = null;
        bool? secondBeginIsInterceptionException = null;
        bool openWhileOpen;
        AlvkStatus second, idleEnd;
        using (AllocationWindow open = capture.Begin(AllocationCaptureOptions.CountOnly))
        {
            second = library.CaptureBegin(new AlvkCaptureOptions { Mode = AlvkCaptureMode.CountOnly });
            try
            {
                using AllocationWindow nested = capture.Begin(AllocationCaptureOptions.CountOnly);
                secondBegin = "no exception";
            }
            catch (AllocationCaptureException e) when (e.Status == InterceptionStatus.CaptureActive)
            {
                secondBegin = e.Status.ToString();
                secondBeginCall = e.Call;
                secondBeginIsInterceptionException = ((Exception)e) is InterceptionException;
                secondBeginMessage = e.Message;
            }
            openWhileOpen = open.IsOpen;
        }
        idleEnd = library.CaptureEnd(out _);

        // A window disposed without End: closed (a new one opens), its report never read.
        AllocationWindow discarded = capture.Begin(AllocationCaptureOptions.CountOnly);
        AllocationWorkload.Some(10);
        discarded.Dispose();
        bool disposedIsOpen = discarded.IsOpen;
        string disposedReport = discarded.Report is null ? "null" : "set";
        string endAfterDispose;
        try
        {
            discarded.End();
            endAfterDispose = "no exception";
        }
        catch (ObjectDisposedException)
        {
            endAfterDispose = nameof(ObjectDisposedException);
        }

        // The measured window, with the same types allocated just before and just after it.
        AllocationWorkload.Some(Before);
        AllocationReport window;
        bool endTwiceSameReport, reportIsEnds, openAfterEnd;
        string mode;
        using (AllocationWindow measured = capture.Begin(options))
        {
            AllocationWorkload.Run(scale);
            window = measured.End();
            endTwiceSameReport = ReferenceEquals(window, measured.End());
            reportIsEnds = ReferenceEquals(window, measured.Report);
            openAfterEnd = measured.IsOpen;
            mode = measured.Options.Mode.ToString();
        }
        AllocationWorkload.Some(After);

        // A last small window: the storage is still the startup size, and empty again.
        AllocationReport last;
        using (AllocationWindow small = capture.Begin(options))
        {
            AllocationWorkload.Some(100);
            last = small.End();
        }
        var windowApi = new WindowApi(secondBegin, secondBeginCall, secondBeginIsInterceptionException, secondBeginMessage,
            openWhileOpen, disposedIsOpen, disposedReport, endAfterDispose, endTwiceSameReport, reportIsEnds, openAfterEnd, mode);
        var refusals = new CaptureRefusals(second.ToString(), idleEnd.ToString());
        string directory = outputDirectory ?? Path.Combine(Path.GetTempPath(), $"alvk-allocations-{Environment.ProcessId}");
        var captured = new CapturedWindows(windowApi, refusals, scale, Expected(scale), Outside(), Summary(warmup),
            Summary(window), Summary(last), WorkloadTypes(window),
            [.. window.Types.Take(20).Select(t => new NamedTypeTotals(t.Name, t.Count, t.Bytes))],
            Attributions(window),
            [.. window.TopStacks(5).Select(s => new StackTotals(s.Samples, s.EstimatedBytes, [.. s.Frames.Select(f => f.DisplayName)]))],
            Export(window, directory, variant, delete: false));
        return new AllocationsReport(variant, runtime.AllocationProfiling, Sizes(), null, captured);
    }

    private static BindingSizes Sizes() => new(
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkCaptureOptions>(),
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkCaptureSummary>(),
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkTypeCount>(),
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkFrame>(),
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkSample>(),
        System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkMethodInfo>());

    // Without ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1 every capture call is refused.
    private static OffCalls OffCalls(ProfilerLibrary library)
    {
        AlvkStatus begin = library.CaptureBegin(new AlvkCaptureOptions { Mode = AlvkCaptureMode.Sampled });
        AlvkStatus end = library.CaptureEnd(out _);
        AlvkStatus read = library.CaptureReadTypes(0, new AlvkTypeCount[4], out uint written);
        AlvkStatus samples = library.CaptureReadSamples(0, new AlvkSample[1], out uint samplesWritten);
        AlvkStatus describe = library.CaptureDescribeFunction(1, out _);
        string? error = null, status = null;
        AllocationCapture capture = Interceptor.Open().Allocations;
        bool enabled = capture.IsEnabled;
        try
        {
            using AllocationWindow window = capture.Begin(AllocationCaptureOptions.Sampled);
        }
        catch (InterceptionException e) when (e.Status == InterceptionStatus.AllocationProfilingOff)
        {
            error = e.Message;
            status = e.Status.ToString();
        }
        return new OffCalls(begin.ToString(), end.ToString(), read.ToString(), written, samples.ToString(), samplesWritten,
            describe.ToString(), error, status, enabled);
    }

    private static SortedDictionary<string, ExpectedAllocation> Expected(int scale)
    {
        var expected = new SortedDictionary<string, ExpectedAllocation>(StringComparer.Ordinal);
        foreach (var (type, count, method) in AllocationWorkload.Expected)
            expected[type] = new ExpectedAllocation((ulong)(count * scale), $"{typeof(AllocationWorkload).FullName}.{method}",
                "AllocationWorkload.cs", AllocationWorkload.Lines[method]);
        return expected;
    }

    // What the process allocated of each workload type outside the measured window.
    private static SortedDictionary<string, OutsideCounts> Outside()
    {
        var before = AllocationWorkload.SomeCounts(Before);
        var after = AllocationWorkload.SomeCounts(After);
        var outside = new SortedDictionary<string, OutsideCounts>(StringComparer.Ordinal);
        foreach (var (type, _, _) in AllocationWorkload.Expected)
            outside[type] = new OutsideCounts(before[type], after[type]);
        return outside;
    }

    private static WindowSummary Summary(AllocationReport r) => new(
        r.Mode.ToString(),
        r.Types.Count,
        r.Samples.Count,
        r.TotalObjects,
        r.TotalBytes,
        (ulong)r.Types.Sum(t => (decimal)t.Count),
        (ulong)r.Types.Sum(t => (decimal)t.Bytes),
        r.OverflowObjects,
        r.OverflowBytes,
        r.DroppedSamples,
        r.ElapsedNs,
        r.TypeSlots,
        r.SampleSlots,
        r.SampledBytes,
        r.SampledObjects,
        r.Samples.Count(s => s.Frames.Count > 0),
        r.Samples.Sum(s => s.Frames.Count(f => f.Line is not null)),
        r.Samples.Sum(s => s.Frames.Count));

    private static SortedDictionary<string, TypeTotals> WorkloadTypes(AllocationReport r)
    {
        var types = new SortedDictionary<string, TypeTotals>(StringComparer.Ordinal);
        foreach (var (type, _, _) in AllocationWorkload.Expected)
        {
            TypeAllocation? t = r.Type(type);
            types[type] = new TypeTotals(t?.Count ?? 0, t?.Bytes ?? 0);
        }
        return types;
    }

    // Samples grouped by allocated type and the innermost frame of this assembly (the
    // workload method and line that allocated; framework frames such as String's
    // constructor above it are skipped).
    private static List<Attribution> Attributions(AllocationReport r)
    {
        string prefix = typeof(AllocationWorkload).Namespace + ".";
        var groups = r.Samples.GroupBy(s =>
        {
            AllocationFrame? f = s.Frames.FirstOrDefault(f => f.Method.StartsWith(prefix, StringComparison.Ordinal));
            return (s.TypeName, Method: f?.Method ?? "", File: f?.File is { } file ? Path.GetFileName(file) : "",
                Line: f?.Line ?? 0, ILOffset: f?.ILOffset ?? -1);
        });
        return [.. groups.OrderByDescending(g => g.Count()).Select(g => new Attribution(g.Key.TypeName, g.Key.Method, g.Key.File,
            g.Key.Line, g.Key.ILOffset, g.Count(), (ulong)g.Sum(s => (decimal)s.WeightBytes),
            g.First().Frames is { Count: > 0 } frames ? frames[0].DisplayName : null))];
    }

    private static ExportedFiles Export(AllocationReport r, string directory, string name, bool delete)
    {
        Directory.CreateDirectory(directory);
        var files = new ExportedFiles(Path.Combine(directory, $"{name}.speedscope.json"),
            Path.Combine(directory, $"{name}.folded"), Path.Combine(directory, $"{name}.pb.gz"));
        SpeedscopeExporter.WriteFile(r, files.Speedscope, name);
        FoldedExporter.WriteFile(r, files.Folded);
        PprofExporter.WriteFile(r, files.Pprof);
        if (delete)
            Directory.Delete(directory, recursive: true);
        return files;
    }
}
