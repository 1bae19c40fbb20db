using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Plugin;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// One assembly (AlvorKit.Proofs.Plugin) loaded more than once, through the managed API: by
/// reference in the default AssemblyLoadContext, and from its file in a plugin's context.
///   plugin      - a second, non-collectible context (the plugin pattern): a patch made before
///                 the plugin loads is replaced after; each copy is patched, replaced, given a
///                 plan and restored on its own
///   collectible - a collectible context loaded after the default copy: the default copy stays
///                 describable and patchable; the collectible copy is refused and keeps its body
/// </summary>
public static class ModulesProof
{
    private const int Input = 5;
    private const int Original = Input * 2;



    // ------------------------------------------------------------------ plugin pattern

    public static PluginPatternReport PluginPattern()
    {
        using var interceptor = Interceptor.Open();
        MethodInfo defaultTarget = Compute(typeof(PluginTargets).Assembly);

        // A patch made while the default copy is the only one, replaced once a plugin loaded
        // another copy: it stays on its copy.
        MethodInfo defaultOffset = Offset(typeof(PluginTargets).Assembly);
        Func<int> offsetCall = () => PluginTargets.Offset(Input);
        Patch? early = null;
        Attempt<CopyStep> installBeforePluginLoads = Try(() =>
        {
            early = interceptor.Install(defaultOffset, Replacement(nameof(CopyReplacements.OffsetA)));
            return Observe(early, offsetCall, Input + 500, null, 0, null);
        });

        Assembly pluginCopy = new AssemblyLoadContext("plugin", isCollectible: false)
            .LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location);
        Func<int, int> callPluginOffset = Offset(pluginCopy).CreateDelegate<Func<int, int>>();
        Func<int> pluginOffsetCall = () => callPluginOffset(Input);
        Attempt<CopyStep> replaceAfterPluginLoads = Try(() =>
        {
            early!.Replace(Replacement(nameof(CopyReplacements.OffsetB)));
            return Observe(early, offsetCall, Input + 600, pluginOffsetCall, Input + 3, null);
        });
        Attempt<CopyStep> removeEarly = Try(() =>
        {
            early!.Remove();
            return Observe(early, offsetCall, Input + 3, pluginOffsetCall, Input + 3, null);
        });

        MethodInfo pluginTarget = Compute(pluginCopy);
        Func<int, int> callDefault = defaultTarget.CreateDelegate<Func<int, int>>();
        Func<int, int> callPlugin = pluginTarget.CreateDelegate<Func<int, int>>();
        Func<int> defaultCall = () => callDefault(Input), pluginCall = () => callPlugin(Input);
        Func<int> directCall = () => PluginTargets.Compute(Input); // the default copy, called directly
        CopiesReport copies = Copies(defaultTarget, pluginTarget);
        int defaultOriginal = Warm(defaultCall);
        var original = new CopyValues(defaultOriginal, Warm(pluginCall));

        Attempt<DescribedCopies> describe = Try(() =>
        {
            MethodDescription d = interceptor.Describe(defaultTarget), p = interceptor.Describe(pluginTarget);
            return new DescribedCopies(d.MetadataToken == p.MetadataToken, d.ModuleVersionId == p.ModuleVersionId,
                d.BodyIdentity == p.BodyIdentity, d.ModuleEpoch, p.ModuleEpoch);
        });

        // The default copy first: only it changes.
        Patch? onDefault = null, onPlugin = null;
        Attempt<CopyStep> installDefault = Try(() =>
        {
            onDefault = interceptor.Install(defaultTarget, Replacement(nameof(CopyReplacements.ForDefault)));
            return Observe(onDefault, defaultCall, Input + 1000, pluginCall, Original, directCall);
        });
        // Then the plugin's copy, with another replacement: each returns its own.
        Attempt<CopyStep> installPlugin = Try(() =>
        {
            onPlugin = interceptor.Install(pluginTarget, Replacement(nameof(CopyReplacements.ForPlugin)));
            return Observe(onPlugin, pluginCall, Input + 2000, defaultCall, Input + 1000, directCall);
        });
        // A plan for the plugin's copy is built against and applied to that copy.
        Attempt<CopyStep> planPlugin = Try(() =>
        {
            var plan = new GenerationPlan(pluginTarget) { Name = "plugin +7000" };
            plan.Emit(OpCodes.Ldarg_0);
            plan.Emit(OpCodes.Ldc_I4, 7000);
            plan.Emit(OpCodes.Add);
            plan.Emit(OpCodes.Ret);
            Patch applied = interceptor.Apply(plan);
            CopyStep step = Observe(applied, pluginCall, Input + 7000, defaultCall, Input + 1000, directCall);
            return step with
            {
                SamePatch = ReferenceEquals(applied, onPlugin),
                Generation = applied.ReadLastGeneration()?.State.ToString(),
            };
        });
        // Replace on the default copy acts on that copy (it is loaded: no MODULE_UNLOADED).
        Attempt<CopyStep> replaceDefault = Try(() =>
        {
            onDefault!.Replace(Replacement(nameof(CopyReplacements.ForDefaultAgain)));
            return Observe(onDefault, defaultCall, Input + 3000, pluginCall, Input + 7000, directCall);
        });
        Attempt<CopyStep> removeDefault = Try(() =>
        {
            onDefault!.Remove();
            return Observe(onDefault, defaultCall, Original, pluginCall, Input + 7000, directCall);
        });
        Attempt<CopyStep> removePlugin = Try(() =>
        {
            onPlugin!.Remove();
            return Observe(onPlugin, pluginCall, Original, defaultCall, Original, directCall);
        });
        return new PluginPatternReport(installBeforePluginLoads, replaceAfterPluginLoads, removeEarly, copies, original,
            describe, installDefault, installPlugin, planPlugin, replaceDefault, removeDefault, removePlugin,
            interceptor.Patches.Count);
    }

    // ------------------------------------------------------------------ collectible copy

    public static CollectibleCopyReport CollectibleCopy()
    {
        // The default copy loads first, so the collectible one is the newest load of the MVID.
        MethodInfo defaultTarget = Compute(typeof(PluginTargets).Assembly);
        Func<int> defaultCall = () => PluginTargets.Compute(Input);
        int defaultOriginal = Warm(defaultCall);
        var context = new AssemblyLoadContext("collectible plugin", isCollectible: true);
        Assembly collectibleCopy = context.LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location);
        MethodInfo collectibleTarget = Compute(collectibleCopy);
        Func<int, int> callCollectible = collectibleTarget.CreateDelegate<Func<int, int>>();
        Func<int> collectibleCall = () => callCollectible(Input);
        int collectibleOriginal = Warm(collectibleCall);
        CopiesReport copies = Copies(defaultTarget, collectibleTarget);

        using var interceptor = Interceptor.Open();
        string patchableModules = interceptor.PatchableModules;
        Attempt<DescribedCopy> describeDefault = Try(() =>
        {
            MethodDescription d = interceptor.Describe(defaultTarget);
            return new DescribedCopy(d.MetadataToken, d.ModuleEpoch);
        });
        Attempt<Done> describeCollectible = Try(() =>
        {
            interceptor.Describe(collectibleTarget);
            return new Done();
        });
        Patch? onDefault = null;
        Attempt<CopyStep> installDefault = Try(() =>
        {
            onDefault = interceptor.Install(defaultTarget, Replacement(nameof(CopyReplacements.ForDefault)));
            return Observe(onDefault, defaultCall, Input + 1000, collectibleCall, Original, null);
        });
        Attempt<Done> installCollectible = Try(() =>
        {
            interceptor.Install(collectibleTarget, Replacement(nameof(CopyReplacements.ForPlugin)));
            return new Done();
        });
        Polled<int> collectibleAfterRefusal = Patcher.PollFor(collectibleCall, Original);
        Attempt<Done> planCollectible = Try(() =>
        {
            var plan = new GenerationPlan(collectibleTarget);
            plan.Emit(OpCodes.Ldc_I4, 42);
            plan.Emit(OpCodes.Ret);
            interceptor.Apply(plan);
            return new Done();
        });
        Polled<int> collectibleAfterPlan = Patcher.PollFor(collectibleCall, Original);
        Attempt<CopyStep> removeDefault = Try(() =>
        {
            onDefault!.Remove();
            return Observe(onDefault, defaultCall, Original, collectibleCall, Original, null);
        });
        return new CollectibleCopyReport(defaultOriginal, collectibleOriginal, copies, patchableModules, describeDefault,
            describeCollectible, installDefault, installCollectible, collectibleAfterRefusal, planCollectible,
            collectibleAfterPlan, removeDefault, interceptor.Patches.Count);
    }

    // ------------------------------------------------------------------ helpers

    private static MethodInfo Compute(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Compute))!;

    private static MethodInfo Offset(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Offset))!;

    private static MethodInfo Replacement(string name) => Patcher.Method(typeof(CopyReplacements), name);

    private static CopiesReport Copies(MethodInfo a, MethodInfo b) =>
        new(a.Module != b.Module, a.Module.ModuleVersionId == b.Module.ModuleVersionId,
            [AssemblyLoadContext.GetLoadContext(a.Module.Assembly)?.Name, AssemblyLoadContext.GetLoadContext(b.Module.Assembly)?.Name]);

    // After a command: the patched copy reaches `expected` (polled), the other copy returns
    // `otherExpected` on every call, and what the default copy returns when called directly.
    private static CopyStep Observe(Patch patch, Func<int> call, int expected, Func<int>? other, int otherExpected,
        Func<int>? direct)
    {
        Polled<int> result = Patcher.PollFor(call, expected);
        SteadyCalls? steady = other is null ? null : Steady(other, otherExpected);
        PatchTelemetry telemetry = patch.ReadTelemetry();
        return new CopyStep(result, steady, telemetry.State.ToString(), telemetry.LastStatus.ToString(),
            telemetry.ModuleEpoch, direct?.Invoke(), null, null);
    }

    // 20 calls; every one must give `expected`.
    private static SteadyCalls Steady(Func<int> call, int expected)
    {
        int calls = 0, matching = 0, last = 0;
        for (; calls < 20; calls++)
        {
            last = call();
            if (last == expected)
                matching++;
        }
        return new SteadyCalls(last, calls, matching == calls);
    }

    private static int Warm(Func<int> call)
    {
        int last = call();
        for (int i = 0; i < 3; i++)
            last = call();
        return last;
    }

    private static Attempt<T> Try<T>(Func<T> step) where T : class
    {
        try
        {
            return new Attempt<T>(step(), null, null, null, null, null);
        }
        catch (Exception e)
        {
            return e is PatchException p
                ? new Attempt<T>(null, e.GetType().Name, e.Message, p.StatusName, (int)p.Status, p.Status.ToString())
                : new Attempt<T>(null, e.GetType().Name, e.Message, null, null, null);
        }
    }
}

/// <summary>Replacements for PluginTargets.Compute and Offset (static int (int)).</summary>
public static class CopyReplacements
{
    public static int ForDefault(int x) => x + 1000;

    public static int ForPlugin(int x) => x + 2000;

    public static int ForDefaultAgain(int x) => x + 3000;

    public static int OffsetA(int x) => x + 500;

    public static int OffsetB(int x) => x + 600;
}
