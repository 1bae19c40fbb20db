using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;
using AlvorKit.Interception;

namespace LiveDemo;

/// <summary>One scripted dev-console command and what the game should show once it finished.</summary>
internal sealed record Step(string Name, string ExpectedMovement, string ExpectedScoring, string ExpectedBonus = "original");

/// <summary>
/// A developer at the console of the running game: it patches the game's methods through
/// AlvorKit.Interception's Task-returning commands (InstallAsync, ReplaceAsync, ApplyAsync,
/// HookAsync, RemoveAsync) while the loop keeps ticking, one command at a time, each after the game showed
/// the previous one for a while. No thread waits for the profiler: a frame is never stalled.
/// </summary>
internal sealed class DevConsole(Interceptor interceptor, Action<string> print)
{
    /// <summary>What each stage shows: stage 0 is before any command, stage k after command k.</summary>
    public static readonly Step[] Script =
    [
        new("start", "original", "original"),
        new("install: World.Update -> Mods.Reverse", "reverse", "original"),
        new("replace: World.Update -> Mods.Hop", "hop", "original"),
        new("apply a plan to Scoring.PointsFor: Math.Max(inGoal, 1) * 100", "hop", "bonus"),
        new("remove the World.Update patch", "original", "bonus"),
        new("remove the Scoring.PointsFor patch", "original", "original"),
        new("hook Streak.Bonus: postfix Streak.TimesTen (the original still counts the streak)", "original", "original", "x10"),
        new("remove the Streak.Bonus hook", "original", "original"),
    ];

    // Even: no command in flight; odd: one is. Stage = completed commands = _version / 2.
    private int _version;

    public int Version => Volatile.Read(ref _version);

    public List<object> Events { get; } = [];

    public bool Failed { get; private set; }

    /// <summary>Runs the script; `waitFrames(n)` completes once the game drew n more frames.</summary>
    public async Task RunAsync(Func<int, Task> waitFrames, int phaseFrames)
    {
        await using var owner = new PatchOwner("dev console");
        Patch? movement = null, scoring = null;
        WovenPatch? streak = null;
        MethodInfo update = typeof(World).GetMethod(nameof(World.Update))!;
        MethodInfo pointsFor = typeof(Scoring).GetMethod(nameof(Scoring.PointsFor))!;
        try
        {
            await waitFrames(phaseFrames);
            await Command(1, async () =>
                movement = await interceptor.InstallAsync(update, typeof(Mods).GetMethod(nameof(Mods.Reverse))!, owner));
            await waitFrames(phaseFrames);
            await Command(2, () => movement!.ReplaceAsync(typeof(Mods).GetMethod(nameof(Mods.Hop))!));
            await waitFrames(phaseFrames);
            await Command(3, async () => scoring = await interceptor.ApplyAsync(BonusPlan(pointsFor), owner));
            // A new body compiles when its method is next called: telemetry a few frames later
            // shows the ReJIT callbacks and how long it took.
            await waitFrames(phaseFrames);
            Telemetry("movement", movement!);
            Telemetry("scoring", scoring!);
            await Command(4, () => movement!.RemoveAsync());
            await waitFrames(phaseFrames);
            await Command(5, () => scoring!.RemoveAsync());
            await waitFrames(phaseFrames);
            Telemetry("movement", movement!);
            Telemetry("scoring", scoring!);
            // A woven patch: the original Streak.Bonus runs, then the postfix changes its result.
            await Command(6, async () => streak = await interceptor.HookAsync(typeof(Streak).GetMethod(nameof(Streak.Bonus))!,
                postfix: typeof(Streak).GetMethod(nameof(Streak.TimesTen))!, owner: owner));
            await waitFrames(phaseFrames);
            Woven(streak!);
            await Command(7, () => streak!.RemoveAsync());
            await waitFrames(phaseFrames);
        }
        catch (Exception e) when (e is InterceptionException or InvalidOperationException)
        {
            Failed = true;
            print($"       >> [dev console] failed: {e.Message}");
            Events.Add(new { command = "failed", message = e.Message });
        }
    }

    /// <summary>Scoring.PointsFor(inGoal) becomes Math.Max(inGoal, 1) * 100: a TypeRef to
    /// System.Math and a MemberRef to Max, emitted into LiveDemo's module by the profiler.</summary>
    public static GenerationPlan BonusPlan(MethodInfo pointsFor)
    {
        var plan = new GenerationPlan(pointsFor) { Name = "bonus x100" };
        plan.Emit(OpCodes.Ldarg_0);
        plan.Emit(OpCodes.Ldc_I4_1);
        plan.Emit(OpCodes.Call, typeof(Math).GetMethod(nameof(Math.Max), [typeof(int), typeof(int)])!);
        plan.Emit(OpCodes.Ldc_I4, 100);
        plan.Emit(OpCodes.Mul);
        plan.Emit(OpCodes.Ret);
        return plan;
    }

    private async Task Command(int index, Func<Task> action)
    {
        Step step = Script[index];
        print($"       >> [dev console] {step.Name} ...");
        Interlocked.Increment(ref _version);
        var clock = Stopwatch.StartNew();
        try
        {
            await action();
        }
        finally
        {
            Interlocked.Increment(ref _version);
        }
        print($"       >> [dev console] done in {clock.Elapsed.TotalMilliseconds:0.0} ms; from the next frame: " +
              $"movement {step.ExpectedMovement}, scoring {step.ExpectedScoring}, bonus {step.ExpectedBonus}");
        Events.Add(new { command = step.Name, stage = index, elapsedMs = clock.Elapsed.TotalMilliseconds });
    }

    private void Woven(WovenPatch patch)
    {
        string composition = patch.DescribeComposition();
        foreach (string line in composition.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
            print($"       >> [woven] {line}");
        Events.Add(new { woven = "streak", installed = patch.IsInstalled, composition });
    }

    private void Telemetry(string name, Patch patch)
    {
        PatchTelemetry t = patch.ReadTelemetry(); // one snapshot, one call to the profiler
        print($"       >> [telemetry] {name}: {patch}");
        print($"       >>             {t}");
        Events.Add(new
        {
            telemetry = name,
            state = t.State.ToString(),
            installed = patch.IsInstalled,
            callbacks = new
            {
                getReJITParameters = t.GetReJITParametersCallbacks,
                started = t.ReJITCompilationsStarted,
                finished = t.ReJITCompilationsFinished,
                errors = t.ReJITErrors,
                inliners = t.InlinersReJITted,
            },
            commandElapsedMs = t.CommandElapsed.TotalMilliseconds,
            compileElapsedMs = t.CompileElapsed.TotalMilliseconds,
        });
    }
}
