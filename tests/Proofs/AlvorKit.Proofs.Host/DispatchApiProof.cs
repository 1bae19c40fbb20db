using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>The target of the managed API's dispatch-path proof (host mode "dispatchapi").</summary>
public static class DispatchApiTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Mix(int a, int b) => a + b;

    public static int MixHere(int a, int b) => a * 10 + b;
}

/// <summary>A plugin-style context: it overrides Load (here deferring to the default context, so
/// that either path would run the same replacement; the interceptor must not rely on it).</summary>
internal sealed class LoadingContext() : AssemblyLoadContext("loading plugin", isCollectible: false)
{
    protected override Assembly? Load(AssemblyName assemblyName) => null;
}

/// <summary>
/// The managed API's choice of dispatch path: Interceptor.Install and Patch.Replace name the
/// replacement as a method when the target's module can reference its assembly, the profiler
/// takes the direct call or says why not, PreferCalli forces calli, Patch.ToString and the
/// telemetry say which path each step took, and an owner's removal restores the remaining
/// owner's body with its own path.
/// </summary>
public static class DispatchApiProof
{
    private const string ReplacementsAssembly = "AlvorKit.Proofs.Replacements";

    public static DispatchApiReport Run()
    {
        using var interceptor = Interceptor.Open();
        MethodInfo target = Patcher.Method(typeof(DispatchApiTargets), nameof(DispatchApiTargets.Mix));
        MethodInfo here = Patcher.Method(typeof(DispatchApiTargets), nameof(DispatchApiTargets.MixHere));
        Assembly replacements = Assembly.Load(new AssemblyName(ReplacementsAssembly));
        MethodInfo cross = Patcher.Method(replacements.GetType("AlvorKit.Proofs.Replacements.CrossAssembly", true)!, "Add");
        MethodInfo hidden = Patcher.Method(replacements.GetType("AlvorKit.Proofs.Replacements.Hidden", true)!, "Add");
        // Another copy of the replacements' assembly, in a plugin's context: the target's module
        // (default context) would bind the name to the default copy, so the interceptor keeps calli.
        Assembly pluginCopy = new AssemblyLoadContext("replacements plugin", isCollectible: false)
            .LoadFromAssemblyPath(replacements.Location);
        MethodInfo pluginCross = Patcher.Method(pluginCopy.GetType("AlvorKit.Proofs.Replacements.CrossAssembly", true)!, "Add");

        var steps = new List<DispatchApiStep>();
        Func<int> call = () => DispatchApiTargets.Mix(3, 4);
        DispatchApiStep Step(string name, Patch patch, int expected, Func<int>? other = null)
        {
            Polled<int> result = Patcher.PollFor(other ?? call, expected);
            PatchTelemetry t = patch.ReadTelemetry();
            var step = new DispatchApiStep(name, result, t.DispatchPath.ToString(), t.DispatchFallback.ToString(),
                unchecked((uint)t.CallToken), patch.ToString());
            steps.Add(step);
            return step;
        }

        using var first = new PatchOwner("first");
        using var second = new PatchOwner("second");
        Patch a = interceptor.Install(target, here, first);
        Step("installSameModule", a, 34);
        a.Replace(cross);
        Step("replaceOtherAssembly", a, 3004);
        a.Replace(hidden);
        Step("replaceNotPublic", a, 3 * 3000 + 4);
        a.Replace(pluginCross);
        Step("replacePluginCopy", a, 3004);
        a.Replace(cross);
        Step("replaceOtherAssemblyAgain", a, 3004);
        interceptor.PreferCalli = true;
        Patch b = interceptor.Install(target, here, second);
        Step("joinPreferCalli", b, 34);
        interceptor.PreferCalli = false;
        b.Remove();
        // The first owner's body is in force again, with the path it took.
        Step("afterSecondLeft", a, 3004);
        a.Remove();
        Step("removed", a, 7);

        // Targets whose signature carries a modreq that no static replacement has (a virtual
        // method's in parameter, an init setter), replaced from a mod: a MemberRef could not
        // bind, so the interceptor keeps calli and the first call after the install is patched.
        Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
            Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.GameMod.dll"));
        Type mods = mod.GetType("AlvorKit.Proofs.GameMod.ModReplacements", throwOnError: true)!;
        Patch scaled = interceptor.Install(Patcher.Method(typeof(ScaledShape), nameof(ScaledShape.Scaled)),
            Patcher.Method(mods, "ShapeScaled"), first);
        Step("installVirtualIn", scaled, 34, () => (int)new ScaledShape().Scaled(in DispatchTargets.InCell));
        scaled.Remove();
        Patch level = interceptor.Install(typeof(Settings).GetProperty(nameof(Settings.Level))!.SetMethod!,
            Patcher.Method(mods, "SettingsLevel"), first);
        Step("installInitSetter", level, 1005, () => new Settings { Level = 5 }.Raw);
        level.Remove();

        // The target in a copy of this assembly in a context of its own, the replacement in the
        // default context: a context that does not override Load falls back to the default one
        // for the replacements' name, so the direct call binds there; one that overrides Load
        // is asked first (a plugin context typically loads its own copy), so the interceptor
        // keeps calli.
        foreach ((string name, AssemblyLoadContext context) in new[]
                 {
                     ("otherContextPlain", new AssemblyLoadContext("host copy", isCollectible: false)),
                     ("otherContextOverridesLoad", (AssemblyLoadContext)new LoadingContext()),
                 })
        {
            Assembly copy = context.LoadFromAssemblyPath(typeof(DispatchApiTargets).Assembly.Location);
            MethodInfo mix = Patcher.Method(copy.GetType(typeof(DispatchApiTargets).FullName!, true)!,
                nameof(DispatchApiTargets.Mix));
            var copyMix = mix.CreateDelegate<Func<int, int, int>>();
            Patch p = interceptor.Install(mix, cross, first);
            Step(name, p, 3004, () => copyMix(3, 4));
            p.Remove();
        }
        return new DispatchApiReport(steps);
    }
}
