using System.Reflection;
using System.Runtime.CompilerServices;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// One live native patch (one per target, shared by every owner that holds it). Its generation
/// chain lives in the profiler: the latest generation is read from the patch's telemetry.
/// <see cref="Holders"/> changes only under the target's gate.
/// </summary>
internal sealed class NativePatch(MethodBase target, ulong handle)
{
    public MethodBase Target { get; } = target;

    public ulong Handle { get; } = handle;

    public List<Patch> Holders { get; } = [];

    /// <summary>The patch <paramref name="owner"/> holds on the target, or null (a loop: no
    /// framework generic method over Patch to instantiate at a process's first adoption).</summary>
    public Patch? HeldBy(PatchOwner? owner)
    {
        for (int i = 0; i < Holders.Count; i++)
            if (Holders[i].Owner == owner)
                return Holders[i];
        return null;
    }
}

/// <summary>
/// The live native patches this process made through this library, by target (a method of one
/// module copy), and one gate per target. A command holds its target's gate from the look at
/// the target's patch to the bookkeeping after the profiler's result, so two commands on one
/// target run one after the other; commands on different targets do not wait for each other
/// (the profiler takes concurrent commands from any thread). The table's own lock is held only
/// for a lookup or an update, never across a wait.
/// </summary>
internal static class PatchRegistry
{
    private static readonly Lock TableGate = new();

    // By module copy, not MVID: one assembly loaded in two AssemblyLoadContexts has two copies
    // of every method, and each is a target (and a native patch) of its own.
    private static readonly Dictionary<MethodKey, NativePatch> Live = new();

    // A gate per target, created on first use and kept while its module lives (by token, under
    // the table's lock: the framework's dictionary over int keys is precompiled, its concurrent
    // one is not).
    private static readonly ConditionalWeakTable<Module, Dictionary<int, SemaphoreSlim>> Gates = new();

    private static MethodKey Key(MethodBase target) => MethodKey.Of(target);

    /// <summary>The gate every command on `target` holds while it runs.</summary>
    public static SemaphoreSlim GateOf(MethodBase target)
    {
        Dictionary<int, SemaphoreSlim> gates = Gates.GetValue(target.Module, _ => new Dictionary<int, SemaphoreSlim>());
        int token = target.MetadataToken;
        lock (gates)
        {
            if (!gates.TryGetValue(token, out SemaphoreSlim? gate))
                gates.Add(token, gate = new SemaphoreSlim(1, 1));
            return gate;
        }
    }

    public static NativePatch? Find(MethodBase target)
    {
        lock (TableGate)
            return Live.GetValueOrDefault(Key(target));
    }

    /// <summary>The native patch `handle` names for `target`, tracked from now on (a handle that
    /// differs from the tracked one means the old patch ended and a new one began).</summary>
    public static NativePatch Track(MethodBase target, ulong handle)
    {
        lock (TableGate)
        {
            if (Live.TryGetValue(Key(target), out NativePatch? known) && known.Handle == handle)
                return known;
            var fresh = new NativePatch(target, handle);
            Live[Key(target)] = fresh;
            return fresh;
        }
    }

    /// <summary>What the first adoption runs, on a table and a patch of its own that nothing
    /// else sees: the table's insert, look-up and removal, a patch made and its holders looked up
    /// (the framework's shared code for these instantiations resolves its type look-ups at its
    /// first run, 0.1-0.2 ms in a process's first update). Nothing is tracked.</summary>
    public static void Rehearse(MethodBase target)
    {
        var table = new Dictionary<MethodKey, NativePatch>();
        var patch = new NativePatch(target, 0);
        table[Key(target)] = patch;
        _ = table.TryGetValue(Key(target), out NativePatch? found);
        _ = found?.HeldBy(null);
        _ = table.Remove(Key(target));
    }

    public static void Forget(NativePatch patch)
    {
        lock (TableGate)
        {
            if (Live.TryGetValue(Key(patch.Target), out NativePatch? known) && ReferenceEquals(known, patch))
                Live.Remove(Key(patch.Target));
        }
    }
}
