using System.Reflection;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// One live native patch (one per target, shared by every owner that holds it) and what this
/// library knows of its generation chain. A generation must name the patch's latest generation
/// as its prior; exact-dispatch installs and replaces are generations too, but the ABI does not
/// return their IDs, so after one of them the latest is unknown until discovered (IDs are
/// process-wide and increasing: it is above <see cref="ScanFrom"/>).
/// </summary>
internal sealed class NativePatch(MethodBase target, ulong handle)
{
    public MethodBase Target { get; } = target;

    public ulong Handle { get; } = handle;

    /// <summary>The latest generation this library submitted (0: none, or unknown).</summary>
    public ulong Latest { get; private set; }

    /// <summary>False after an exact-dispatch command, whose generation ID nobody returned.</summary>
    public bool LatestKnown { get; private set; } = true;

    /// <summary>Generation IDs above this may belong to this patch without this library knowing them.</summary>
    public ulong ScanFrom { get; private set; }

    public List<Patch> Holders { get; } = [];

    /// <summary>An install or replace (exact dispatch) finished: its generation ID is above `floor`.</summary>
    public void DispatchCommand(ulong floor)
    {
        LatestKnown = false;
        ScanFrom = Math.Max(ScanFrom, floor);
    }

    /// <summary>A generation this library submitted is now the latest.</summary>
    public void GenerationApplied(ulong id)
    {
        Latest = id;
        LatestKnown = true;
        ScanFrom = Math.Max(ScanFrom, id);
    }

    /// <summary>What this library knew of the chain is no longer true: discover it next time.</summary>
    public void Forget() => LatestKnown = false;
}

/// <summary>The live native patches this process made through this library, by target, and the
/// lock every command takes (commands are rare; the profiler's worker runs them one at a time).</summary>
internal static class PatchRegistry
{
    public static readonly Lock Gate = new();

    private static readonly Dictionary<(Guid Module, int Token), NativePatch> Live = new();
    private static ulong _watermark;

    /// <summary>The highest generation ID this process has seen (an exact-dispatch command's
    /// generation is above the watermark taken before it).</summary>
    public static ulong Watermark => _watermark;

    public static void See(ulong generation) => _watermark = Math.Max(_watermark, generation);

    private static (Guid, int) Key(MethodBase target) => (target.Module.ModuleVersionId, target.MetadataToken);

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
