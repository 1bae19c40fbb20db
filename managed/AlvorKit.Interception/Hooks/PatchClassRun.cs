using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>
/// Patches a list of patch classes in one batch with Harmony's lifecycle, per class in order: Prepare() (false:
/// Cleanup() and the class is skipped); the targets (<see cref="PatchDiscovery.Sets"/>); per target Prepare(original)
/// (false skips that target) and the binding of its hooks. A target whose binding fails gets Cleanup(original,
/// exception): when it suppresses the exception (returns null) the target is left out, otherwise the class fails
/// there and Cleanup(exception) decides: suppressed, the class keeps the targets before the failing one (as
/// Harmony, which patched them already, does); not, it is thrown and nothing of the batch is applied. Then the
/// batch is applied (all or nothing), and afterwards, per class in order, Cleanup(original) for each target and a
/// last Cleanup(). An exception a Cleanup returns then is thrown, the hooks staying in. Harmony interleaves the
/// per-target Cleanup with the patching instead; here the batch is applied between the Prepare calls and the
/// Cleanup calls.
/// </summary>
internal static class PatchClassRun
{
    /// <summary>Runs the classes; <paramref name="apply"/> gets the classes Prepare let through (for their reverse
    /// patches) and every bound set, and applies them at once.</summary>
    public static IReadOnlyList<T> Run<TBound, T>(IReadOnlyList<PatchClassModel> classes, object[] context,
        Func<DiscoveredSet, TBound> bind, Func<IReadOnlyList<PatchClassModel>, IReadOnlyList<TBound>, IReadOnlyList<T>> apply)
        where TBound : class
        where T : class
    {
        // Reference-type elements only on this path (no value tuples): the framework's shared code, which its
        // precompiled images hold, serves them; a value-type element would be JIT-compiled at the first call.
        var runs = new List<ClassRun>();
        var bound = new List<TBound>();
        foreach (PatchClassModel model in classes)
        {
            if (!PatchLifecycle.Prepare(model, null, context))
            {
                if (PatchLifecycle.Cleanup(model, null, null, context) is { } left)
                    throw left;
                continue;
            }
            var targets = new List<MethodBase>();
            Exception? failure = null;
            try
            {
                IReadOnlyList<DiscoveredSet> discovered = PatchDiscovery.Sets(model, PatchLifecycle.Targets(model, context));
                PhaseProbe.Mark("discovered");
                foreach (DiscoveredSet set in discovered)
                {
                    if (!PatchLifecycle.Prepare(model, set.Target, context))
                    {
                        targets.Add(set.Target);
                        continue;
                    }
                    TBound boundSet;
                    try
                    {
                        boundSet = bind(set);
                    }
                    catch (Exception e) when (e is not OutOfMemoryException)
                    {
                        if (PatchLifecycle.Cleanup(model, set.Target, e, context) is { } left)
                            throw left;
                        continue;
                    }
                    targets.Add(set.Target);
                    bound.Add(boundSet);
                }
                PhaseProbe.Mark("bound");
            }
            catch (Exception e) when (e is not OutOfMemoryException)
            {
                failure = e;
            }
            if (failure is not null)
            {
                if (PatchLifecycle.Cleanup(model, null, failure, context) is { } left)
                {
                    if (ReferenceEquals(left, failure))
                        System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(left).Throw();
                    throw left;
                }
                runs.Add(new ClassRun(model, targets, CleanedUp: true));
                continue;
            }
            runs.Add(new ClassRun(model, targets, CleanedUp: false));
        }
        var prepared = new PatchClassModel[runs.Count];
        for (int i = 0; i < runs.Count; i++)
            prepared[i] = runs[i].Model;
        IReadOnlyList<T> applied = runs.Count == 0 ? [] : apply(prepared, bound);
        foreach ((PatchClassModel model, List<MethodBase> targets, bool cleanedUp) in runs)
        {
            foreach (MethodBase target in targets)
            {
                if (PatchLifecycle.Cleanup(model, target, null, context) is { } left)
                    throw left;
            }
            if (!cleanedUp && PatchLifecycle.Cleanup(model, null, null, context) is { } last)
                throw last;
        }
        return applied;
    }

    private sealed record ClassRun(PatchClassModel Model, List<MethodBase> Targets, bool CleanedUp);
}
