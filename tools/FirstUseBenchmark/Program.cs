using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime;
using AlvorKit.Interception;
using AlvorKit.Proofs.Host;
using AlvorKit.ScaleBenchmark;

// First use of the managed API in fresh profiled processes:
//   FirstUseBenchmark <profiler library> [pairs] [all|patchall|reload]   the parent: the report (Markdown on stdout)
//   FirstUseBenchmark child                          one profiled process of the PatchAll measure: its figures
//   FirstUseBenchmark reload-child direct|watch <folder> <updates>   one of the reload measure (ReloadChild)
// The parent runs the child from two folders, alternated pair by pair: its own output folder
// (the AlvorKit assemblies as the build left them: IL), and a copy of it whose AlvorKit
// assemblies are their ReadyToRun images for this machine's RID (readytorun/, which the
// project's build fills from managed/ReadyToRun.targets, the target the package's
// runtimes/<rid>/lib/ images come from), so the two differ only in the precompiled code.
if (args.Length > 0 && args[0] == "child")
    return Child.Run();
if (args.Length == 4 && args[0] == "reload-child")
    return ReloadChild.Run(args[1], args[2], int.Parse(args[3], CultureInfo.InvariantCulture));
if (args.Length < 1 || (args.Length > 2 && args[2] is not ("all" or "patchall" or "reload")))
{
    Console.Error.WriteLine("usage: FirstUseBenchmark <profiler library> [pairs] [all|patchall|reload]");
    return 64;
}
return Parent.Run(Path.GetFullPath(args[0]), args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 9,
                  args.Length > 2 ? args[2] : "all");

internal static class Child
{
    private const int Input = 5;
    private const int WarmRounds = 3;

    // Prints: open_ms open_jit_methods open_jit_ms open_again_ms patchall_ms patchall_jit_methods
    // patchall_jit_ms warm_patchall_ms(median) warm_jit_methods(median) start_to_open_ms
    // then one line per phase of the first PatchAll and of the median warm one:
    // phase first|warm name ms jit_methods jit_ms jit_count_at_end
    internal static int Run()
    {
        PhaseMarks.Install();
        double sinceStart = (DateTime.Now - Process.GetCurrentProcess().StartTime).TotalMilliseconds;
        Func<int, int>[] calls = [.. Enumerable.Range(0, HookPatches.Count).Select(i => typeof(ScaleTargets)
            .GetMethod($"T{i:D4}", BindingFlags.Public | BindingFlags.Static)!.CreateDelegate<Func<int, int>>())];
        foreach (Func<int, int> call in calls)
            for (int k = 0; k < 4; k++)
                call(Input);

        (Interceptor interceptor, Phase open) = Timed(Interceptor.Open);
        using (interceptor)
        {
            (Interceptor again, Phase openAgain) = Timed(Interceptor.Open);
            again.Dispose();
            Phase first = PatchAllRound(interceptor, calls);
            var warm = new List<Phase>();
            for (int round = 0; round < WarmRounds; round++)
                warm.Add(PatchAllRound(interceptor, calls));
            Phase median = warm.OrderBy(p => p.Ms).ElementAt(warm.Count / 2);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"first-use {open.Ms:F3} {open.JitMethods} {open.JitMs:F3} {openAgain.Ms:F3} " +
                $"{first.Ms:F3} {first.JitMethods} {first.JitMs:F3} {median.Ms:F3} {median.JitMethods} {sinceStart:F1}"));
            foreach ((string which, Phase round) in new[] { ("first", first), ("warm", median) })
                foreach (PhaseMarks.Mark m in round.Marks)
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                        $"phase {which} {m.Name.Replace(' ', '_')} {m.Ms:F3} {m.JitMethods} {m.JitMs:F3} {m.JitCountAtEnd}"));
        }
        return 0;
    }

    private static Phase PatchAllRound(Interceptor interceptor, Func<int, int>[] calls)
    {
        var owner = new PatchOwner("first-use benchmark");
        (int applied, Phase phase) = Timed(() => interceptor.PatchAll(typeof(HookPatches), owner).Count);
        int wrong = 0;
        // The postfix adds 1,000,000 to what Tnnnn returns (x + n).
        for (int i = 0; i < calls.Length; i++)
            wrong += calls[i](Input) == Input + i + 1_000_000 ? 0 : 1;
        owner.Dispose();
        for (int i = 0; i < calls.Length; i++)
            wrong += calls[i](Input) == Input + i ? 0 : 1;
        if (applied != calls.Length || wrong != 0)
            throw new InvalidOperationException($"{applied} of {calls.Length} applied, {wrong} calls returned the wrong value");
        return phase;
    }

    private static (T Value, Phase Phase) Timed<T>(Func<T> action)
    {
        long methods = JitInfo.GetCompiledMethodCount();
        TimeSpan jit = JitInfo.GetCompilationTime();
        long start = Stopwatch.GetTimestamp();
        PhaseMarks.Start(start, methods, jit);
        T value = action();
        double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        PhaseMarks.Mark[] marks = PhaseMarks.Stop("returned");
        return (value, new Phase(ms, JitInfo.GetCompiledMethodCount() - methods, (JitInfo.GetCompilationTime() - jit).TotalMilliseconds, marks));
    }

    private readonly record struct Phase(double Ms, long JitMethods, double JitMs, PhaseMarks.Mark[] Marks);
}

internal static class Parent
{
    private const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";
    private static readonly string[] Assemblies =
        ["AlvorKit.Interception", "AlvorKit.Interception.Native", "AlvorKit.Interception.Allocations"];

    internal static int Run(string library, int pairs, string what)
    {
        CultureInfo ic = CultureInfo.InvariantCulture;
        string built = AppContext.BaseDirectory;
        string precompiled = Directory.CreateTempSubdirectory("alvk-first-use-r2r-").FullName;
        try
        {
            foreach (string file in Directory.EnumerateFiles(built))
                File.Copy(file, Path.Combine(precompiled, Path.GetFileName(file)));
            foreach (string name in Assemblies)
            {
                string il = Path.Combine(built, name + ".dll");
                string image = Path.Combine(built, "readytorun", name + ".dll");
                // The build's output must be IL, and the image this machine's code compiled from
                // that very IL (same MVID), or the two configurations are not what they say.
                if (IsReadyToRun(il))
                    return Fail($"{il} is not IL only: the build's output must stay IL (managed/ReadyToRun.targets)");
                if (!File.Exists(image) || !IsReadyToRun(image))
                    return Fail($"no ReadyToRun image of {name} at {image}: build tools/FirstUseBenchmark (it compiles them)");
                if (Mvid(il) != Mvid(image))
                    return Fail($"{image} was not compiled from {il} (another MVID): rebuild tools/FirstUseBenchmark");
                File.Copy(image, Path.Combine(precompiled, name + ".dll"), overwrite: true);
            }
            var configurations = new (string Name, string Folder)[]
            {
                ("IL only (as built)", built),
                ($"ReadyToRun ({RuntimeInformationRid()})", precompiled),
            };
            Console.WriteLine(string.Create(ic, $"Machine: {Environment.ProcessorCount} cores, {Environment.OSVersion}, .NET {Environment.Version}, load average {LoadAverage()}"));
            if (what is "all" or "reload")
            {
                ReloadMeasure.Run(library, pairs, configurations, Clsid);
                Console.WriteLine();
                Console.WriteLine(string.Create(ic, $"Load average after the reload runs: {LoadAverage()}"));
                Console.WriteLine();
                if (what == "reload")
                    return 0;
            }
            Console.WriteLine(string.Create(ic, $"First use of the managed API in fresh profiled processes, {pairs} pairs alternated (medians; ms)"));
            Console.WriteLine();
            foreach (var c in configurations)
                _ = Launch(c.Folder, library); // warm the file cache for both
            var lines = configurations.Select(_ => new List<double[]>()).ToArray();
            var runs = configurations.Select(_ => new List<ChildRun>()).ToArray();
            for (int pair = 0; pair < pairs; pair++)
                for (int k = 0; k < configurations.Length; k++)
                {
                    int c = pair % 2 == 0 ? k : configurations.Length - 1 - k;
                    ChildRun run = LaunchChild(configurations[c].Folder, library);
                    runs[c].Add(run);
                    lines[c].Add(run.Figures);
                }
            Console.WriteLine("| assemblies | first `Interceptor.Open` | its JIT: methods / ms | second `Open` | first `PatchAll` (100 targets) | its JIT: methods / ms | warm `PatchAll` (median of 3) | its JIT methods | first / warm | process start → first `Open` |");
            Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (int c = 0; c < configurations.Length; c++)
            {
                double M(int i) => Median(lines[c].Select(l => l[i]));
                Console.WriteLine(string.Create(ic,
                    $"| {configurations[c].Name} | {M(0):F1} | {M(1):F0} / {M(2):F1} | {M(3):F3} | {M(4):F1} | {M(5):F0} / {M(6):F1} | " +
                    $"{M(7):F1} | {M(8):F0} | {Median(lines[c].Select(l => l[4] / l[7])):F2} | {M(9):F0} |"));
            }
            Console.WriteLine();
            PhaseTable(configurations.Select(c => c.Name).ToArray(), runs);
            Console.WriteLine();
            Console.WriteLine(string.Create(ic, $"Load average after the runs: {LoadAverage()}"));
            Console.WriteLine();
            foreach (var c in configurations)
                Console.WriteLine(string.Create(ic, $"- {c.Name}: {JitSummary(c.Folder, library, "FirstUseBenchmark")}"));
            // The images keep their code whatever the allowlist: the profiler refuses the
            // precompiled code of an image that may inline an allowlisted assembly, and these
            // inline none (one assembly per version bubble).
            Console.WriteLine(string.Create(ic, $"- {configurations[1].Name}, ALVORKIT_INTERCEPTION_MODULES=*: {JitSummary(precompiled, library, "*")}"));
            return 0;
        }
        finally
        {
            Directory.Delete(precompiled, recursive: true);
        }
    }

    // The first PatchAll and the median warm one, phase by phase (the library's internal marks, in the order
    // they come; each phase from the previous mark): medians over the children of each configuration.
    private static void PhaseTable(string[] names, List<ChildRun>[] runs)
    {
        CultureInfo ic = CultureInfo.InvariantCulture;
        Console.WriteLine("PatchAll of 100 targets by phase (medians; ms, JIT-compiled methods / JIT ms): first call, warm call");
        Console.WriteLine();
        Console.WriteLine("| phase (ends at the mark) | " + string.Join(" | ", names.Select(n => $"{n}: first | its JIT | warm")) + " |");
        Console.WriteLine("|---|" + string.Concat(names.Select(_ => "---:|---:|---:|")));
        string[] order = [.. runs[0][0].Phases.Where(p => p.Round == "first").Select(p => p.Name)];
        foreach (string phase in order)
        {
            var cells = new List<string>();
            for (int c = 0; c < names.Length; c++)
            {
                double[][] first = [.. runs[c].SelectMany(r => r.Phases.Where(p => p.Round == "first" && p.Name == phase).Take(1)).Select(p => p.Values)];
                double[][] warm = [.. runs[c].SelectMany(r => r.Phases.Where(p => p.Round == "warm" && p.Name == phase).Take(1)).Select(p => p.Values)];
                cells.Add(string.Create(ic, $"{Median(first.Select(v => v[0])):F1} | {Median(first.Select(v => v[1])):F0} / {Median(first.Select(v => v[2])):F1} | {Median(warm.Select(v => v[0])):F2}"));
            }
            Console.WriteLine($"| {phase.Replace('_', ' ')} | {string.Join(" | ", cells)} |");
        }
    }

    private static int Fail(string message)
    {
        Console.Error.WriteLine(message);
        return 1;
    }

    private static string RuntimeInformationRid() => System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier;

    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "n/a";

    private static Guid Mvid(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        MetadataReader metadata = pe.GetMetadataReader();
        return metadata.GetGuid(metadata.GetModuleDefinition().Mvid);
    }

    internal static bool IsReadyToRun(string path)
    {
        using var pe = new PEReader(File.OpenRead(path));
        return pe.PEHeaders.CorHeader?.ManagedNativeHeaderDirectory.Size > 0;
    }

    // One child's figures (the first-use line) and its phases ("first name" / "warm name" -> ms, JIT methods,
    // JIT ms, the JIT's method count at the phase's end).
    private sealed record ChildRun(double[] Figures, List<(string Round, string Name, double[] Values)> Phases);

    private static double[] Launch(string folder, string library, Dictionary<string, string>? more = null, string modules = "FirstUseBenchmark") =>
        LaunchChild(folder, library, more, modules).Figures;

    private static ChildRun LaunchChild(string folder, string library, Dictionary<string, string>? more = null, string modules = "FirstUseBenchmark")
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(Path.Combine(folder, "FirstUseBenchmark.dll"));
        start.ArgumentList.Add("child");
        start.Environment["CORECLR_ENABLE_PROFILING"] = "1";
        start.Environment["CORECLR_PROFILER"] = Clsid;
        start.Environment["CORECLR_PROFILER_PATH"] = library;
        start.Environment["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library;
        start.Environment["ALVORKIT_INTERCEPTION_MODULES"] = modules;
        foreach ((string k, string v) in more ?? [])
            start.Environment[k] = v;
        using Process p = Process.Start(start)!;
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        string? line = output.Split('\n').FirstOrDefault(l => l.StartsWith("first-use ", StringComparison.Ordinal));
        if (p.ExitCode != 0 || line is null)
            throw new InvalidOperationException($"child in {folder} failed ({p.ExitCode}): {output}{stderr.Result}");
        List<(string, string, double[])> phases = [.. output.Split('\n').Where(l => l.StartsWith("phase ", StringComparison.Ordinal))
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Select(f => (f[1], f[2], f.Skip(3).Select(v => double.Parse(v, CultureInfo.InvariantCulture)).ToArray()))];
        return new ChildRun(Numbers(line), phases);
    }

    private static double[] Numbers(string line) =>
        [.. line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Select(s => double.Parse(s, CultureInfo.InvariantCulture))];

    // One more child with the JIT's own list of what it compiled (DOTNET_JitStdOutFile +
    // DOTNET_JitDisasmSummary=1): how many methods, and how many of them are AlvorKit's.
    private static string JitSummary(string folder, string library, string modules)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-first-use-jit-{Guid.NewGuid():N}.txt");
        try
        {
            ChildRun run = LaunchChild(folder, library, new() { ["DOTNET_JitStdOutFile"] = file, ["DOTNET_JitDisasmSummary"] = "1" }, modules);
            string[] methods = [.. File.ReadLines(file).Where(l => l.Contains("JIT compiled", StringComparison.Ordinal))];
            string[] names = [.. methods.Select(l => l[(l.IndexOf("JIT compiled ", StringComparison.Ordinal) + 13)..])];
            int ours = names.Count(n => n.StartsWith("AlvorKit.Interception", StringComparison.Ordinal));
            int targets = names.Count(n => n.StartsWith("AlvorKit.Proofs.Host.ScaleTargets", StringComparison.Ordinal));
            int hooks = names.Count(n => n.StartsWith("AlvorKit.ScaleBenchmark", StringComparison.Ordinal));
            int generic = names.Count(n => !n.StartsWith("AlvorKit", StringComparison.Ordinal) && n.Contains("AlvorKit.Interception", StringComparison.Ordinal));
            // The first PatchAll's share of the listing: the JIT's own count at the call's start and end
            // (the phase marks), which numbers the methods as the listing does.
            var first = run.Phases.Where(p => p.Round == "first").ToList();
            string during = "";
            if (first.Count > 0)
            {
                int from = (int)(first[0].Values[3] - first[0].Values[1]), to = (int)first[^1].Values[3];
                string[] call = [.. names.Skip(from).Take(Math.Max(0, to - from))];
                int overOurs = call.Count(n => !n.StartsWith("AlvorKit", StringComparison.Ordinal) && n.Contains("AlvorKit.Interception", StringComparison.Ordinal));
                int valueTuples = call.Count(n => !n.StartsWith("AlvorKit", StringComparison.Ordinal) && !n.Contains("AlvorKit.Interception", StringComparison.Ordinal) && n.Contains("ValueTuple", StringComparison.Ordinal));
                int oursInCall = call.Count(n => n.StartsWith("AlvorKit.Interception", StringComparison.Ordinal));
                during = string.Create(CultureInfo.InvariantCulture,
                    $"; of them during the first PatchAll (methods {from + 1}-{to} of the listing): {call.Length}, of which {oursInCall} of AlvorKit.Interception*, " +
                    $"{overOurs} framework generics over AlvorKit.Interception types, {valueTuples} over value tuples, {call.Length - oursInCall - overOurs - valueTuples} others " +
                    $"(generics over primitives, async builders, stubs)");
            }
            return string.Create(CultureInfo.InvariantCulture,
                $"the whole child JIT-compiled {methods.Length} methods (DOTNET_JitDisasmSummary): {ours} of AlvorKit.Interception*, " +
                $"{targets} of the targets (ScaleTargets: their first calls and each woven body), {hooks} of the patch class, " +
                $"{generic} framework generics instantiated over AlvorKit.Interception types, {methods.Length - ours - targets - hooks - generic} others (the benchmark, other generics, stubs){during}");
        }
        finally
        {
            File.Delete(file);
        }
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN : sorted[sorted.Length / 2];
    }
}
