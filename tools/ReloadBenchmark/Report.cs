using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace ReloadBenchmark;

/// <summary>The benchmark's Markdown: the machine, the summary table, every edit, the notes.</summary>
internal static class Report
{
    private const string Ours = "AlvorKit reload (Release, profiler)";
    private const string Watch = "dotnet watch Hot Reload (Debug)";

    public static string Markdown(List<EditSample> samples, IReadOnlyDictionary<string, StartTimes> starts, List<string> notes,
                                  string project, int edits, int tickMs, string machine, string arguments)
    {
        var s = new StringBuilder();
        var ic = CultureInfo.InvariantCulture;
        s.AppendLine(ic, $"Save → first frame running the new body: {edits} edits per side (Scoring.PointsFor returns a new " +
                         $"constant each time), alternating between the sides; {project} at {tickMs} ms per frame.");
        s.AppendLine(ic, $"Machine: {machine}. Harness arguments: `{arguments}`.");
        s.AppendLine();
        s.AppendLine("| row | n | p50 ms | p99 ms | min ms | max ms |");
        s.AppendLine("|---|---:|---:|---:|---:|---:|");
        List<EditSample> measured = samples.Where(x => x.Edit > 0).ToList();
        Row(s, measured, Ours, "ours: save → first frame with the new value", x => x.SaveToFrameMs);
        Row(s, measured, Ours, "ours, watcher: save → update in the drop folder", x => x.SaveToDropMs);
        Row(s, measured, Ours, "ours, game: update dropped → first frame with the new value", x => x.DropToFrameMs);
        Row(s, measured, Ours, "ours, watcher: its own \"compiled in N ms\" (read, parse, generators, analyze, emit the delta)",
            x => x.ReportedBuildMs);
        Row(s, measured, Ours, "ours, watcher: the rest (file event, the watcher's debounce, writing the drop)",
            x => x.SaveToDropMs - x.ReportedBuildMs);
        Row(s, measured, Ours, "ours, game: compare (read the delta, translate, plan the side assembly)", x => x.ReportedCompareMs);
        Row(s, measured, Ours, "ours, game: apply (validate, submit the batch, ReJIT requested)",
            x => x.ReportedApplyMs);
        Row(s, measured, Ours, "ours, game: the rest (file event, the new body's JIT, the next frame)",
            x => x.DropToFrameMs - x.ReportedCompareMs - x.ReportedApplyMs);
        Row(s, measured, Watch, "dotnet watch: save → first frame with the new value", x => x.SaveToFrameMs);
        Row(s, measured, Watch, "dotnet watch: its own \"changes applied in N ms\" (delta compile + apply)",
            x => x.ReportedHotReloadMs);
        Row(s, measured, Watch, "dotnet watch: the rest (file event, its debounce, the next frame)",
            x => x.SaveToFrameMs - x.ReportedHotReloadMs);
        s.AppendLine();
        s.AppendLine("| start | ms |");
        s.AppendLine("|---|---:|");
        if (starts.TryGetValue(Ours, out StartTimes? ours))
        {
            s.AppendLine(ic, $"| ours: `dotnet build -c Release` of the game, before anything starts | {Ms(ours.BuildBeforeMs)} |");
            s.AppendLine(ic, $"| ours: `alvorkit-intercept watch` launched → \"watching\" (reads the project, compiles the baseline, warms up) | {Ms(ours.ReadyMs)} |");
        }
        if (starts.TryGetValue(Watch, out StartTimes? theirs))
            s.AppendLine(ic, $"| dotnet watch: launched → \"Waiting for changes\" (its build, the game started, Hot Reload connected) | {Ms(theirs.ReadyMs)} |");
        s.AppendLine();
        foreach (string side in new[] { Ours, Watch })
        {
            List<EditSample> mine = measured.Where(x => x.Side == side).ToList();
            if (mine.Count == 0)
                continue;
            string how = string.Join(", ", mine.Where(x => x.Ok).GroupBy(x => x.How ?? "?").Select(g => $"{g.Count()} by {g.Key}"));
            int failedEdits = mine.Count(x => !x.Ok);
            string shown = $"{mine.Count(x => x.Ok)} of {edits} edits shown ({(how.Length > 0 ? how : "none")})";
            s.AppendLine(ic, $"- {side}: {shown}{(failedEdits > 0 ? $"; {failedEdits} never shown" : "")}.");
            if (samples.FirstOrDefault(x => x.Side == side && x.Edit == 0) is { } warm)
            {
                string first = warm.Ok ? string.Create(ic, $"{warm.SaveToFrameMs:F0} ms ({warm.How})") : "never shown: " + warm.Failure;
                s.AppendLine(ic, $"  Warm-up edit (the first after the start, not in the rows above): {first}.");
            }
        }
        s.AppendLine();
        s.AppendLine("| edit | points | ours: save → frame | watcher (save → drop) | game (drop → frame) | dotnet watch: save → frame | how |");
        s.AppendLine("|---:|---:|---:|---:|---:|---:|---|");
        foreach (IGrouping<int, EditSample> edit in samples.GroupBy(x => x.Edit))
        {
            EditSample? o = edit.FirstOrDefault(x => x.Side == Ours), w = edit.FirstOrDefault(x => x.Side == Watch);
            s.AppendLine(ic, $"| {(edit.Key == 0 ? "warm-up" : edit.Key)} | {edit.First().Points} | {Ms(o, o?.SaveToFrameMs)} | " +
                             $"{Ms(o, o?.SaveToDropMs)} | {Ms(o, o?.DropToFrameMs)} | {Ms(w, w?.SaveToFrameMs)} | {w?.How ?? "-"} |");
        }
        List<string> failures = [.. samples.Where(x => !x.Ok).Select(x => $"edit {x.Edit}, {x.Side}: {x.Failure}")];
        if (failures.Count + notes.Count > 0)
        {
            s.AppendLine();
            foreach (string line in notes.Concat(failures))
                s.AppendLine("- " + line.Replace("\n", "\n  ", StringComparison.Ordinal));
        }
        return s.ToString();
    }

    private static void Row(StringBuilder s, List<EditSample> samples, string side, string name, Func<EditSample, double?> pick)
    {
        List<double> xs = [.. samples.Where(x => x.Side == side && x.Ok).Select(pick).OfType<double>()];
        if (!samples.Any(x => x.Side == side))
            return;
        if (xs.Count == 0)
        {
            s.AppendLine(CultureInfo.InvariantCulture, $"| {name} | 0 | - | - | - | - |");
            return;
        }
        s.AppendLine(CultureInfo.InvariantCulture,
            $"| {name} | {xs.Count} | {Stats.Percentile(xs, 0.5):F0} | {Stats.Percentile(xs, 0.99):F0} | {xs.Min():F0} | {xs.Max():F0} |");
    }

    private static string Ms(double? ms) => ms is { } v ? v.ToString("F0", CultureInfo.InvariantCulture) : "-";

    private static string Ms(EditSample? sample, double? ms) =>
        sample is null ? "-" : !sample.Ok ? "never shown" : ms is { } v ? v.ToString("F0", CultureInfo.InvariantCulture) : "?";

    /// <summary>The load averages (1, 5, 15 minutes): the machine is shared.</summary>
    public static string Load() =>
        File.Exists("/proc/loadavg") ? string.Join(' ', File.ReadAllText("/proc/loadavg").Split(' ').Take(3)) : "?";

    /// <summary>Cores, CPU model, OS, .NET runtime and SDK, and the date.</summary>
    public static string Machine(string repoRoot)
    {
        string cpu = File.Exists("/proc/cpuinfo")
            ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal))?
                  .Split(':', 2)[1].Trim() ?? "?"
            : "?";
        string sdk = "?";
        try
        {
            var start = new ProcessStartInfo("dotnet", "--version")
            {
                RedirectStandardOutput = true,
                UseShellExecute = false,
                WorkingDirectory = repoRoot,
            };
            using var p = Process.Start(start)!;
            sdk = p.StandardOutput.ReadToEnd().Trim();
            p.WaitForExit();
        }
        catch (System.ComponentModel.Win32Exception)
        {
            // no dotnet on PATH: the harness itself ran some other way
        }
        return string.Create(CultureInfo.InvariantCulture,
            $"{Environment.ProcessorCount} cores ({cpu}), {RuntimeInformation.OSDescription}, " +
            $"{RuntimeInformation.FrameworkDescription}, SDK {sdk}, {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC");
    }
}
