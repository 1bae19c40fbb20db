using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Native;

// The cost of allocation profiling on two workloads, in child processes launched with each
// configuration's environment, interleaved process by process so drift on the machine hits all
// configurations alike:
//   loop    `objects` 24-byte objects per repetition, a tight loop (~3 GB/s here: the worst case)
//   frames  a game-like frame loop: small arrays, strings, lists, medium arrays, a large array
//           every 10th frame, and real work between them (~0.6 GB/s); frame times recorded
//   AllocationBenchmark <profiler library> [processes per configuration] [objects] [frames]
//   AllocationBenchmark child <configuration> <workload> <size> <repetitions>   (what the parent launches)
// A window opens just before a repetition and closes just after it; in sampled profiling the
// child waits until the runtime samples (WaitUntilSampling) before the timed part starts. The
// first Begin of each process is timed on its own (what a game thread would block for).
if (args.Length >= 1 && args[0] == "child")
    return Child(args[1], args[2], long.Parse(args[3], CultureInfo.InvariantCulture),
        int.Parse(args[4], CultureInfo.InvariantCulture));
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: AllocationBenchmark <profiler library> [processes per configuration] [objects] [frames]");
    return 64;
}
string library = Path.GetFullPath(args[0]);
int processes = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 5;
long objects = args.Length > 2 ? long.Parse(args[2], CultureInfo.InvariantCulture) : 20_000_000;
long frames = args.Length > 3 ? long.Parse(args[3], CultureInfo.InvariantCulture) : 1000;
// ALLOCATION_BENCHMARK_REPETITIONS: timed repetitions per child (3 unless set); more give each
// process's best repetition (the loop's per-process figure below) more chances.
int Repetitions = Environment.GetEnvironmentVariable("ALLOCATION_BENCHMARK_REPETITIONS") is { Length: > 0 } repetitionsText
    ? int.Parse(repetitionsText, CultureInfo.InvariantCulture) : 3;

var configurations = new Configuration[]
{
    new("off", "profiler off (no CORECLR_ENABLE_PROFILING)", null, "-"),
    new("attached", "profiler attached, no allocation profiling", "", "reference"),
    new("sampled-nowindow", "sampled profiling on, no window", "sampled", "≤1.01×"),
    new("sampled-after2000", "sampled profiling on, no window, after 2,000 windows opened and closed", "sampled", "≤1.01×"),
    new("sampled-stacks", "sampled window, a stack every event", "sampled", "loop ≤1.12×, frames ≤1.03×"),
    new("sampled-every10", "sampled window, stack_every=10", "sampled", "loop ≤1.12× (1-in-N)"),
    new("sampled-count", "sampled window, no stacks (COUNT_ONLY)", "sampled", "frames ≤1.03×"),
    new("listener", "no profiler; in-process EventListener on AllocationSampled", null, "reference"),
    new("exact-nowindow", "exact profiling (=1), no window", "1", "measured"),
    new("exact-window", "exact window (=1, COUNT_ONLY)", "1", "measured"),
};
// ALLOCATION_BENCHMARK_ONLY=off,sampled-nowindow runs those configurations alone (the first
// row stays the base: list "off" first).
if (Environment.GetEnvironmentVariable("ALLOCATION_BENCHMARK_ONLY") is { Length: > 0 } only)
    configurations = [.. configurations.Where(c => only.Split(',').Contains(c.Id))];
string[] workloads = ["loop", "frames"];
var results = new Dictionary<(string, string), List<JsonObject>>();
foreach (Configuration c in configurations)
    foreach (string w in workloads)
        results[(c.Id, w)] = [];
for (int p = 0; p < processes; ++p)
    foreach (string w in workloads)
        foreach (Configuration c in configurations)
            foreach (JsonObject r in Launch(c, w, w == "loop" ? objects : frames))
            {
                r["process"] = p;
                results[(c.Id, w)].Add(r);
            }

Report();
return 0;

void Report()
{
    Console.WriteLine("Command: `dotnet tools/AllocationBenchmark/bin/Release/net10.0/AllocationBenchmark.dll " +
        $"{args[0]} {processes} {objects} {frames}`");
    Console.WriteLine($"Machine: {CpuModel()}, {Environment.ProcessorCount} cores, {Environment.OSVersion}, " +
        $".NET {Environment.Version}");
    Console.WriteLine($"loop: {objects:N0} objects of 24 bytes per repetition; frames: {frames:N0} frames per " +
        $"repetition; {processes} processes x {Repetitions} repetitions per configuration and workload (after one " +
        "warm-up repetition per process), processes interleaved.");
    Console.WriteLine();
    Console.WriteLine("| configuration | loop median ms | loop ratio | loop CPU median ms | loop CPU ratio | frame p50 ms | " +
        "frame p99 ms | frame mean ms | frames ratio (mean / p50 / p99) | frames GB/s | sampled events per repetition " +
        "(loop / frames) | goal |");
    Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    Stats baseLoop = LoopStats("off"), baseFrames = FrameStats("off");
    double baseCpu = LoopCpu("off");
    foreach (Configuration c in configurations)
    {
        Stats loop = LoopStats(c.Id), f = FrameStats(c.Id);
        double cpu = LoopCpu(c.Id);
        Console.WriteLine($"| {c.Name} | {loop.Median:F0} | {loop.Median / baseLoop.Median:F2} | {cpu:F1} | " +
            $"{cpu / baseCpu:F3} | {f.Median:F3} | " +
            $"{f.P99:F3} | {f.Mean:F3} | {f.Mean / baseFrames.Mean:F2} / {f.Median / baseFrames.Median:F2} / " +
            $"{f.P99 / baseFrames.P99:F2} | {f.Rate:F2} | {Events(c.Id, "loop")} / {Events(c.Id, "frames")} | {c.Goal} |");
    }
    Console.WriteLine();
    // The loop per process: a repetition's time varies between processes more than within one
    // (where the GC's heap lands, page faults: 124-273 ms per repetition with the profiler off
    // on one idle run), so each process's best repetition is its figure, and each round's
    // processes (one per configuration, launched one after the other) are compared in pairs.
    foreach (Configuration c in configurations.Skip(1))
    {
        var pairs = Enumerable.Range(0, processes)
            .Select(p => Best(c.Id, p) / Best(configurations[0].Id, p)).ToList();
        var bests = Enumerable.Range(0, processes).Select(p => Best(c.Id, p)).ToList();
        Console.WriteLine($"- loop, each process's best repetition, {c.Name} / {configurations[0].Name}: " +
            $"median of the {processes} rounds' pairs {Median(pairs):F3} (range {pairs.Min():F3}-{pairs.Max():F3}); " +
            $"median of bests {Median(bests):F0} ms / {Median(Enumerable.Range(0, processes).Select(p => Best(configurations[0].Id, p)).ToList()):F0} ms");
    }
    Console.WriteLine();
    if (!Has("listener") || !Has("sampled-stacks") || !Has("sampled-every10") || !Has("sampled-count") ||
        !Has("exact-window"))
        return; // a selection (ALLOCATION_BENCHMARK_ONLY): the table alone
    Stats listenerLoop = LoopStats("listener"), listenerFrames = FrameStats("listener");
    foreach (string id in (string[])["sampled-stacks", "sampled-every10", "sampled-count"])
        Console.WriteLine($"- {Name(id)} / the runtime's own events in an EventListener: loop " +
            $"{LoopStats(id).Median / listenerLoop.Median:F2}, frames (mean) " +
            $"{FrameStats(id).Mean / listenerFrames.Mean:F2} (goal ≤1.0×)");
    foreach (string id in (string[])["sampled-stacks", "sampled-every10", "sampled-count", "exact-window"])
    {
        var first = results[(id, "loop")].Concat(results[(id, "frames")])
            .Where(r => r["firstBeginMs"] is not null).Select(r => r["firstBeginMs"]!.GetValue<double>()).ToList();
        var sampling = results[(id, "loop")].Concat(results[(id, "frames")])
            .Where(r => r["firstSamplingMs"] is not null).Select(r => r["firstSamplingMs"]!.GetValue<double>()).ToList();
        var jit = results[(id, "loop")].Concat(results[(id, "frames")])
            .Where(r => r["jitMs"] is not null).Select(r => r["jitMs"]!.GetValue<double>()).ToList();
        var warm = results[(id, "loop")].Concat(results[(id, "frames")])
            .Where(r => r["beginMs"] is not null).Select(r => r["beginMs"]!.GetValue<double>()).ToList();
        var slow = results[(id, "loop")].Concat(results[(id, "frames")])
            .Where(r => r["firstBeginMs"] is { } ms && ms.GetValue<double>() > 1.0 && r["firstBeginWaits"] is not null)
            .Select(r => $"{r["firstBeginMs"]!.GetValue<double>():F1} ms: {r["firstBeginWaits"]} waits, " +
                $"{r["firstBeginPreemptions"]} preemptions").ToList();
        if (slow.Count > 0)
            Console.WriteLine($"- {Name(id)}: first Begins over 1 ms, with the calling thread's context switches " +
                $"during Begin: {string.Join("; ", slow)}");
        if (first.Count > 0)
            Console.WriteLine($"- {Name(id)}: the first Begin of a process blocked its caller {Median(first):F3} ms " +
                $"median, {first.Max():F3} ms max over {first.Count} processes (goal ≤1 ms; its managed path compiled " +
                $"beforehand, {Median(jit):F1} ms of JIT); later Begins {Median(warm):F3} ms median, {warm.Max():F3} ms max" +
                (sampling.Count > 0 ? $"; the runtime sampled {Median(sampling):F0} ms after the first Begin (median)" : ""));
    }
    // Our cost per sampled event, from the loop (most events): the stack walk is what a window
    // with stacks costs beyond a COUNT_ONLY one; the whole per-event cost of a COUNT_ONLY window
    // (the runtime's sampling and event delivery plus our callback) is its time beyond profiler
    // off; each divided by the events of one repetition.
    double events = EventsMedian("sampled-stacks", "loop");
    if (events > 0)
    {
        double walk = (LoopStats("sampled-stacks").Median - LoopStats("sampled-count").Median) * 1e3 / events;
        double count = (LoopStats("sampled-count").Median - baseLoop.Median) * 1e3 / EventsMedian("sampled-count", "loop");
        double listener = (listenerLoop.Median - baseLoop.Median) * 1e3 / Math.Max(1, EventsMedian("listener", "loop"));
        Console.WriteLine($"- Per sampled event (loop, {events:N0} events per repetition): stack walk " +
            $"{walk:F2} µs (stacks-every-event minus COUNT_ONLY); runtime sampling + delivery + our callback " +
            $"{count:F2} µs (COUNT_ONLY minus off); the EventListener's whole cost {listener:F2} µs per event " +
            "(listener minus off)");
    }
}

double Best(string id, int process) =>
    results[(id, "loop")].Where(r => r["process"]!.GetValue<int>() == process).Min(r => r["ms"]!.GetValue<double>());

bool Has(string id) => configurations.Any(c => c.Id == id);

string Name(string id) => configurations.First(c => c.Id == id).Name;

double LoopCpu(string id)
{
    var ms = results[(id, "loop")].Where(r => r["cpuMs"] is not null).Select(r => r["cpuMs"]!.GetValue<double>()).ToList();
    return ms.Count > 0 ? Median(ms) : double.NaN;
}

Stats LoopStats(string id)
{
    var ms = results[(id, "loop")].Select(r => r["ms"]!.GetValue<double>()).ToList();
    return new Stats(Median(ms), 0, 0, 0);
}

Stats FrameStats(string id)
{
    var all = new List<double>();
    double totalMs = 0, bytes = 0;
    foreach (JsonObject r in results[(id, "frames")])
    {
        all.AddRange(r["frameMs"]!.AsArray().Select(x => x!.GetValue<double>()));
        totalMs += r["ms"]!.GetValue<double>();
        bytes += r["allocated"]!.GetValue<double>();
    }
    all.Sort();
    return new Stats(Percentile(all, 0.50), Percentile(all, 0.99), all.Average(), bytes / (totalMs * 1e-3) / 1e9);
}

string Events(string id, string workload)
{
    double e = EventsMedian(id, workload);
    return e > 0 ? $"{e:N0}" : "-";
}

double EventsMedian(string id, string workload)
{
    var e = results[(id, workload)].Where(r => r["events"] is not null)
        .Select(r => r["events"]!.GetValue<double>()).ToList();
    return e.Count > 0 ? Median(e) : 0;
}

List<JsonObject> Launch(Configuration configuration, string workload, long size)
{
    var start = new ProcessStartInfo("dotnet")
    {
        UseShellExecute = false,
        RedirectStandardOutput = true,
        RedirectStandardError = true,
    };
    start.ArgumentList.Add(typeof(Workload).Assembly.Location);
    foreach (string a in new[] { "child", configuration.Id, workload, $"{size}", $"{Repetitions}" })
        start.ArgumentList.Add(a);
    foreach (string key in start.Environment.Keys.ToList())
        if (key.StartsWith("CORECLR_", StringComparison.Ordinal) || key.StartsWith("ALVORKIT_", StringComparison.Ordinal))
            start.Environment.Remove(key);
    if (configuration.Profiling is not null)
    {
        start.Environment["CORECLR_ENABLE_PROFILING"] = "1";
        start.Environment["CORECLR_PROFILER"] = ProfilerLibrary.ProfilerClsid;
        start.Environment["CORECLR_PROFILER_PATH"] = library;
        start.Environment[ProfilerLibrary.PathVariable] = library;
        if (configuration.Profiling.Length > 0)
            start.Environment[AlvkCapture.ProfilingVariable] = configuration.Profiling;
    }
    using var process = Process.Start(start)!;
    Task<string> stderr = process.StandardError.ReadToEndAsync();
    string stdout = process.StandardOutput.ReadToEnd();
    process.WaitForExit();
    if (process.ExitCode != 0)
        throw new InvalidOperationException($"{configuration.Id} {workload} failed ({process.ExitCode}): {stdout} {stderr.Result}");
    return stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonNode.Parse(l)!.AsObject()).ToList();
}

static int Child(string configuration, string workload, long size, int repetitions)
{
    using RuntimeAllocationListener? listener = configuration == "listener" ? new RuntimeAllocationListener() : null;
    AllocationCapture? capture = configuration is "sampled-stacks" or "sampled-every10" or "sampled-count" or "exact-window"
        ? Interceptor.Open().Allocations
        : null;
    AllocationCaptureOptions options = configuration switch
    {
        "sampled-stacks" => new(AllocationCaptureMode.Sampled, StackEvery: 1),
        "sampled-every10" => new(AllocationCaptureMode.Sampled, StackEvery: 10),
        _ => AllocationCaptureOptions.CountOnly,
    };
    double jitMs = capture is null ? 0 : CompileBegin();
    if (configuration == "sampled-after2000")
        Cycles.Run(Interceptor.Open().Allocations);
    var run = new Run(capture, options, listener, workload);
    JsonObject warm = run.Repetition(workload == "loop" ? size / 10 : Math.Max(1, size / 10), first: true);
    for (int i = 0; i < repetitions; ++i)
    {
        JsonObject r = run.Repetition(size, first: false);
        if (i == 0)
        {
            if (warm["firstBeginMs"] is { } begin)
                r["firstBeginMs"] = begin.GetValue<double>();
            if (warm["firstSamplingMs"] is { } sampling)
                r["firstSamplingMs"] = sampling.GetValue<double>();
            if (warm["firstBeginWaits"] is { } waits)
                r["firstBeginWaits"] = waits.GetValue<long>();
            if (warm["firstBeginPreemptions"] is { } preemptions)
                r["firstBeginPreemptions"] = preemptions.GetValue<long>();
            if (capture is not null)
                r["jitMs"] = jitMs;
        }
        Console.WriteLine(r.ToJsonString());
    }
    return 0;
}

// Compiles the managed path of Begin (and of waiting for the session) before the first window,
// so the first Begin's time is the profiler's, not the JIT's; returns the milliseconds spent.
static double CompileBegin()
{
    long start = Stopwatch.GetTimestamp();
    const System.Reflection.BindingFlags All = System.Reflection.BindingFlags.Instance |
        System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.Public |
        System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.DeclaredOnly;
    string[] names = ["Begin", "WaitUntilSampling", "WaitCore", "CaptureBegin", "CaptureGetState", ".ctor", "get_Profiling"];
    foreach (Type type in new[] { typeof(AllocationCapture), typeof(AllocationWindow), typeof(ProfilerLibrary) })
    {
        foreach (System.Reflection.MethodBase m in type.GetMethods(All).Cast<System.Reflection.MethodBase>()
                     .Concat(type.GetConstructors(All)))
            if (names.Contains(m.Name) && !m.IsAbstract && !m.ContainsGenericParameters)
                RuntimeHelpers.PrepareMethod(m.MethodHandle);
    }
    return Stopwatch.GetElapsedTime(start).TotalMilliseconds;
}

static string CpuModel()
{
    if (File.Exists("/proc/cpuinfo"))
        foreach (string line in File.ReadLines("/proc/cpuinfo"))
            if (line.StartsWith("model name", StringComparison.Ordinal))
                return line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
    return "unknown CPU";
}

static double Median(List<double> xs)
{
    var sorted = xs.Order().ToArray();
    int mid = sorted.Length / 2;
    return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// The nearest-rank percentile of sorted values.
static double Percentile(List<double> sorted, double q)
{
    int rank = (int)Math.Ceiling(q * sorted.Count);
    return sorted[Math.Clamp(rank - 1, 0, sorted.Count - 1)];
}

/// <summary>One configuration: its id (the child's argument), the row's name, the value of
/// ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING (null: no profiler), the issue's goal.</summary>
internal sealed record Configuration(string Id, string Name, string? Profiling, string Goal);

/// <summary>A row's figures: loop median, or frame p50 / p99 / mean and allocation rate.</summary>
internal readonly record struct Stats(double Median, double P99, double Mean, double Rate);

/// <summary>One child's repetitions: a window around each (when the configuration has one),
/// the workload timed inside it.</summary>
internal sealed class Run(AllocationCapture? capture, AllocationCaptureOptions options,
    RuntimeAllocationListener? listener, string workload)
{
    public JsonObject Repetition(long size, bool first)
    {
        var result = new JsonObject();
        AllocationWindow? window = null;
        if (capture is not null)
        {
            (long Voluntary, long Involuntary) switches = first ? ContextSwitches.OfThisThread() : (-1, -1);
            long begin = Stopwatch.GetTimestamp();
            window = capture.Begin(options);
            double beginMs = Stopwatch.GetElapsedTime(begin).TotalMilliseconds;
            if (first && switches.Voluntary >= 0)
            {
                // Whether the first Begin's thread waited (a voluntary switch: a lock, a sleep)
                // or was preempted (involuntary) while Begin ran; read after the timed part.
                (long Voluntary, long Involuntary) after = ContextSwitches.OfThisThread();
                result["firstBeginWaits"] = after.Voluntary - switches.Voluntary;
                result["firstBeginPreemptions"] = after.Involuntary - switches.Involuntary;
            }
            if (capture.Profiling == AllocationProfiling.Sampled && !window.WaitUntilSampling(TimeSpan.FromSeconds(10)))
                throw new InvalidOperationException("the sampling session did not start within 10 s");
            result["beginMs"] = beginMs;
            if (first)
            {
                result["firstBeginMs"] = beginMs;
                if (capture.Profiling == AllocationProfiling.Sampled)
                    result["firstSamplingMs"] = Stopwatch.GetElapsedTime(begin).TotalMilliseconds;
            }
        }
        long events0 = listener?.Events ?? 0;
        long allocated0 = GC.GetAllocatedBytesForCurrentThread();
        long cpu0 = ThreadCpu.Nanoseconds();
        long start = Stopwatch.GetTimestamp();
        if (workload == "loop")
        {
            Workload.Churn(size);
        }
        else
        {
            var frameMs = new JsonArray();
            var times = new double[size];
            for (int f = 0; f < size; ++f)
            {
                long t = Stopwatch.GetTimestamp();
                Workload.Frame(f);
                times[f] = Stopwatch.GetElapsedTime(t).TotalMilliseconds;
            }
            foreach (double t in times)
                frameMs.Add(Math.Round(t, 4));
            result["frameMs"] = frameMs;
        }
        result["ms"] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        if (cpu0 >= 0)
            result["cpuMs"] = (ThreadCpu.Nanoseconds() - cpu0) / 1e6;
        result["allocated"] = (double)(GC.GetAllocatedBytesForCurrentThread() - allocated0);
        if (window is not null)
        {
            AllocationReport report = window.End();
            window.Dispose();
            if (report.IsEstimate)
                result["events"] = (double)report.SampledEvents;
        }
        if (listener is not null)
        {
            Thread.Sleep(200); // the listener's dispatch thread reads the session's buffers
            result["events"] = (double)(listener.Events - events0);
        }
        return result;
    }
}

/// <summary>2,000 sampled windows opened and closed before the timed repetitions, as a game
/// that profiles some frames: 1,000 plain ones, then 1,000 that wait until the runtime samples,
/// each around about 200 KB of allocation; then until no session is starting or stopping.</summary>
internal static class Cycles
{
    private static object? _sink;

    public static void Run(AllocationCapture capture)
    {
        var waiting = new AllocationCaptureOptions(WaitUntilSampling: true);
        for (int i = 0; i < 2000; i++)
        {
            using AllocationWindow w = BeginRetrying(capture, i < 1000 ? AllocationCaptureOptions.Sampled : waiting);
            for (int k = 0; k < 8000; k++)
                _sink = new Small { Value = k };
            w.End();
        }
        var clock = Stopwatch.StartNew();
        while (capture.GetState().Phase != AllocationCapturePhase.Idle)
        {
            if (clock.Elapsed > TimeSpan.FromSeconds(10))
                throw new InvalidOperationException("sessions still starting or stopping 10 s after the 2,000 windows");
            Thread.Sleep(1);
        }
    }

    // A window closed before its session's start returned leaves the stop pending, and Begin
    // answers CaptureStopping until it is done: tried again, for 10 s at most.
    private static AllocationWindow BeginRetrying(AllocationCapture capture, AllocationCaptureOptions options)
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
                Thread.Sleep(1);
            }
        }
    }
}

/// <summary>The runtime's own AllocationSampled events (keyword 0x80000000000, Informational),
/// counted in-process: what an app gets without our profiler.</summary>
internal sealed class RuntimeAllocationListener : EventListener
{
    private long _events;

    public long Events => Interlocked.Read(ref _events);

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
            EnableEvents(eventSource, EventLevel.Informational, (EventKeywords)0x80000000000);
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventId == 303)
            Interlocked.Increment(ref _events);
    }
}

/// <summary>A 24-byte object (header, MethodTable, one int, padding).</summary>
internal sealed class Small
{
    public int Value;
}

internal static class Workload
{
    private static object? _sink;
    private static readonly float[] Particles = new float[4 * 16384];
    private static readonly List<object> Recent = new(512);

    // Fully optimized from the first call, in every configuration (no tiering, no OSR).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void Churn(long count)
    {
        for (long i = 0; i < count; i++)
            _sink = new Small { Value = (int)i };
    }

    // One frame of a game-like loop: about 0.9 MB allocated in small arrays, strings, lists and
    // medium arrays (a 100 KB large-heap array every 10th frame), a few of them kept for a while
    // as a game's caches are, and particle updates between them.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static int Frame(int frame)
    {
        int checksum = 0;
        for (int batch = 0; batch < 10; ++batch)
        {
            for (int i = 0; i < 150; ++i)
            {
                var a = new int[8 + ((i * 7 + frame) % 56)];
                a[0] = i;
                checksum += a.Length;
                _sink = a;
            }
            for (int i = 0; i < 200; ++i)
            {
                string s = string.Concat("entity-", (i + frame * 31).ToString(CultureInfo.InvariantCulture));
                checksum += s.Length;
                _sink = s;
            }
            for (int i = 0; i < 15; ++i)
            {
                var list = new List<int>();
                for (int k = 0; k < 64; ++k)
                    list.Add(k ^ i);
                checksum += list.Count;
                _sink = list;
            }
            for (int i = 0; i < 3; ++i)
            {
                var m = new float[2048];
                m[i] = batch;
                _sink = m;
            }
            if (batch % 5 == 0)
                _sink = new byte[40_000];
            Recent.Add(_sink!);
            if (Recent.Count == Recent.Capacity)
                Recent.Clear();
            checksum += Simulate(batch);
        }
        if (frame % 10 == 0)
            _sink = new byte[100_000];
        return checksum;
    }

    // Real work between allocations: a pass over the particles.
    private static int Simulate(int batch)
    {
        float[] p = Particles;
        float energy = 0;
        for (int i = 0; i < p.Length; i += 4)
        {
            p[i + 2] = (p[i + 2] * 0.99f) + 0.01f;
            p[i + 3] = (p[i + 3] * 0.98f) - 0.02f;
            p[i] += p[i + 2] * 0.016f;
            p[i + 1] += p[i + 3] * 0.016f;
            if (p[i + 1] < 0)
            {
                p[i + 1] = -p[i + 1];
                p[i + 3] = -p[i + 3] * 0.8f;
            }
            energy += MathF.Sqrt((p[i + 2] * p[i + 2]) + (p[i + 3] * p[i + 3]));
        }
        return (int)energy;
    }
}

// The calling thread's context switches so far, from /proc/thread-self/status (Linux; (-1, -1)
// elsewhere): voluntary ones are waits, involuntary ones preemptions.
/// <summary>The calling thread's time on a CPU (/proc/thread-self/schedstat, nanoseconds), or
/// -1 where the kernel does not give it: on a shared machine, where wall time also counts the
/// time the thread waited for a core, the figure that compares configurations.</summary>
internal static class ThreadCpu
{
    public static long Nanoseconds()
    {
        const string schedstat = "/proc/thread-self/schedstat";
        if (!File.Exists(schedstat))
            return -1;
        string text = File.ReadAllText(schedstat);
        int space = text.IndexOf(' ', StringComparison.Ordinal);
        return space > 0 ? long.Parse(text.AsSpan(0, space), CultureInfo.InvariantCulture) : -1;
    }
}

internal static class ContextSwitches
{
    public static (long Voluntary, long Involuntary) OfThisThread()
    {
        const string status = "/proc/thread-self/status";
        if (!File.Exists(status))
            return (-1, -1);
        long voluntary = -1, involuntary = -1;
        foreach (string line in File.ReadLines(status))
        {
            if (line.StartsWith("voluntary_ctxt_switches:", StringComparison.Ordinal))
                voluntary = long.Parse(line.AsSpan(line.IndexOf(':') + 1).Trim(), CultureInfo.InvariantCulture);
            else if (line.StartsWith("nonvoluntary_ctxt_switches:", StringComparison.Ordinal))
                involuntary = long.Parse(line.AsSpan(line.IndexOf(':') + 1).Trim(), CultureInfo.InvariantCulture);
        }
        return (voluntary, involuntary);
    }
}
