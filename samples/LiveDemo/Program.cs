using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using AlvorKit.Interception;
using LiveDemo;

// LiveDemo: a small game that hot-patches itself while it runs.
//   dotnet LiveDemo.dll [--frames N] [--tick-ms M] [--json]
// Five runners loop round a track at a fixed tick (default 20 frames per second); each frame is
// one line: the track, the score, and which movement and scoring rules the frame showed. A dev
// console patches World.Update (runners reverse, then hop), applies a generation plan to
// Scoring.PointsFor (bonus points), prints each patch's telemetry, then removes both: the
// frames change, and change back. About 10 s by default; --json adds a last line for machines.
// It needs the AlvorKit profiler with ALVORKIT_INTERCEPTION_MODULES=LiveDemo (see README.md).

int frames = 200, tickMs = 50;
bool json = false;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--frames" when i + 1 < args.Length && int.TryParse(args[i + 1], out int f) && f >= 12:
            frames = f;
            i++;
            break;
        case "--tick-ms" when i + 1 < args.Length && int.TryParse(args[i + 1], out int t) && t >= 1:
            tickMs = t;
            i++;
            break;
        case "--json":
            json = true;
            break;
        default:
            Console.Error.WriteLine("usage: LiveDemo [--frames N (at least 12)] [--tick-ms M] [--json]");
            return 64;
    }
}

Interceptor interceptor;
try
{
    interceptor = Interceptor.Open();
}
catch (InterceptionUnavailableException e)
{
    Console.Error.WriteLine("LiveDemo patches itself through the AlvorKit interception profiler, which is not loaded in this process.");
    Console.Error.WriteLine(e.Message);
    Console.Error.WriteLine("For this demo: ALVORKIT_INTERCEPTION_MODULES=LiveDemo.");
    return 2;
}
using (interceptor)
{
    if (!interceptor.IsPatchingEnabled)
    {
        Console.Error.WriteLine($"LiveDemo: the profiler is loaded but refuses patch commands: {interceptor.PatchingRefusal}");
        Console.Error.WriteLine("Start LiveDemo with ALVORKIT_INTERCEPTION_MODULES=LiveDemo.");
        return 2;
    }
    try
    {
        interceptor.Describe(typeof(World).GetMethod(nameof(World.Update))!);
    }
    catch (PatchException e)
    {
        Console.Error.WriteLine($"LiveDemo: {e.Message}");
        return 2;
    }

    var gate = new Lock();
    void Print(string line)
    {
        lock (gate)
            Console.WriteLine(line);
    }

    int phase = Math.Max(2, frames / 6);
    Print($"LiveDemo: {new World().Entities.Length} runners, a {World.Width}-cell track, goal zone '=' " +
          $"(1 point per runner in it); {1000.0 / tickMs:0.#} frames/s; profiler {interceptor.ProfilerPath} " +
          $"(ABI {interceptor.AbiVersion}), patchable: {interceptor.PatchableModules}");

    var game = new Game(new World());
    var console = new DevConsole(interceptor, Print);
    int drawn = 0;
    async Task WaitFrames(int n)
    {
        int until = Volatile.Read(ref drawn) + n;
        while (Volatile.Read(ref drawn) < until)
            await Task.Delay(1);
    }
    // The console's commands run beside the loop: no thread of theirs waits for the profiler.
    Task consoleTask = Task.Run(() => console.RunAsync(WaitFrames, phase));

    var records = new List<FrameRecord>();
    var clock = Stopwatch.StartNew();
    int limit = frames * 20; // a safety stop if the console hangs
    for (int frame = 1; !consoleTask.IsCompleted && frame <= limit; frame++)
    {
        int before = console.Version;
        (string movement, string scoring, int points) = game.Tick();
        int after = console.Version;
        bool clean = before == after && before % 2 == 0;
        records.Add(new FrameRecord(frame, before / 2, clean, movement, scoring, points, game.World.Score));
        Print(Game.Line(frame, game.World, points, movement, scoring));
        Volatile.Write(ref drawn, frame);
        long due = (long)frame * tickMs - clock.ElapsedMilliseconds;
        if (due > 0)
            Thread.Sleep((int)due);
    }
    consoleTask.GetAwaiter().GetResult();

    // Every frame that ran entirely between two commands shows what its stage expects.
    var stages = DevConsole.Script.Select((step, stage) =>
    {
        List<FrameRecord> clean = records.Where(r => r.Clean && r.Stage == stage).ToList();
        int matching = clean.Count(r => r.Movement == step.ExpectedMovement && r.Scoring == step.ExpectedScoring);
        return new
        {
            stage,
            step = step.Name,
            expectedMovement = step.ExpectedMovement,
            expectedScoring = step.ExpectedScoring,
            cleanFrames = clean.Count,
            matchingFrames = matching,
            ok = clean.Count > 0 && matching == clean.Count,
        };
    }).ToList();
    bool changedAfterInstall = stages[1].ok && stages[2].ok && stages[3].ok;
    bool returnedAfterRemove = stages[5].ok;
    bool ok = !console.Failed && stages.All(s => s.ok);
    Print(string.Create(CultureInfo.InvariantCulture,
        $"LiveDemo: {records.Count} frames in {clock.Elapsed.TotalSeconds:0.0} s; frames changed after the patches: " +
        $"{(changedAfterInstall ? "yes" : "NO")}; returned after their removal: {(returnedAfterRemove ? "yes" : "NO")}"));
    if (json)
        Print(JsonSerializer.Serialize(new
        {
            liveDemo = true,
            ok,
            changedAfterInstall,
            returnedAfterRemove,
            consoleFailed = console.Failed,
            frameCount = records.Count,
            tickMs,
            phaseFrames = phase,
            elapsedMs = clock.Elapsed.TotalMilliseconds,
            stages,
            events = console.Events,
            frames = records.Select(r => new { r.Frame, r.Stage, r.Clean, r.Movement, r.Scoring, r.Points }),
        }));
    return ok ? 0 : 3;
}
