using System.Reflection;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// One live native patch (one per target, shared by every owner that holds it). Its generation
/// chain lives in the profiler: the latest generation is read from the patch's telemetry.
/// </summary>
internal sealed class NativePatch(MethodBase target, ulong handle)
{
    public MethodBase Target { get; } = target;

    public ulong Handle { get; } = handle;

    public List<Patch> Holders { get; } = [];
}

/// <summary>The live native patches this process made through this library, by target (a
/// method of one module copy), and the
/// lock every command takes (commands are rare; the profiler's worker runs them one at a time).</summary>
internal static class PatchRegistry
{
    public static readonly Lock Gate = new();

    // By module copy, not MVID: one assembly loaded in two AssemblyLoadContexts has two copies
    // of every method, and each is a target (and a native patch) of its own.
    private static readonly Dictionary<(Module Module, int Token), NativePatch> Live = new();

    private static (Module, int) Key(MethodBase target) => (target.Module, target.MetadataToken);

    public static NativePatch? Find(MethodBase target) => Live.GetValueOrDefault(Key(target));

    /// <summary>The native patch `handle` names for `target`, tracked from now on (a handle that
    /// differs from the tracked one means the old patch ended and a new one began).</summary>
    public static NativePatch Track(MethodBase target, ulong handle)
    {
        if (Live.TryGetValue(Key(target), out NativePatch? known) && known.Handle == handle)
            return known;
        var fresh = new NativePatch(target, handle);
        Live[Key(target)] = fresh;
        return fresh;
    }

    public static void Forget(NativePatch patch)
    {
        if (Live.TryGetValue(Key(patch.Target), out NativePatch? known) && ReferenceEquals(known, patch))
            Live.Remove(Key(patch.Target));
    }
}
