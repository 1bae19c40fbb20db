using System.Diagnostics;

// Whole-process launch time of the proof host ("idle" mode), unprofiled vs profiled.
// Configurations are interleaved run by run so drift on the machine hits all of them alike.
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: LaunchBenchmark <AlvorKit.Proofs.Host.dll> <profiler library> [runs]");
    return 64;
}
string host = Path.GetFullPath(args[0]);
string library = Path.GetFullPath(args[1]);
int runs = args.Length > 2 ? int.Parse(args[2]) : 21;

var configurations = new (string Name, Dictionary<string, string> Env)[]
{
    ("unprofiled", new()),
    ("profiled, no patchable modules (ReadyToRun kept)", Profiled(null)),
    ("profiled, patching enabled (ReadyToRun disabled)", Profiled("AlvorKit.Proofs.Host")),
};
var samples = configurations.Select(_ => new List<double>()).ToArray();
for (int warm = 0; warm < 2; ++warm)
    foreach (var c in configurations)
        Launch(c.Env);
for (int i = 0; i < runs; ++i)
    for (int c = 0; c < configurations.Length; ++c)
        samples[c].Add(Launch(configurations[c].Env));

double baseline = Median(samples[0]);
Console.WriteLine($"Launch time of `dotnet AlvorKit.Proofs.Host.dll idle`, {runs} runs each, interleaved");
Console.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
Console.WriteLine();
Console.WriteLine("| configuration | median ms | p90 ms | ratio to unprofiled (median) |");
Console.WriteLine("|---|---:|---:|---:|");
for (int c = 0; c < configurations.Length; ++c)
{
    double median = Median(samples[c]);
    Console.WriteLine($"| {configurations[c].Name} | {median:F1} | {Percentile(samples[c], 0.9):F1} | {median / baseline:F2} |");
}
return 0;

Dictionary<string, string> Profiled(string? modules)
{
    var env = new Dictionary<string, string>
    {
        ["CORECLR_ENABLE_PROFILING"] = "1",
        ["CORECLR_PROFILER"] = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}",
        ["CORECLR_PROFILER_PATH"] = library,
        ["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library,
    };
    if (modules != null)
        env["ALVORKIT_INTERCEPTION_MODULES"] = modules;
    return env;
}

double Launch(Dictionary<string, string> env)
{
    var start = new ProcessStartInfo("dotnet") { UseShellExecute = false, RedirectStandardError = true };
    start.ArgumentList.Add(host);
    start.ArgumentList.Add("idle");
    foreach (string key in start.Environment.Keys.ToList())
        if (key.StartsWith("CORECLR_") || key.StartsWith("ALVORKIT_"))
            start.Environment.Remove(key);
    foreach (var (k, v) in env)
        start.Environment[k] = v;
    var clock = Stopwatch.StartNew();
    using var p = Process.Start(start)!;
    string err = p.StandardError.ReadToEnd();
    p.WaitForExit();
    double ms = clock.Elapsed.TotalMilliseconds;
    if (p.ExitCode != 0)
        throw new InvalidOperationException($"host failed ({p.ExitCode}): {err}");
    return ms;
}

static double Median(List<double> xs) => Percentile(xs, 0.5);

static double Percentile(List<double> xs, double q)
{
    var sorted = xs.OrderBy(x => x).ToArray();
    double rank = q * (sorted.Length - 1);
    int lo = (int)Math.Floor(rank), hi = (int)Math.Ceiling(rank);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}
