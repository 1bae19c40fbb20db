using AlvorKit.Interception;
using LiveDemo;

// LiveDemo: a small game that changes while it runs.
//   dotnet LiveDemo.dll [--frames N] [--tick-ms M] [--json]      the scripted dev console (default)
//   dotnet LiveDemo.dll --reload <dropFolder> [--frames N] [--tick-ms M]
//   dotnet LiveDemo.dll --loop-only [--frames N] [--tick-ms M]
// Five runners loop round a track at a fixed tick (default 20 frames per second); each frame is
// one line: the track, the score, the points Scoring.PointsFor gave, which movement and scoring
// rules the frame showed and the rule's name (Scoring.Rule).
// Default: a scripted dev console patches the game and removes its patches (ScriptedDemo.cs).
// --reload: the game applies every update of its source that `alvorkit-intercept watch` drops into
// the folder (edit Scoring.cs, save, and the frames change) until --frames, stdin's end or Ctrl+C.
// --loop-only: the same loop with no profiler and no interceptor, for `dotnet watch` (Debug).
// The first two need the AlvorKit profiler with ALVORKIT_INTERCEPTION_MODULES=LiveDemo (see README.md).

DemoOptions? options = DemoOptions.Parse(args);
if (options is null)
{
    Console.Error.WriteLine(DemoOptions.Usage);
    return 64;
}
var gate = new Lock();
void Print(string line)
{
    lock (gate)
        Console.WriteLine(line);
}

if (options.Mode == DemoMode.LoopOnly)
{
    Print($"LiveDemo (loop only, pid {Environment.ProcessId}): {new World().Entities.Length} runners, " +
          $"a {World.Width}-cell track; {1000.0 / options.TickMs:0.#} frames/s; no profiler, no interceptor");
    return FreeLoop.Run(options, Print);
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

    string profiler = $"profiler {interceptor.ProfilerPath} (ABI {interceptor.AbiVersion}), patchable: {interceptor.PatchableModules}";
    if (options.Mode == DemoMode.Scripted)
        return ScriptedDemo.Run(interceptor, options, profiler, Print);

    string drop = Path.GetFullPath(options.DropFolder!);
    Print($"LiveDemo (reload, pid {Environment.ProcessId}): {new World().Entities.Length} runners, a {World.Width}-cell " +
          $"track; {1000.0 / options.TickMs:0.#} frames/s; {profiler}; applying updates dropped into {drop}");
    // Each update (the compiler's delta of a save) is applied as one batch, on a thread-pool
    // thread: the loop never waits for it.
    using IDisposable watch = interceptor.Reload.WatchFolder(drop, result =>
    {
        foreach (string line in result.Summary.Split('\n'))
            Print("reload: " + line.TrimEnd('\r'));
    });
    return FreeLoop.Run(options, Print);
}
