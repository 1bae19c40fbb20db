namespace AlvorKit.Interception.Hooks;

/// <summary>Weaves a composition into its target's original IL (pending the plans API).</summary>
internal static class HookWeaver
{
    public static GenerationPlan Weave(HookComposition composition, bool preferCalli) =>
        throw new NotImplementedException($"weaving {composition.Target.Name} (calli {preferCalli}) is not built yet");
}
