using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using AlvorKit.Interception;

namespace AlvorKit.Proofs.Host;

#pragma warning disable CA1707, CA1051 // hook parameters are bound by name (__instance, __args); a target's public field

/// <summary>A generic struct: its own type is the receiver (boxed for an object __instance).</summary>
public struct FixPair<T>
{
    public T? Left;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public readonly string Show() => $"pair {Left}";
}

/// <summary>A generic class whose method takes its own type (boxed into __args, unboxed back).</summary>
public sealed class FixNode<T>(T value)
{
    public T Value { get; } = value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public bool Matches(FixNode<T> other) => EqualityComparer<T>.Default.Equals(Value, other.Value);
}

public static class FixTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Shared(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Raced(int x) => x * 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Whole(int x) => x + 10;

    public static int WholeReplacement(int x) => x + 500;
}

public static class FixHooks
{
    private static readonly Lock Gate = new();
    private static readonly List<string> Seen = [];
    private static int _raced;

    public static int RacedCalls => Volatile.Read(ref _raced);

    public static string Take()
    {
        lock (Gate)
        {
            string seen = string.Join(",", Seen);
            Seen.Clear();
            return seen;
        }
    }

    private static void Note(string what)
    {
        lock (Gate)
            Seen.Add(what);
    }

    public static void PairPrefix(object __instance) => Note($"instance {__instance}");

    // __args[0] is a FixNode<T> (boxed as object, unboxed back as FixNode<T> after the hook).
    public static void NodePrefix(object[] __args) =>
        Note($"arg {__args[0].GetType().GetProperty("Value")!.GetValue(__args[0])}");

    public static void FirstMod() => Note("first mod");

    public static void SecondMod() => Note("second mod");

    public static void Raced() => Interlocked.Increment(ref _raced);
}

/// <summary>
/// Hooks over generic types and hook ownership in a profiled process: a generic struct's own type as a boxed receiver and a
/// generic class's own type through __args (TypeSpecs, not TypeDefs, outside ldtoken); two interceptors
/// (two Interceptor.Open calls, as two mods would) hooking one target: both hooks run, by priority, and each
/// interceptor's Dispose removes only its default owner's; an owner disposed while hooks are added to it
/// on another thread: the hooks are refused or removed, never left running.
/// </summary>
public static class HookGenericsAndOwnersProof
{
    private const int Races = 40;

    /// <summary>Runs one part (generic, interceptors, race: one process each, so one that crashes hides no
    /// other) and prints its report (one JSON object line).</summary>
    public static int Print(string part)
    {
        var report = new JsonObject();
        switch (part)
        {
            case "generic":
                GenericSelfTypes(report);
                break;
            case "interceptors":
                TwoInterceptors(report);
                break;
            case "race":
                DisposeRace(report);
                break;
            case "removal":
                RemovalFailure(report);
                break;
            default:
                Console.Error.WriteLine($"hookgenericsowners: unknown part '{part}' (generic, interceptors, race, removal)");
                return 2;
        }
        Console.WriteLine(report.ToJsonString());
        return 0;
    }

    private static void GenericSelfTypes(JsonObject report)
    {
        using Interceptor interceptor = Interceptor.Open();
        MethodInfo show = typeof(FixPair<>).GetMethod(nameof(FixPair<int>.Show))!;
        MethodInfo matches = typeof(FixNode<>).GetMethod(nameof(FixNode<int>.Matches))!;
        report["genericThrew"] = Try(() =>
        {
            using WovenPatch pair = interceptor.Hook(show, prefix: typeof(FixHooks).GetMethod(nameof(FixHooks.PairPrefix))!);
            using WovenPatch node = interceptor.Hook(matches, prefix: typeof(FixHooks).GetMethod(nameof(FixHooks.NodePrefix))!);
            string results = $"{new FixPair<int> { Left = 4 }.Show()};{new FixPair<string> { Left = "s" }.Show()};" +
                             $"{new FixNode<int>(3).Matches(new FixNode<int>(3))};" +
                             $"{new FixNode<string>("a").Matches(new FixNode<string>("b"))}";
            report["genericResults"] = results;
            report["genericSeen"] = FixHooks.Take();
            report["genericStates"] = $"{pair.ReadLastGeneration()?.State};{node.ReadLastGeneration()?.State}";
        });
    }

    private static void TwoInterceptors(JsonObject report)
    {
        MethodInfo shared = typeof(FixTargets).GetMethod(nameof(FixTargets.Shared))!;
        Interceptor first = Interceptor.Open(), second = Interceptor.Open();
        report["defaultOwners"] = $"{first.DefaultOwner.Name};{second.DefaultOwner.Name}";
        report["twoThrew"] = Try(() =>
        {
            var low = new HookMethod(typeof(FixHooks).GetMethod(nameof(FixHooks.FirstMod))!) { Priority = HookPriority.Low };
            var high = new HookMethod(typeof(FixHooks).GetMethod(nameof(FixHooks.SecondMod))!) { Priority = HookPriority.High };
            first.Hook(shared, prefix: low);
            second.Hook(shared, prefix: high);
            report["twoBoth"] = $"{FixTargets.Shared(1)} {FixHooks.Take()}";
            first.Dispose();
            report["twoAfterFirstDisposed"] = $"{FixTargets.Shared(2)} {FixHooks.Take()}";
            second.Dispose();
            report["twoAfterBothDisposed"] = $"{FixTargets.Shared(3)} {FixHooks.Take()}";
        });
    }

    private static void DisposeRace(JsonObject report)
    {
        using Interceptor interceptor = Interceptor.Open();
        MethodInfo raced = typeof(FixTargets).GetMethod(nameof(FixTargets.Raced))!;
        MethodInfo hook = typeof(FixHooks).GetMethod(nameof(FixHooks.Raced))!;
        int refused = 0, removed = 0, leaked = 0, ownerKept = 0;
        var failures = new List<string>();
        for (int i = 0; i < Races; i++)
        {
            var owner = new PatchOwner($"race {i}");
            using var start = new Barrier(2);
            WovenPatch? set = null;
            var hooking = new Thread(() =>
            {
                start.SignalAndWait();
                try
                {
                    set = interceptor.Hook(raced, prefix: hook, owner: owner);
                }
                catch (ObjectDisposedException)
                {
                    Interlocked.Increment(ref refused);
                }
            });
            var disposing = new Thread(() =>
            {
                start.SignalAndWait();
                // Let the hook call get into its application (the window the race needs) on some rounds.
                Thread.Sleep(i % 4);
                try
                {
                    owner.Dispose();
                }
                catch (AggregateException e)
                {
                    lock (failures)
                        failures.Add(e.Message);
                }
            });
            hooking.Start();
            disposing.Start();
            hooking.Join();
            disposing.Join();
            if (set is { IsInstalled: false })
                removed++;
            if (owner.WovenPatches.Count > 0)
                ownerKept++;
            int before = FixHooks.RacedCalls;
            FixTargets.Raced(i);
            if (FixHooks.RacedCalls != before)
            {
                leaked++;
                set?.Remove(); // so the next round starts clean
            }
        }
        report["raceRounds"] = Races;
        report["raceRefused"] = refused;
        report["raceRemoved"] = removed;
        report["raceLeaked"] = leaked;
        report["raceOwnerKept"] = ownerKept;
        report["raceFailures"] = string.Join(" | ", failures);
    }

    // An owner with hooks on a target shared with another owner (so its removal reweaves the target) and a
    // whole-body patch; the only interceptor is disposed first. The hooks' changes need only the profiler, so
    // the owner's Dispose still reweaves the target without its hooks and removes the whole-body patch; the
    // other owner's removal then gives the original back.
    private static void RemovalFailure(JsonObject report)
    {
        MethodInfo shared = typeof(FixTargets).GetMethod(nameof(FixTargets.Shared))!;
        MethodInfo whole = typeof(FixTargets).GetMethod(nameof(FixTargets.Whole))!;
        var leaving = new PatchOwner("leaving");
        var staying = new PatchOwner("staying");
        Interceptor interceptor = Interceptor.Open();
        WovenPatch left = interceptor.Hook(shared, prefix: typeof(FixHooks).GetMethod(nameof(FixHooks.FirstMod))!, owner: leaving);
        WovenPatch kept = interceptor.Hook(shared, prefix: typeof(FixHooks).GetMethod(nameof(FixHooks.SecondMod))!, owner: staying);
        interceptor.Install(whole, typeof(FixTargets).GetMethod(nameof(FixTargets.WholeReplacement))!, leaving);
        report["removalBefore"] = $"{FixTargets.Whole(1)} {FixTargets.Shared(1)} {FixHooks.Take()}";
        interceptor.Dispose();
        try
        {
            leaving.Dispose();
            report["removalThrew"] = "nothing";
        }
        catch (AggregateException e)
        {
            report["removalThrew"] = $"AggregateException of {string.Join(",", e.InnerExceptions.Select(i => i.GetType().Name))}";
        }
        catch (InvalidOperationException e)
        {
            report["removalThrew"] = e.GetType().Name;
        }
        report["removalAfter"] = $"{FixTargets.Whole(1)} patches {leaving.Patches.Count} hooks kept {left.IsInstalled} " +
                                 $"{FixTargets.Shared(1)} {FixHooks.Take()}";
        report["removalLast"] = Try(() => kept.Remove()) ?? $"{FixTargets.Shared(1)} '{FixHooks.Take()}' {kept.IsInstalled}";
    }

    private static string? Try(Action action)
    {
        try
        {
            action();
            return null;
        }
        catch (Exception e) when (e is InterceptionException or InvalidOperationException or AggregateException)
        {
            return $"{e.GetType().Name}: {e.Message}";
        }
    }
}
