using System.Diagnostics;
using System.Globalization;

// Whole-process launch time, unprofiled vs profiled, of two apps: the proof host ("idle": a
// tiny app) and LargeApp (an app using a large NuGet library, Roslyn). Configurations are
// interleaved run by run so drift on the machine hits all of them alike. Then, once per
// configuration, the methods the JIT compiled (DOTNET_JitStdOutFile + DOTNET_JitDisasmSummary).
if (args.Length < 2)
{
    Console.Error.WriteLine("usage: LaunchBenchmark <AlvorKit.Proofs.Host.dll> <profiler library> [runs] [LaunchBenchmark.LargeApp.dll]");
    return 64;
}
string host = Path.GetFullPath(args[0]);
string library = Path.GetFullPath(args[1]);
int runs = args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 21;
string largeApp = Path.GetFullPath(args.Length > 3 ? args[3]
    : Path.Combine(AppContext.BaseDirectory, "..", "..", "..", "LargeApp", "bin", "Release", "net10.0", "LaunchBenchmark.LargeApp.dll"));

var apps = new (string Name, string Dll, string[] Args, string Module)[]
{
    ("tiny app (`AlvorKit.Proofs.Host.dll idle`)", host, ["idle"], "AlvorKit.Proofs.Host"),
    ("app using a large NuGet library (`LaunchBenchmark.LargeApp.dll`, Roslyn)", largeApp, [], "LaunchBenchmark.LargeApp"),
};
Console.WriteLine($"Launch time, {runs} runs per configuration after 2 warm-up rounds, interleaved");
Console.WriteLine($"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}");
foreach (var app in apps)
{
    var configurations = new (string Name, Dictionary<string, string> Env)[]
    {
        ("unprofiled", new()),
        ("profiled, no patchable modules", Profiled(null)),
        ($"profiled, patching enabled ({app.Module} allowlisted)", Profiled(app.Module)),
    };
    var samples = configurations.Select(_ => new List<double>()).ToArray();
    for (int warm = 0; warm < 2; ++warm)
        foreach (var c in configurations)
            Launch(app.Dll, app.Args, c.Env);
    for (int i = 0; i < runs; ++i)
        for (int c = 0; c < configurations.Length; ++c)
            samples[c].Add(Launch(app.Dll, app.Args, configurations[c].Env));

    double baseline = Median(samples[0]);
    Console.WriteLine();
    Console.WriteLine($"{app.Name}:");
    Console.WriteLine();
    Console.WriteLine("| configuration | median ms | p90 ms | ratio to unprofiled (medians) | ratio to unprofiled (median of the round's pairs) | methods JIT-compiled |");
    Console.WriteLine("|---|---:|---:|---:|---:|---:|");
    for (int c = 0; c < configurations.Length; ++c)
    {
        double median = Median(samples[c]);
        // Each round launches every configuration once, one after the other: the ratio of a
        // round's two launches is taken on the same load, which the medians alone are not.
        double paired = Median(samples[c].Zip(samples[0], (a, b) => a / b).ToList());
        int jitted = MethodsJitted(app.Dll, app.Args, configurations[c].Env);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {configurations[c].Name} | {median:F1} | {Percentile(samples[c], 0.9):F1} | {median / baseline:F2} | {paired:F2} | {jitted} |"));
    }
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

int MethodsJitted(string dll, string[] arguments, Dictionary<string, string> env)
{
    string file = Path.Combine(Path.GetTempPath(), $"alvk-launch-jit-{Environment.ProcessId}.txt");
    File.Delete(file);
    var withSummary = new Dictionary<string, string>(env)
    {
        ["DOTNET_JitStdOutFile"] = file,
        ["DOTNET_JitDisasmSummary"] = "1",
    };
    Launch(dll, arguments, withSummary);
    int count = File.ReadLines(file).Count(l => l.Contains("JIT compiled ", StringComparison.Ordinal));
    File.Delete(file);
    return count;
}

static double Launch(string dll, string[] arguments, Dictionary<string, string> env)
{
    var start = new ProcessStartInfo("dotnet")
    {
        UseShellExecute = false,
        RedirectStandardError = true,
        RedirectStandardOutput = true,
    };
    start.ArgumentList.Add(dll);
    foreach (string a in arguments)
        start.ArgumentList.Add(a);
    foreach (string key in start.Environment.Keys.ToList())
    {
        if (key.StartsWith("CORECLR_", StringComparison.Ordinal) || key.StartsWith("ALVORKIT_", StringComparison.Ordinal) ||
            (key.StartsWith("DOTNET_", StringComparison.Ordinal) && key != "DOTNET_ROOT"))
            start.Environment.Remove(key);
    }
    foreach (var (k, v) in env)
        start.Environment[k] = v;
    var clock = Stopwatch.StartNew();
    using var p = Process.Start(start)!;
    Task<string> output = p.StandardOutput.ReadToEndAsync();
    string err = p.StandardError.ReadToEnd();
    p.WaitForExit();
    output.Wait();
    double ms = clock.Elapsed.TotalMilliseconds;
    if (p.ExitCode != 0)
        throw new InvalidOperationException($"{dll} failed ({p.ExitCode}): {err}");
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
