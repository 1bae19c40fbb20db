using System.Reflection;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Transpilers composed with hooks, and reverse patches, in a profiled process (mode "transpile", started with
/// AlvorKit.Proofs.HookMod and AlvorKit.Proofs.Replacements patchable too: a reverse patch patches its stub). The
/// transpilers, hooks and stubs live in AlvorKit.Proofs.HookMod (loaded here by path). Every step records what a
/// patched method returned (or threw): before, while patched, after each removal. TranspileProofs asserts them.
/// </summary>
public static class TranspileProof
{
    public static HookReport Run() => HookModRun.Run((interceptor, mod) =>
    {
        var steps = new HookModSteps(mod);
        Run(steps, "constant", () => PatchClass(interceptor, steps));
        Run(steps, "digits", () => Digits(interceptor, steps));
        Run(steps, "clamp", () => Clamp(interceptor, steps));
        Run(steps, "refused", () => Refused(interceptor, steps));
        Run(steps, "reverse", () => Reverse(interceptor, steps));
        Run(steps, "access", () => Access(interceptor, steps));
        Run(steps, "reverseClass", () => ReverseClass(interceptor, steps));
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

    // A patch class whose method is named Transpiler (PatchAll): a target with a transpiler alone.
    private static void PatchClass(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => TranspileTargets.Constant(5);
        Warm(call);
        steps.Call("constant.before", call);
        using var owner = new PatchOwner("constant transpiler");
        IReadOnlyList<WovenPatch> sets = interceptor.PatchAll(steps.ModType("ConstantTranspilerPatch"), owner);
        steps.Count("constant.transpilers", sets.Sum(s => s.Transpilers.Count));
        steps.Call("constant.transpiled", call);
        owner.Dispose();
        steps.Call("constant.removed", call);
    }

    // Two owners' transpilers (the second High: it runs first) and a third owner's prefix and postfix on Digits,
    // then each owner leaves: every step's digits say which edits ran, in which order.
    private static void Digits(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => TranspileTargets.Digits(5);
        Warm(call);
        MethodInfo target = typeof(TranspileTargets).GetMethod(nameof(TranspileTargets.Digits))!;
        Type edits = steps.ModType("TranspileEdits"), hooks = steps.ModType("TranspileHooks");
        var one = new PatchOwner("digit one");
        var two = new PatchOwner("digit two");
        var woven = new PatchOwner("digit hooks");
        try
        {
            steps.Call("digits.before", call);
            interceptor.Hook(target, owner: one, transpiler: edits.GetMethod("AppendOne")!);
            steps.Call("digits.one", call);
            interceptor.Hook(target, owner: two,
                transpiler: new HookMethod(edits.GetMethod("AppendTwo")!) { Priority = HookPriority.High });
            steps.Call("digits.oneTwo", call);
            WovenPatch last = interceptor.Hook(target, prefix: hooks.GetMethod("Prefix")!, postfix: hooks.GetMethod("Postfix")!,
                owner: woven);
            steps.Call("digits.all", call);
            steps.Text("digits.description", last.DescribeComposition());
            two.Dispose();
            steps.Call("digits.twoLeft", call);
            woven.Dispose();
            steps.Call("digits.hooksLeft", call);
            one.Dispose();
            steps.Call("digits.allLeft", call);
        }
        finally
        {
            one.Dispose();
            two.Dispose();
            woven.Dispose();
        }
    }

    // A transpiler that takes the plan (a local, a label) and the original.
    private static void Clamp(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> negative = () => TranspileTargets.Clamp(2), positive = () => TranspileTargets.Clamp(9);
        Warm(negative);
        Warm(positive);
        steps.Call("clamp.negative.before", negative);
        steps.Call("clamp.positive.before", positive);
        MethodInfo target = typeof(TranspileTargets).GetMethod(nameof(TranspileTargets.Clamp))!;
        WovenPatch set = interceptor.Hook(target, transpiler: steps.ModType("TranspileEdits").GetMethod("ClampAtZero")!,
            owner: new PatchOwner("clamp"));
        steps.Call("clamp.negative.transpiled", negative);
        steps.Call("clamp.positive.transpiled", positive);
        set.Remove();
        steps.Call("clamp.negative.removed", negative);
    }

    // A postfix holds Refused's body; a throwing transpiler and one that makes an invalid body are refused:
    // nothing is applied, the postfixed body stays, and its removal restores the original.
    private static void Refused(Interceptor interceptor, HookModSteps steps)
    {
        Func<long> call = () => TranspileTargets.Refused(3);
        Warm(call);
        MethodInfo target = typeof(TranspileTargets).GetMethod(nameof(TranspileTargets.Refused))!;
        Type edits = steps.ModType("TranspileEdits");
        using var holder = new PatchOwner("refused base");
        using var refused = new PatchOwner("refused transpilers");
        steps.Call("refused.before", call);
        interceptor.Hook(target, postfix: steps.ModType("TranspileHooks").GetMethod("PlusThousand")!, owner: holder);
        steps.Call("refused.hooked", call);
        int patches = interceptor.Patches.Count;
        try
        {
            interceptor.Hook(target, owner: refused, transpiler: edits.GetMethod("Throwing")!);
            steps.Count("refused.throwingApplied", 1);
        }
        catch (Exception e)
        {
            steps.Threw("refused.throwing", e);
        }
        steps.Call("refused.afterThrowing", call);
        try
        {
            interceptor.Hook(target, owner: refused, transpiler: edits.GetMethod("DropsReturns")!);
            steps.Count("refused.invalidApplied", 1);
        }
        catch (Exception e)
        {
            steps.Threw("refused.invalid", e);
        }
        steps.Call("refused.afterInvalid", call);
        steps.Count("refused.patchesKept", interceptor.Patches.Count - patches);
        steps.Count("refused.setsOfRefusedOwner", refused.WovenPatches.Count);
        holder.Dispose();
        steps.Call("refused.removed", call);
    }

    // Reverse patches: stubs of HookMod (which ignores access checks to this assembly) get Vault's original
    // bodies, private members included; hooks on the original do not reach them; removal restores each stub.
    private static void Reverse(Interceptor interceptor, HookModSteps steps)
    {
        var vault = new Vault();
        Type stubs = steps.ModType("VaultStubs"), edits = steps.ModType("TranspileEdits");
        var worth = stubs.GetMethod("Worth")!.CreateDelegate<Func<Vault, int, int>>();
        var worthTranspiled = stubs.GetMethod("WorthTranspiled")!.CreateDelegate<Func<Vault, int, int>>();
        var bonus = stubs.GetMethod("Bonus")!.CreateDelegate<Func<Vault, int, int>>();
        var rate = stubs.GetMethod("Rate")!.CreateDelegate<Func<int, int>>();
        Func<long> worthCall = () => worth(vault, 3), transpiledCall = () => worthTranspiled(vault, 3),
            bonusCall = () => bonus(vault, 3), rateCall = () => rate(3), originalCall = () => vault.Worth(3);
        foreach (Func<long> call in new[] { worthCall, transpiledCall, bonusCall, rateCall, originalCall })
            Warm(call);
        steps.Call("reverse.worth.before", worthCall);
        steps.Call("reverse.bonus.before", bonusCall);
        steps.Call("reverse.original.before", originalCall);

        MethodInfo original = typeof(Vault).GetMethod(nameof(Vault.Worth))!;
        using var owner = new PatchOwner("reverse patches");
        using var hooks = new PatchOwner("vault hooks");
        Patch patch = interceptor.ReversePatch(original, stubs.GetMethod("Worth")!, owner: owner);
        steps.Text("reverse.worth.target", patch.Target.Name);
        steps.Call("reverse.worth.patched", worthCall);
        interceptor.ReversePatch(original, stubs.GetMethod("WorthTranspiled")!,
            transpiler: edits.GetMethod("HundredToThousand")!, owner: owner);
        steps.Call("reverse.worthTranspiled.patched", transpiledCall);
        interceptor.ReversePatch(typeof(Vault).GetMethod("Bonus", BindingFlags.NonPublic | BindingFlags.Instance)!,
            stubs.GetMethod("Bonus")!, owner: owner);
        steps.Call("reverse.bonus.patched", bonusCall);
        interceptor.ReversePatch(typeof(Vault).GetMethod(nameof(Vault.Rate))!, stubs.GetMethod("Rate")!, owner: owner);
        steps.Call("reverse.rate.patched", rateCall);

        // The original hooked: it changes; the stub keeps the original's own body (ReversePatchType.Original).
        interceptor.Hook(original, postfix: steps.ModType("TranspileHooks").GetMethod("PlusFiveThousand")!, owner: hooks);
        steps.Call("reverse.original.hooked", originalCall);
        steps.Call("reverse.worth.whileOriginalHooked", worthCall);
        hooks.Dispose();

        owner.Dispose();
        steps.Call("reverse.worth.removed", worthCall);
        steps.Call("reverse.worthTranspiled.removed", transpiledCall);
        steps.Call("reverse.bonus.removed", bonusCall);
        steps.Call("reverse.rate.removed", rateCall);
        steps.Call("reverse.original.removed", originalCall);
    }

    // [PatchReversePatch] stubs of a patch class, applied by PatchAll and restored by the owner's disposal.
    private static void ReverseClass(Interceptor interceptor, HookModSteps steps)
    {
        var vault = new Vault();
        Type stubs = steps.ModType("VaultReversePatches");
        var worth = stubs.GetMethod("Worth")!.CreateDelegate<Func<Vault, int, int>>();
        var edited = stubs.GetMethod("WorthEdited")!.CreateDelegate<Func<Vault, int, int>>();
        Func<long> worthCall = () => worth(vault, 3), editedCall = () => edited(vault, 3);
        Warm(worthCall);
        Warm(editedCall);
        steps.Call("reverseClass.worth.before", worthCall);
        var owner = new PatchOwner("reverse class");
        try
        {
            steps.Count("reverseClass.wovenSets", interceptor.PatchAll(stubs, owner).Count);
            steps.Count("reverseClass.ownerPatches", owner.Patches.Count);
            steps.Call("reverseClass.worth.patched", worthCall);
            steps.Call("reverseClass.edited.patched", editedCall);
        }
        finally
        {
            owner.Dispose();
        }
        steps.Call("reverseClass.worth.removed", worthCall);
        steps.Call("reverseClass.edited.removed", editedCall);
    }

    // What cannot work is refused before the profiler: a stub whose module is not patchable (Math.Abs), a stub
    // whose assembly may not access the body's private field. Forced past that check, CoreCLR's own rule shows:
    // the stub throws when called.
    private static void Access(Interceptor interceptor, HookModSteps steps)
    {
        using var owner = new PatchOwner("access");
        try
        {
            interceptor.ReversePatch(typeof(Vault).GetMethod(nameof(Vault.Negate))!,
                typeof(Math).GetMethod(nameof(Math.Abs), [typeof(int)])!, owner: owner);
            steps.Count("access.notPatchableApplied", 1);
        }
        catch (Exception e)
        {
            steps.Threw("access.notPatchable", e);
        }
        MethodInfo rate = typeof(Vault).GetMethod(nameof(Vault.Rate))!;
        // By name, not by a typed reference: the host's own file must keep no AssemblyRef to the replacements'
        // assembly (PatchDispatchProofs counts on emitting it).
        MethodInfo stub = Type.GetType(
                "AlvorKit.Proofs.Replacements.ReverseStubsWithoutAccess, AlvorKit.Proofs.Replacements", throwOnError: true)!
            .GetMethod("Rate")!;
        var stubCall = stub.CreateDelegate<Func<int, int>>();
        Func<long> call = () => stubCall(3);
        Warm(call);
        steps.Call("access.stub.before", call);
        try
        {
            interceptor.ReversePatch(rate, stub, owner: owner);
            steps.Count("access.inaccessibleApplied", 1);
        }
        catch (Exception e)
        {
            steps.Threw("access.inaccessible", e);
        }
        steps.Call("access.stub.afterRefusal", call);
        ReversePatcher.SkipAccessCheck = true;
        Patch forced;
        try
        {
            forced = interceptor.ReversePatch(rate, stub, owner: owner);
        }
        finally
        {
            ReversePatcher.SkipAccessCheck = false;
        }
        steps.Call("access.stub.forced", call);
        forced.Remove();
        steps.Call("access.stub.removed", call);
    }

    private static void Warm(Func<long> call)
    {
        for (int i = 0; i < 4; i++)
            call();
    }
}
