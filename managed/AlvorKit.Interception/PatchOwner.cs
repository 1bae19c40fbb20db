namespace AlvorKit.Interception;

/// <summary>
/// An owner scope: every patch installed with it is removed together when it is disposed.
/// Several owners may hold a patch on the same target: each install or plan joins the target's
/// patch (the newest body set is in force; when its owner leaves while others remain, the most
/// recently set body of a remaining owner, its replacement or its plan's generation, comes
/// back), and the original body returns only when the last owner removes it.
/// </summary>
/// <example>
/// <code>
/// using var tweaks = new PatchOwner("boss fight tweaks");
/// interceptor.Install(bossUpdate, typeof(Tweaks).GetMethod(nameof(Tweaks.SlowBoss))!, tweaks);
/// interceptor.Install(bossDamage, typeof(Tweaks).GetMethod(nameof(Tweaks.HalfDamage))!, tweaks);
/// // ... play ...
/// // leaving the scope removes both patches
/// </code>
/// </example>
public sealed class PatchOwner : IDisposable, IAsyncDisposable
{
    // Owner IDs: a random base, so they do not collide with IDs other components choose, plus
    // a counter, so they are unique in the process. The profiler reserves 0. Not cryptographic
    // randomness: on Linux that loads OpenSSL (libssl), which the API must not need (a
    // linux-arm64 game without libssl aborted in this initializer).
#pragma warning disable CA5394 // an ID base, not a secret
    private static readonly ulong Base = (ulong)Random.Shared.Next(1, int.MaxValue) << 24;
#pragma warning restore CA5394
    private static long _next;

    private readonly Lock _gate = new();
    private readonly List<Patch> _patches = [];
    private readonly List<WovenPatch> _woven = [];
    private bool _disposed;

    /// <summary>A new owner.</summary>
    /// <param name="name">A name for messages and logs.</param>
    public PatchOwner(string? name = null)
    {
        Id = Base + (ulong)Interlocked.Increment(ref _next);
        Name = name ?? $"owner 0x{Id:X}";
    }

    /// <summary>The owner's name.</summary>
    public string Name { get; }

    /// <summary>The owner ID the profiler sees (nonzero, unique in the process).</summary>
    public ulong Id { get; }

    /// <summary>Whether <see cref="Dispose"/> was called.</summary>
    public bool IsDisposed => _disposed;

    /// <summary>The patches this owner holds now.</summary>
    public IReadOnlyList<Patch> Patches
    {
        get
        {
            lock (_gate)
                return [.. _patches];
        }
    }

    /// <summary>The hook sets (<see cref="Interceptor.Hook"/>, <see cref="Interceptor.PatchAll(Type, PatchOwner?)"/>)
    /// this owner holds now.</summary>
    public IReadOnlyList<WovenPatch> WovenPatches
    {
        get
        {
            lock (_gate)
                return [.. _woven];
        }
    }

    /// <summary>Removes every patch and every hook set this owner holds (each target gets its
    /// original body back unless another owner still holds it; a target with other owners' hooks
    /// is woven again without this owner's). Every one is attempted; failures are thrown
    /// together afterwards as an AggregateException of PatchExceptions.</summary>
    public void Dispose() => Interceptor.Completed(DisposeCore(synchronous: true));

    /// <summary><see cref="Dispose"/> without blocking the calling thread on the profiler's worker
    /// (<c>await using var owner = new PatchOwner("console");</c>): every patch is removed with
    /// <see cref="Patch.RemoveAsync"/>, one after the other; failures are thrown together
    /// afterwards as an AggregateException of PatchExceptions.</summary>
    public ValueTask DisposeAsync() => DisposeCore(synchronous: false);

    // Both disposals: the patches taken once, removed newest first, every failure kept.
    private async ValueTask DisposeCore(bool synchronous)
    {
        List<Patch> patches;
        List<WovenPatch> woven;
        lock (_gate)
        {
            if (_disposed)
                return;
            _disposed = true;
            patches = [.. _patches];
            woven = [.. _woven];
        }
        var failures = new List<Exception>();
        // Hook sets first, one removal per interceptor (each target woven again once).
        foreach (IGrouping<Hooks.HookComposer, WovenPatch> sets in woven.GroupBy(w => w.Composer))
        {
            try
            {
                if (synchronous)
                    Interceptor.Completed(sets.Key.RemoveAsync([.. sets], synchronous: true, CancellationToken.None));
                else
                    await sets.Key.RemoveAsync([.. sets], synchronous: false, CancellationToken.None).ConfigureAwait(false);
            }
            catch (AggregateException e)
            {
                failures.AddRange(e.InnerExceptions);
            }
            catch (Exception e) when (Hooks.HookComposer.IsRemovalFailure(e))
            {
                failures.Add(e);
            }
        }
        for (int i = patches.Count - 1; i >= 0; i--)
        {
            try
            {
                if (synchronous)
                    patches[i].Remove();
                else
                    await patches[i].RemoveAsync().ConfigureAwait(false);
            }
            catch (PatchException e)
            {
                failures.Add(e);
            }
        }
        if (failures.Count > 0)
            throw new AggregateException($"{Name}: {failures.Count} of {patches.Count + woven.Count} patches could not be removed.",
                failures);
    }

    /// <inheritdoc/>
    public override string ToString() => Name;

    internal void ThrowIfDisposed()
    {
        if (_disposed)
            throw new ObjectDisposedException(Name, $"the patch owner '{Name}' was disposed; create a new one");
    }

    internal void Add(Patch patch)
    {
        lock (_gate)
            _patches.Add(patch);
    }

    internal void Forget(Patch patch)
    {
        lock (_gate)
            _patches.Remove(patch);
    }

    /// <summary>Reserves a hook set before it is applied (false, nothing added, once disposed): checked and
    /// added under the owner's lock, so <see cref="Dispose"/> either comes first (the set is refused) or
    /// sees the set and removes it.</summary>
    internal bool TryAdd(WovenPatch woven)
    {
        lock (_gate)
        {
            if (_disposed)
                return false;
            _woven.Add(woven);
            return true;
        }
    }

    internal void Forget(WovenPatch woven)
    {
        lock (_gate)
            _woven.Remove(woven);
    }
}
