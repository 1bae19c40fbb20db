using System.Diagnostics;
using System.Globalization;

namespace AlvorKit.ScaleBenchmark;

/// <summary>Launches the children and writes the report.</summary>
internal static class Parent
{
    private const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";

    internal static int Run(string library, int pairs)
    {
        string self = typeof(Parent).Assembly.Location;
        Console.WriteLine(FormattableString.Invariant(
            $"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}"));
        Console.WriteLine();
        InertMemory(self, library, pairs);
        Console.WriteLine();
        ChildResult batch = Launch(self, Profiled(library, "ScaleBenchmark"), "child-batch");
        Console.Write(batch.Output);
        if (batch.ExitCode != 0)
        {
            Console.Error.Write(batch.Error);
            return 1;
        }
        return 0;
    }

    // Paired runs, interleaved: an unprofiled child, then a profiled one with patching on and
    // nothing patched; each reports its memory once started and settled.
    private static void InertMemory(string self, string library, int pairs)
    {
        var unprofiled = new List<long[]>();
        var profiled = new List<long[]>();
        Launch(self, new(), "child-rss");
        Launch(self, Profiled(library, "ScaleBenchmark"), "child-rss");
        for (int i = 0; i < pairs; i++)
        {
            unprofiled.Add(Reading(Launch(self, new(), "child-rss")));
            profiled.Add(Reading(Launch(self, Profiled(library, "ScaleBenchmark"), "child-rss")));
        }
        Console.WriteLine(FormattableString.Invariant(
            $"Inert profiled process (patching on, nothing patched) against an unprofiled one: {pairs} paired runs of `ScaleBenchmark child-rss`, medians"));
        Console.WriteLine();
        Console.WriteLine("| measure | unprofiled | profiled | difference |");
        Console.WriteLine("|---|---:|---:|---:|");
        string[] names = ["VmRSS (KiB)", "RssAnon (KiB)", "malloc in use (KiB)", "malloc arena + mmap (KiB)"];
        long[] scale = [1, 1, 1024, 1024];
        for (int m = 0; m < names.Length; m++)
        {
            long u = Median(unprofiled.Select(r => r[m] / scale[m])), p = Median(profiled.Select(r => r[m] / scale[m]));
            var differences = unprofiled.Zip(profiled, (a, b) => (b[m] - a[m]) / scale[m]).ToList();
            Console.WriteLine(FormattableString.Invariant(
                $"| {names[m]} | {u} | {p} | {Median(differences):+#;-#;0} (pairs: {differences.Min():+#;-#;0} .. {differences.Max():+#;-#;0}) |"));
        }
    }

    private static long[] Reading(ChildResult r)
    {
        string? line = r.Output.Split('\n').FirstOrDefault(l => l.StartsWith("rss ", StringComparison.Ordinal));
        if (r.ExitCode != 0 || line == null)
            throw new InvalidOperationException($"child-rss failed ({r.ExitCode}): {r.Output} {r.Error}");
        return [.. line.Split(' ').Skip(1).Select(s => long.Parse(s, CultureInfo.InvariantCulture))];
    }

    private static long Median(IEnumerable<long> values)
    {
        long[] sorted = [.. values.Order()];
        return sorted[sorted.Length / 2];
    }

    internal static Dictionary<string, string> Profiled(string library, string modules) => new()
    {
        ["CORECLR_ENABLE_PROFILING"] = "1",
        ["CORECLR_PROFILER"] = Clsid,
        ["CORECLR_PROFILER_PATH"] = library,
        ["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library,
        ["ALVORKIT_INTERCEPTION_MODULES"] = modules,
    };

    private readonly record struct ChildResult(int ExitCode, string Output, string Error);

    private static ChildResult Launch(string self, Dictionary<string, string> environment, params string[] args)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(self);
        foreach (string a in args)
            start.ArgumentList.Add(a);
        foreach (string name in new[] { "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH",
                     "ALVORKIT_INTERCEPTION_PROFILER_PATH", "ALVORKIT_INTERCEPTION_MODULES" })
            start.Environment.Remove(name);
        foreach ((string k, string v) in environment)
            start.Environment[k] = v;
        using var process = Process.Start(start)!;
        Task<string> error = process.StandardError.ReadToEndAsync();
        string output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return new ChildResult(process.ExitCode, output, error.Result);
    }
}
