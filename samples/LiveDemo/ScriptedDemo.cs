using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using AlvorKit.Interception;

namespace LiveDemo;

/// <summary>
/// The default mode: the dev console (DevConsole.cs) patches World.Update (runners reverse, then
/// hop), applies a generation plan to Scoring.PointsFor (bonus points), prints each patch's
/// telemetry, removes both, then weaves a postfix around Streak.Bonus (the original still counts
/// the streak, the bonus is ten times it) and removes it: the frames change, and change back. About 13 s by default;
/// --json adds a last line for machines. Exit code 0 when every frame drawn between two commands
/// showed what its stage expects, 3 when not.
/// </summary>
internal static class ScriptedDemo
{
    public static int Run(Interceptor interceptor, DemoOptions options, string profiler, Action<string> print)
    {
        int frames = options.Frames ?? DemoOptions.ScriptedFrames, tickMs = options.TickMs;
        int phase = Math.Max(2, frames / DevConsole.Script.Length);
        print($"LiveDemo: {new World().Entities.Length} runners, a {World.Width}-cell track, goal zone '=' " +
              $"(1 point per runner in it); {1000.0 / tickMs:0.#} frames/s; {profiler}");

        var game = new Game(new World());
        var console = new DevConsole(interceptor, print);
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
            FrameView view = game.Tick();
            int after = console.Version;
            bool clean = before == after && before % 2 == 0;
            records.Add(new FrameRecord(frame, before / 2, clean, view.Movement, view.Scoring, view.Points, game.World.Score,
                view.Bonus, view.BonusPoints, view.StreakCounted));
            print(Game.Line(frame, game.World, view));
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
            int matching = clean.Count(r => r.Movement == step.ExpectedMovement && r.Scoring == step.ExpectedScoring &&
                                            r.Bonus == step.ExpectedBonus && r.StreakCounted);
            return new
            {
                stage,
                step = step.Name,
                expectedMovement = step.ExpectedMovement,
                expectedScoring = step.ExpectedScoring,
                expectedBonus = step.ExpectedBonus,
                cleanFrames = clean.Count,
                matchingFrames = matching,
                ok = clean.Count > 0 && matching == clean.Count,
            };
        }).ToList();
        bool changedAfterInstall = stages[1].ok && stages[2].ok && stages[3].ok && stages[6].ok;
        bool returnedAfterRemove = stages[5].ok && stages[^1].ok;
        bool ok = !console.Failed && stages.All(s => s.ok);
        print(string.Create(CultureInfo.InvariantCulture,
            $"LiveDemo: {records.Count} frames in {clock.Elapsed.TotalSeconds:0.0} s; frames changed after the patches: " +
            $"{(changedAfterInstall ? "yes" : "NO")}; returned after their removal: {(returnedAfterRemove ? "yes" : "NO")}"));
        if (options.Json)
            print(JsonSerializer.Serialize(new
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
                frames = records.Select(r =>
                    new { r.Frame, r.Stage, r.Clean, r.Movement, r.Scoring, r.Points, r.Bonus, r.BonusPoints, r.StreakCounted }),
            }));
        return ok ? 0 : 3;
    }
}
