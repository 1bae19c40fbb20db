namespace LiveDemo;

/// <summary>
/// Scoring rules: every frame shows what they return (the points and the rule's name), so an
/// edit to either body is visible in the next frame once it is applied. This is the file to edit
/// in --reload mode (README.md); the scripted dev console patches PointsFor in place.
/// </summary>
public static class Scoring
{
    /// <summary>The original rule: one point per runner in the goal zone.</summary>
    public static int PointsFor(int inGoal) => inGoal;

    /// <summary>The rule's name, as the frames print it.</summary>
    public static string Rule() => "1 point per runner in the goal";
}
