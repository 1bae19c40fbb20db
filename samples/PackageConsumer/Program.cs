using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json;

namespace PackageConsumer;

/// <summary>The "game code" this sample patches.</summary>
public static class Scoring
{
    // NoInlining keeps the demonstration about one method: the profiler also re-JITs callers
    // that inlined a target, but a caller that is already running (a loop in Main) keeps the
    // code it started with until it is called again.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Score(int level) => level * 2 + 1;

    /// <summary>The replacement: same signature, different rule.</summary>
    public static int ScoreTimesHundred(int level) => level * 100;
}

/// <summary>What one patch-and-restore showed.</summary>
internal sealed record PatchRun(string Via, string ProfilerPath, int AbiMajor, string Install, string Remove,
    int Patched, int Restored, string? ApiAssembly);

public static class Program
{
    public const int Level = 20;
    private static readonly TimeSpan PollLimit = TimeSpan.FromSeconds(5);

    public static int Main()
    {
        int original = Call();
        Console.WriteLine($"original: Scoring.Score({Level}) = {original}");
        int expected = Scoring.ScoreTimesHundred(Level);
        MethodInfo target = typeof(Scoring).GetMethod(nameof(Scoring.Score))!;
        MethodInfo replacement = typeof(Scoring).GetMethod(nameof(Scoring.ScoreTimesHundred))!;

        // Patching.Run: through the API when the AlvorKit.Interception package has it
        // (ViaApi.cs), else through the binding (ViaBinding.cs). Null: no usable profiler.
        PatchRun? run = Patching.Run(target, replacement, original, expected);
        if (run is null)
        {
            Console.Error.WriteLine("Start it as: alvorkit-intercept run --modules PackageConsumer -- dotnet PackageConsumer.dll");
            return 3;
        }
        Console.WriteLine($"patched: Scoring.Score({Level}) = {run.Patched} (install {run.Install})");
        Console.WriteLine($"restored: Scoring.Score({Level}) = {run.Restored} (remove {run.Remove})");

        string output = Path.GetFullPath(AppContext.BaseDirectory);
        bool ok = run.Patched == expected && run.Restored == original && original != expected &&
                  run.Install == "Ok" && run.Remove == "Ok";
        // One JSON line last, for scripts and tests.
        Console.WriteLine(JsonSerializer.Serialize(new Dictionary<string, object?>
        {
            ["ok"] = ok,
            ["via"] = run.Via,
            ["level"] = Level,
            ["original"] = original,
            ["patched"] = run.Patched,
            ["restored"] = run.Restored,
            ["install"] = run.Install,
            ["remove"] = run.Remove,
            ["abiMajor"] = run.AbiMajor,
            ["profiler"] = run.ProfilerPath,
            ["profilerInOutput"] = Path.GetFullPath(run.ProfilerPath).StartsWith(output, StringComparison.Ordinal),
            ["bindingAssembly"] = typeof(AlvorKit.Interception.Native.ProfilerLibrary).Assembly.Location,
            ["apiAssembly"] = run.ApiAssembly,
        }));
        return ok ? 0 : 1;
    }

    internal static int Call() => Scoring.Score(Level);

    /// <summary>Calls the target until it returns `expected` or PollLimit passes; the last value.</summary>
    internal static int PollUntil(int expected)
    {
        var clock = Stopwatch.StartNew();
        int value;
        while ((value = Call()) != expected && clock.Elapsed < PollLimit)
            Thread.Sleep(5);
        return value;
    }
}
