using System.Reflection;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception;

/// <summary>
/// One owner's hook set on one target (from one <see cref="Interceptor.Hook"/> call, or one patch class's
/// hooks on one of its targets): its transpilers, prefixes, postfixes and finalizers, composed with every
/// other owner's into the target's original IL. <see cref="Remove"/> (or Dispose, or disposing the owner) takes them out: the
/// target's body is woven again from the remaining sets, or gets its original back when none remain.
/// </summary>
public sealed class WovenPatch : IDisposable, IAsyncDisposable
{
    internal WovenPatch(Interceptor interceptor, HookComposer composer, MethodBase target, PatchOwner owner, BoundSet bound, string label,
        IReadOnlyList<BoundTranspiler>? transpilers = null, IReadOnlyList<BoundInfix>? infixes = null)
    {
        BoundInfixes = infixes ?? [];
        BoundTranspilers = transpilers ?? [];
        Interceptor = interceptor;
        Composer = composer;
        Target = target;
        Owner = owner;
        Bound = bound;
        Label = label;
        PreferCalli = interceptor.PreferCalli;
    }

    /// <summary>The hooked method (for a generic target, its definition: the hooks run in every instantiation).</summary>
    public MethodBase Target { get; }

    /// <summary>The owner that holds these hooks.</summary>
    public PatchOwner Owner { get; }

    /// <summary>The prefixes of this set.</summary>
    public IReadOnlyList<HookMethod> Prefixes => [.. Bound.Prefixes.Select(h => h.Hook)];

    /// <summary>The postfixes of this set.</summary>
    public IReadOnlyList<HookMethod> Postfixes => [.. Bound.Postfixes.Select(h => h.Hook)];

    /// <summary>The finalizers of this set.</summary>
    public IReadOnlyList<HookMethod> Finalizers => [.. Bound.Finalizers.Select(h => h.Hook)];

    /// <summary>The transpilers of this set.</summary>
    public IReadOnlyList<HookMethod> Transpilers => [.. BoundTranspilers.Select(t => t.Hook)];

    /// <summary>The inner prefixes of this set (run before a call inside the target; <see cref="Interceptor.HookCall"/>).</summary>
    public IReadOnlyList<HookMethod> InnerPrefixes => [.. BoundInfixes.Where(f => f.IsPrefix).Select(f => f.Hook)];

    /// <summary>The inner postfixes of this set (run after a call inside the target).</summary>
    public IReadOnlyList<HookMethod> InnerPostfixes => [.. BoundInfixes.Where(f => !f.IsPrefix).Select(f => f.Hook)];

    /// <summary>Whether these hooks are woven into the target now (no call to the profiler: it changes only
    /// through this library).</summary>
    public bool IsInstalled { get; internal set; }

    /// <summary>Takes these hooks out of the target: its body is woven again from the other sets (of any owner)
    /// on it, or gets its original body back when this was the last. Does nothing when already removed.</summary>
    /// <exception cref="PatchException">The profiler refused or failed the new body or the restoring ReJIT (the
    /// hooks stay).</exception>
    public void Remove() => Interceptor.Completed(Composer.RemoveAsync([this], synchronous: true, CancellationToken.None));

    /// <summary><see cref="Remove"/> without blocking the calling thread on the profiler's worker.</summary>
    /// <param name="cancellationToken">Stops the waiting (the removal, once queued, still happens).</param>
    /// <returns>A task that completes when the hooks are out.</returns>
    public Task RemoveAsync(CancellationToken cancellationToken = default) =>
        Interceptor.Detached(Composer.RemoveAsync([this], synchronous: false, cancellationToken), cancellationToken);

    /// <summary>Same as <see cref="Remove"/>.</summary>
    public void Dispose() => Remove();

    /// <summary>Same as <see cref="RemoveAsync"/>.</summary>
    /// <returns>A task that completes when the hooks are out.</returns>
    public ValueTask DisposeAsync() => new(RemoveAsync());

    /// <summary>The profiler's result for the latest generation of the target's composed body (every owner's
    /// hooks): Requested until the target's next call compiles it, then Active (or Failed); null once no hooks
    /// remain on the target or the profiler no longer has it.</summary>
    /// <returns>The generation's state, or null.</returns>
    public GenerationInfo? ReadLastGeneration() => Composer.ReadLastGeneration(Target);

    /// <summary>The profiler's telemetry for the patch that holds the target's composed body (every owner's
    /// hooks), read with one call: its state, ReJIT callbacks and, for a target the JIT inlines, its carrier
    /// and the callers redirected to it (<see cref="PatchTelemetry.CarrierState"/>); null once no hooks remain
    /// on the target.</summary>
    /// <returns>The snapshot, or null.</returns>
    public PatchTelemetry? ReadTelemetry() => Composer.ReadTelemetry(Target);

    /// <summary>The composed order on the target now: per kind, each hook with its owner and priority, in the
    /// order they run.</summary>
    /// <returns>One line per hook, after a line naming the target.</returns>
    public string DescribeComposition() => Composer.Describe(Target);

    /// <inheritdoc/>
    public override string ToString() =>
        $"{Names.Of(Target)} <- {Label}: {Bound.Prefixes.Count} prefix(es), {Bound.Postfixes.Count} postfix(es), " +
        $"{Bound.Finalizers.Count} finalizer(s), {BoundTranspilers.Count} transpiler(s) [{(IsInstalled ? "installed" : "removed")}, {Owner.Name}]";

    internal HookComposer Composer { get; }

    /// <summary>The interceptor that added the set (changes go through it while it is not disposed).</summary>
    internal Interceptor Interceptor { get; }

    internal BoundSet Bound { get; }

    internal IReadOnlyList<BoundTranspiler> BoundTranspilers { get; }

    internal IReadOnlyList<BoundInfix> BoundInfixes { get; }

    /// <summary>Where the set came from: "Hook call" or the patch class's name.</summary>
    internal string Label { get; }

    /// <summary>The adding interceptor's <see cref="Interceptor.PreferCalli"/> when the set was added: every
    /// later weave calls this set's hooks through their entry points when true, whichever interceptor reweaves.</summary>
    internal bool PreferCalli { get; }

    /// <summary>Install order, given by the composer when the set is added.</summary>
    internal long Order { get; set; }

    internal HookSetInfo Info => new(Bound, Owner.Name, Order, Label, PreferCalli, BoundTranspilers)
    {
        Infixes = BoundInfixes,
    };
}
