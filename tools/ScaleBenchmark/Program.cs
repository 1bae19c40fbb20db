using System.Diagnostics;
using System.Globalization;
using AlvorKit.ScaleBenchmark;

// Whole-process scale benchmarks. The parent launches this same program as children:
//   ScaleBenchmark <profiler library> [pairs]    every benchmark, a Markdown report
//   ScaleBenchmark child-rss                      prints this process's memory once settled
//   ScaleBenchmark child-batch                    (profiled) 1,000 targets in one batch
//   ScaleBenchmark child-patchall [rounds]        (profiled) PatchAll of one patch class over 100 targets
string mode = args.Length > 0 ? args[0] : "";
if (mode == "child-rss")
{
    Thread.Sleep(200);
    Memory.Reading r = Memory.Read();
    Console.WriteLine(FormattableString.Invariant($"rss {r.VmRssKiB} {r.RssAnonKiB} {r.HeapInUse} {r.HeapHeld} {r.RssFileKiB}"));
    return 0;
}
if (mode == "child-smaps")
{
    // Resident KiB per mapped file (or [anon]), largest first: what a configuration's pages are.
    Thread.Sleep(200);
    Memory.Read();
    foreach ((string name, long kib) in Memory.ResidentByMapping().Take(args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 12))
        Console.WriteLine(FormattableString.Invariant($"{kib,8} KiB  {name}"));
    return 0;
}
if (mode == "child-batch")
    return BatchChild.Run(args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3);
if (mode == "child-patchall")
    return PatchAllChild.Run(args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 11);
if (args.Length < 1 || mode.StartsWith("child", StringComparison.Ordinal))
{
    Console.Error.WriteLine("usage: ScaleBenchmark <profiler library> [pairs]");
    return 64;
}
return Parent.Run(Path.GetFullPath(args[0]), args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 9);
