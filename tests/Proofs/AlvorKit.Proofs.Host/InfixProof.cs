using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Inner prefixes and postfixes (infixes) around calls inside InfixTargets, in a profiled process (mode "infix",
/// started with AlvorKit.Proofs.HookMod, which holds the inner hooks, loaded here by path). Every step records
/// what the target returned (or threw): before, while hooked, after removal. InfixProofs asserts them.
/// </summary>
public static class InfixProof
{
    private static readonly MethodInfo Twice = typeof(InfixTargets).GetMethod(nameof(InfixTargets.Twice))!;
    private static readonly MethodInfo Scale = typeof(InfixTargets).GetMethod(nameof(InfixTargets.Scale))!;

    public static HookReport Run() => HookModRun.Run((interceptor, mod) =>
    {
        var steps = new HookModSteps(mod);
        Func<long> twice = () => InfixTargets.Twice(2);
        for (int i = 0; i < 4; i++)
            twice();
        steps.Call("before", twice);
        Run(steps, "argument", () => Single(interceptor, steps, "argument", 1, prefix: "AddHundred"));
        Run(steps, "skip", () => Single(interceptor, steps, "skip", -1, prefix: "SkipWithSeven"));
        Run(steps, "result", () => Single(interceptor, steps, "result", 2, postfix: "PlusOne"));
        Run(steps, "every", () => Single(interceptor, steps, "every", 0, postfix: "PlusOne"));
        Run(steps, "receiver", () => Receiver(interceptor, steps));
        Run(steps, "patchClass", () => PatchClass(interceptor, steps));
        Run(steps, "composed", () => Composed(interceptor, steps));
        Run(steps, "refused", () => Refused(interceptor, steps));
        return new HookReport(null, steps.All, interceptor.Patches.Count);
    });

    private static void Run(HookModSteps steps, string scenario, Action run)
    {
        try
        {
            run();
        }
        catch (Exception e)
        {
            steps.Threw($"{scenario}.failed", e);
        }
    }

    // One inner hook on Scale's calls in Twice(2) (Scale(2) + Scale(3) = 50), then removed.
    private static void Single(Interceptor interceptor, HookModSteps steps, string name, int occurrence,
        string? prefix = null, string? postfix = null)
    {
        Func<long> call = () => InfixTargets.Twice(2);
        Type hooks = steps.ModType("InfixHooks");
        WovenPatch set = interceptor.HookCall(Twice, Scale, occurrence,
            innerPrefix: prefix is null ? null : new HookMethod(hooks.GetMethod(prefix)!),
            innerPostfix: postfix is null ? null : new HookMethod(hooks.GetMethod(postfix)!), owner: new PatchOwner(name));
        steps.Call($"{name}.hooked", call);
        set.Remove();
        steps.Call($"{name}.removed", call);
    }

    // An inner postfix with __instance and an argument by index, on the first of two instance calls.
    private static void Receiver(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => InfixTargets.Sum(5);
        for (int i = 0; i < 4; i++)
            call();
        steps.Call("receiver.before", call);
        WovenPatch set = interceptor.HookCall(typeof(InfixTargets).GetMethod(nameof(InfixTargets.Sum))!,
            typeof(InfixTargets.Counter).GetMethod(nameof(InfixTargets.Counter.Add))!, 1,
            innerPostfix: steps.ModType("InfixHooks").GetMethod("FromReceiver")!, owner: new PatchOwner("receiver"));
        steps.Call("receiver.hooked", call);
        set.Remove();
        steps.Call("receiver.removed", call);
    }

    // A patch class whose only hook is a [PatchInnerPrefix] on the second call.
    private static void PatchClass(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => InfixTargets.Twice(2);
        using var owner = new PatchOwner("infix patch class");
        IReadOnlyList<WovenPatch> sets = interceptor.PatchAll(steps.ModType("InfixSecondCallPatch"), owner);
        steps.Count("patchClass.innerPrefixes", sets.Sum(s => s.InnerPrefixes.Count));
        steps.Call("patchClass.hooked", call);
        owner.Dispose();
        steps.Call("patchClass.removed", call);
    }

    // One owner's inner prefix and another owner's outer postfix on Twice; each owner leaves in turn.
    private static void Composed(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => InfixTargets.Twice(2);
        Type hooks = steps.ModType("InfixHooks");
        var inner = new PatchOwner("inner owner");
        var outer = new PatchOwner("outer owner");
        try
        {
            interceptor.HookCall(Twice, Scale, 1, innerPrefix: hooks.GetMethod("AddHundred")!, owner: inner);
            steps.Call("composed.inner", call);
            WovenPatch last = interceptor.Hook(Twice, postfix: hooks.GetMethod("OuterPlusThousand")!, owner: outer);
            steps.Call("composed.both", call);
            steps.Text("composed.description", last.DescribeComposition());
            inner.Dispose();
            steps.Call("composed.innerLeft", call);
            outer.Dispose();
            steps.Call("composed.allLeft", call);
        }
        finally
        {
            inner.Dispose();
            outer.Dispose();
        }
    }

    // A third call of Scale, which Twice does not make: refused before the profiler; the body stays.
    private static void Refused(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => InfixTargets.Twice(2);
        try
        {
            interceptor.HookCall(Twice, Scale, 3, innerPrefix: steps.ModType("InfixHooks").GetMethod("AddHundred")!,
                owner: new PatchOwner("refused"));
            steps.Count("refused.accepted", 1);
        }
        catch (HookBindingException e)
        {
            steps.Threw("refused.thrown", e);
        }
        steps.Call("refused.after", call);
    }
}
