using System.Text.Json.Nodes;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Allocations.Exporters;
using AlvorKit.Interception.Native;

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

    public static JsonObject Run(string variant, string? outputDirectory)
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        library.GetRuntimeStatus(out AlvkRuntimeStatus runtime);
        var report = new JsonObject
        {
            ["variant"] = variant,
            ["allocationProfiling"] = runtime.AllocationProfiling,
            ["sizes"] = Sizes(),
        };
        if (variant == "off")
        {
            report["calls"] = OffCalls(library);
            return report;
        }

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
        var windowApi = new JsonObject();
        AlvkStatus second, idleEnd;
        using (AllocationWindow open = capture.Begin(AllocationCaptureOptions.CountOnly))
        {
            second = library.CaptureBegin(new AlvkCaptureOptions { Mode = AlvkCaptureMode.CountOnly });
            try
            {
                using AllocationWindow nested = capture.Begin(AllocationCaptureOptions.CountOnly);
                windowApi["secondBegin"] = "no exception";
            }
            catch (AllocationCaptureException e) when (e.Status == InterceptionStatus.CaptureActive)
            {
                windowApi["secondBegin"] = e.Status.ToString();
                windowApi["secondBeginCall"] = e.Call;
                windowApi["secondBeginIsInterceptionException"] = ((Exception)e) is InterceptionException;
                windowApi["secondBeginMessage"] = e.Message;
            }
            windowApi["openWhileOpen"] = open.IsOpen;
        }
        idleEnd = library.CaptureEnd(out _);

        // A window disposed without End: closed (a new one opens), its report never read.
        AllocationWindow discarded = capture.Begin(AllocationCaptureOptions.CountOnly);
        AllocationWorkload.Some(10);
        discarded.Dispose();
        windowApi["disposedIsOpen"] = discarded.IsOpen;
        windowApi["disposedReport"] = discarded.Report is null ? "null" : "set";
        try
        {
            discarded.End();
            windowApi["endAfterDispose"] = "no exception";
        }
        catch (ObjectDisposedException)
        {
            windowApi["endAfterDispose"] = nameof(ObjectDisposedException);
        }

        // The measured window, with the same types allocated just before and just after it.
        AllocationWorkload.Some(Before);
        AllocationReport window;
        using (AllocationWindow measured = capture.Begin(options))
        {
            AllocationWorkload.Run(scale);
            window = measured.End();
            windowApi["endTwiceSameReport"] = ReferenceEquals(window, measured.End());
            windowApi["reportIsEnds"] = ReferenceEquals(window, measured.Report);
            windowApi["openAfterEnd"] = measured.IsOpen;
            windowApi["mode"] = measured.Options.Mode.ToString();
        }
        AllocationWorkload.Some(After);

        // A last small window: the storage is still the startup size, and empty again.
        AllocationReport last;
        using (AllocationWindow small = capture.Begin(options))
        {
            AllocationWorkload.Some(100);
            last = small.End();
        }
        report["windowApi"] = windowApi;

        report["refusals"] = new JsonObject
        {
            ["beginWhileActive"] = second.ToString(),
            ["endWhenIdle"] = idleEnd.ToString(),
        };
        report["scale"] = scale;
        report["expected"] = Expected(scale);
        report["outside"] = Outside();
        report["warmupSummary"] = Summary(warmup);
        report["summary"] = Summary(window);
        report["lastSummary"] = Summary(last);
        report["workloadTypes"] = WorkloadTypes(window);
        report["types"] = new JsonArray(window.Types.Take(20).Select(t => (JsonNode)new JsonObject
        {
            ["name"] = t.Name, ["count"] = t.Count, ["bytes"] = t.Bytes,
        }).ToArray());
        report["attributions"] = Attributions(window);
        report["topStacks"] = new JsonArray(window.TopStacks(5).Select(s => (JsonNode)new JsonObject
        {
            ["samples"] = s.Samples,
            ["estimatedBytes"] = s.EstimatedBytes,
            ["frames"] = new JsonArray(s.Frames.Select(f => (JsonNode)JsonValue.Create(f.DisplayName)).ToArray()),
        }).ToArray());
        string directory = outputDirectory ?? Path.Combine(Path.GetTempPath(), $"alvk-allocations-{Environment.ProcessId}");
        report["files"] = Export(window, directory, variant, delete: false);
        return report;
    }

    private static JsonObject Sizes() => new()
    {
        ["options"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkCaptureOptions>(),
        ["summary"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkCaptureSummary>(),
        ["typeCount"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkTypeCount>(),
        ["frame"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkFrame>(),
        ["sample"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkSample>(),
        ["methodInfo"] = System.Runtime.CompilerServices.Unsafe.SizeOf<AlvkMethodInfo>(),
    };

    // Without ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1 every capture call is refused.
    private static JsonObject OffCalls(ProfilerLibrary library)
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
        return new JsonObject
        {
            ["begin"] = begin.ToString(),
            ["end"] = end.ToString(),
            ["readTypes"] = read.ToString(),
            ["readTypesWritten"] = written,
            ["readSamples"] = samples.ToString(),
            ["readSamplesWritten"] = samplesWritten,
            ["describeFunction"] = describe.ToString(),
            ["captureException"] = error,
            ["captureExceptionStatus"] = status,
            ["captureEnabled"] = enabled,
        };
    }

    private static JsonObject Expected(int scale)
    {
        var expected = new JsonObject();
        foreach (var (type, count, method) in AllocationWorkload.Expected)
            expected[type] = new JsonObject
            {
                ["count"] = count * scale,
                ["method"] = $"{typeof(AllocationWorkload).FullName}.{method}",
                ["file"] = "AllocationWorkload.cs",
                ["line"] = AllocationWorkload.Lines[method],
            };
        return expected;
    }

    // What the process allocated of each workload type outside the measured window.
    private static JsonObject Outside()
    {
        var before = AllocationWorkload.SomeCounts(Before);
        var after = AllocationWorkload.SomeCounts(After);
        var outside = new JsonObject();
        foreach (var (type, _, _) in AllocationWorkload.Expected)
            outside[type] = new JsonObject { ["before"] = before[type], ["after"] = after[type] };
        return outside;
    }

    private static JsonObject Summary(AllocationReport r) => new()
    {
        ["mode"] = r.Mode.ToString(),
        ["typeCount"] = r.Types.Count,
        ["sampleCount"] = r.Samples.Count,
        ["totalObjects"] = r.TotalObjects,
        ["totalBytes"] = r.TotalBytes,
        ["typeObjects"] = (ulong)r.Types.Sum(t => (decimal)t.Count),
        ["typeBytes"] = (ulong)r.Types.Sum(t => (decimal)t.Bytes),
        ["overflowObjects"] = r.OverflowObjects,
        ["overflowBytes"] = r.OverflowBytes,
        ["droppedSamples"] = r.DroppedSamples,
        ["elapsedNs"] = r.ElapsedNs,
        ["typeSlots"] = r.TypeSlots,
        ["sampleSlots"] = r.SampleSlots,
        ["sampledBytes"] = r.SampledBytes,
        ["sampledObjects"] = r.SampledObjects,
        ["samplesWithFrames"] = r.Samples.Count(s => s.Frames.Count > 0),
        ["framesWithLines"] = r.Samples.Sum(s => s.Frames.Count(f => f.Line is not null)),
        ["frames"] = r.Samples.Sum(s => s.Frames.Count),
    };

    private static JsonObject WorkloadTypes(AllocationReport r)
    {
        var types = new JsonObject();
        foreach (var (type, _, _) in AllocationWorkload.Expected)
        {
            TypeAllocation? t = r.Type(type);
            types[type] = new JsonObject { ["count"] = t?.Count ?? 0, ["bytes"] = t?.Bytes ?? 0 };
        }
        return types;
    }

    // Samples grouped by allocated type and the innermost frame of this assembly (the
    // workload method and line that allocated; framework frames such as String's
    // constructor above it are skipped).
    private static JsonArray Attributions(AllocationReport r)
    {
        string prefix = typeof(AllocationWorkload).Namespace + ".";
        var groups = r.Samples.GroupBy(s =>
        {
            AllocationFrame? f = s.Frames.FirstOrDefault(f => f.Method.StartsWith(prefix, StringComparison.Ordinal));
            return (s.TypeName, Method: f?.Method ?? "", File: f?.File is { } file ? Path.GetFileName(file) : "",
                Line: f?.Line ?? 0, ILOffset: f?.ILOffset ?? -1);
        });
        return new JsonArray(groups.OrderByDescending(g => g.Count()).Select(g => (JsonNode)new JsonObject
        {
            ["type"] = g.Key.TypeName,
            ["method"] = g.Key.Method,
            ["file"] = g.Key.File,
            ["line"] = g.Key.Line,
            ["ilOffset"] = g.Key.ILOffset,
            ["samples"] = g.Count(),
            ["estimatedBytes"] = (ulong)g.Sum(s => (decimal)s.WeightBytes),
            ["innermost"] = g.First().Frames.FirstOrDefault()?.DisplayName,
        }).ToArray());
    }

    private static JsonObject Export(AllocationReport r, string directory, string name, bool delete)
    {
        Directory.CreateDirectory(directory);
        var files = new JsonObject
        {
            ["speedscope"] = Path.Combine(directory, $"{name}.speedscope.json"),
            ["folded"] = Path.Combine(directory, $"{name}.folded"),
            ["pprof"] = Path.Combine(directory, $"{name}.pb.gz"),
        };
        SpeedscopeExporter.WriteFile(r, files.Text("speedscope"), name);
        FoldedExporter.WriteFile(r, files.Text("folded"));
        PprofExporter.WriteFile(r, files.Text("pprof"));
        if (delete)
            Directory.Delete(directory, recursive: true);
        return files;
    }

    private static string Text(this JsonObject o, string key) => o[key]!.GetValue<string>();
}
