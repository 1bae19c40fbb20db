using System.Runtime.CompilerServices;
using System.Text;

namespace LiveDemo;

/// <summary>A runner on a looping track.</summary>
public sealed class Entity(char glyph, int position, int speed)
{
    public char Glyph { get; } = glyph;

    public int Position { get; set; } = position;

    public int Speed { get; } = speed;
}

/// <summary>The game state: five runners on a looping track with a goal zone at its end.</summary>
public sealed class World
{
    public const int Width = 48;
    public const int GoalStart = Width - 8;

    public Entity[] Entities { get; } =
    [
        new('A', 0, 1), new('B', 6, 2), new('C', 12, 3), new('D', 18, 2), new('E', 24, 1),
    ];

    public int Score { get; set; }

    /// <summary>Frames in a row with a runner in the goal zone (Streak.Bonus counts them).</summary>
    public int Streak { get; set; }

    /// <summary>The streak bonus points so far.</summary>
    public int BonusScore { get; set; }

    /// <summary>One tick of movement. The original rule: every runner runs forward by its speed.</summary>
    public void Update()
    {
        foreach (Entity e in Entities)
            e.Position = Wrap(e.Position + e.Speed);
    }

    /// <summary>Runners inside the goal zone.</summary>
    public int InGoal()
    {
        int n = 0;
        foreach (Entity e in Entities)
            if (e.Position >= GoalStart)
                n++;
        return n;
    }

    public static int Wrap(int x) => ((x % Width) + Width) % Width;

    /// <summary>The track as text: runners over '.', the goal zone as '='; '*' where runners meet.</summary>
    public string Track()
    {
        var cells = new char[Width];
        for (int i = 0; i < Width; i++)
            cells[i] = i >= GoalStart ? '=' : '.';
        foreach (Entity e in Entities)
            cells[e.Position] = char.IsLetter(cells[e.Position]) ? '*' : e.Glyph;
        return new string(cells);
    }
}

/// <summary>Replacements the dev console installs while the game runs (static, the receiver first).</summary>
public static class Mods
{
    /// <summary>Everybody runs backwards.</summary>
    public static void Reverse(World world)
    {
        foreach (Entity e in world.Entities)
            e.Position = World.Wrap(e.Position - e.Speed);
    }

    /// <summary>Everybody hops three cells, whatever their speed.</summary>
    public static void Hop(World world)
    {
        foreach (Entity e in world.Entities)
            e.Position = World.Wrap(e.Position + 3);
    }
}

/// <summary>What one frame showed: the behaviour read from the runners' moves, the points, and
/// the streak bonus (its rule, the points, and whether the original's streak count ran).</summary>
public sealed record FrameRecord(int Frame, int Stage, bool Clean, string Movement, string Scoring, int Points, int Score,
    string Bonus, int BonusPoints, bool StreakCounted);

/// <summary>One tick's result: the rules the frame showed and what they gave.</summary>
public sealed record FrameView(string Movement, string Scoring, int Points, string Rule, string Bonus, int BonusPoints,
    bool StreakCounted);

/// <summary>The game loop: a fixed tick, one printed line per frame.</summary>
public sealed class Game(World world)
{
    private readonly int[] _before = new int[world.Entities.Length];

    public World World { get; } = world;

    /// <summary>One frame. It is its own method, called every frame, on purpose: a patch takes
    /// effect when a method is next called, so a method that runs for the whole session (the loop
    /// in Run) would never pick up the re-JITted code of a callee it had inlined. Tick is called
    /// again each frame, and the profiler re-JITs it when it inlined Update, PointsFor, Rule or Bonus.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public FrameView Tick()
    {
        for (int i = 0; i < _before.Length; i++)
            _before[i] = World.Entities[i].Position;
        World.Update();
        int inGoal = World.InGoal();
        int points = Scoring.PointsFor(inGoal);
        World.Score += points;
        // The streak: the original's count must advance as its rule says whatever a hook does
        // to the bonus it returns (x10: the dev console's postfix, ten times the streak plus one).
        int streakBefore = World.Streak;
        int bonus = Streak.Bonus(World, inGoal);
        World.BonusScore += bonus;
        bool counted = World.Streak == (inGoal > 0 ? streakBefore + 1 : 0);
        string bonusRule = bonus == World.Streak ? "original" : bonus == World.Streak * 10 + 1 ? "x10" : "other";
        return new FrameView(ClassifyMovement(),
            points == inGoal ? "original" : points == Math.Max(inGoal, 1) * 100 ? "bonus" : "other",
            points, Scoring.Rule(), bonusRule, bonus, counted);
    }

    // Which rule moved the runners: each runner's step (shortest way round the track).
    private string ClassifyMovement()
    {
        bool forward = true, backward = true, hop = true;
        for (int i = 0; i < _before.Length; i++)
        {
            int step = World.Wrap(World.Entities[i].Position - _before[i] + World.Width / 2) - World.Width / 2;
            int speed = World.Entities[i].Speed;
            forward &= step == speed;
            backward &= step == -speed;
            hop &= step == 3;
        }
        return forward ? "original" : backward ? "reverse" : hop ? "hop" : "other";
    }

    public static string Line(int frame, World world, FrameView view) =>
        new StringBuilder()
            .Append($"{frame,4} |{world.Track()}| score {world.Score,6} (+{view.Points,3})  ")
            .Append($"movement: {view.Movement,-8} scoring: {view.Scoring,-8} rule: {view.Rule}  ")
            .Append($"streak {world.Streak,3} bonus {world.BonusScore,6} (+{view.BonusPoints,4}, {view.Bonus})")
            .ToString();
}
