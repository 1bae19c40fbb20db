using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Native;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

// Many targets in one request: InstallMany and InstallManyAsync; ApplyMany and ApplyManyAsync. The
// single commands (Install, Apply, a hook's one target) are batches of one through the same paths.
public sealed partial class Interceptor
{
    /// <summary>
    /// Installs every pair as <see cref="Install"/> does (the direct call where it can work, as
    /// <see cref="PreferCalli"/> says), all or nothing, in one command to the
    /// profiler (one ReJIT request for all targets and their inliners): a mod loader's or a
    /// patch set's thousand targets cost one round trip. Every pair is checked first, on this
    /// thread; when any is refused, nothing reaches the profiler and one exception lists every
    /// refused pair. The profiler then checks every target against its loaded method before it
    /// publishes any body: one failure rejects the batch, and nothing is installed. Blocks until
    /// the worker ran the command (at most <see cref="CommandTimeout"/>); <see cref="InstallManyAsync"/> does not.
    /// </summary>
    /// <param name="pairs">Each target with its replacement, as for <see cref="Install"/>; at most
    /// <c>ALVK_MAX_BATCH_REQUESTS</c> (4,096), each target once.</param>
    /// <param name="owner">The owner of every patch; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>The patches, active, in the order of <paramref name="pairs"/> (empty for no pairs).</returns>
    /// <exception cref="BatchInstallException">Some pairs were refused (by this library or by the
    /// profiler), or the profiler refused the batch as a whole (its <see cref="InterceptionException.Status"/>,
    /// for example <see cref="InterceptionStatus.QueueFull"/>): nothing was installed;
    /// <see cref="BatchInstallException.Refusals"/> says which pairs and why.</exception>
    /// <exception cref="ArgumentException">A pair has a null method, or there are more than 4,096.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The wait for the batch's command ended first
    /// (<see cref="InterceptionStatus.Timeout"/>); the command may still complete.</exception>
    public IReadOnlyList<Patch> InstallMany(IEnumerable<(MethodBase Target, MethodInfo Replacement)> pairs,
        PatchOwner? owner = null) =>
        Completed(InstallManyCore(pairs, owner, synchronous: true, CancellationToken.None));

    /// <summary><see cref="InstallMany"/> without blocking the calling thread on the profiler's
    /// worker (see <see cref="InstallAsync"/>).</summary>
    /// <param name="pairs">As for <see cref="InstallMany"/>.</param>
    /// <param name="owner">As for <see cref="InstallMany"/>.</param>
    /// <param name="cancellationToken">Stops the waiting, as for <see cref="InstallAsync"/>.</param>
    /// <returns>The patches; the task fails with the exceptions <see cref="InstallMany"/> throws.</returns>
    public Task<IReadOnlyList<Patch>> InstallManyAsync(IEnumerable<(MethodBase Target, MethodInfo Replacement)> pairs,
        PatchOwner? owner = null, CancellationToken cancellationToken = default) =>
        Detached(InstallManyCore(pairs, owner, synchronous: false, cancellationToken), cancellationToken);

    /// <summary>
    /// Applies every plan as <see cref="Apply"/> does, all or nothing, as ONE batch of
    /// generations (alvk_generation_submit_batch: one command, one ReJIT request for every target
    /// and its inliners). Every plan is lowered and checked first, on this thread; when any is
    /// refused, nothing reaches the profiler and one exception lists every refused plan. The
    /// profiler then checks and emits every generation before it publishes any body: one failure
    /// rejects the batch, and every target keeps the body it had. A stale answer (another
    /// component moved a target's chain meanwhile) is retried once, from a fresh look, as
    /// <see cref="Apply"/> does.
    /// </summary>
    /// <param name="plans">The plans, each target once; at most <c>ALVK_MAX_BATCH_REQUESTS</c> (4,096).</param>
    /// <param name="owner">The owner of every patch; null: <see cref="DefaultOwner"/>. A target the
    /// owner already holds gets the new generation on that patch, as with <see cref="Apply"/>.</param>
    /// <returns>The patches, in the order of <paramref name="plans"/> (empty for no plans).</returns>
    /// <exception cref="BatchInstallException">Some plans were refused (by this library or by the
    /// profiler), or the profiler refused the batch as a whole: nothing was applied;
    /// <see cref="BatchInstallException.Refusals"/> says which plans and why (each reason the
    /// exception <see cref="Apply"/> would throw for it).</exception>
    /// <exception cref="ArgumentException">A plan is null, or there are more than 4,096.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    public IReadOnlyList<Patch> ApplyMany(IEnumerable<GenerationPlan> plans, PatchOwner? owner = null) =>
        Completed(ApplyManyCore(plans, owner, synchronous: true, CancellationToken.None));

    /// <summary><see cref="ApplyMany"/> without blocking the calling thread on the profiler's
    /// worker (see <see cref="ApplyAsync"/>).</summary>
    /// <param name="plans">As for <see cref="ApplyMany"/>.</param>
    /// <param name="owner">As for <see cref="ApplyMany"/>.</param>
    /// <param name="cancellationToken">Stops the waiting, as for <see cref="ApplyAsync"/>.</param>
    /// <returns>The patches; the task fails with the exceptions <see cref="ApplyMany"/> throws.</returns>
    public Task<IReadOnlyList<Patch>> ApplyManyAsync(IEnumerable<GenerationPlan> plans, PatchOwner? owner = null,
        CancellationToken cancellationToken = default) =>
        Detached(ApplyManyCore(plans, owner, synchronous: false, cancellationToken), cancellationToken);

    private async ValueTask<IReadOnlyList<Patch>> ApplyManyCore(IEnumerable<GenerationPlan> plans, PatchOwner? owner,
        bool synchronous, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(plans);
        ThrowIfDisposed();
        return await ApplyManyUnchecked(plans, owner ?? DefaultOwner, synchronous, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The hooks' batch path: as <see cref="ApplyMany"/>, even through a disposed interceptor (see
    /// <see cref="ApplyForHooks"/>).</summary>
    internal ValueTask<IReadOnlyList<Patch>> ApplyManyForHooks(IEnumerable<GenerationPlan> plans, PatchOwner owner,
        bool synchronous) =>
        ApplyManyUnchecked(plans, owner, synchronous, CancellationToken.None);

    private async ValueTask<IReadOnlyList<Patch>> ApplyManyUnchecked(IEnumerable<GenerationPlan> plans, PatchOwner owner,
        bool synchronous, CancellationToken cancellationToken)
    {
        owner.ThrowIfDisposed();
        List<GenerationPlan> batch = [.. plans];
        if (batch.Count == 0)
            return [];
        if (batch.Count > AlvkConstants.MaxBatchRequests)
            throw new ArgumentException(
                $"A batch holds at most {AlvkConstants.MaxBatchRequests} plans; this one has {batch.Count}. Split it.", nameof(plans));
        for (int i = 0; i < batch.Count; i++)
            if (batch[i] is null)
                throw new ArgumentException($"Plan {i} is null.", nameof(plans));
        // Every plan lowered and checked (the stack-type check included) on this thread, each target once.
        var lowered = new LoweredGeneration[batch.Count];
        var refusals = new List<BatchRefusal>();
        var seen = new Dictionary<MethodKey, int>();
        for (int i = 0; i < batch.Count; i++)
        {
            MethodBase target = batch[i].Target;
            try
            {
                lowered[i] = batch[i].Lower();
            }
            catch (Exception e) when (e is PlanException or StackTypeMismatchException or SignatureMismatchException
                                          or NotSupportedException)
            {
                refusals.Add(new BatchRefusal(i, target, null, e));
                continue;
            }
            if (!seen.TryAdd(MethodKey.Of(target), i))
                refusals.Add(new BatchRefusal(i, target, null, new ArgumentException(
                    $"{Names.Of(target)} is also plan {seen[MethodKey.Of(target)]}: a batch names each target once.")));
        }
        ThrowIfRefused(refusals, batch.Count, null, plans: true);
        PhaseProbe.Mark("lowered");
        return await ApplyLoweredMany([.. batch.Select((p, i) => new LoweredEntry(p.Target, lowered[i], p.Name, p))], owner,
                                      synchronous, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>One target of a batch of generations: its lowered body, the name the patch
    /// gives it, and the plan it was lowered from (null: a body from elsewhere, such as a reload).</summary>
    internal sealed record LoweredEntry(MethodBase Target, LoweredGeneration Lowered, string? Name, GenerationPlan? Plan);

    /// <summary>The one batch path of generations (ApplyMany, hooks, hot reload): every target's
    /// gate taken in one order, every target described, then ONE alvk_generation_submit_batch
    /// (all or nothing, one ReJIT request for every target and its inliners), retried once on a
    /// stale chain, and each patch adopted. Each target once (the caller checked).
    /// <para>A <paramref name="rehearsal"/> (a hot reload's, before the first update) runs the same path up to
    /// the profiler's worker and applies nothing: its batch is submitted under owner 0, which the profiler refuses
    /// at the call for every generation (InvalidOwner) before it queues anything, its wait (for no command) looks
    /// once after a delay, and it returns no patch.</para></summary>
    internal async ValueTask<IReadOnlyList<Patch>> ApplyLoweredMany(IReadOnlyList<LoweredEntry> batch, PatchOwner owner,
        bool synchronous, CancellationToken cancellationToken, bool rehearsal = false)
    {
        owner.ThrowIfDisposed();
        if (batch.Count == 0)
            return [];
        var refusals = new List<BatchRefusal>();
        LoweredGeneration[] lowered = [.. batch.Select(e => e.Lowered)];
        EnsurePatchingEnabled();
        SemaphoreSlim[] gates = GatesInOrder(batch, p => p.Target);
        int entered = 0;
        try
        {
            for (; entered < gates.Length; entered++)
                await Enter(gates[entered], synchronous, cancellationToken).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            var descriptions = new MethodDescription[batch.Count];
            var described = new InterceptionStatus[batch.Count];
            DescribeAll(batch.Count, i => batch[i].Target, descriptions, described);
            PhaseProbe.Mark("described");
            for (int i = 0; i < batch.Count; i++)
                if (described[i] != InterceptionStatus.Ok)
                    refusals.Add(new BatchRefusal(i, batch[i].Target, null,
                        Failure(described[i], batch[i].Target, Doing(batch[i]))));
            ThrowIfRefused(refusals, batch.Count, refusals.Count > 0 && refusals[0].Reason is InterceptionException e
                ? e.Status : null, plans: true);
            var handles = new ulong[batch.Count];
            var ids = new ulong[batch.Count];
            var statuses = new InterceptionStatus[batch.Count];
            for (int attempt = 0; ; attempt++)
            {
                // Each prior is the target's patch's latest generation, as its telemetry reports it.
                var entries = new NativeProfiler.BatchEntry[batch.Count];
                for (int i = 0; i < batch.Count; i++)
                {
                    NativePatch? native = PatchRegistry.Find(batch[i].Target);
                    entries[i] = new NativeProfiler.BatchEntry(lowered[i], descriptions[i],
                        native is null ? 0 : Native.LatestGeneration(native.Handle));
                }
                InterceptionStatus rc = Native.SubmitBatch(entries, rehearsal ? 0 : owner.Id, handles, ids, statuses,
                                                           out ulong command);
                PhaseProbe.Mark("submitted");
                if (rehearsal)
                {
                    // Both ways a wait ends: at once (the first look answers: no command), and after
                    // the blocking wait and a timer step, as for a command the worker has not finished.
                    _ = await WaitFor(command).ConfigureAwait(false);
                    _ = await WaitFor(command, rehearsal: true).ConfigureAwait(false);
                    return [];
                }
                // Another component moved a chain between the look and the submission (at the
                // call), or a command still queued did (on the worker): once more, from a fresh look.
                if (rc == InterceptionStatus.StaleGeneration && attempt == 0)
                    continue;
                if (rc != InterceptionStatus.Ok)
                    throw PlanRefusal(batch, statuses, rc, null, null, (descriptions, owner.Id));
                rc = synchronous ? WaitBlocking(command) : await WaitFor(command).ConfigureAwait(false);
                PhaseProbe.Mark("answered");
                if (rc == InterceptionStatus.StaleGeneration && attempt == 0)
                {
                    for (int i = 0; i < batch.Count; i++)
                        PatchRegistry.Track(batch[i].Target, handles[i]);
                    continue;
                }
                if (rc == InterceptionStatus.Ok)
                    break;
                if (rc == InterceptionStatus.Timeout)
                    throw batch.Count == 1 ? Failure(rc, batch[0].Target, Doing(batch[0]), handles[0])
                        : Failure(rc, batch[0].Target, "Applying a batch of plans including");
                throw PlanRefusal(batch, statuses, rc, handles, ids);
            }
            var patches = new Patch[batch.Count];
            for (int i = 0; i < batch.Count; i++)
            {
                NativePatch native = PatchRegistry.Track(batch[i].Target, handles[i]);
                Patch? patch = native.HeldBy(owner);
                if (patch is null)
                {
                    patch = new Patch(this, native, owner, batch[i].Target);
                    Hold(native, patch);
                }
                patch.Plan = batch[i].Plan;
                patch.GenerationName = batch[i].Name;
                patch.Replacement = null;
                patch.Lowered = lowered[i];
                patch.GenerationId = ids[i];
                patches[i] = patch;
            }
            PhaseProbe.Mark("adopted");
            return patches;
        }
        finally
        {
            for (int i = 0; i < entered; i++)
                gates[i].Release();
        }
    }

    // The profiler refused a batch of plans (at the call, or on the worker when `ids` are given):
    // every plan with its own status and, from the worker, its generation's result (those that
    // were fine went down with it: BatchAborted).
    // At the call, an entry that holds its own status is validated alone (alvk_generation_validate)
    // to name its failing relocation, as Apply does.
    private BatchInstallException PlanRefusal(IReadOnlyList<LoweredEntry> batch, InterceptionStatus[] statuses,
        InterceptionStatus status, ulong[]? handles, ulong[]? ids, (MethodDescription[] Descriptions, ulong Owner)? atCall = null)
    {
        LoweredGeneration[] lowered = [.. batch.Select(e => e.Lowered)];
        if (status.IsStartupRefusal())
            throw Refused(status);
        var refusals = new List<BatchRefusal>();
        for (int i = 0; i < batch.Count; i++)
        {
            MethodBase target = batch[i].Target;
            GenerationInfo? result = handles is null || ids is null ? null : Native.Generation(handles[i], ids[i], lowered[i]);
            InterceptionStatus own = result?.Status is { } s && s != InterceptionStatus.Ok ? s
                : statuses[i] == InterceptionStatus.Ok ? status : statuses[i];
            string? detail = result is null ? null : Entry(own, result.FailingIndex, lowered[i]);
            if (atCall is { } call && statuses[i] != InterceptionStatus.Ok &&
                Native.Validate(lowered[i], call.Descriptions[i], 0, call.Owner, out uint failing) == statuses[i])
                detail = Entry(statuses[i], (int)failing, lowered[i]);
            Exception reason = own == InterceptionStatus.StackTypeMismatch && result is not null && batch[i].Plan is { } plan
                ? TypeMismatch(plan, result)
                : Failure(own, target, Doing(batch[i]), handles?[i] ?? 0, result, detail);
            refusals.Add(new BatchRefusal(i, target, null, reason));
        }
        return new BatchInstallException(refusals, batch.Count, status, plans: true);
    }

    private static string Doing(LoweredEntry entry) =>
        entry.Plan is null ? "Applying a generation to" : "Applying a plan to";

    // Every target's gate, always taken in one order (module MVID, token, then the module copy), so two
    // batches cannot deadlock. Sorted with a comparison over the methods (reference-type elements: the
    // framework's shared sort, not a LINQ ordering by value-type keys compiled at its first use).
    private static SemaphoreSlim[] GatesInOrder<T>(IReadOnlyList<T> batch, Func<T, MethodBase> target)
    {
        var targets = new MethodBase[batch.Count];
        for (int i = 0; i < targets.Length; i++)
            targets[i] = target(batch[i]);
        Array.Sort(targets, static (a, b) =>
        {
            int order = a.Module.ModuleVersionId.CompareTo(b.Module.ModuleVersionId);
            if (order == 0)
                order = a.MetadataToken.CompareTo(b.MetadataToken);
            return order != 0 ? order : RuntimeHelpers.GetHashCode(a.Module).CompareTo(RuntimeHelpers.GetHashCode(b.Module));
        });
        var gates = new SemaphoreSlim[targets.Length];
        for (int i = 0; i < targets.Length; i++)
            gates[i] = PatchRegistry.GateOf(targets[i]);
        return gates;
    }

    private static readonly int DescribeThreads = Math.Clamp(Environment.ProcessorCount, 2, 4);

    // Each description is a round trip to the profiler's worker: for a large batch a few threads
    // keep it busy instead of waiting on one at a time; a small one (a hot reload's save) is
    // described in turn, without the thread pool's start-up. The calling thread and a few of the
    // pool's share one counter of the next index (in place of Parallel.For, whose generic loop and
    // event source cost the first call several milliseconds); what a description throws is thrown
    // afterwards, as an AggregateException, as Parallel.For did.
    private void DescribeAll(int count, Func<int, MethodBase> target, MethodDescription[] descriptions,
                             InterceptionStatus[] described)
    {
        if (count < 2 * DescribeThreads)
        {
            for (int i = 0; i < count; i++)
                described[i] = Native.Describe(target(i), out descriptions[i]!);
            return;
        }
        int next = -1, active = 0;
        bool closed = false;
        var gate = new object();
        var failures = new List<Exception>();
        for (int h = 1; h < DescribeThreads; h++)
            ThreadPool.UnsafeQueueUserWorkItem(_ =>
            {
                // A helper that starts after the loop closed has nothing left to do.
                lock (gate)
                {
                    if (closed)
                        return;
                    active++;
                }
                Work();
                lock (gate)
                {
                    active--;
                    Monitor.PulseAll(gate);
                }
            }, null);
        Work();
        // Every index is taken; the helpers still describing finish theirs (none still queued is waited for).
        lock (gate)
        {
            closed = true;
            while (active > 0)
                Monitor.Wait(gate);
        }
        if (failures.Count > 0)
            throw new AggregateException(failures);

        void Work()
        {
            try
            {
                for (int i = Interlocked.Increment(ref next); i < count; i = Interlocked.Increment(ref next))
                    described[i] = Native.Describe(target(i), out descriptions[i]!);
            }
            catch (Exception e)
            {
                lock (failures)
                    failures.Add(e);
                // The others stop at their next index.
                Interlocked.Exchange(ref next, count);
            }
        }
    }

    private async ValueTask<IReadOnlyList<Patch>> InstallManyCore(
        IEnumerable<(MethodBase Target, MethodInfo Replacement)> pairs, PatchOwner? owner, bool synchronous,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(pairs);
        ThrowIfDisposed();
        owner ??= DefaultOwner;
        owner.ThrowIfDisposed();
        List<(MethodBase Target, MethodInfo Replacement)> batch = [.. pairs];
        if (batch.Count == 0)
            return [];
        if (batch.Count > AlvkConstants.MaxBatchRequests)
            throw new ArgumentException(
                $"A batch holds at most {AlvkConstants.MaxBatchRequests} pairs; this one has {batch.Count}. Split it.", nameof(pairs));
        for (int i = 0; i < batch.Count; i++)
            if (batch[i].Target is null || batch[i].Replacement is null)
                throw new ArgumentException($"Pair {i} has a null target or replacement.", nameof(pairs));
        ThrowIfRefused(CheckPairs(batch), batch.Count, null);
        EnsurePatchingEnabled();
        IntPtr[] entries = [.. batch.Select(p => EntryPoint(p.Replacement))];
        // Every target's gate, always taken in one order, so two batches cannot deadlock.
        SemaphoreSlim[] gates = GatesInOrder(batch, p => p.Target);
        int entered = 0;
        try
        {
            for (; entered < gates.Length; entered++)
                await Enter(gates[entered], synchronous, cancellationToken).ConfigureAwait(false);
            cancellationToken.ThrowIfCancellationRequested();
            var refusals = new List<BatchRefusal>();
            for (int i = 0; i < batch.Count; i++)
            {
                (MethodBase target, MethodInfo replacement) = batch[i];
                if (AlreadyHeld(target, owner) is { } held)
                    refusals.Add(new BatchRefusal(i, target, replacement, held));
            }
            ThrowIfRefused(refusals, batch.Count, null);
            var descriptions = new MethodDescription[batch.Count];
            var described = new InterceptionStatus[batch.Count];
            DescribeAll(batch.Count, i => batch[i].Target, descriptions, described);
            for (int i = 0; i < batch.Count; i++)
                if (described[i] != InterceptionStatus.Ok)
                    refusals.Add(new BatchRefusal(i, batch[i].Target, batch[i].Replacement,
                        Failure(described[i], batch[i].Target, "Installing a patch on")));
            ThrowIfRefused(refusals, batch.Count, refusals.Count > 0 && refusals[0].Reason is InterceptionException e ? e.Status : null);
            var handles = new ulong[batch.Count];
            var statuses = new InterceptionStatus[batch.Count];
            NativeProfiler.ReplacementMethod?[] methods = [.. batch.Select(p => MethodOf(p.Target, p.Replacement))];
            InterceptionStatus queued = Native.InstallBatch(descriptions, entries, methods, owner.Id, handles, statuses,
                out ulong command);
            if (queued != InterceptionStatus.Ok)
                throw Refusal(batch, statuses, queued);
            InterceptionStatus result = synchronous ? WaitBlocking(command) : await WaitFor(command).ConfigureAwait(false);
            if (result != InterceptionStatus.Ok)
            {
                for (int i = 0; i < batch.Count; i++)
                    statuses[i] = Native.Telemetry(handles[i])?.LastStatus ?? result;
                throw result != InterceptionStatus.Timeout ? Refusal(batch, statuses, result, handles)
                    : batch.Count == 1 ? Failure(result, batch[0].Target, "Installing a patch on", handles[0])
                    : Failure(result, batch[0].Target, "Installing a batch including");
            }
            var patches = new Patch[batch.Count];
            for (int i = 0; i < batch.Count; i++)
                patches[i] = Adopt(batch[i].Target, batch[i].Replacement, owner, handles[i]);
            return patches;
        }
        finally
        {
            for (int i = 0; i < entered; i++)
                gates[i].Release();
        }
    }

    // The checks Install makes before anything reaches the profiler, for every pair, and each
    // target once.
    private static List<BatchRefusal> CheckPairs(List<(MethodBase Target, MethodInfo Replacement)> batch)
    {
        var refusals = new List<BatchRefusal>();
        var seen = new Dictionary<MethodKey, int>();
        for (int i = 0; i < batch.Count; i++)
        {
            (MethodBase target, MethodInfo replacement) = batch[i];
            try
            {
                ReplacementRules.CheckTarget(target);
                ReplacementRules.Check(target, replacement);
            }
            catch (Exception e) when (e is SignatureMismatchException or NotSupportedException)
            {
                refusals.Add(new BatchRefusal(i, target, replacement, e));
                continue;
            }
            if (!seen.TryAdd(MethodKey.Of(target), i))
                refusals.Add(new BatchRefusal(i, target, replacement, new ArgumentException(
                    $"{Names.Of(target)} is also pair {seen[MethodKey.Of(target)]}: a batch names each target once.")));
        }
        return refusals;
    }

    private static void ThrowIfRefused(List<BatchRefusal> refusals, int count, InterceptionStatus? status,
        bool plans = false)
    {
        if (refusals.Count > 0)
            throw new BatchInstallException(refusals, count, status, plans);
    }

    // The profiler refused the batch: every pair with its own status (those that were fine
    // went down with it: BatchAborted).
    private BatchInstallException Refusal(List<(MethodBase Target, MethodInfo Replacement)> batch,
        InterceptionStatus[] statuses, InterceptionStatus status, ulong[]? handles = null)
    {
        if (status.IsStartupRefusal())
            throw Refused(status);
        var refusals = new List<BatchRefusal>();
        for (int i = 0; i < batch.Count; i++)
        {
            InterceptionStatus own = statuses[i] == InterceptionStatus.Ok ? status : statuses[i];
            refusals.Add(new BatchRefusal(i, batch[i].Target, batch[i].Replacement,
                Failure(own, batch[i].Target, "Installing a patch on", handles?[i] ?? 0)));
        }
        return new BatchInstallException(refusals, batch.Count, status);
    }

    /// <summary>Why <paramref name="owner"/> cannot install on <paramref name="target"/> again, or null.</summary>
    private static InvalidOperationException? AlreadyHeld(MethodBase target, PatchOwner owner) =>
        PatchRegistry.Find(target)?.HeldBy(owner) is { } held
            ? new InvalidOperationException(
                $"{owner.Name} already holds a patch on {Names.Of(target)} ({held}); call Replace on it, or " +
                "install with another PatchOwner.")
            : null;

    /// <summary>The Patch of an install the profiler finished: tracked, its dispatch path noted, held.</summary>
    private Patch Adopt(MethodBase target, MethodInfo replacement, PatchOwner owner, ulong handle)
    {
        NativePatch native = PatchRegistry.Track(target, handle);
        var patch = new Patch(this, native, owner, target) { Replacement = replacement };
        patch.NoteDispatch(Native.Telemetry(handle));
        Hold(native, patch);
        return patch;
    }
}
