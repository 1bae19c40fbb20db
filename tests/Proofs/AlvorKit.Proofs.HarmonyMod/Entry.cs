using System.Reflection;
using AlvorKit.Interception.HarmonyLib;

namespace AlvorKit.Proofs.HarmonyMod;

/// <summary>The mod's steps, as a Harmony mod's loader would call them; the host calls them in order.</summary>
public static class Entry
{
    private static readonly Harmony Alpha = new("mod.alpha");
    private static readonly Harmony Beta = new("mod.beta");
    private static readonly Harmony Gamma = new("mod.gamma");

    /// <summary>The lifecycle calls the patch classes logged, in order.</summary>
    public static List<string> Log { get; } = [];

    /// <summary>alpha: every class without a category of the calling assembly (this one, though the call is in
    /// tail position).</summary>
    public static void PatchUncategorized() => Alpha.PatchAllUncategorized();

    /// <summary>beta: the classes of the calling assembly in the category "beta".</summary>
    public static void PatchBetaCategory() => Beta.PatchCategory("beta");

    /// <summary>alpha: the classes of the category "late".</summary>
    public static void PatchLateCategory() => Alpha.PatchCategory(typeof(Entry).Assembly, "late");

    /// <summary>Removes the hooks of the category "late" (whichever ID added them).</summary>
    public static void UnpatchLateCategory() => Beta.UnpatchCategory("late");

    /// <summary>gamma: a prefix that does not fit its target: a HarmonyException around the core's refusal,
    /// logged; nothing changes.</summary>
    public static void PatchBadHook()
    {
        try
        {
            Gamma.Patch(typeof(AlvorKit.Proofs.Host.HarmonyGame).GetMethod(nameof(AlvorKit.Proofs.Host.HarmonyGame.Damage))!,
                prefix: typeof(ManualHooks).GetMethod(nameof(ManualHooks.WrongType))!);
        }
        catch (HarmonyException e)
        {
            Log.Add($"{e.GetType().Name}: {e.InnerException?.GetType().Name}");
        }
    }

    /// <summary>gamma: a postfix and a prefix through Harmony.Patch with HarmonyMethods.</summary>
    public static void PatchManual()
    {
        MethodInfo manual = typeof(AlvorKit.Proofs.Host.HarmonyGame).GetMethod(nameof(AlvorKit.Proofs.Host.HarmonyGame.Manual))!;
        Gamma.Patch(manual,
            prefix: new HarmonyMethod(typeof(ManualHooks), nameof(ManualHooks.Doubling)),
            postfix: new HarmonyMethod(typeof(ManualHooks).GetMethod(nameof(ManualHooks.Adding))!, Priority.First));
    }

    /// <summary>Removes the postfixes every ID has on Manual; gamma's prefix stays.</summary>
    public static void UnpatchManualPostfixes() =>
        Gamma.Unpatch(typeof(AlvorKit.Proofs.Host.HarmonyGame).GetMethod(nameof(AlvorKit.Proofs.Host.HarmonyGame.Manual))!,
            HarmonyPatchType.Postfix);

    /// <summary>Removes the prefix method from Manual, whichever ID added it.</summary>
    public static void UnpatchManualPrefix() =>
        Alpha.Unpatch(typeof(AlvorKit.Proofs.Host.HarmonyGame).GetMethod(nameof(AlvorKit.Proofs.Host.HarmonyGame.Manual))!,
            typeof(ManualHooks).GetMethod(nameof(ManualHooks.Doubling))!);

    /// <summary>Removes alpha's hooks only.</summary>
    public static void UnpatchAlpha() => Alpha.UnpatchAll(Alpha.Id);

    /// <summary>Removes beta's hooks only.</summary>
    public static void UnpatchBeta() => Beta.UnpatchAll("mod.beta");

    /// <summary>alpha: every patch class of the calling assembly, categorized or not.</summary>
    public static void PatchEverything() => Alpha.PatchAll();

    /// <summary>Removes every Harmony ID's hooks.</summary>
    public static void UnpatchEveryId() => Beta.UnpatchAll();

    /// <summary>The log since the last call, one entry per line; cleared.</summary>
    public static string TakeLog()
    {
        string text = string.Join("\n", Log);
        Log.Clear();
        return text;
    }

    /// <summary>What the surface reports: per ID, whether it has patches and the methods it patched.</summary>
    public static string State() => string.Join("\n", new[] { Alpha, Beta, Gamma }.Select(h =>
        $"{h.Id}: {(Harmony.HasAnyPatches(h.Id) ? "patches" : "none")} " +
        $"[{string.Join(",", h.GetPatchedMethods().Select(m => m.Name).Order(StringComparer.Ordinal))}]"));
}
