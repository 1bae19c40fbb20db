using System.Collections.Concurrent;
using System.Reflection;
using System.Runtime.Loader;
using System.Text.Json;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The "hotreload" mode: the game the proof built (ReloadCore.dll, version 0) loaded from its
/// file into the default context, then every step of the proof's script: an update file applied
/// through Interceptor.Reload (or RevertAll, or the file dropped into a watched folder), after
/// which every probe method of the game is called until it returns the value the step expects
/// (a step that changes nothing calls each for a while and needs every call to give it). The
/// pair step also runs a thread calling the pair probe through the whole apply.
/// </summary>
internal static class HotReloadCoreProof
{
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(10);

    public static HotReloadCoreReport Run(string scriptPath)
    {
        HotReloadScript script = JsonSerializer.Deserialize(File.ReadAllText(scriptPath), ReportJson.Info<HotReloadScript>())!;
        Assembly game = AssemblyLoadContext.Default.LoadFromAssemblyPath(script.Game);
        _ = AssemblyLoadContext.Default.LoadFromAssemblyPath(script.Other);
        Func<string>[] probes = [.. script.Probes.Select(p => Probe(game, p))];
        Func<string> pair = Probe(game, "ReloadCore.Probes.Pair");

        using Interceptor interceptor = Interceptor.Open();
        HotReloader reload = interceptor.Reload;
        // The reload's warm-up on this thread (a watch's start runs it on its queue), then a relocation
        // laid out for the validator, counting what the JIT compiles on this thread for it.
        ulong commands = interceptor.ReadStatus().CommandsCompleted;
        RehearsedPatch? rehearsed = reload.WarmUp();
        ProfilerStatus afterWarmUp = interceptor.ReadStatus();
        string rehearsalAfter = Interception.Rehearsal.RehearsalTarget.Value();
        int heldAfterWarmUp = interceptor.Patches.Count;
        (IReadOnlyList<string> reloadedModules, int appliedBodies) = reload.Kept();
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: true);
        InterceptionStatus layout = interceptor.Native.RehearseRelocationLayout();
        compiled = System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: true) - compiled;
        string drop = Path.Combine(Path.GetDirectoryName(scriptPath)!, "drop");
        var results = new BlockingCollection<ReloadResult>();
        using IDisposable watching = reload.WatchFolder(drop, results.Add);

        var steps = new List<HotReloadStepReport>();
        IReadOnlyList<string> previous = [.. probes.Select(p => p())];
        foreach (HotReloadScriptStep step in script.Steps)
        {
            using var hammer = step.Pair ? new PairHammer(pair) : null;
            string? resultFile = null;
            ReloadResult result = step.Action switch
            {
                "apply" => reload.ApplyUpdate(ReloadDelta.Read(File.ReadAllBytes(step.File!))),
                "rehearse" => reload.ApplyUpdate(Rehearsal(ReloadDelta.Read(File.ReadAllBytes(step.File!)))),
                "revert" => reload.RevertAll(),
                "watch" => Dropped(drop, step.File!, results, out resultFile),
                _ => throw new InvalidOperationException($"no action {step.Action}"),
            };
            // The probes the step changes polled until they give their new values; then the others,
            // all in one window, each required to give its value on every call.
            var polled = new Polled<string>[probes.Length];
            var unchanged = new List<int>();
            for (int i = 0; i < probes.Length; i++)
            {
                if (step.Changes && step.Expected[i] != previous[i])
                    polled[i] = Patcher.PollFor(probes[i], step.Expected[i], Settle);
                else
                    unchanged.Add(i);
            }
            Polled<string>[] steady = Patcher.SteadyAll([.. unchanged.Select(i => probes[i])],
                [.. unchanged.Select(i => step.Expected[i])], TimeSpan.FromMilliseconds(20));
            for (int k = 0; k < unchanged.Count; k++)
                polled[unchanged[k]] = steady[k];
            hammer?.Stop();
            steps.Add(new HotReloadStepReport(step.Name, result.Outcome.ToString(),
                [.. result.Methods.Select(m => $"{m.Member}|{m.State}|{m.Difference}")],
                [.. result.Refusals.Select(r => r.Message)], [.. result.Notices.Select(n => $"{n.Kind}|{n.Message}")],
                result.Summary, polled, resultFile, hammer?.Seen ?? [], hammer?.Mixed ?? 0, hammer?.Calls ?? 0));
            previous = step.Expected;
        }
        string[] sides = [.. AppDomain.CurrentDomain.GetAssemblies()
            .Select(a => a.GetName().Name ?? "")
            .Where(n => n.Contains(Interception.Native.AlvkConstants.ReloadAssemblyInfix, StringComparison.Ordinal))
            .Order(StringComparer.Ordinal)];
        return new HotReloadCoreReport(steps, sides, reload.Owner.Patches.Count, layout.ToString(), compiled,
                                       rehearsed?.Original, rehearsed?.Patched, rehearsed?.Restored, rehearsalAfter, afterWarmUp.LivePatches,
                                       heldAfterWarmUp, afterWarmUp.CommandsCompleted - commands, rehearsed?.Difference,
                                       reloadedModules, appliedBodies);
    }

    private static ReloadDelta Rehearsal(ReloadDelta d) =>
        new(d.AssemblyName, d.ModuleVersionId, d.Metadata, d.IL, d.Pdb, d.Notices, d.ChangedFiles)
        {
            RestoredMethods = d.RestoredMethods,
            IsRehearsal = true,
        };

    private static Func<string> Probe(Assembly game, string name)
    {
        int dot = name.LastIndexOf('.');
        MethodInfo method = game.GetType(name[..dot], throwOnError: true)!.GetMethod(name[(dot + 1)..])
                            ?? throw new InvalidOperationException($"no probe {name}");
        return method.CreateDelegate<Func<string>>();
    }

    // The update renamed into a watched folder, as the watcher drops it; the result the watch
    // reported, and the result file it wrote beside it.
    private static ReloadResult Dropped(string drop, string file, BlockingCollection<ReloadResult> results, out string? resultFile)
    {
        string name = "ReloadCore" + ".hotreload";
        File.Copy(file, Path.Combine(drop, name + ".tmp"), overwrite: true);
        File.Move(Path.Combine(drop, name + ".tmp"), Path.Combine(drop, name), overwrite: true);
        if (!results.TryTake(out ReloadResult? result, TimeSpan.FromSeconds(30)))
            throw new TimeoutException("the watched folder gave no result within 30 s");
        string path = Path.Combine(drop, "ReloadCore.result.txt");
        resultFile = File.Exists(path) ? File.ReadAllText(path) : null;
        return result;
    }

    /// <summary>A thread calling the pair probe ("Left/Right") from before an apply until after
    /// it, counting the calls that saw the two halves of one update disagree.</summary>
    private sealed class PairHammer : IDisposable
    {
        private readonly Thread _thread;
        private readonly List<string> _seen = [];
        private volatile bool _stop;

        public PairHammer(Func<string> pair)
        {
            using var started = new ManualResetEventSlim();
            _thread = new Thread(() =>
            {
                started.Set();
                while (!_stop)
                {
                    string value = pair();
                    Calls++;
                    string[] halves = value.Split('/');
                    if (halves[0] != halves[1])
                        Mixed++;
                    if (_seen.Count == 0 || _seen[^1] != value)
                        _seen.Add(value);
                }
            })
            { IsBackground = true, Name = "pair" };
            _thread.Start();
            started.Wait();
            // Long enough for the pair to be compiled optimized, with its halves inlined.
            Thread.Sleep(300);
        }

        public long Calls { get; private set; }

        public long Mixed { get; private set; }

        public IReadOnlyList<string> Seen => _seen;

        public void Stop()
        {
            Thread.Sleep(100);
            _stop = true;
            _thread.Join();
        }

        public void Dispose()
        {
            _stop = true;
            _thread.Join();
        }
    }
}
