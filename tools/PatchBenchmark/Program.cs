using System.Diagnostics;
using AlvorKit.Interception.Native;
using AlvorKit.PatchBenchmark;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

// Run under the profiler (./build.sh bench sets the environment):
//   calls   - BenchmarkDotNet: a patched call on each dispatch path against the floor (a
//             NoInlining method with the replacement's body)
//   latency - install -> first patched execution, remove -> first original execution, on the
//             calli path and on the direct-call path (the replacement named, same module)
//   disasm  - both paths patched and called until their code is final, for DOTNET_JitDisasm
//             (DOTNET_JitStdOutFile) to print the patched bodies and their callers
//   hooks   - BenchmarkDotNet: a call through an empty prefix + empty postfix (direct and
//             calli) and through working hooks, against the unpatched original (the baseline)
//   hooksdisasm - the hooks applied and called until their code is final, for DOTNET_JitDisasm
//   inlinedhooks [outer] [pairs] [static|instance|cross|virtual|generic|firstcall] - hooks and a replacement on a
//             target the JIT inlines (a static method, or a class's instance method called with callvirt;
//             virtual and generic: targets whose callers keep the call while patched; firstcall: static
//             targets patched before their callers are first called): its caller against its unhooked twin,
//             alternated pairs in this process, per phase (InlinedHooks.cs)
//   removal [rounds] [calls] - a caller that inlines its target, against its never-patched twin,
//             before a patch of the target, while patched and after the removal (RemovalBenchmark)
string mode = args.Length > 0 ? args[0] : "calls";
if (mode == "inlinedhooks")
    return InlinedHooks.Run(args.Length > 1 ? int.Parse(args[1]) : 20_000, args.Length > 2 ? int.Parse(args[2]) : 7,
        args.Length > 3 ? args[3] : "static");
if (mode == "removal")
    return RemovalBenchmark.Run(args.Length > 1 ? int.Parse(args[1]) : 7, args.Length > 2 ? int.Parse(args[2]) : 20_000_000);
if (mode == "hooks")
{
    var config = DefaultConfig.Instance.AddJob(Job.Default.WithToolchain(InProcessEmitToolchain.Instance));
    BenchmarkRunner.Run<HookBenchmarks>(config);
    return 0;
}
if (mode == "hooksdisasm")
{
    using var interceptor = AlvorKit.Interception.Interceptor.Open();
    using var owner = new AlvorKit.Interception.PatchOwner("hook disasm");
    HookBenchmarks.HookAll(interceptor, owner);
    var bench = new HookBenchmarks();
    for (int round = 0; round < 50; round++)
    {
        for (int i = 0; i < 200; i++)
        {
            bench.Original();
            bench.EmptyHooks();
            bench.EmptyHooksCalli();
            bench.WorkingHooks();
        }
        Thread.Sleep(20);
    }
    return 0;
}
if (mode == "calls")
{
    // In process: the patch lives in this profiled process, so the benchmark must too.
    var config = DefaultConfig.Instance.AddJob(Job.Default.WithToolchain(InProcessEmitToolchain.Instance));
    BenchmarkRunner.Run<CallBenchmarks>(config);
    return 0;
}
if (mode == "disasm")
{
    var patched = PatchSession.Open();
    (ulong direct, ulong calli) = patched.InstallBothPaths();
    var bench = new CallBenchmarks();
    // Enough calls for tiering (when on) to compile the final code of the bodies and callers.
    for (int round = 0; round < 50; round++)
    {
        for (int i = 0; i < 200; i++)
        {
            bench.Floor();
            bench.PatchedDirect();
            bench.PatchedCalli();
        }
        Thread.Sleep(20);
    }
    patched.RemoveBothPaths(direct, calli);
    return 0;
}
if (mode != "latency")
{
    Console.Error.WriteLine("usage: PatchBenchmark calls|latency [cycles]|disasm|hooks|hooksdisasm|removal [rounds] [calls]");
    return 64;
}

int cycles = args.Length > 1 ? int.Parse(args[1]) : 200;
var session = PatchSession.Open();
var target = PatchSession.Method(nameof(Targets.Latency));
var replacement = PatchSession.Method(nameof(Targets.LatencyReplacement));
for (int i = 0; i < 10_000; i++)
    Targets.Latency(i);
Console.WriteLine($"Latency over {cycles} cycles per dispatch path (microseconds), .NET {Environment.Version}, " +
                  $"{Environment.ProcessorCount} cores");
Console.WriteLine("| step | path | median us | p99 us | max us |");
Console.WriteLine("|---|---|---:|---:|---:|");
foreach (bool direct in new[] { false, true })
{
    var install = new List<double>();
    var remove = new List<double>();
    string path = direct ? "direct call" : "calli";
    for (int cycle = 0; cycle < cycles; cycle++)
    {
        long start = Stopwatch.GetTimestamp();
        ulong handle = session.Install(target, replacement, owner: 1, direct);
        while (Targets.Latency(1) != 3) { }
        install.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
        session.Wait(handle);
        if (cycle == 0) // the path measured is the path taken
            session.ExpectPath(handle, direct ? AlvkDispatchPath.DirectCall : AlvkDispatchPath.Calli);
        start = Stopwatch.GetTimestamp();
        PatchSession.Check(session.Library.PatchRemove(handle, 1), "remove");
        while (Targets.Latency(1) != 2) { }
        remove.Add(Stopwatch.GetElapsedTime(start).TotalMicroseconds);
        session.Wait(handle);
    }
    Report("install -> first patched execution", path, install);
    Report("remove -> first original execution", path, remove);
}
return 0;

static void Report(string name, string path, List<double> xs)
{
    var s = xs.OrderBy(x => x).ToArray();
    double P(double q) => s[(int)Math.Min(s.Length - 1, Math.Round(q * (s.Length - 1)))];
    Console.WriteLine($"| {name} | {path} | {P(0.5):F0} | {P(0.99):F0} | {s[^1]:F0} |");
}
