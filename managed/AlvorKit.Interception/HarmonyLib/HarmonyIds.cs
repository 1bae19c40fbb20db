using System.Reflection;
using AlvorKit.Interception.Hooks;

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// The process's Harmony IDs: one <see cref="PatchOwner"/> per ID (named by it, so HarmonyBefore/HarmonyAfter
/// order by IDs), shared by every <see cref="Harmony"/> instance with that ID, and the one
/// <see cref="Interceptor"/> they patch through (opened on the first patch, kept for the process).
/// </summary>
internal static class HarmonyIds
{
    private static readonly Lock Gate = new();
    private static readonly Dictionary<string, PatchOwner> Owners = new(StringComparer.Ordinal);
    private static Interceptor? _interceptor;

    /// <summary>The interceptor every Harmony instance patches through; InterceptionUnavailableException when
    /// the process was not started under the profiler (tried again on the next call).</summary>
    public static Interceptor Interceptor
    {
        get
        {
            lock (Gate)
                return _interceptor ??= Interceptor.Open();
        }
    }

    /// <summary>The owner of <paramref name="id"/>'s hooks (made on first use).</summary>
    public static PatchOwner OwnerOf(string id)
    {
        lock (Gate)
        {
            if (!Owners.TryGetValue(id, out PatchOwner? owner))
                Owners[id] = owner = new PatchOwner(id);
            return owner;
        }
    }

    /// <summary>The owner of <paramref name="id"/> if it ever patched; null otherwise.</summary>
    public static PatchOwner? Find(string id)
    {
        lock (Gate)
            return Owners.GetValueOrDefault(id);
    }

    /// <summary>Every Harmony ID's owner.</summary>
    public static IReadOnlyList<PatchOwner> All
    {
        get
        {
            lock (Gate)
                return [.. Owners.Values];
        }
    }

    /// <summary>The distinct targets of these hook sets, in the order first seen.</summary>
    public static IEnumerable<MethodBase> Targets(IEnumerable<WovenPatch> sets)
    {
        var seen = new List<MethodBase>();
        foreach (WovenPatch set in sets)
        {
            if (!seen.Any(t => Patch.SameMethod(t, set.Target)))
                seen.Add(set.Target);
        }
        return seen;
    }

    /// <summary>Takes the hooks <paramref name="remove"/> selects out of <paramref name="sets"/>: a set left with
    /// none is removed; one left with some is removed and added again with those (bound first, so a failure
    /// changes nothing; the removal and the new set are two changes of the target's body, and the new set counts
    /// as installed last among equal priorities).</summary>
    public static void RemoveHooks(IReadOnlyList<WovenPatch> sets, Func<HookMethod, HookKind, bool> remove)
    {
        var gone = new List<WovenPatch>();
        var again = new List<WovenPatch>();
        foreach (WovenPatch set in sets)
        {
            // The bound hooks are kept as they are (their instantiation included): the rest is the same set less
            // the removed ones.
            List<BoundHook> pre = [.. set.Bound.Prefixes.Where(h => !remove(h.Hook, HookKind.Prefix))];
            List<BoundHook> post = [.. set.Bound.Postfixes.Where(h => !remove(h.Hook, HookKind.Postfix))];
            List<BoundHook> fin = [.. set.Bound.Finalizers.Where(h => !remove(h.Hook, HookKind.Finalizer))];
            List<BoundTranspiler> trans = [.. set.BoundTranspilers.Where(t => !remove(t.Hook, HookKind.Transpiler))];
            int left = pre.Count + post.Count + fin.Count + trans.Count;
            if (left == set.Bound.Prefixes.Count + set.Bound.Postfixes.Count + set.Bound.Finalizers.Count +
                set.BoundTranspilers.Count)
                continue;
            gone.Add(set);
            if (left + set.BoundInfixes.Count > 0)
                again.Add(new WovenPatch(set.Interceptor, set.Composer, set.Target, set.Owner,
                    new BoundSet(pre, post, fin, set.Bound.StateType), set.Label, trans, set.BoundInfixes));
        }
        if (gone.Count == 0)
            return;
        Interceptor.Completed(Interceptor.Composer.RemoveAsync(gone, synchronous: true, CancellationToken.None));
        if (again.Count > 0)
            Interceptor.Completed(Interceptor.Composer.AddAsync(again, synchronous: true, CancellationToken.None));
    }
}
