using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.Loader;
using System.Text.Json.Nodes;
using AlvorKit.Interception;
using AlvorKit.Proofs.Plugin;

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

    public static JsonObject Run(string variant) => variant switch
    {
        "plugin" => PluginPattern(),
        "collectible" => CollectibleCopy(),
        _ => throw new ArgumentOutOfRangeException(nameof(variant), variant, "plugin or collectible"),
    };

    // ------------------------------------------------------------------ plugin pattern

    private static JsonObject PluginPattern()
    {
        var report = new JsonObject();
        using var interceptor = Interceptor.Open();
        MethodInfo defaultTarget = Compute(typeof(PluginTargets).Assembly);

        // A patch made while the default copy is the only one, replaced once a plugin loaded
        // another copy: it stays on its copy.
        MethodInfo defaultOffset = Offset(typeof(PluginTargets).Assembly);
        Func<int> offsetCall = () => PluginTargets.Offset(Input);
        Patch? early = null;
        report["installBeforePluginLoads"] = Try(() =>
        {
            early = interceptor.Install(defaultOffset, Replacement(nameof(CopyReplacements.OffsetA)));
            return Observe(early, offsetCall, Input + 500, null, 0, null);
        });

        Assembly pluginCopy = new AssemblyLoadContext("plugin", isCollectible: false)
            .LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location);
        Func<int, int> callPluginOffset = Offset(pluginCopy).CreateDelegate<Func<int, int>>();
        Func<int> pluginOffsetCall = () => callPluginOffset(Input);
        report["replaceAfterPluginLoads"] = Try(() =>
        {
            early!.Replace(Replacement(nameof(CopyReplacements.OffsetB)));
            return Observe(early, offsetCall, Input + 600, pluginOffsetCall, Input + 3, null);
        });
        report["removeEarly"] = Try(() =>
        {
            early!.Remove();
            return Observe(early, offsetCall, Input + 3, pluginOffsetCall, Input + 3, null);
        });

        MethodInfo pluginTarget = Compute(pluginCopy);
        Func<int, int> callDefault = defaultTarget.CreateDelegate<Func<int, int>>();
        Func<int, int> callPlugin = pluginTarget.CreateDelegate<Func<int, int>>();
        Func<int> defaultCall = () => callDefault(Input), pluginCall = () => callPlugin(Input);
        Func<int> directCall = () => PluginTargets.Compute(Input); // the default copy, called directly
        report["copies"] = Copies(defaultTarget, pluginTarget);
        report["original"] = new JsonObject { ["default"] = Warm(defaultCall), ["plugin"] = Warm(pluginCall) };

        report["describe"] = Try(() =>
        {
            MethodDescription d = interceptor.Describe(defaultTarget), p = interceptor.Describe(pluginTarget);
            return new JsonObject
            {
                ["sameToken"] = d.MetadataToken == p.MetadataToken,
                ["sameMvid"] = d.ModuleVersionId == p.ModuleVersionId,
                ["sameBody"] = d.BodyIdentity == p.BodyIdentity,
                ["defaultEpoch"] = d.ModuleEpoch,
                ["pluginEpoch"] = p.ModuleEpoch,
            };
        });

        // The default copy first: only it changes.
        Patch? onDefault = null, onPlugin = null;
        report["installDefault"] = Try(() =>
        {
            onDefault = interceptor.Install(defaultTarget, Replacement(nameof(CopyReplacements.ForDefault)));
            return Observe(onDefault, defaultCall, Input + 1000, pluginCall, Original, directCall);
        });
        // Then the plugin's copy, with another replacement: each returns its own.
        report["installPlugin"] = Try(() =>
        {
            onPlugin = interceptor.Install(pluginTarget, Replacement(nameof(CopyReplacements.ForPlugin)));
            return Observe(onPlugin, pluginCall, Input + 2000, defaultCall, Input + 1000, directCall);
        });
        // A plan for the plugin's copy is built against and applied to that copy.
        report["planPlugin"] = Try(() =>
        {
            var plan = new GenerationPlan(pluginTarget) { Name = "plugin +7000" };
            plan.Emit(OpCodes.Ldarg_0);
            plan.Emit(OpCodes.Ldc_I4, 7000);
            plan.Emit(OpCodes.Add);
            plan.Emit(OpCodes.Ret);
            Patch applied = interceptor.Apply(plan);
            JsonObject step = Observe(applied, pluginCall, Input + 7000, defaultCall, Input + 1000, directCall);
            step["samePatch"] = ReferenceEquals(applied, onPlugin);
            step["generation"] = applied.ReadLastGeneration()?.State.ToString();
            return step;
        });
        // Replace on the default copy acts on that copy (it is loaded: no MODULE_UNLOADED).
        report["replaceDefault"] = Try(() =>
        {
            onDefault!.Replace(Replacement(nameof(CopyReplacements.ForDefaultAgain)));
            return Observe(onDefault, defaultCall, Input + 3000, pluginCall, Input + 7000, directCall);
        });
        report["removeDefault"] = Try(() =>
        {
            onDefault!.Remove();
            return Observe(onDefault, defaultCall, Original, pluginCall, Input + 7000, directCall);
        });
        report["removePlugin"] = Try(() =>
        {
            onPlugin!.Remove();
            return Observe(onPlugin, pluginCall, Original, defaultCall, Original, directCall);
        });
        report["livePatchesAtEnd"] = interceptor.Patches.Count;
        return report;
    }

    // ------------------------------------------------------------------ collectible copy

    private static JsonObject CollectibleCopy()
    {
        var report = new JsonObject();
        // The default copy loads first, so the collectible one is the newest load of the MVID.
        MethodInfo defaultTarget = Compute(typeof(PluginTargets).Assembly);
        Func<int> defaultCall = () => PluginTargets.Compute(Input);
        report["defaultOriginal"] = Warm(defaultCall);
        var context = new AssemblyLoadContext("collectible plugin", isCollectible: true);
        Assembly collectibleCopy = context.LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location);
        MethodInfo collectibleTarget = Compute(collectibleCopy);
        Func<int, int> callCollectible = collectibleTarget.CreateDelegate<Func<int, int>>();
        Func<int> collectibleCall = () => callCollectible(Input);
        report["collectibleOriginal"] = Warm(collectibleCall);
        report["copies"] = Copies(defaultTarget, collectibleTarget);

        using var interceptor = Interceptor.Open();
        report["patchableModules"] = interceptor.PatchableModules;
        report["describeDefault"] = Try(() =>
        {
            MethodDescription d = interceptor.Describe(defaultTarget);
            return new JsonObject { ["token"] = d.MetadataToken, ["epoch"] = d.ModuleEpoch };
        });
        report["describeCollectible"] = Try(() =>
        {
            interceptor.Describe(collectibleTarget);
            return new JsonObject();
        });
        Patch? onDefault = null;
        report["installDefault"] = Try(() =>
        {
            onDefault = interceptor.Install(defaultTarget, Replacement(nameof(CopyReplacements.ForDefault)));
            return Observe(onDefault, defaultCall, Input + 1000, collectibleCall, Original, null);
        });
        report["installCollectible"] = Try(() =>
        {
            interceptor.Install(collectibleTarget, Replacement(nameof(CopyReplacements.ForPlugin)));
            return new JsonObject();
        });
        report["collectibleAfterRefusal"] = Patcher.Poll(collectibleCall, Original);
        report["planCollectible"] = Try(() =>
        {
            var plan = new GenerationPlan(collectibleTarget);
            plan.Emit(OpCodes.Ldc_I4, 42);
            plan.Emit(OpCodes.Ret);
            interceptor.Apply(plan);
            return new JsonObject();
        });
        report["collectibleAfterPlan"] = Patcher.Poll(collectibleCall, Original);
        report["removeDefault"] = Try(() =>
        {
            onDefault!.Remove();
            return Observe(onDefault, defaultCall, Original, collectibleCall, Original, null);
        });
        report["livePatchesAtEnd"] = interceptor.Patches.Count;
        return report;
    }

    // ------------------------------------------------------------------ helpers

    private static MethodInfo Compute(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Compute))!;

    private static MethodInfo Offset(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Offset))!;

    private static MethodInfo Replacement(string name) => Patcher.Method(typeof(CopyReplacements), name);

    private static JsonObject Copies(MethodInfo a, MethodInfo b) => new()
    {
        ["distinctModules"] = a.Module != b.Module,
        ["sameMvid"] = a.Module.ModuleVersionId == b.Module.ModuleVersionId,
        ["contexts"] = new JsonArray(AssemblyLoadContext.GetLoadContext(a.Module.Assembly)?.Name,
            AssemblyLoadContext.GetLoadContext(b.Module.Assembly)?.Name),
    };

    // After a command: the patched copy reaches `expected` (polled), the other copy returns
    // `otherExpected` on every call, and what the default copy returns when called directly.
    private static JsonObject Observe(Patch patch, Func<int> call, int expected, Func<int>? other, int otherExpected,
        Func<int>? direct)
    {
        var step = new JsonObject
        {
            ["result"] = Patcher.Poll(call, expected),
            ["other"] = other is null ? null : Steady(other, otherExpected),
        };
        PatchTelemetry telemetry = patch.ReadTelemetry();
        step["state"] = telemetry.State.ToString();
        step["lastStatus"] = telemetry.LastStatus.ToString();
        step["moduleEpoch"] = telemetry.ModuleEpoch;
        if (direct is not null)
            step["direct"] = direct();
        return step;
    }

    // 20 calls; every one must give `expected`.
    private static JsonObject Steady(Func<int> call, int expected)
    {
        int calls = 0, matching = 0, last = 0;
        for (; calls < 20; calls++)
        {
            last = call();
            if (last == expected)
                matching++;
        }
        return new JsonObject { ["value"] = last, ["calls"] = calls, ["ok"] = matching == calls };
    }

    private static int Warm(Func<int> call)
    {
        int last = call();
        for (int i = 0; i < 3; i++)
            last = call();
        return last;
    }

    private static JsonObject Try(Func<JsonObject> step)
    {
        try
        {
            JsonObject result = step();
            result["threw"] = null;
            return result;
        }
        catch (Exception e)
        {
            var json = new JsonObject { ["threw"] = e.GetType().Name, ["message"] = e.Message };
            if (e is PatchException p)
            {
                json["status"] = p.StatusName;
                json["statusCode"] = (int)p.Status;
                json["statusEnum"] = p.Status.ToString();
            }
            return json;
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
