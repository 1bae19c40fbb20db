using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;

/// <summary>
/// One profiled process of the reload measure (ALVORKIT_INTERCEPTION_MODULES=FirstReload): it loads
/// the game's build (<see cref="ReloadUpdates"/>) into the default load context, calls its methods,
/// opens the interceptor, then applies the updates one by one, the first one first, each timed
/// with the JIT's counters (System.Runtime.JitInfo, the whole process), its result checked to be
/// Applied and the game's method checked to return the update's value. Two ways in:
/// <list type="bullet">
/// <item><c>direct</c>: <see cref="HotReloader.ApplyUpdateAsync"/> on the file's bytes read
/// (<see cref="ReloadDelta.Read"/>), as the folder watch does with a dropped file, with nothing
/// done ahead (a game calling the API itself; no warm-up).</item>
/// <item><c>watch</c>: the launcher's path: the game watches a drop folder
/// (<see cref="HotReloader.WatchFolder"/>, whose start runs the reload's warm-up on its queue),
/// the watcher's start-up rehearsal is dropped and its result file awaited (what `alvorkit-intercept
/// watch` does before it says it watches), then each update is written under a temporary name and
/// renamed into place as the watcher drops it; timed from the rename to the watch's callback
/// (the benchmark's own callback compiled before: its JIT is not the update's cost).</item>
/// </list>
/// Prints <c>prepared ms jit_methods jit_ms</c> (watch: from WatchFolder to the rehearsal's
/// result; direct: 0), then one line per update: <c>reload n ms jit_methods jit_ms result_ms jit_count_at_end</c>
/// (result_ms: the result's own compare + apply time; the JIT's count numbers the methods as its listing does),
/// each followed by its phases (<see cref="PhaseMarks"/>): <c>phase n name ms jit_methods jit_ms jit_count_at_end collections</c>.
/// </summary>
internal static class ReloadChild
{
    public static int Run(string mode, string folder, int updates)
    {
        PhaseMarks.Install();
        Assembly game = Assembly.LoadFrom(Path.Combine(folder, ReloadUpdates.GameName + ".dll"));
        Func<int, int> speed = game.GetType("FirstReload.Game", throwOnError: true)!
            .GetMethod("Speed", BindingFlags.Public | BindingFlags.Static)!.CreateDelegate<Func<int, int>>();
        for (int k = 0; k < 4; k++)
            Check(speed, 0);

        using Interceptor interceptor = Interceptor.Open();
        HotReloader reloader = interceptor.Reload;
        string drop = Path.Combine(folder, "drop-" + Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
        IDisposable? watching = null;
        using var answered = new SemaphoreSlim(0);
        ReloadResult? last = null;
        try
        {
            long methods = JitInfo.GetCompiledMethodCount();
            TimeSpan jit = JitInfo.GetCompilationTime();
            long start = Stopwatch.GetTimestamp();
            if (mode == "watch")
            {
                Action<ReloadResult> onResult = r =>
                {
                    last = r;
                    answered.Release();
                };
                // The callback is the benchmark's, not the library's: compiled here, before any
                // update is timed (a game's callback is compiled at its first call whatever the
                // library does; the bodies an update brings are still compiled in its time).
                RuntimeHelpers.PrepareMethod(onResult.Method.MethodHandle);
                watching = reloader.WatchFolder(drop, onResult);
                string result = Path.Combine(drop, ReloadUpdates.GameName + ".result.txt");
                Drop(drop, File.ReadAllBytes(Path.Combine(folder, "rehearsal.hotreload")));
                // The rehearsal reports to no callback: its result file says it was prepared.
                var patience = Stopwatch.StartNew();
                while (!File.Exists(result))
                {
                    if (patience.Elapsed > TimeSpan.FromSeconds(120))
                        throw new TimeoutException("no result of the rehearsal");
                    Thread.Sleep(2);
                }
                string header = File.ReadLines(result).First();
                if (!header.Contains("outcome=NothingChanged", StringComparison.Ordinal))
                    throw new InvalidOperationException("the rehearsal: " + File.ReadAllText(result));
            }
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"prepared {Stopwatch.GetElapsedTime(start).TotalMilliseconds:F3} {JitInfo.GetCompiledMethodCount() - methods} " +
                $"{(JitInfo.GetCompilationTime() - jit).TotalMilliseconds:F3}"));

            for (int n = 1; n <= updates; n++)
            {
                byte[] file = File.ReadAllBytes(Path.Combine(folder, $"update-{n:D2}.hotreload"));
                methods = JitInfo.GetCompiledMethodCount();
                jit = JitInfo.GetCompilationTime();
                start = Stopwatch.GetTimestamp();
                PhaseMarks.Start(start, methods, jit);
                ReloadResult result;
                if (mode == "watch")
                {
                    Drop(drop, file);
                    if (!answered.Wait(TimeSpan.FromSeconds(120)))
                        throw new TimeoutException($"no result of update {n}");
                    result = last!;
                }
                else
                {
                    result = reloader.ApplyUpdateAsync(ReloadDelta.Read(file)).GetAwaiter().GetResult();
                }
                double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
                PhaseMarks.Mark[] marks = PhaseMarks.Stop("returned");
                long jitMethods = JitInfo.GetCompiledMethodCount() - methods;
                double jitMs = (JitInfo.GetCompilationTime() - jit).TotalMilliseconds;
                if (result.Outcome != ReloadOutcome.Applied)
                    throw new InvalidOperationException($"update {n}: {result.Outcome}: {result}");
                Check(speed, n);
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"reload {n} {ms:F3} {jitMethods} {jitMs:F3} {(result.CompareTime + result.ApplyTime).TotalMilliseconds:F3} " +
                    $"{methods + jitMethods}"));
                foreach (PhaseMarks.Mark m in marks)
                    Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                        $"phase {n} {m.Name.Replace(' ', '_')} {m.Ms:F3} {m.JitMethods} {m.JitMs:F3} {m.JitCountAtEnd} {m.Collections}"));
            }
        }
        finally
        {
            watching?.Dispose();
        }
        return 0;
    }

    private static void Check(Func<int, int> speed, int update)
    {
        int value = speed(1);
        if (value != ReloadUpdates.Speed(update))
            throw new InvalidOperationException($"after update {update} Speed(1) returned {value}, not {ReloadUpdates.Speed(update)}");
    }

    // As the watcher drops an update: written under a temporary name, renamed into place.
    private static void Drop(string drop, byte[] file)
    {
        string temporary = Path.Combine(drop, $".{ReloadUpdates.GameName}.{Guid.NewGuid():N}.tmp");
        File.WriteAllBytes(temporary, file);
        File.Move(temporary, Path.Combine(drop, ReloadUpdates.GameName + ".hotreload"), overwrite: true);
    }
}
