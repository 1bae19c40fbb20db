using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Native;

// The cost of allocation capture on an allocation-heavy loop (`objects` small objects per
// repetition), in child processes launched with each configuration's environment. The
// configurations are interleaved process by process so drift on the machine hits all alike.
//   AllocationBenchmark <profiler library> [processes per configuration] [objects]
//   AllocationBenchmark child <configuration> <objects> <repetitions>   (what the parent launches)
// The loop is timed alone; End() (resolving and reading what the window recorded) is timed
// apart.
if (args.Length >= 1 && args[0] == "child")
    return Child(args[1], long.Parse(args[2]), int.Parse(args[3]));
if (args.Length < 1)
{
    Console.Error.WriteLine("usage: AllocationBenchmark <profiler library> [processes per configuration] [objects]");
    return 64;
}
string library = Path.GetFullPath(args[0]);
int processes = args.Length > 1 ? int.Parse(args[1]) : 5;
long objects = args.Length > 2 ? long.Parse(args[2]) : 20_000_000;
const int Repetitions = 3;

var configurations = new (string Id, string Name, Dictionary<string, string> Env)[]
{
    ("off", "profiler off (no CORECLR_ENABLE_PROFILING)", []),
    ("loaded", "profiler on, allocation profiling off", Profiled(allocations: false)),
    ("nowindow", "profiler on, ALLOCATION_PROFILING=1, no window", Profiled(allocations: true)),
    ("countonly", "count-only window around the loop", Profiled(allocations: true)),
    ("sampled", "sampled window (default 100 KiB interval)", Profiled(allocations: true)),
};
var times = configurations.Select(_ => new List<double>()).ToArray();
var ends = configurations.Select(_ => new List<double>()).ToArray();
var last = new JsonObject?[configurations.Length];
for (int p = 0; p < processes; ++p)
    for (int c = 0; c < configurations.Length; ++c)
        foreach (JsonObject rep in Launch(configurations[c].Id, configurations[c].Env))
        {
            times[c].Add(rep["ms"]!.GetValue<double>());
            if (rep["endMs"] is { } end)
                ends[c].Add(end.GetValue<double>());
            last[c] = rep;
        }

double baseline = Median(times[0]);
Console.WriteLine($"`AllocationBenchmark` loop: {objects:N0} objects of 24 bytes per repetition, " +
    $"{processes} processes x {Repetitions} repetitions per configuration (after one warm-up repetition " +
    "per process), processes interleaved");
Console.WriteLine($"Machine: {CpuModel()}, {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
Console.WriteLine();
Console.WriteLine("| configuration | median ms | min ms | ns per object | ratio to profiler off | objects counted | samples kept / dropped | End() ms |");
Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|");
for (int c = 0; c < configurations.Length; ++c)
{
    double median = Median(times[c]);
    JsonObject r = last[c]!;
    string counted = r["counted"] is { } n ? $"{n.GetValue<ulong>():N0}" : "-";
    string samples = r["samples"] is { } s ? $"{s.GetValue<int>():N0} / {r["dropped"]!.GetValue<ulong>():N0}" : "-";
    Console.WriteLine($"| {configurations[c].Name} | {median:F0} | {times[c].Min():F0} | " +
        $"{median * 1e6 / objects:F1} | {median / baseline:F2} | {counted} | {samples} | " +
        (ends[c].Count > 0 ? $"{Median(ends[c]):F1} |" : "- |"));
}
return 0;

Dictionary<string, string> Profiled(bool allocations)
{
    var env = new Dictionary<string, string>
    {
        ["CORECLR_ENABLE_PROFILING"] = "1",
        ["CORECLR_PROFILER"] = ProfilerLibrary.ProfilerClsid,
        ["CORECLR_PROFILER_PATH"] = library,
        [ProfilerLibrary.PathVariable] = library,
    };
    if (allocations)
        env[AlvkCapture.ProfilingVariable] = "1";
    return env;
}

List<JsonObject> Launch(string configuration, Dictionary<string, string> env)
{
    var start = new ProcessStartInfo("dotnet")
    {
        UseShellExecute = false,
        RedirectStandardOutput = true,
        RedirectStandardError = true,
    };
    start.ArgumentList.Add(typeof(Workload).Assembly.Location);
    foreach (string a in new[] { "child", configuration, $"{objects}", $"{Repetitions}" })
        start.ArgumentList.Add(a);
    foreach (string key in start.Environment.Keys.ToList())
        if (key.StartsWith("CORECLR_") || key.StartsWith("ALVORKIT_"))
            start.Environment.Remove(key);
    foreach (var (k, v) in env)
        start.Environment[k] = v;
    using var process = Process.Start(start)!;
    Task<string> stderr = process.StandardError.ReadToEndAsync();
    string stdout = process.StandardOutput.ReadToEnd();
    process.WaitForExit();
    if (process.ExitCode != 0)
        throw new InvalidOperationException($"{configuration} failed ({process.ExitCode}): {stdout} {stderr.Result}");
    return stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(l => JsonNode.Parse(l)!.AsObject()).ToList();
}

static int Child(string configuration, long objects, int repetitions)
{
    AllocationCapture? capture = configuration is "countonly" or "sampled" ? Interceptor.Open().Allocations : null;
    AllocationCaptureOptions options = configuration == "countonly"
        ? AllocationCaptureOptions.CountOnly
        : AllocationCaptureOptions.Sampled;
    Repetition(capture, options, objects / 10); // warm-up: JIT, heap growth, a whole window
    for (int i = 0; i < repetitions; ++i)
        Console.WriteLine(Repetition(capture, options, objects).ToJsonString());
    return 0;
}

static JsonObject Repetition(AllocationCapture? capture, AllocationCaptureOptions options, long objects)
{
    using AllocationWindow? window = capture?.Begin(options);
    long start = Stopwatch.GetTimestamp();
    Workload.Churn(objects);
    double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    var result = new JsonObject { ["ms"] = ms };
    if (window is not null)
    {
        long end = Stopwatch.GetTimestamp();
        AllocationReport report = window.End();
        result["endMs"] = Stopwatch.GetElapsedTime(end).TotalMilliseconds;
        result["counted"] = report.Type(typeof(Small).FullName!)?.Count ?? 0;
        result["samples"] = report.Samples.Count;
        result["dropped"] = report.DroppedSamples;
    }
    return result;
}

static string CpuModel()
{
    if (File.Exists("/proc/cpuinfo"))
        foreach (string line in File.ReadLines("/proc/cpuinfo"))
            if (line.StartsWith("model name", StringComparison.Ordinal))
                return line[(line.IndexOf(':') + 1)..].Trim();
    return "unknown CPU";
}

static double Median(List<double> xs)
{
    var sorted = xs.Order().ToArray();
    int mid = sorted.Length / 2;
    return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/// <summary>A 24-byte object (header, MethodTable, one int, padding).</summary>
internal sealed class Small
{
    public int Value;
}

internal static class Workload
{
    private static object? _sink;

    // Fully optimized from the first call, in every configuration (no tiering, no OSR).
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static void Churn(long count)
    {
        for (long i = 0; i < count; i++)
            _sink = new Small { Value = (int)i };
    }
}
