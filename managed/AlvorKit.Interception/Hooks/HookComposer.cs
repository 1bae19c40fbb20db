using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// The hook sets of every owner on every target in the process, and the woven bodies that carry them: ONE
/// composer for the process (<see cref="Shared"/>, like PatchRegistry), whichever <see cref="Interceptor"/>
/// added a set, so two mods that each <see cref="Interceptor.Open"/> one compose on a shared target instead
/// of the last body winning. All woven bodies are held in the profiler by one internal owner
/// (<see cref="HookOwner"/>): adding or removing a set weaves the target's body again from all its sets
/// (<see cref="HookComposition"/>, <see cref="HookWeaver"/>, each set calling its hooks the way its interceptor's
/// PreferCalli said when it was added) and applies it as that owner's next generation, through the internal
/// path that needs only the profiler (a disposed interceptor still reaches it, so hooks never become
/// impossible to remove); the last removal on a target removes that owner's
/// patch, which gives the original body back (or, under the profiler's owner rule, the most recent body
/// another owner set). A change commits only when the profiler took it: on any failure the sets stay as they
/// were. Changes run one at a time (one gate; the generations they apply take each target's own gate inside).
/// A set is reserved in its owner before it is applied, under the gate, so an owner disposed concurrently
/// either refuses the set or sees it and removes it (its removal waits for the gate).
/// </summary>
internal sealed class HookComposer(PatchOwner hookOwner, SemaphoreSlim gate)
{
    /// <summary>The composer of the process.</summary>
    public static HookComposer Shared { get; } = new(new PatchOwner("hooks (woven bodies)"), new SemaphoreSlim(1, 1));

    private readonly SemaphoreSlim _gate = gate;
    private readonly Lock _read = new();
    private readonly Dictionary<MethodKey, TargetHooks> _targets = new();
    private long _order;

    /// <summary>The internal owner that holds every woven body of the process.</summary>
    public PatchOwner HookOwner { get; } = hookOwner;

    private sealed class TargetHooks(MethodBase target)
    {
        public MethodBase Target { get; } = target;

        public List<WovenPatch> Sets { get; set; } = [];

        public Patch? Held { get; set; }

        public HookComposition? Composition { get; set; }
    }

    /// <summary>A target an addition changes: its entry and its sets with the new ones.</summary>
    private sealed record Touched(TargetHooks Entry, List<WovenPatch> Sets);

    private static MethodKey Key(MethodBase target) => MethodKey.Of(target);

    /// <summary>Adds the sets (already bound) and applies every touched target's new body in one go: one
    /// generation, or one batch for several targets (all or nothing).</summary>
    public async ValueTask<IReadOnlyList<WovenPatch>> AddAsync(IReadOnlyList<WovenPatch> sets, bool synchronous,
        CancellationToken cancellationToken)
    {
        await Enter(synchronous, cancellationToken).ConfigureAwait(false);
        int reserved = 0;
        bool committed = false;
        try
        {
            // Reserved in their owners first: an owner disposed before this refuses them; one disposed after
            // sees them and removes them once this change is done (its removal waits for the gate).
            for (; reserved < sets.Count; reserved++)
            {
                if (!sets[reserved].Owner.TryAdd(sets[reserved]))
                    sets[reserved].Owner.ThrowIfDisposed();
            }
            // Each target once, in the order of its first set (a table by target: a batch of many targets is
            // not searched once per set).
            var touched = new List<Touched>();
            var byTarget = new Dictionary<MethodKey, Touched>();
            for (int i = 0; i < sets.Count; i++)
            {
                sets[i].Order = _order + i;
                MethodKey key = Key(sets[i].Target);
                if (!byTarget.TryGetValue(key, out Touched? at))
                {
                    TargetHooks entry = Existing(sets[i].Target) ?? new TargetHooks(sets[i].Target);
                    at = new Touched(entry, [.. entry.Sets]);
                    byTarget.Add(key, at);
                    touched.Add(at);
                }
                at.Sets.Add(sets[i]);
            }
            var compositions = new List<HookComposition>(touched.Count);
            foreach (Touched t in touched)
                compositions.Add(Compose(t.Entry.Target, t.Sets));
            PhaseProbe.Mark("composed");
            Interceptor interceptor = sets[0].Interceptor;
            var plans = new List<GenerationPlan>(compositions.Count);
            foreach (HookComposition composition in compositions)
                plans.Add(HookWeaver.Weave(composition));
            PhaseProbe.Mark("woven");
            IReadOnlyList<Patch> patches = await ApplyAll(interceptor, plans, synchronous).ConfigureAwait(false);
            lock (_read)
            {
                for (int i = 0; i < touched.Count; i++)
                {
                    TargetHooks entry = touched[i].Entry;
                    entry.Sets = touched[i].Sets;
                    entry.Held = patches[i];
                    entry.Composition = compositions[i];
                    _targets[Key(entry.Target)] = entry;
                }
            }
            _order += sets.Count;
            foreach (WovenPatch set in sets)
                set.IsInstalled = true;
            committed = true;
            return sets;
        }
        finally
        {
            if (!committed)
            {
                for (int i = 0; i < reserved; i++)
                    sets[i].Owner.Forget(sets[i]);
            }
            _gate.Release();
        }
    }

    /// <summary>Takes the sets out, target by target: the body is woven again from the remaining sets, or the
    /// internal owner's patch is removed when none remain. Every target is attempted; failures are thrown
    /// afterwards (one as itself, several as an AggregateException); a target that failed keeps its sets.</summary>
    public async ValueTask RemoveAsync(IReadOnlyList<WovenPatch> sets, bool synchronous,
        CancellationToken cancellationToken)
    {
        await Enter(synchronous, cancellationToken).ConfigureAwait(false);
        var failures = new List<Exception>();
        try
        {
            foreach (IGrouping<TargetHooks, WovenPatch> group in sets
                         .Where(s => s.IsInstalled && Existing(s.Target) is not null)
                         .GroupBy(s => Existing(s.Target)!))
            {
                TargetHooks entry = group.Key;
                List<WovenPatch> remaining = [.. entry.Sets.Except(group)];
                try
                {
                    if (remaining.Count == 0)
                    {
                        if (entry.Held is { } held)
                        {
                            if (synchronous)
                                held.Remove();
                            else
                                await held.RemoveAsync(CancellationToken.None).ConfigureAwait(false);
                        }
                        lock (_read)
                            _targets.Remove(Key(entry.Target));
                    }
                    else
                    {
                        Interceptor interceptor = Live(group.Concat(remaining));
                        HookComposition composition = Compose(entry.Target, remaining);
                        GenerationPlan plan = HookWeaver.Weave(composition);
                        Patch patch = (await ApplyAll(interceptor, [plan], synchronous).ConfigureAwait(false))[0];
                        lock (_read)
                        {
                            entry.Sets = remaining;
                            entry.Held = patch;
                            entry.Composition = composition;
                        }
                    }
                    foreach (WovenPatch set in group)
                    {
                        set.IsInstalled = false;
                        set.Owner.Forget(set);
                    }
                }
                catch (Exception e) when (IsRemovalFailure(e))
                {
                    // This target keeps its sets; the others are still attempted.
                    failures.Add(e);
                }
            }
        }
        finally
        {
            _gate.Release();
        }
        if (failures.Count == 1)
            throw failures[0];
        if (failures.Count > 1)
            throw new AggregateException($"{failures.Count} targets could not be rewoven or restored.", failures);
    }

    /// <summary>What a removal reports instead of stopping: the profiler's refusals, a body that cannot be woven again (NotSupportedException, PlanException),
    /// several of them (AggregateException).</summary>
    internal static bool IsRemovalFailure(Exception e) =>
        e is InterceptionException or InvalidOperationException or NotSupportedException or AggregateException;

    /// <summary>The interceptor that applies a change: the first of `sets` whose interceptor is not disposed
    /// (any interceptor reaches the same profiler); the first set's when all are (the hooks' path needs only
    /// its profiler, so the change still happens).</summary>
    private static Interceptor Live(IEnumerable<WovenPatch> sets)
    {
        Interceptor? first = null;
        foreach (WovenPatch set in sets)
        {
            if (!set.Interceptor.IsDisposed)
                return set.Interceptor;
            first ??= set.Interceptor;
        }
        return first!;
    }

    public string Describe(MethodBase target)
    {
        lock (_read)
        {
            return _targets.GetValueOrDefault(Key(target))?.Composition?.Describe() ??
                   $"hooks on {Names.Of(target)}: none";
        }
    }

    public GenerationInfo? ReadLastGeneration(MethodBase target)
    {
        Patch? held;
        lock (_read)
            held = _targets.GetValueOrDefault(Key(target))?.Held;
        return held?.ReadLastGeneration();
    }

    public PatchTelemetry? ReadTelemetry(MethodBase target)
    {
        Patch? held;
        lock (_read)
            held = _targets.GetValueOrDefault(Key(target))?.Held;
        return held?.ReadTelemetry();
    }

    private TargetHooks? Existing(MethodBase target)
    {
        lock (_read)
            return _targets.GetValueOrDefault(Key(target));
    }

    private static HookComposition Compose(MethodBase target, List<WovenPatch> sets) =>
        HookComposition.Compose(target, [.. sets.Select(s => s.Info)]);

    /// <summary>The plans as the internal owner's next generations: one generation, or one batch (all or
    /// nothing), through the interceptor's path that does not need it undisposed.</summary>
    private async ValueTask<IReadOnlyList<Patch>> ApplyAll(Interceptor interceptor, List<GenerationPlan> plans,
        bool synchronous)
    {
        if (plans.Count == 1)
            return [await interceptor.ApplyForHooks(plans[0], HookOwner, synchronous).ConfigureAwait(false)];
        return await interceptor.ApplyManyForHooks(plans, HookOwner, synchronous).ConfigureAwait(false);
    }

    private async ValueTask Enter(bool synchronous, CancellationToken cancellationToken)
    {
        if (synchronous)
            _gate.Wait(cancellationToken);
        else
            await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
    }
}
