using System.Diagnostics;
using System.Globalization;

/// <summary>
/// The parent's side of the reload measure: the game and its updates written once
/// (<see cref="ReloadUpdates"/>), then fresh profiled children (<see cref="ReloadChild"/>) from
/// each folder of the PatchAll measure (IL as built, ReadyToRun images), each way in (direct,
/// watch), alternated round by round; a table of the first update against the later (warm) ones.
/// </summary>
internal static class ReloadMeasure
{
    public const int Updates = 6;

    public static void Run(string library, int rounds, (string Name, string Folder)[] configurations, string clsid)
    {
        CultureInfo ic = CultureInfo.InvariantCulture;
        string data = Directory.CreateTempSubdirectory("alvk-first-reload-").FullName;
        try
        {
            ReloadUpdates.Write(data, Updates);
            string[] modes = ["direct", "watch"];
            var cases = configurations.SelectMany(c => modes.Select(m => (c.Name, c.Folder, Mode: m))).ToArray();
            var runs = cases.Select(_ => new List<ReloadRun>()).ToArray();
            foreach (var c in cases)
                _ = Launch(c.Folder, c.Mode, data, library, clsid); // the file cache
            for (int round = 0; round < rounds; round++)
                for (int k = 0; k < cases.Length; k++)
                {
                    int i = round % 2 == 0 ? k : cases.Length - 1 - k;
                    runs[i].Add(Launch(cases[i].Folder, cases[i].Mode, data, library, clsid));
                }
            Console.WriteLine(string.Create(ic,
                $"Hot reload: the first update of a fresh profiled process against the later ones ({Updates - 1} warm, " +
                $"each changing the same two bodies), {rounds} rounds alternated (medians; ms; JIT: methods / ms)"));
            Console.WriteLine();
            Console.WriteLine("| assemblies | way in | before the first update (watch: warm-up + rehearsal) | its JIT | first update | its JIT | " +
                              "its result's compare + apply | warm update (median) | its JIT | its result's compare + apply | first / warm |");
            Console.WriteLine("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for (int i = 0; i < cases.Length; i++)
            {
                List<ReloadRun> r = runs[i];
                double P(int k) => Median(r.Select(x => x.Prepared[k]));
                double F(int k) => Median(r.Select(x => x.Updates[0][k]));
                double W(int k) => Median(r.Select(x => Median(x.Updates.Skip(1).Select(u => u[k]))));
                double ratio = Median(r.Select(x => x.Updates[0][0] / Median(x.Updates.Skip(1).Select(u => u[0]))));
                Console.WriteLine(string.Create(ic,
                    $"| {cases[i].Name} | {cases[i].Mode} | {P(0):F1} | {P(1):F0} / {P(2):F1} | {F(0):F1} | {F(1):F0} / {F(2):F1} | {F(3):F1} | " +
                    $"{W(0):F2} | {W(1):F0} / {W(2):F1} | {W(3):F2} | {ratio:F2} |"));
            }
            Console.WriteLine();
            PhaseTable(cases.Select(c => $"{c.Name}, {c.Mode}").ToArray(), runs);
            Console.WriteLine();
            foreach (var c in cases.Where(c => c.Name == configurations[^1].Name))
                Console.WriteLine($"- {c.Name}, {c.Mode}: {FirstUpdateJit(c.Folder, c.Mode, data, library, clsid)}");
        }
        finally
        {
            Directory.Delete(data, recursive: true);
        }
    }

    // The phases of the first update and of the warm ones (each phase's median over the warm updates of a
    // child, then the median over the children), per case: ms and the JIT's methods / ms.
    private static void PhaseTable(string[] names, List<ReloadRun>[] runs)
    {
        CultureInfo ic = CultureInfo.InvariantCulture;
        Console.WriteLine("Its phases (each ends at the mark; medians; ms, JIT methods / ms):");
        Console.WriteLine();
        Console.WriteLine("| case | phase | first | its JIT | first: rounds with a GC in it | warm (median) |");
        Console.WriteLine("|---|---|---:|---:|---:|---:|");
        for (int i = 0; i < names.Length; i++)
        {
            List<ReloadRun> r = runs[i];
            foreach (string phase in r[0].Phases[0].Select(p => p.Name))
            {
                double F(int k) => Median(r.Select(x => x.Phases[0].Where(p => p.Name == phase).Sum(p => p.Figures[k])));
                double W() => Median(r.Select(x => Median(x.Phases.Skip(1).Select(u => u.Where(p => p.Name == phase).Sum(p => p.Figures[0])))));
                int collected = r.Count(x => x.Phases[0].Where(p => p.Name == phase).Sum(p => p.Figures[4]) > 0);
                Console.WriteLine(string.Create(ic,
                    $"| {names[i]} | {phase.Replace('_', ' ')} | {F(0):F2} | {F(1):F0} / {F(2):F1} | {collected} of {r.Count} | {W():F2} |"));
            }
        }
    }

    // One more child with the JIT's own list of what it compiled (DOTNET_JitStdOutFile +
    // DOTNET_JitDisasmSummary=1): the methods of the first update (the JIT's count at its start and
    // end numbers them as the listing does), by namespace.
    private static string FirstUpdateJit(string folder, string mode, string data, string library, string clsid)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-first-reload-jit-{Guid.NewGuid():N}.txt");
        try
        {
            ReloadRun run = Launch(folder, mode, data, library, clsid,
                new() { ["DOTNET_JitStdOutFile"] = file, ["DOTNET_JitDisasmSummary"] = "1" });
            string[] names = [.. File.ReadLines(file).Where(l => l.Contains("JIT compiled", StringComparison.Ordinal))
                .Select(l => l[(l.IndexOf("JIT compiled ", StringComparison.Ordinal) + 13)..])];
            double[] first = run.Updates[0];
            int to = (int)first[4], from = to - (int)first[1];
            string[] update = [.. names.Skip(from).Take(Math.Max(0, to - from))];
            // Every method the first update compiled, under the phase that compiled it (the JIT's count at each
            // mark numbers them), for the reader to see what is left.
            int at = from;
            foreach ((string phase, double[] figures) in run.Phases[0])
            {
                int end = (int)figures[3];
                foreach (string method in names.Skip(at).Take(Math.Max(0, end - at)))
                    Console.Error.WriteLine($"{mode} {phase}: {method}");
                at = Math.Max(at, end);
            }
            IEnumerable<string> groups = update
                .GroupBy(n => string.Join('.', n.Split(':')[0].Split('[')[0].Split('`')[0].Split('.').Take(2)))
                .OrderByDescending(g => g.Count()).Take(8).Select(g => $"{g.Count()} {g.Key}");
            return string.Create(CultureInfo.InvariantCulture,
                $"the first update JIT-compiled {update.Length} methods (methods {from + 1}-{to} of the listing), by namespace: {string.Join(", ", groups)}");
        }
        finally
        {
            File.Delete(file);
        }
    }

    // One child's figures: "prepared" (ms, JIT methods, JIT ms) and per update (ms, JIT methods, JIT ms, result ms,
    // the JIT's count at its end), and per update its phases (name; ms, JIT methods, JIT ms, the JIT's count at its end,
    // garbage collections).
    private sealed record ReloadRun(double[] Prepared, List<double[]> Updates, List<List<(string Name, double[] Figures)>> Phases);

    private static ReloadRun Launch(string folder, string mode, string data, string library, string clsid,
                                    Dictionary<string, string>? more = null)
    {
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(Path.Combine(folder, "FirstUseBenchmark.dll"));
        start.ArgumentList.Add("reload-child");
        start.ArgumentList.Add(mode);
        start.ArgumentList.Add(data);
        start.ArgumentList.Add(Updates.ToString(CultureInfo.InvariantCulture));
        start.Environment["CORECLR_ENABLE_PROFILING"] = "1";
        start.Environment["CORECLR_PROFILER"] = clsid;
        start.Environment["CORECLR_PROFILER_PATH"] = library;
        start.Environment["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = library;
        // Through the watch, the modules `alvorkit-intercept watch` gives the game (its own rehearsal assembly too).
        start.Environment["ALVORKIT_INTERCEPTION_MODULES"] = mode == "watch"
            ? AlvorKit.Interception.Launcher.ReloadHook.WatchModules(ReloadUpdates.GameName)
            : ReloadUpdates.GameName;
        foreach ((string k, string v) in more ?? [])
            start.Environment[k] = v;
        using Process p = Process.Start(start)!;
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        string output = p.StandardOutput.ReadToEnd();
        p.WaitForExit();
        string[] lines = output.Split('\n');
        string? prepared = lines.FirstOrDefault(l => l.StartsWith("prepared ", StringComparison.Ordinal));
        List<double[]> updates = [.. lines.Where(l => l.StartsWith("reload ", StringComparison.Ordinal)).Select(l => Numbers(l).Skip(1).ToArray())];
        if (p.ExitCode != 0 || prepared is null || updates.Count != Updates)
            throw new InvalidOperationException($"reload child ({mode}) in {folder} failed ({p.ExitCode}): {output}{stderr.Result}");
        List<List<(string Name, double[] Figures)>> phases = [.. updates.Select(_ => new List<(string, double[])>())];
        foreach (string line in lines.Where(l => l.StartsWith("phase ", StringComparison.Ordinal)))
        {
            string[] words = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            phases[int.Parse(words[1], CultureInfo.InvariantCulture) - 1].Add(
                (words[2], [.. words.Skip(3).Select(w => double.Parse(w, CultureInfo.InvariantCulture))]));
        }
        return new ReloadRun(Numbers(prepared), updates, phases);
    }

    private static double[] Numbers(string line) =>
        [.. line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1).Select(s => double.Parse(s, CultureInfo.InvariantCulture))];

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN : sorted[sorted.Length / 2];
    }
}
