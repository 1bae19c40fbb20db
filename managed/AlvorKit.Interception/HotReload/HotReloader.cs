using System.Diagnostics;
using System.Reflection;
using System.Runtime.Loader;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Applies source edits to the running Release game (<see cref="Interceptor.Reload"/>): each
/// update is an Edit and Continue delta of a loaded assembly, as the C# compiler emits it
/// against the build the game loaded (<c>alvorkit-intercept watch</c> makes one per save). The
/// changed method bodies become generations of the methods they change, applied as ONE batch
/// (all or nothing, one ReJIT request for the methods and their inliners); what the delta adds
/// (methods, fields, types, lambdas, closures, state machines) is carried by a side assembly
/// loaded into the game's load context. <see cref="RevertAll"/> puts every original back.
/// </summary>
public sealed class HotReloader
{
    private readonly Interceptor _interceptor;

    // One reload (or revert) at a time; what each module's reloads keep, and the bodies applied.
    private readonly SemaphoreSlim _gate;
    private readonly Dictionary<Module, ModuleReloads> _modules = [];
    private readonly Dictionary<MethodKey, AppliedBody> _applied = [];

    /// <param name="interceptor">The interceptor whose commands apply the bodies.</param>
    /// <param name="gate">A gate of one (SemaphoreSlim(1, 1)) that reloads and reverts hold, one at a time.</param>
    internal HotReloader(Interceptor interceptor, SemaphoreSlim gate)
    {
        _interceptor = interceptor;
        _gate = gate;
        Owner = new PatchOwner("hot reload");
    }

    /// <summary>The owner of every generation applied from source.</summary>
    public PatchOwner Owner { get; }

    /// <summary>Applies one update to the loaded assembly it names (by simple name and build MVID).</summary>
    /// <param name="delta">The update.</param>
    /// <returns>What the reload did; a refused or failed one changed nothing.</returns>
    public ReloadResult ApplyUpdate(ReloadDelta delta) =>
        Interceptor.Completed(ApplyCore(delta, synchronous: true, CancellationToken.None));

    /// <summary>
    /// Applies one update to <paramref name="assembly"/>, given as the three deltas
    /// <see cref="System.Reflection.Metadata.MetadataUpdater.ApplyUpdate"/> takes: what the C#
    /// compiler's <c>Compilation.EmitDifference</c> wrote against the build the game loaded.
    /// </summary>
    public ReloadResult ApplyUpdate(Assembly assembly, ReadOnlySpan<byte> metadataDelta, ReadOnlySpan<byte> ilDelta,
                                    ReadOnlySpan<byte> pdbDelta)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        return ApplyUpdate(new ReloadDelta(assembly.GetName().Name ?? assembly.ManifestModule.Name,
            assembly.ManifestModule.ModuleVersionId, metadataDelta.ToArray(), ilDelta.ToArray(), pdbDelta.ToArray()));
    }

    /// <summary><see cref="ApplyUpdate(ReloadDelta)"/> without blocking the calling thread on the profiler's worker.</summary>
    public Task<ReloadResult> ApplyUpdateAsync(ReloadDelta delta, CancellationToken cancellationToken = default) =>
        Interceptor.Detached(ApplyCore(delta, synchronous: false, cancellationToken), cancellationToken);

    /// <summary>Every method applied from source runs its original body again. Members reloads
    /// added stay loaded; a later update applies on top of the updates so far.</summary>
    public ReloadResult RevertAll() => Interceptor.Completed(RevertCore(synchronous: true, CancellationToken.None));

    /// <summary><see cref="RevertAll"/> without blocking the calling thread.</summary>
    public Task<ReloadResult> RevertAllAsync(CancellationToken cancellationToken = default) =>
        Interceptor.Detached(RevertCore(synchronous: false, cancellationToken), cancellationToken);

    /// <summary>The largest update <see cref="WatchFolder"/> reads unless told otherwise (16 MiB;
    /// an update of a save is a few kilobytes).</summary>
    public const int DefaultMaxUpdateBytes = 16 * 1024 * 1024;

    /// <summary>
    /// Watches <paramref name="folder"/> for updates (<c>Name.hotreload</c>, written there by
    /// <c>alvorkit-intercept watch</c> as a temporary file renamed into place) and applies each
    /// one as <see cref="ApplyUpdateAsync"/> does, one at a time. After each, it writes the
    /// result to <c>Name.result.txt</c> in the folder (temporary file, then rename), for the
    /// watcher to print, and calls <paramref name="onResult"/>: every dropped file gets a result,
    /// whatever went wrong with it.
    /// <para>Only the user the game runs as may be able to write to the folder: a missing folder
    /// is created private (mode 0700; on Windows a DACL of this user, SYSTEM and Administrators),
    /// and a folder others can write to, or swap, is refused. A dropped link, FIFO, device or
    /// folder is refused without being read, as is a file over <paramref name="maxUpdateBytes"/>.</para>
    /// <para>The watch stays alive until it is disposed, whether or not the game keeps the
    /// returned object.</para>
    /// <para>A process watches a folder once: a second call for a folder already watched (by any
    /// interceptor: the launcher's startup hook and the game's own code, say) joins that watch, so
    /// each update is applied once, and <paramref name="onResult"/> gets its results too. The
    /// watch stops when the last caller disposes what it was given.</para>
    /// </summary>
    /// <param name="folder">The drop folder (created if missing).</param>
    /// <param name="onResult">Called with each result on a thread-pool thread; null: none. An
    /// exception it throws is written to stderr and the watch goes on.</param>
    /// <param name="maxUpdateBytes">The largest file read (1 byte to <see cref="ReloadDelta.MaxFileBytes"/>;
    /// <see cref="DefaultMaxUpdateBytes"/> by default).</param>
    /// <returns>Dispose it to stop watching (an apply under way finishes first).</returns>
    /// <exception cref="UnauthorizedAccessException">Someone other than this user can write to
    /// the folder, or put another in its place; the message says who and how to fix it.</exception>
    public IDisposable WatchFolder(string folder, Action<ReloadResult>? onResult = null,
                                   int maxUpdateBytes = DefaultMaxUpdateBytes)
    {
        ArgumentException.ThrowIfNullOrEmpty(folder);
        ArgumentOutOfRangeException.ThrowIfLessThan(maxUpdateBytes, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(maxUpdateBytes, ReloadDelta.MaxFileBytes);
        return FolderWatches.Watch(this, folder, onResult, maxUpdateBytes);
    }

    /// <summary>The first update's costs paid ahead (<see cref="ReloadWarmUp"/>): called on a
    /// folder watch's queue before its first update.</summary>
    /// <returns>What the warm-up's real patch saw (<see cref="PatchRehearsal"/>); null when it did not run.</returns>
    internal RehearsedPatch? WarmUp()
    {
        if (_interceptor.PatchingRefusal is not null)
            return null;
        return ReloadWarmUp.Run(this, _interceptor.PatchableModules, _interceptor.Native);
    }

    /// <summary>
    /// The warm-up's real patch (<see cref="PatchRehearsal"/>) on <paramref name="target"/>, the
    /// rehearsal method: an update of it (<see cref="RehearsalDelta"/>) applied as a game's is
    /// (read, laid out, translated, its difference worked out, validated, described, submitted,
    /// waited for, adopted, committed, its result summed up), the method called, then the update
    /// undone and forgotten (the patch removed, its applied body and its module's reloads let go),
    /// the method called again. Nothing of it is kept. Null when it could not be run.
    /// </summary>
    internal async ValueTask<RehearsedPatch?> RehearsePatch(MethodInfo target)
    {
        Module module = target.Module;
        await _gate.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            if (_modules.ContainsKey(module))
                return null; // reloaded for real already: not ours to undo
        }
        finally
        {
            _gate.Release();
        }
        if (RehearsalDelta.Of(target) is not { } delta)
            return null;
        // Compiled once, as a game's method is by the time it is updated: the ReJIT replaces code.
        string original = PatchRehearsal.Call(target);
        string patched;
        ReloadResult result;
        try
        {
            // Through the file format, as a dropped update comes in.
            result = await ApplyCore(ReloadDelta.Read(delta.ToArray()), synchronous: false, CancellationToken.None)
                .ConfigureAwait(false);
            if (result.Outcome != ReloadOutcome.Applied)
                return null;
            // What the watch writes to the result file, made and dropped.
            _ = FolderWatch.ResultHeader(result, delta.UpdateId) + result.Summary;
            patched = PatchRehearsal.Call(target);
        }
        finally
        {
            await Forget(module).ConfigureAwait(false);
        }
        return new RehearsedPatch(original, patched, PatchRehearsal.Call(target),
                                  result.Methods.Count == 1 ? result.Methods[0].Difference : null);
    }

    /// <summary>What the reloader keeps: the modules whose reloads it keeps (their simple names,
    /// ordered) and how many bodies it holds as applied.</summary>
    internal (IReadOnlyList<string> Modules, int Applied) Kept()
    {
        _gate.Wait(CancellationToken.None);
        try
        {
            return ([.. _modules.Keys.Select(m => m.Assembly.GetName().Name ?? m.Name).Order(StringComparer.Ordinal)], _applied.Count);
        }
        finally
        {
            _gate.Release();
        }
    }

    // Every body applied to one module's methods removed, and its reloads let go (the rehearsal's).
    private async ValueTask Forget(Module module)
    {
        await _gate.WaitAsync(CancellationToken.None).ConfigureAwait(false);
        try
        {
            foreach (AppliedBody applied in _applied.Values.Where(a => a.Target.Module == module).ToList())
            {
                if (!applied.Patch.IsRemoved)
                    await applied.Patch.RemoveAsync(CancellationToken.None).ConfigureAwait(false);
                _applied.Remove(MethodKey.Of(applied.Target));
            }
            _modules.Remove(module);
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Indexes <paramref name="module"/>'s metadata as its first update would.</summary>
    internal void Index(Module module)
    {
        _gate.Wait(CancellationToken.None);
        try
        {
            if (!_modules.ContainsKey(module))
                _modules[module] = new ModuleReloads(module);
        }
        finally
        {
            _gate.Release();
        }
    }

    // ---------------------------------------------------------------- apply

    private async ValueTask<ReloadResult> ApplyCore(ReloadDelta delta, bool synchronous, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(delta);
        long started = Stopwatch.GetTimestamp();
        string name = delta.AssemblyName;
        if (LoadedAssembly(name, delta.ModuleVersionId, out string? why) is not { } assembly)
            return Refused(name, Stopwatch.GetElapsedTime(started), ReloadRefusalReason.NotLoaded, name,
                           $"{ReloadRefusalReason.NotLoaded}: {name} — {why}");
        if (_interceptor.PatchingRefusal is { } refusal)
            return Refused(name, Stopwatch.GetElapsedTime(started), ReloadRefusalReason.NotAllowlisted, name,
                           $"{ReloadRefusalReason.NotAllowlisted}: {name} — the profiler refuses patch commands: {refusal}");

        if (synchronous)
            _gate.Wait(CancellationToken.None);
        else
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            Module module = assembly.ManifestModule;
            if (!_modules.TryGetValue(module, out ModuleReloads? reloads))
                _modules[module] = reloads = new ModuleReloads(module);
            PreparedReload prepared;
            try
            {
                prepared = synchronous
                    ? reloads.Prepare(delta, LoadedBody.Of)
                    : await Task.Run(() => reloads.Prepare(delta, LoadedBody.Of), cancellationToken).ConfigureAwait(false);
            }
            catch (DeltaRefusedException e)
            {
                return Refused(name, Stopwatch.GetElapsedTime(started), e.Reason, e.Member ?? name, e.Message) with
                {
                    Generation = reloads.View.Generation,
                    GenerationId = reloads.View.EncId,
                };
            }
            catch (Exception e) when (e is BadImageFormatException or ArgumentException or IndexOutOfRangeException
                                          or InvalidDataException)
            {
                // A delta the metadata reader or the translation cannot make sense of (a token out
                // of its table, a blob cut short): Prepare kept nothing of it. Anything else is not
                // the input's fault and goes to the caller (a watched folder reports it as
                // Unexpected).
                return Refused(name, Stopwatch.GetElapsedTime(started), ReloadRefusalReason.NotADelta, name,
                               $"{ReloadRefusalReason.NotADelta}: {name} — the update could not be read as an Edit and " +
                               $"Continue delta of the loaded build ({e.GetType().Name}: {e.Message})") with
                {
                    Generation = reloads.View.Generation,
                    GenerationId = reloads.View.EncId,
                };
            }
            TimeSpan compareTime = Stopwatch.GetElapsedTime(started);
            PhaseProbe.Mark("prepared");
            long applying = Stopwatch.GetTimestamp();

            // Every body passes the profiler's validation before the batch is submitted.
            var refusals = new List<ReloadRefusal>();
            if (prepared.Bodies.Count > (int)Native.AlvkConstants.MaxBatchRequests)
                refusals.Add(new ReloadRefusal(ReloadRefusalReason.TooLarge, name,
                    $"{ReloadRefusalReason.TooLarge}: {name} — the update changes {prepared.Bodies.Count} methods; one batch " +
                    $"applies at most {Native.AlvkConstants.MaxBatchRequests}"));
            foreach (PreparedBody body in refusals.Count == 0 ? prepared.Bodies : [])
            {
                if (_interceptor.ValidateLowered(body.Target, body.Lowered, Owner) is not { } failure)
                    continue;
                ReloadRefusalReason reason = failure is InterceptionException { Status: InterceptionStatus.ModuleNotAllowed }
                    ? ReloadRefusalReason.NotAllowlisted
                    : ReloadRefusalReason.ProfilerRefused;
                refusals.Add(new ReloadRefusal(reason, body.Member, $"{reason}: {body.Member} — {failure.Message}"));
            }
            PhaseProbe.Mark("validated");
            if (refusals.Count > 0)
            {
                reloads.Discard();
                return Result(name, ReloadOutcome.Refused, [], refusals, compareTime, Stopwatch.GetElapsedTime(applying),
                              reloads, prepared);
            }

            if (delta.IsRehearsal)
            {
                // Everything a real update runs, up to the profiler's worker: the batch is described
                // and submitted under an owner the profiler refuses at the call (nothing is queued,
                // patched or compiled again); nothing is applied.
                try
                {
                    _ = await _interceptor.ApplyLoweredMany(
                        [.. prepared.Bodies.Select(b => new Interceptor.LoweredEntry(b.Target, b.Lowered, name, null))],
                        Owner, synchronous, CancellationToken.None, rehearsal: true).ConfigureAwait(false);
                }
                catch (Exception e) when (e is InterceptionException or InvalidOperationException)
                {
                    // The update itself will say what is wrong: a rehearsal reports nothing changed.
                }
                reloads.RehearseCommit(prepared);
                reloads.Discard();
                // The garbage of the warm-up and the rehearsal collected now (the youngest
                // generation: a millisecond or so), not by the first update it prepares for.
                GC.Collect(0, GCCollectionMode.Forced, blocking: true);
                ReloadResult rehearsed = Result(name, ReloadOutcome.NothingChanged, [], [], compareTime,
                                                Stopwatch.GetElapsedTime(applying), reloads, prepared);
                return rehearsed with { SideAssembly = null };
            }

            IReadOnlyList<Patch> patches;
            try
            {
                patches = await _interceptor.ApplyLoweredMany(
                    [.. prepared.Bodies.Select(b => new Interceptor.LoweredEntry(b.Target, b.Lowered, name, null))],
                    Owner, synchronous, CancellationToken.None).ConfigureAwait(false);
            }
            catch (Exception e) when (e is InterceptionException or InvalidOperationException)
            {
                reloads.Discard();
                IReadOnlyList<MethodReload> failed = e is BatchInstallException batch
                    ? [.. batch.Refusals.Select(r => new MethodReload(prepared.Bodies[r.Index].Member, MethodReloadState.Failed,
                                                                      prepared.Bodies[r.Index].Difference, r.Reason.Message))]
                    : [.. prepared.Bodies.Select(b => new MethodReload(b.Member, MethodReloadState.Failed, b.Difference, e.Message))];
                return Result(name, ReloadOutcome.Failed, failed, [], compareTime, Stopwatch.GetElapsedTime(applying),
                              reloads, prepared);
            }
            reloads.Commit(prepared);

            var methods = new List<MethodReload>();
            for (int i = 0; i < prepared.Bodies.Count; i++)
            {
                PreparedBody body = prepared.Bodies[i];
                var key = MethodKey.Of(body.Target);
                if (!body.IsOriginal)
                {
                    _applied[key] = new AppliedBody(body.Target, body.Member, patches[i]);
                    methods.Add(new MethodReload(body.Member, MethodReloadState.Applied, body.Difference));
                    continue;
                }
                // Back to the loaded body: the patch goes, and the original runs (inlined again).
                try
                {
                    if (synchronous)
                        patches[i].Remove();
                    else
                        await patches[i].RemoveAsync(CancellationToken.None).ConfigureAwait(false);
                    _applied.Remove(key);
                    methods.Add(new MethodReload(body.Member, MethodReloadState.RestoredOriginal));
                }
                catch (InterceptionException e)
                {
                    // The original's copy is applied: the method runs its original code either way.
                    _applied[key] = new AppliedBody(body.Target, body.Member, patches[i]);
                    methods.Add(new MethodReload(body.Member, MethodReloadState.Applied, "original body (as a generation)",
                                                 "removing the patch failed: " + e.Message));
                }
            }
            ReloadOutcome outcome = prepared.Bodies.Count == 0 ? ReloadOutcome.NothingChanged : ReloadOutcome.Applied;
            PhaseProbe.Mark("committed");
            return Result(name, outcome, methods, [], compareTime, Stopwatch.GetElapsedTime(applying), reloads, prepared);
        }
        finally
        {
            _gate.Release();
        }
    }

    private async ValueTask<ReloadResult> RevertCore(bool synchronous, CancellationToken cancellationToken)
    {
        if (synchronous)
            _gate.Wait(CancellationToken.None);
        else
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            long started = Stopwatch.GetTimestamp();
            List<AppliedBody> all = [.. _applied.Values];
            string names = string.Join(", ", _modules.Keys.Select(m => m.Assembly.GetName().Name).Distinct());
            var methods = new List<MethodReload>();
            bool failed = false;
            foreach (AppliedBody applied in all)
            {
                try
                {
                    if (!applied.Patch.IsRemoved)
                    {
                        if (synchronous)
                            applied.Patch.Remove();
                        else
                            await applied.Patch.RemoveAsync(CancellationToken.None).ConfigureAwait(false);
                    }
                    _applied.Remove(MethodKey.Of(applied.Target));
                    methods.Add(new MethodReload(applied.Member, MethodReloadState.RestoredOriginal));
                }
                catch (InterceptionException e)
                {
                    failed = true;
                    methods.Add(new MethodReload(applied.Member, MethodReloadState.Failed, null, e.Message));
                }
            }
            return new ReloadResult(names.Length == 0 ? "hot reload" : names, failed ? ReloadOutcome.Failed : ReloadOutcome.Reverted,
                                    methods, [], TimeSpan.Zero, Stopwatch.GetElapsedTime(started));
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>The loaded assembly of that simple name and build: the default load context's
    /// copy first, else another non-collectible one; null with the reason when there is none.</summary>
    private static Assembly? LoadedAssembly(string name, Guid mvid, out string? why)
    {
        why = null;
        Assembly[] named = [.. AppDomain.CurrentDomain.GetAssemblies()
            .Where(a => !a.IsDynamic && string.Equals(a.GetName().Name, name, StringComparison.Ordinal))];
        Assembly? match = named.Where(a => a.ManifestModule.ModuleVersionId == mvid && !a.IsCollectible)
            .OrderBy(a => AssemblyLoadContext.GetLoadContext(a) == AssemblyLoadContext.Default ? 0 : 1)
            .FirstOrDefault();
        if (match is not null)
            return match;
        why = named.Length == 0
            ? "no assembly of that name is loaded in this process"
            : named.All(a => a.ManifestModule.ModuleVersionId != mvid)
                ? $"it is loaded as another build (MVID {named[0].ManifestModule.ModuleVersionId}) than the one the update " +
                  $"was made against ({mvid}): restart the watcher against the build the game runs"
                : "only a collectible copy of it is loaded, and collectible assemblies are never patched";
        return null;
    }

    private static ReloadResult Refused(string name, TimeSpan compareTime, ReloadRefusalReason reason, string member,
                                        string message) =>
        new(name, ReloadOutcome.Refused, [], [new ReloadRefusal(reason, member, message)], compareTime, TimeSpan.Zero);

    private static ReloadResult Result(string name, ReloadOutcome outcome, IReadOnlyList<MethodReload> methods,
                                       IReadOnlyList<ReloadRefusal> refusals, TimeSpan compareTime, TimeSpan applyTime,
                                       ModuleReloads reloads, PreparedReload prepared) =>
        new(name, outcome, methods, refusals, compareTime, applyTime)
        {
            Notices = prepared.Notices,
            Generation = reloads.View.Generation,
            GenerationId = reloads.View.EncId,
            SideAssembly = outcome is ReloadOutcome.Applied or ReloadOutcome.NothingChanged ? prepared.Side?.Name : null,
        };

    /// <summary>A body applied from source: the method that runs it and the patch holding it.</summary>
    private sealed record AppliedBody(MethodBase Target, string Member, Patch Patch);
}
