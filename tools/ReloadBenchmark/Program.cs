using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using ReloadBenchmark;

// Save -> first frame running the new body, on copies of samples/LiveDemo (--project demo) or of
// LiveDemo with a generated colony simulation beside it (--project large), two ways in one session:
//   ours: the Release build under the profiler (--reload) + `alvorkit-intercept watch`;
//   dotnet watch: Hot Reload of the Debug build (--loop-only).
// Each edit makes Scoring.PointsFor return a new constant; the edits alternate between the two
// (ours first on odd edits and the warm-up, dotnet watch first on even ones) so the machine's
// drift hits both.
// One warm-up edit per side first (reported apart, not in the percentiles).
const string Usage =
    "usage: ReloadBenchmark --demo <samples/LiveDemo> --profiler <libalvorkit_interception_profiler.so> " +
    "--launcher <AlvorKit.Interception.Launcher.dll> [--project demo|large] [--colony-lines 32000] " +
    "[--edits 20] [--tick-ms 10] [--out <folder>] " +
    "[--only ours|dotnet-watch] [--watch-args \"<more arguments for alvorkit-intercept watch>\"] " +
    "[--watch-env \"NAME=value;...\"] [--keep]";

var options = new Dictionary<string, string>(StringComparer.Ordinal);
bool keep = false;
for (int i = 0; i < args.Length; i++)
{
    if (args[i] == "--keep")
        keep = true;
    else if (args[i].StartsWith("--", StringComparison.Ordinal) && i + 1 < args.Length)
        options[args[i][2..]] = args[++i];
    else
    {
        Console.Error.WriteLine(Usage);
        return 64;
    }
}
string[] known = ["demo", "profiler", "launcher", "project", "colony-lines", "edits", "tick-ms", "out", "only", "watch-args",
                  "watch-env"];
if (!options.TryGetValue("demo", out string? demoOption) || options.Keys.Any(k => !known.Contains(k)) ||
    !int.TryParse(options.GetValueOrDefault("edits", "20"), out int edits) || edits < 1 ||
    !int.TryParse(options.GetValueOrDefault("tick-ms", "10"), out int tickMs) || tickMs < 1 ||
    !int.TryParse(options.GetValueOrDefault("colony-lines", "32000"), out int colonyLines) || colonyLines < 1 ||
    options.GetValueOrDefault("project") is not (null or "demo" or "large") ||
    options.GetValueOrDefault("only") is not (null or "ours" or "dotnet-watch"))
{
    Console.Error.WriteLine(Usage);
    return 64;
}
string? only = options.GetValueOrDefault("only");
int colony = options.GetValueOrDefault("project") == "large" ? colonyLines : 0;
bool runOurs = only is null or "ours", runWatch = only is null or "dotnet-watch";
if (runOurs && (!File.Exists(options.GetValueOrDefault("profiler", "")) || !File.Exists(options.GetValueOrDefault("launcher", ""))))
{
    Console.Error.WriteLine("ours needs --profiler and --launcher, existing files (or --only dotnet-watch)\n" + Usage);
    return 64;
}
string demo = Path.GetFullPath(demoOption);
string repoRoot = Path.GetFullPath(Path.Combine(demo, "..", ".."));
string outDir = Path.GetFullPath(options.GetValueOrDefault("out", Path.Combine(repoRoot, "build", "reload-bench")));
string work = Directory.CreateTempSubdirectory("alvk-reload-bench-").FullName;
string logs = Directory.CreateDirectory(Path.Combine(outDir, "logs")).FullName;
var timeout = TimeSpan.FromSeconds(30);

string loadBefore = Report.Load();
var sides = new List<ISide>();
var notes = new List<string>();
var samples = new List<EditSample>();
int lines = 0;
try
{
    if (runOurs)
        sides.Add(new AlvorKitSide(Copy("ours"), Path.Combine(work, "drop"),
                                   Path.GetFullPath(options["launcher"]), Path.GetFullPath(options["profiler"]), tickMs, logs)
        {
            // Experiments on the watcher (the defaults are what a person gets): more options, its environment.
            WatchArguments = options.GetValueOrDefault("watch-args", "").Split(' ', StringSplitOptions.RemoveEmptyEntries),
            WatchEnvironment = options.GetValueOrDefault("watch-env", "").Split(';', StringSplitOptions.RemoveEmptyEntries)
                .Select(v => v.Split('=', 2)).ToDictionary(v => v[0], v => v.Length > 1 ? v[1] : ""),
        });
    if (runWatch)
        sides.Add(new DotnetWatchSide(Copy("dotnet-watch"), tickMs, logs));
    var failed = new HashSet<ISide>();
    foreach (ISide side in sides)
    {
        Console.Error.WriteLine($"starting {side.Name} ...");
        try
        {
            side.Start();
        }
        catch (SideFailedException e)
        {
            failed.Add(side);
            notes.Add($"{side.Name}: did not start: {e.Message}");
            Console.Error.WriteLine(notes[^1]);
        }
    }
    // What each tool does in the background after it says it is ready (dotnet watch loads its
    // workspace, the JIT tiers up both) settles before the first edit.
    Thread.Sleep(TimeSpan.FromSeconds(10));
    var misses = sides.ToDictionary(s => s, _ => 0);
    for (int edit = 0; edit <= edits; edit++)
    {
        // Ours first on odd edits and on the warm-up edit (whose seconds of compiling on the
        // other side would otherwise still run beside ours), dotnet watch first on even ones.
        IEnumerable<ISide> order = edit % 2 == 1 || edit == 0 ? sides : Enumerable.Reverse(sides);
        foreach (ISide side in order.Where(s => !failed.Contains(s)))
        {
            EditSample sample = side.Edit(edit, 1000 + edit, timeout);
            samples.Add(sample);
            Console.Error.WriteLine($"edit {edit,2} {side.Name}: " + (sample.Ok
                ? string.Create(CultureInfo.InvariantCulture, $"{sample.SaveToFrameMs:F0} ms ({sample.How})")
                : "FAILED: " + sample.Failure));
            misses[side] = sample.Ok ? 0 : misses[side] + 1;
            if (misses[side] == 3)
            {
                failed.Add(side);
                notes.Add($"{side.Name}: stopped after 3 edits in a row never showed (edit {edit})");
            }
            Thread.Sleep(edit == 0 ? 3000 : 500); // both idle before the next save (the warm-ups' background work done)
        }
    }
    foreach (ISide side in sides)
        notes.AddRange(side switch
        {
            AlvorKitSide a => a.Notes,
            DotnetWatchSide w => w.Notes,
            _ => [],
        });
}
finally
{
    foreach (ISide side in sides)
        side.Dispose();
    if (!keep)
        Directory.Delete(work, recursive: true);
}

string machine = $"{Report.Machine(repoRoot)}; load average {loadBefore} at the start, {Report.Load()} at the end";
string project = colony == 0
    ? $"samples/LiveDemo ({lines} lines of C#)"
    : $"samples/LiveDemo with a generated colony simulation beside it ({lines} lines of C#)";
string report = Report.Markdown(samples, sides.ToDictionary(s => s.Name, s => s.Started), notes, project, edits, tickMs, machine,
    string.Join(' ', args.Select(a => a.Contains(' ', StringComparison.Ordinal) ? $"\"{a}\"" : a)));
Console.WriteLine(report);
File.WriteAllText(Path.Combine(outDir, "report.md"), report);
File.WriteAllText(Path.Combine(outDir, "samples.json"),
    JsonSerializer.Serialize(samples, new JsonSerializerOptions { WriteIndented = true }));
Console.Error.WriteLine($"logs, report.md and samples.json: {outDir}" + (keep ? $"; the copies: {work}" : ""));
DemoCopy Copy(string name)
{
    DemoCopy copy = DemoCopy.Create(demo, repoRoot, Path.Combine(work, name), colony);
    lines = copy.Lines;
    return copy;
}

bool complete = sides.All(s => samples.Count(x => x.Side == s.Name && x.Edit > 0 && x.Ok) == edits);
return complete ? 0 : 3;
