using System.Collections.Immutable;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime.Loader;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Applies the method bodies of a rebuilt assembly to the assembly this process loaded
/// (<see cref="Interceptor.Reload"/>). Edit, save, rebuild into another folder, and the running
/// Release game runs the new bodies: every changed body of one rebuild goes in together or not at
/// all, and <see cref="RevertAll"/> puts every original back.
/// </summary>
public sealed class HotReloader
{
    private readonly Interceptor _interceptor;

    // One reload (or revert) at a time; the bodies applied from source, by loaded method.
    private readonly SemaphoreSlim _gate;
    private readonly Dictionary<(Module Module, int Token), AppliedBody> _applied = [];
    private readonly Dictionary<Module, byte[]> _lastRebuild = [];

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

    /// <summary>Compares <paramref name="rebuiltAssemblyPath"/> with the loaded assembly of the same
    /// name and the bodies applied from source so far, then applies what changed as one batch.</summary>
    public ReloadResult Apply(string rebuiltAssemblyPath) =>
        Interceptor.Completed(ApplyCore(rebuiltAssemblyPath, synchronous: true, CancellationToken.None));

    /// <summary><see cref="Apply"/> without blocking the calling thread on the profiler's worker.</summary>
    public Task<ReloadResult> ApplyAsync(string rebuiltAssemblyPath, CancellationToken cancellationToken = default) =>
        Interceptor.Detached(ApplyCore(rebuiltAssemblyPath, synchronous: false, cancellationToken), cancellationToken);

    /// <summary>Every method applied from source runs its original body again.</summary>
    public ReloadResult RevertAll() => Interceptor.Completed(RevertCore(synchronous: true, CancellationToken.None));

    /// <summary><see cref="RevertAll"/> without blocking the calling thread.</summary>
    public Task<ReloadResult> RevertAllAsync(CancellationToken cancellationToken = default) =>
        Interceptor.Detached(RevertCore(synchronous: false, cancellationToken), cancellationToken);

    /// <summary>
    /// Watches <paramref name="folder"/> for rebuilt assemblies (<c>Name.dll</c>, written there by
    /// <c>alvorkit-intercept watch</c> as a temporary file renamed into place) and applies each one
    /// as <see cref="ApplyAsync"/> does, one at a time. After each, it writes the result's
    /// <see cref="ReloadResult.Summary"/> to <c>Name.result.txt</c> in the folder (temporary file,
    /// then rename), for the watcher to print, and calls <paramref name="onResult"/>.
    /// </summary>
    /// <param name="folder">The drop folder (created if missing).</param>
    /// <param name="onResult">Called with each result on a thread-pool thread; null: none.</param>
    /// <returns>Dispose it to stop watching (an apply under way finishes first).</returns>
    public IDisposable WatchFolder(string folder, Action<ReloadResult>? onResult = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(folder);
        return new FolderWatch(this, folder, onResult);
    }

    // ---------------------------------------------------------------- apply

    private async ValueTask<ReloadResult> ApplyCore(string rebuiltPath, bool synchronous, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(rebuiltPath);
        long started = Stopwatch.GetTimestamp();
        string name = Path.GetFileNameWithoutExtension(rebuiltPath);
        // The rebuild is read once, first: a watcher may write the file again while this runs.
        byte[] rebuild;
        try
        {
            rebuild = synchronous
                ? File.ReadAllBytes(rebuiltPath)
                : await File.ReadAllBytesAsync(rebuiltPath, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or ArgumentException)
        {
            return Refused(name, rebuiltPath, Stopwatch.GetElapsedTime(started), new ReloadRefusal(
                ReloadRefusalReason.NotARebuild, name,
                $"{ReloadRefusalReason.NotARebuild}: {rebuiltPath} cannot be read ({e.Message})"));
        }
        try
        {
            name = AssemblyNameOf(rebuild);
        }
        catch (BadImageFormatException e)
        {
            return Refused(name, rebuiltPath, Stopwatch.GetElapsedTime(started), new ReloadRefusal(
                ReloadRefusalReason.NotARebuild, name,
                $"{ReloadRefusalReason.NotARebuild}: {rebuiltPath} is not a .NET assembly ({e.Message})"));
        }
        Assembly? assembly = LoadedAssembly(name);
        if (assembly is null)
            return Refused(name, rebuiltPath, Stopwatch.GetElapsedTime(started), new ReloadRefusal(
                ReloadRefusalReason.NotLoaded, name,
                $"{ReloadRefusalReason.NotLoaded}: {name} — no assembly of that name is loaded in this process " +
                "(default load context, from a file)"));

        if (synchronous)
            _gate.Wait(CancellationToken.None);
        else
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            Module module = assembly.ManifestModule;
            ReloadTranslation translation;
            try
            {
                translation = synchronous
                    ? Translate(assembly.Location, rebuild)
                    : await Task.Run(() => Translate(assembly.Location, rebuild), cancellationToken).ConfigureAwait(false);
            }
            catch (BadImageFormatException e)
            {
                return Refused(name, rebuiltPath, Stopwatch.GetElapsedTime(started), new ReloadRefusal(
                    ReloadRefusalReason.NotARebuild, name,
                    $"{ReloadRefusalReason.NotARebuild}: {rebuiltPath} or {assembly.Location} cannot be read as " +
                    $"metadata ({e.Message})"));
            }
            ForgetRemoved();
            Dictionary<string, string?> sinceLast = SinceLastRebuild(module, rebuild, translation);

            var apply = new List<(TranslatedBody Body, MethodBase Target)>();
            foreach (TranslatedBody body in translation.Bodies)
            {
                MethodBase target = module.ResolveMethod(body.Method.LoadedToken)!;
                if (!_applied.TryGetValue((module, body.Method.LoadedToken), out AppliedBody? now) ||
                    !TranslatedBody.SameBytes(now.Lowered, body.Lowered))
                    apply.Add((body, target));
            }
            List<AppliedBody> restore = translation.Refusals.Count > 0 ? [] : translation.Comparison.Methods
                .Where(m => !m.BodyChanged && _applied.ContainsKey((module, m.LoadedToken)))
                .Select(m => _applied[(module, m.LoadedToken)])
                .ToList();

            ReloadRefusal? allowlist = translation.Comparison.IsCompared ? Allowlisted(module, translation) : null;
            TimeSpan compareTime = Stopwatch.GetElapsedTime(started);
            if (allowlist is not null)
                return Refused(name, rebuiltPath, compareTime, allowlist);
            if (translation.Refusals.Count > 0)
                return new ReloadResult(name, rebuiltPath, ReloadOutcome.Refused, [], translation.Refusals, compareTime,
                                        TimeSpan.Zero);
            if (apply.Count == 0 && restore.Count == 0)
                return new ReloadResult(name, rebuiltPath, ReloadOutcome.NothingChanged, [], [], compareTime, TimeSpan.Zero);

            long applying = Stopwatch.GetTimestamp();
            // Every body passes the profiler's validation before any is submitted.
            var refusals = new List<ReloadRefusal>();
            foreach ((TranslatedBody body, MethodBase target) in apply)
            {
                if (_interceptor.ValidateLowered(target, body.Lowered, Owner) is { } failure)
                    refusals.Add(new ReloadRefusal(ReloadRefusalReason.ProfilerRefused, body.Method.Member,
                        $"{ReloadRefusalReason.ProfilerRefused}: {body.Method.Member} — {failure.Message}"));
            }
            if (refusals.Count > 0)
                return new ReloadResult(name, rebuiltPath, ReloadOutcome.Refused, [], refusals, compareTime,
                                        Stopwatch.GetElapsedTime(applying));

            var batch = new Batch(this, synchronous);
            foreach ((TranslatedBody body, MethodBase target) in apply)
            {
                string? difference = sinceLast.GetValueOrDefault(body.Method.Member) ?? body.Method.Difference;
                if (!await batch.Put(target, body.Method.Member, body.Lowered, difference, name)
                        .ConfigureAwait(false))
                    break;
            }
            if (!batch.Failed)
            {
                foreach (AppliedBody original in restore)
                {
                    if (!await batch.Put(original.Target, original.Member, null, null, name).ConfigureAwait(false))
                        break;
                }
            }
            if (batch.Failed)
                await batch.RollBack().ConfigureAwait(false);
            else
                _lastRebuild[module] = rebuild;
            return new ReloadResult(name, rebuiltPath, batch.Failed ? ReloadOutcome.Failed : ReloadOutcome.Applied,
                                    batch.Methods, [], compareTime, Stopwatch.GetElapsedTime(applying));
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
            ForgetRemoved();
            List<AppliedBody> all = [.. _applied.Values];
            string names = string.Join(", ", all.Select(a => a.Target.Module.Assembly.GetName().Name).Distinct());
            var batch = new Batch(this, synchronous);
            foreach (AppliedBody applied in all)
                await batch.Put(applied.Target, applied.Member, null, null, null, stopOnFailure: false).ConfigureAwait(false);
            foreach (Module module in _lastRebuild.Keys.Where(m => !_applied.Keys.Any(k => k.Module == m)).ToList())
                _lastRebuild.Remove(module);
            return new ReloadResult(names.Length == 0 ? "hot reload" : names, null,
                                    batch.Failed ? ReloadOutcome.Failed : ReloadOutcome.Reverted, batch.Methods, [],
                                    TimeSpan.Zero, Stopwatch.GetElapsedTime(started));
        }
        finally
        {
            _gate.Release();
        }
    }

    private static ReloadTranslation Translate(string loadedPath, byte[] rebuild)
    {
        using var loaded = new PEReader(File.OpenRead(loadedPath), PEStreamOptions.PrefetchEntireImage);
        using var rebuilt = new PEReader(ImmutableArray.Create(rebuild));
        return ReloadTranslation.Translate(loaded, rebuilt);
    }

    /// <summary>For the methods applied from source before: the first difference between the
    /// body they run (from the last rebuild applied) and this rebuild's, by member.</summary>
    private Dictionary<string, string?> SinceLastRebuild(Module module, byte[] rebuild, ReloadTranslation translation)
    {
        var differences = new Dictionary<string, string?>(StringComparer.Ordinal);
        if (!_lastRebuild.TryGetValue(module, out byte[]? last) ||
            !translation.Bodies.Any(b => _applied.ContainsKey((module, b.Method.LoadedToken))))
            return differences;
        using var before = new PEReader(ImmutableArray.Create(last));
        using var now = new PEReader(ImmutableArray.Create(rebuild));
        foreach (MethodComparison method in AssemblyComparer.Compare(before, now).ChangedMethods)
            differences[method.Member] = method.Difference;
        return differences;
    }

    /// <summary>The simple name in an image's assembly definition.</summary>
    /// <exception cref="BadImageFormatException">It is not a .NET assembly.</exception>
    private static string AssemblyNameOf(byte[] image)
    {
        using var pe = new PEReader(ImmutableArray.Create(image));
        if (!pe.HasMetadata)
            throw new BadImageFormatException("no CLI metadata");
        MetadataReader reader = pe.GetMetadataReader();
        if (!reader.IsAssembly)
            throw new BadImageFormatException("a module without an assembly definition");
        return reader.GetString(reader.GetAssemblyDefinition().Name);
    }

    /// <summary>The assembly of that simple name loaded from a file in the default load context.</summary>
    private static Assembly? LoadedAssembly(string name) =>
        AppDomain.CurrentDomain.GetAssemblies().FirstOrDefault(a =>
            !a.IsDynamic && string.Equals(a.GetName().Name, name, StringComparison.Ordinal) &&
            AssemblyLoadContext.GetLoadContext(a) == AssemblyLoadContext.Default && a.Location.Length > 0);

    /// <summary>NotAllowlisted when the profiler refuses patch commands, or refuses to describe a
    /// method of the module (ALVORKIT_INTERCEPTION_MODULES does not name it).</summary>
    private ReloadRefusal? Allowlisted(Module module, ReloadTranslation translation)
    {
        string name = module.Assembly.GetName().Name ?? module.Name;
        if (_interceptor.PatchingRefusal is { } refusal)
            return new ReloadRefusal(ReloadRefusalReason.NotAllowlisted, name,
                $"{ReloadRefusalReason.NotAllowlisted}: {name} — the profiler refuses patch commands: {refusal}");
        MethodComparison? probe = translation.Comparison.ChangedMethods.FirstOrDefault() ??
                                  (translation.Comparison.Methods.Count > 0 ? translation.Comparison.Methods[0] : null);
        if (probe is null)
            return null;
        try
        {
            _interceptor.Describe(module.ResolveMethod(probe.LoadedToken)!);
            return null;
        }
        catch (PatchException e) when (e.Status == InterceptionStatus.ModuleNotAllowed)
        {
            return new ReloadRefusal(ReloadRefusalReason.NotAllowlisted, name,
                $"{ReloadRefusalReason.NotAllowlisted}: {name} — {e.Message}");
        }
        catch (PatchException)
        {
            return null; // another reason (a method without IL): the validation of each body says
        }
    }

    private void ForgetRemoved()
    {
        foreach (var stale in _applied.Where(a => a.Value.Patch.IsRemoved).Select(a => a.Key).ToList())
            _applied.Remove(stale);
    }

    private static ReloadResult Refused(string name, string path, TimeSpan compareTime, ReloadRefusal refusal) =>
        new(name, path, ReloadOutcome.Refused, [], [refusal], compareTime, TimeSpan.Zero);

    /// <summary>A body applied from source: the loaded method, its generation and the patch holding it.</summary>
    private sealed record AppliedBody(MethodBase Target, string Member, LoweredGeneration Lowered, Patch Patch);

    /// <summary>
    /// The commands of one reload, in order, with what each method ran before (its previous body
    /// from source, or the original), so a failure puts back what ran before for every method the
    /// reload already changed.
    /// </summary>
    private sealed class Batch(HotReloader reloader, bool synchronous)
    {
        private readonly List<(MethodBase Target, string Member, int Index, AppliedBody? Before)> _done = [];

        public List<MethodReload> Methods { get; } = [];

        public bool Failed { get; private set; }

        /// <summary>Gives `target` the body `lowered` (null: its original); false when that failed.</summary>
        public async ValueTask<bool> Put(MethodBase target, string member, LoweredGeneration? lowered, string? difference,
                                         string? name, bool stopOnFailure = true)
        {
            var key = (target.Module, target.MetadataToken);
            reloader._applied.TryGetValue(key, out AppliedBody? before);
            try
            {
                await reloader.Set(target, member, lowered, name, synchronous).ConfigureAwait(false);
            }
            catch (Exception e) when (e is InterceptionException or InvalidOperationException or AggregateException)
            {
                Failed = true;
                Methods.Add(new MethodReload(member, MethodReloadState.Failed, difference, e.Message));
                return !stopOnFailure;
            }
            _done.Add((target, member, Methods.Count, before));
            Methods.Add(new MethodReload(member,
                lowered is null ? MethodReloadState.RestoredOriginal : MethodReloadState.Applied, difference));
            return true;
        }

        /// <summary>Every method this batch changed runs what it ran before, newest first.</summary>
        public async ValueTask RollBack()
        {
            for (int i = _done.Count - 1; i >= 0; i--)
            {
                (MethodBase target, string member, int index, AppliedBody? before) = _done[i];
                try
                {
                    await reloader.Set(target, member, before?.Lowered, "rollback", synchronous).ConfigureAwait(false);
                    Methods[index] = Methods[index] with { State = MethodReloadState.RolledBack };
                }
                catch (Exception e) when (e is InterceptionException or InvalidOperationException)
                {
                    Methods[index] = Methods[index] with
                    {
                        State = MethodReloadState.Failed,
                        Detail = "the rollback failed too: " + e.Message,
                    };
                }
            }
        }
    }

    /// <summary>One method's body from source (or its original, for null), with the bookkeeping.</summary>
    private async ValueTask Set(MethodBase target, string member, LoweredGeneration? lowered, string? name, bool synchronous)
    {
        var key = (target.Module, target.MetadataToken);
        if (lowered is null)
        {
            if (_applied.TryGetValue(key, out AppliedBody? applied))
            {
                if (synchronous)
                    applied.Patch.Remove();
                else
                    await applied.Patch.RemoveAsync().ConfigureAwait(false);
                _applied.Remove(key);
            }
            return;
        }
        Patch patch = await _interceptor.ApplyLowered(target, lowered, name, Owner, plan: null, synchronous,
                                                      CancellationToken.None).ConfigureAwait(false);
        _applied[key] = new AppliedBody(target, member, lowered, patch);
    }
}
