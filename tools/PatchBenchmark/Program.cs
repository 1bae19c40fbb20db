using System.Diagnostics;
using AlvorKit.PatchBenchmark;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

// Run under the profiler (./build.sh bench sets the environment):
//   calls   - BenchmarkDotNet: patched vs unpatched vs direct replacement
//   latency - install -> first patched execution, remove -> first original execution
string mode = args.Length > 0 ? args[0] : "calls";
if (mode == "calls")
{
    // In process: the patch lives in this profiled process, so the benchmark must too.
    var config = DefaultConfig.Instance.AddJob(Job.Default.WithToolchain(InProcessEmitToolchain.Instance));
    BenchmarkRunner.Run<CallBenchmarks>(config);
    return 0;
}
if (mode != "latency")
{
    Console.Error.WriteLine("usage: PatchBenchmark calls|latency [cycles]");
    return 64;
}

int cycles = args.Length > 1 ? int.Parse(args[1]) : 200;
var session = PatchSession.Open();
var target = PatchSession.Method(nameof(Targets.Latency));
var replacement = PatchSession.Method(nameof(Targets.LatencyReplacement));
for (int i = 0; i < 10_000; i++)
    Targets.Latency(i);
var install = new List<double>();
var remove = new List<double>();
for (int cycle = 0; cycle < cycles; cycle++)
{
    long start = Stopwatch.GetTimestamp();
    ulong handle = session.Install(target, replacement, owner: 1);
    while (Targets.Latency(1) != 3) { }
    install.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
    session.Wait(handle);
    start = Stopwatch.GetTimestamp();
    PatchSession.Check(session.Library.PatchRemove(handle, 1), "remove");
    while (Targets.Latency(1) != 2) { }
    remove.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
    session.Wait(handle);
}
Console.WriteLine($"Latency over {cycles} cycles (microseconds), .NET {Environment.Version}, " +
                  $"{Environment.ProcessorCount} cores");
Console.WriteLine("| step | median us | p99 us | max us |");
Console.WriteLine("|---|---:|---:|---:|");
Report("install -> first patched execution", install);
Report("remove -> first original execution", remove);
return 0;

static void Report(string name, List<double> xs)
{
    var s = xs.OrderBy(x => x).ToArray();
    double P(double q) => s[(int)Math.Min(s.Length - 1, Math.Round(q * (s.Length - 1)))];
    Console.WriteLine($"| {name} | {P(0.5):F0} | {P(0.99):F0} | {s[^1]:F0} |");
}
