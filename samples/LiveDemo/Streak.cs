namespace LiveDemo;

/// <summary>
/// The streak bonus: frames in a row with a runner in the goal zone. Its side effect (the
/// world's streak counter) is what the scripted dev console's woven postfix must leave running:
/// the postfix changes the bonus it returns, the original still counts the streak.
/// </summary>
public static class Streak
{
    /// <summary>The original rule: advance (or reset) the world's streak and return it as bonus points.</summary>
    public static int Bonus(World world, int inGoal)
    {
        world.Streak = inGoal > 0 ? world.Streak + 1 : 0;
        return world.Streak;
    }

    /// <summary>The dev console's postfix (Interceptor.HookAsync): ten times the streak, plus one.
    /// It runs after the original, whose streak counter keeps counting. `__result` is the
    /// injected name of the target's result (Harmony's convention), hence the underscores.</summary>
#pragma warning disable CA1707 // the hook's injected parameter names are Harmony's (__result)
    public static void TimesTen(ref int __result) => __result = __result * 10 + 1;
#pragma warning restore CA1707
}
