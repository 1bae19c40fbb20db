using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.HotReload;

namespace HostedGame;

/// <summary>
/// What the game does in the runtime the C host started: patches a method, hooks one, applies a
/// hot reload to its level assembly (HostedGame.Level, which the proof compiled, with the update
/// made from an edit of it) and reverts it, and counts what an allocation capture window saw.
/// Each step prints one line, `step | key=value | ...`, with the values it saw (the proof reads
/// them), and holds only when each value is the one it expects; a change is polled for (up to
/// 5 s), since a new body is compiled at the target's next call.
/// </summary>
internal static class Game
{
    public const int Crates = 5000;

    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(5);

    public static bool Run(string[] args)
    {
        if (args.Length != 2)
        {
            Line("hosted", ("failed", "usage: <HostedGame.Level.dll> <HostedGame.Level.hotreload>"));
            return false;
        }
        AssemblyLoadContext context = AssemblyLoadContext.GetLoadContext(typeof(Game).Assembly)!;
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            Line("hosted", ("process", Environment.ProcessPath), ("open", e.Reason));
            Line("result", ("held", false));
            return false;
        }
        using (interceptor)
        {
            Line("hosted", ("process", Environment.ProcessPath), ("context", context.Name),
                 ("default", context == AssemblyLoadContext.Default), ("patching", interceptor.ReadStatus().StartupStatus),
                 ("allocations", interceptor.Allocations.Profiling));
            using var owner = new PatchOwner("hosted game");
            bool patched = Patching(interceptor, owner);
            bool hooked = Hooking(interceptor, owner);
            bool reloaded = Reloading(interceptor, context, args[0], args[1]);
            bool counted = Counting(interceptor);
            bool held = patched && hooked && reloaded && counted;
            Line("result", ("patch", patched), ("hook", hooked), ("reload", reloaded), ("allocations", counted), ("held", held));
            return held;
        }
    }

    // Install a replacement, see it returned; remove it, see the original again.
    private static bool Patching(Interceptor interceptor, PatchOwner owner)
    {
        int original = Physics.Gravity();
        int expected = Mods.LowGravity();
        Patch patch = interceptor.Install(Method(typeof(Physics), nameof(Physics.Gravity)),
                                          Method(typeof(Mods), nameof(Mods.LowGravity)), owner);
        (int installed, int calls) = Poll(Physics.Gravity, v => v == expected);
        PatchTelemetry telemetry = patch.ReadTelemetry();
        patch.Remove();
        (int removed, _) = Poll(Physics.Gravity, v => v == original);
        bool held = original == 10 && installed == expected && removed == original;
        Line("patch", ("original", original), ("installed", installed), ("calls", calls), ("path", telemetry.DispatchPath),
             ("state", telemetry.State), ("removed", removed), ("held", held));
        return held;
    }

    // A prefix and a postfix woven around Combat.Damage: the prefix sees the argument, the
    // postfix the original's result, which it changes; once removed, neither runs.
    private static bool Hooking(Interceptor interceptor, PatchOwner owner)
    {
        const int attack = 7;
        int original = Combat.Damage(attack);
        WovenPatch woven = interceptor.Hook(Method(typeof(Combat), nameof(Combat.Damage)),
                                            prefix: Method(typeof(CombatHooks), nameof(CombatHooks.Prefix)),
                                            postfix: Method(typeof(CombatHooks), nameof(CombatHooks.Postfix)), owner: owner);
        (int hooked, int calls) = Poll(() => Combat.Damage(attack), v => v != original);
        (int prefixCalls, int prefixSaw, int postfixSaw) = (CombatHooks.PrefixCalls, CombatHooks.PrefixSaw, CombatHooks.PostfixSaw);
        woven.Remove();
        (int removed, _) = Poll(() => Combat.Damage(attack), v => v == original);
        int prefixCallsAfter = CombatHooks.PrefixCalls;
        bool held = original == 14 && hooked == original + CombatHooks.Bonus && prefixCalls == 1 && prefixSaw == attack &&
                    postfixSaw == original && removed == original && prefixCallsAfter == prefixCalls;
        Line("hook", ("original", original), ("hooked", hooked), ("calls", calls), ("prefixCalls", prefixCalls),
             ("prefixSaw", prefixSaw), ("postfixSaw", postfixSaw), ("removed", removed),
             ("prefixCallsAfterRemove", prefixCallsAfter), ("held", held));
        return held;
    }

    // The level assembly loaded into the game's own load context (the host's isolated context),
    // the update applied through interceptor.Reload, then every reloaded method reverted.
    private static bool Reloading(Interceptor interceptor, AssemblyLoadContext context, string levelPath, string updatePath)
    {
        Assembly level = context.LoadFromAssemblyPath(Path.GetFullPath(levelPath));
        Func<string> name = level.GetType("HostedGame.Level.Rules", throwOnError: true)!
            .GetMethod("Name", BindingFlags.Public | BindingFlags.Static)!.CreateDelegate<Func<string>>();
        string original = name();
        ReloadResult applied = interceptor.Reload.ApplyUpdate(ReloadDelta.Read(File.ReadAllBytes(updatePath)));
        (string reloaded, int calls) = Poll(name, v => v != original);
        ReloadResult reverted = interceptor.Reload.RevertAll();
        (string back, _) = Poll(name, v => v == original);
        bool held = applied.Outcome == ReloadOutcome.Applied && reloaded != original &&
                    reverted.Outcome == ReloadOutcome.Reverted && back == original;
        Line("reload", ("level", AssemblyLoadContext.GetLoadContext(level) == context ? "game's context" : "another context"),
             ("original", original), ("outcome", applied.Outcome), ("methods", applied.Methods.Count),
             ("side", applied.SideAssembly ?? "none"), ("reloaded", reloaded), ("calls", calls), ("revert", reverted.Outcome),
             ("reverted", back), ("held", held));
        if (applied.Outcome != ReloadOutcome.Applied)
            Console.WriteLine(applied.Summary);
        return held;
    }

    // An exact count-only window around Crates allocations of the game's own Crate type.
    private static bool Counting(Interceptor interceptor)
    {
        AllocationCapture capture = interceptor.Allocations;
        if (capture.Profiling != AllocationProfiling.Exact)
        {
            Line("allocations", ("profiling", capture.Profiling), ("held", false), ("why", "start it with --allocations=exact"));
            return false;
        }
        var crates = new Crate[Crates];
        Spawn(crates, 16); // compiled before the window, so the window sees the crates only
        Array.Clear(crates);
        AllocationReport report;
        using (AllocationWindow window = capture.Begin(AllocationCaptureOptions.CountOnly))
        {
            Spawn(crates, Crates);
            report = window.End();
        }
        GC.KeepAlive(crates);
        TypeAllocation? crate = report.Types.FirstOrDefault(t => t.Name == typeof(Crate).FullName);
        ulong counted = crate?.Count ?? 0;
        bool held = !report.IsEstimate && counted == Crates;
        Line("allocations", ("profiling", capture.Profiling), ("type", typeof(Crate).FullName), ("allocated", Crates),
             ("counted", counted), ("bytes", crate?.Bytes ?? 0), ("estimate", report.IsEstimate), ("held", held));
        return held;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Spawn(Crate[] crates, int count)
    {
        for (int i = 0; i < count; i++)
            crates[i] = new Crate { Weight = i };
    }

    private static (T Value, int Calls) Poll<T>(Func<T> call, Func<T, bool> done)
    {
        var clock = Stopwatch.StartNew();
        int calls = 0;
        T value;
        do
        {
            value = call();
            calls++;
        } while (!done(value) && clock.Elapsed < Settle);
        return (value, calls);
    }

    private static MethodInfo Method(Type type, string name) =>
        type.GetMethod(name, BindingFlags.Public | BindingFlags.Static) ?? throw new MissingMethodException(type.Name, name);

    private static void Line(string step, params (string Key, object? Value)[] values) =>
        Console.WriteLine(string.Join(" | ", [step, .. values.Select(v => $"{v.Key}={v.Value}")]));
}

/// <summary>The patch target.</summary>
public static class Physics
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Gravity() => 10;
}

/// <summary>The replacement: static, the target's parameters and return type.</summary>
public static class Mods
{
    public static int LowGravity() => 3;
}

/// <summary>The hook target.</summary>
public static class Combat
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Damage(int attack) => attack * 2;
}

/// <summary>Harmony-style hooks: the prefix reads the argument by its name, the postfix changes
/// the result.</summary>
public static class CombatHooks
{
    public const int Bonus = 1000;

    public static int PrefixCalls { get; private set; }

    public static int PrefixSaw { get; private set; } = -1;

    public static int PostfixSaw { get; private set; } = -1;

    public static void Prefix(int attack)
    {
        PrefixCalls++;
        PrefixSaw = attack;
    }

    public static void Postfix(ref int __result)
    {
        PostfixSaw = __result;
        __result += Bonus;
    }
}

/// <summary>The game's own type, allocated only inside the capture window.</summary>
public sealed class Crate
{
    public int Weight { get; set; }
}
