using System.Reflection;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

/// <summary>
/// One owner's patch on one method: made by <see cref="Interceptor.Install"/> (exact dispatch
/// to a replacement method) or <see cref="Interceptor.Apply"/> (a new body from a
/// <see cref="GenerationPlan"/>). Switch it with <see cref="Replace"/> or <see cref="Apply"/>;
/// <see cref="Remove"/> (or Dispose) gives the original back once no other owner holds the target.
/// </summary>
public sealed class Patch : IDisposable
{
    private readonly Interceptor _interceptor;
    private PatchTelemetry? _lastTelemetry;

    internal Patch(Interceptor interceptor, NativePatch native, PatchOwner owner, MethodBase target)
    {
        _interceptor = interceptor;
        Native = native;
        Owner = owner;
        Target = target;
    }

    /// <summary>The patched method.</summary>
    public MethodBase Target { get; }

    /// <summary>The owner that holds this patch.</summary>
    public PatchOwner Owner { get; }

    /// <summary>The replacement this owner installed last (null when a plan is in force).</summary>
    public MethodInfo? Replacement { get; internal set; }

    /// <summary>The plan this owner applied last (null when a replacement is in force).</summary>
    public GenerationPlan? Plan { get; internal set; }

    /// <summary>This owner's latest generation (0 for exact dispatch, whose generations the
    /// profiler keeps to itself).</summary>
    public ulong GenerationId { get; internal set; }

    /// <summary>Whether this owner still holds the patch (no call to the profiler: it changes only
    /// through this library). What the profiler makes of it is in <see cref="ReadTelemetry"/>.</summary>
    public bool IsInstalled => !IsRemoved;

    /// <summary>One snapshot of the profiler's telemetry for the target's patch (shared by all its
    /// owners), read with one call: its state, ReJIT callback counts, HRESULTs and elapsed times.
    /// <see cref="PatchTelemetry.State"/> is <see cref="PatchState.Removed"/> once this owner removed
    /// it (even while other owners still hold the target; Unloaded and Failed stay as they are).
    /// Once the profiler has recycled the patch, the last snapshot read.</summary>
    public PatchTelemetry ReadTelemetry()
    {
        PatchTelemetry? now = _interceptor.Native.Telemetry(Native.Handle);
        if (now is not null)
            _lastTelemetry = now;
        PatchTelemetry snapshot = _lastTelemetry ?? new PatchTelemetry { State = IsRemoved ? PatchState.Removed : PatchState.Active };
        return IsRemoved && snapshot.State is not (PatchState.Unloaded or PatchState.Failed or PatchState.Removed)
            ? snapshot with { State = PatchState.Removed }
            : snapshot;
    }

    /// <summary>For a patch whose body came from a plan: the profiler's result for its latest
    /// generation (state, relocation tokens, HResults), read with one call; null for exact dispatch,
    /// or once the profiler no longer has it.</summary>
    public GenerationInfo? ReadLastGeneration() =>
        GenerationId == 0 ? null : _interceptor.Native.Generation(Native.Handle, GenerationId, Lowered);

    /// <summary>Switches the target to another replacement (same signature rules as
    /// <see cref="Interceptor.Install"/>, checked before anything reaches the profiler).</summary>
    /// <exception cref="SignatureMismatchException">The replacement's signature does not fit.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the command.</exception>
    /// <exception cref="InvalidOperationException">This patch was removed.</exception>
    public void Replace(MethodInfo replacement) =>
        Interceptor.Completed(_interceptor.ReplaceCore(this, replacement, synchronous: true, CancellationToken.None));

    /// <summary><see cref="Replace"/> without blocking the calling thread on the profiler's worker
    /// (see <see cref="Interceptor.InstallAsync"/>, also for what cancellation does).</summary>
    public Task ReplaceAsync(MethodInfo replacement, CancellationToken cancellationToken = default) =>
        Interceptor.Detached(_interceptor.ReplaceCore(this, replacement, synchronous: false, cancellationToken),
            cancellationToken);

    /// <summary>Gives the target a new body from <paramref name="plan"/> (a plan for this patch's target).</summary>
    /// <exception cref="PlanException">The plan cannot be lowered.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the generation.</exception>
    public void Apply(GenerationPlan plan)
    {
        CheckPlan(plan);
        _interceptor.Apply(plan, Owner);
    }

    /// <summary><see cref="Apply"/> without blocking the calling thread on the profiler's worker.</summary>
    public Task ApplyAsync(GenerationPlan plan, CancellationToken cancellationToken = default)
    {
        CheckPlan(plan);
        return _interceptor.ApplyAsync(plan, Owner, cancellationToken);
    }

    /// <summary>Drops this owner's hold; the original body returns when no other owner holds the
    /// target. Does nothing when already removed.</summary>
    /// <remarks>While other owners still hold the target, the removal puts back the most recently
    /// set body of a remaining owner (its replacement or its plan's generation), so nothing this
    /// owner put in force keeps running; the remaining owners need no command of their own.</remarks>
    /// <exception cref="PatchException">The runtime refused the restoring ReJIT (the patch stays).</exception>
    public void Remove() =>
        Interceptor.Completed(_interceptor.RemoveCore(this, synchronous: true, CancellationToken.None));

    /// <summary><see cref="Remove"/> without blocking the calling thread on the profiler's worker.
    /// A token that fires once the removal is queued ends the task at once; the removal still
    /// happens, and the patch is marked removed when it does.</summary>
    public Task RemoveAsync(CancellationToken cancellationToken = default) =>
        Interceptor.Detached(_interceptor.RemoveCore(this, synchronous: false, cancellationToken), cancellationToken);

    /// <summary>Same as <see cref="Remove"/>.</summary>
    public void Dispose() => Remove();

    private void CheckPlan(GenerationPlan plan)
    {
        ArgumentNullException.ThrowIfNull(plan);
        if (!SameMethod(plan.Target, Target))
            throw new ArgumentException($"the plan is for {Names.Of(plan.Target)}, this patch for {Names.Of(Target)}",
                nameof(plan));
        if (IsRemoved)
            throw new InvalidOperationException($"this patch on {Names.Of(Target)} was removed; apply the plan " +
                                                "through the Interceptor for a new one");
    }

    /// <inheritdoc/>
    public override string ToString() =>
        $"{Names.Of(Target)} -> " +
        (Plan is not null ? $"plan{(Plan.Name is null ? "" : $" '{Plan.Name}'")}"
            : Lowered is not null ? $"generation{(GenerationName is null ? "" : $" '{GenerationName}'")}"
            : Replacement is not null ? Names.Of(Replacement) : "?") +
        $" [{(IsRemoved ? "removed" : "installed")}, {Owner.Name}{DispatchText}]";

    /// <summary>", direct call", ", calli" or ", calli (direct call refused: Status)": the path this
    /// owner's replacement took; empty once removed, and for generations.</summary>
    private string DispatchText =>
        IsRemoved || Replacement is null || Plan is not null || Lowered is not null ? ""
        : _dispatch switch
        {
            DispatchPath.DirectCall => ", direct call",
            DispatchPath.Calli when _dispatchFallback != InterceptionStatus.Ok =>
                $", calli (direct call refused: {_dispatchFallback})",
            DispatchPath.Calli => ", calli",
            _ => "",
        };

    private DispatchPath _dispatch;
    private InterceptionStatus _dispatchFallback;

    /// <summary>Remembers the path the replacement's install or replace took (for ToString).</summary>
    internal void NoteDispatch(PatchTelemetry? telemetry)
    {
        _dispatch = telemetry?.DispatchPath ?? DispatchPath.None;
        _dispatchFallback = telemetry?.DispatchFallback ?? InterceptionStatus.Ok;
    }

    internal NativePatch Native { get; }

    internal bool IsRemoved { get; private set; }

    internal LoweredGeneration? Lowered { get; set; }

    /// <summary>The name of the generation in force when it came without a plan (hot reload).</summary>
    internal string? GenerationName { get; set; }

    internal void MarkRemoved(PatchTelemetry? final)
    {
        if (final is not null)
            _lastTelemetry = final;
        IsRemoved = true;
    }

    internal static bool SameMethod(MethodBase a, MethodBase b) =>
        a.Module == b.Module && a.MetadataToken == b.MetadataToken;
}
