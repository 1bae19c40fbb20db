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
        Console.WriteLine();
        ChildResult patchAll = Launch(self, Profiled(library, "ScaleBenchmark"), "child-patchall");
        Console.Write(patchAll.Output);
        if (patchAll.ExitCode != 0)
        {
            Console.Error.Write(patchAll.Error);
            return 1;
        }
        return 0;
    }

    // Runs interleaved: an unprofiled child, an unprofiled one with ReadyToRun code refused
    // (DOTNET_ReadyToRun=0: what the profiler's event mask makes the runtime do while patching
    // is on), then a profiled one with patching on and nothing patched; each reports its memory
    // once started and settled.
    private static void InertMemory(string self, string library, int pairs)
    {
        var configurations = new (string Name, Dictionary<string, string> Env)[]
        {
            ("unprofiled", new()),
            ("unprofiled, DOTNET_ReadyToRun=0", new() { ["DOTNET_ReadyToRun"] = "0" }),
            ("profiled, patching on", Profiled(library, "ScaleBenchmark")),
        };
        var readings = configurations.Select(_ => new List<long[]>()).ToArray();
        foreach (var c in configurations)
            Launch(self, c.Env, "child-rss");
        for (int i = 0; i < pairs; i++)
            for (int c = 0; c < configurations.Length; c++)
                readings[c].Add(Reading(Launch(self, configurations[c].Env, "child-rss")));
        Console.WriteLine(FormattableString.Invariant(
            $"Inert profiled process (patching on, nothing patched) against unprofiled ones: {pairs} interleaved runs of each of `ScaleBenchmark child-rss`, medians (KiB)"));
        Console.WriteLine();
        Console.WriteLine("| measure | unprofiled | unprofiled, ReadyToRun off | profiled | profiled - unprofiled | profiled - unprofiled with ReadyToRun off |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|");
        string[] names = ["VmRSS", "RssAnon", "malloc in use", "malloc arena + mmap", "RssFile"];
        long[] scale = [1, 1, 1024, 1024, 1];
        for (int m = 0; m < names.Length; m++)
        {
            long[] medians = [.. readings.Select(rs => Median(rs.Select(r => r[m] / scale[m])))];
            string Difference(int baseline)
            {
                var d = readings[baseline].Zip(readings[2], (a, b) => (b[m] - a[m]) / scale[m]).ToList();
                return FormattableString.Invariant($"{Median(d):+#;-#;0} ({d.Min():+#;-#;0} .. {d.Max():+#;-#;0})");
            }
            Console.WriteLine(FormattableString.Invariant(
                $"| {names[m]} | {medians[0]} | {medians[1]} | {medians[2]} | {Difference(0)} | {Difference(1)} |"));
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
