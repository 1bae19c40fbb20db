using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Launcher.Watch;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>What the watcher's analysis refuses, says or follows, before anything is emitted:
/// each refusal names the user's member and where it is.</summary>
public sealed class RudeEditTests
{
    private const string Game = """
        using System;
        using System.Runtime.InteropServices;
        namespace Demo;
        public interface IScorer { int Score(int x); }
        public class Enemy : IScorer
        {
            public const int Base = 10;
            public static int Spawned = 3;
            private int _hp = 5;
            public virtual int Score(int x) => x + Base;
            public int Hp() => _hp;
            [Obsolete("old")] public int Old() => 1;
        }
        public struct Point { public int X; public int Length() => X; }
        [StructLayout(LayoutKind.Sequential)] public class Packed { public int A; }
        public static class Use { public static int Twice() => Enemy.Base * 2; public static int Three() => 3; }
        public class Box<T> { public T Value = default!; }
        public enum Mood { Calm, Angry }
        """;

    private static EditPlan Plan(params (string From, string To)[] edits)
    {
        using var session = new Edits(Game);
        return session.Plan(edits.Aggregate(Game, (text, e) =>
        {
            Assert.Contains(e.From, text, StringComparison.Ordinal);
            return text.Replace(e.From, e.To, StringComparison.Ordinal);
        }));
    }

    private static void Refused(EditPlan plan, string member, string why)
    {
        EditRefusal refusal = Assert.Single(plan.Refusals);
        Assert.StartsWith(member, refusal.Member, StringComparison.Ordinal);
        Assert.Contains(why, refusal.Message, StringComparison.Ordinal);
        Assert.Matches(@"^Game\.cs\(\d+,\d+\)$", refusal.Location);
    }

    [Fact]
    public void AVirtualMethodAddedToALivingTypeIsRefused() =>
        Refused(Plan(("public int Hp() => _hp;", "public int Hp() => _hp;\n    public virtual int Extra() => 1;")),
                "Enemy.Extra()", "method table is laid out");

    [Fact]
    public void AnInstanceFieldAddedToAStructIsRefused() =>
        Refused(Plan(("public struct Point { public int X;", "public struct Point { public int X; public int Y;")),
                "Point.Y", "layout is fixed");

    [Fact]
    public void AnInstanceFieldAddedToAClassWithAFixedLayoutIsRefused() =>
        Refused(Plan(("public class Packed { public int A; }", "public class Packed { public int A; public int B; }")),
                "Packed.B", "layout is sequential");

    [Fact]
    public void AMemberAddedToAnInterfaceIsRefused() =>
        Refused(Plan(("public interface IScorer { int Score(int x); }",
                      "public interface IScorer { int Score(int x); int Rank() => 0; }")),
                "IScorer.Rank()", "interface");

    [Fact]
    public void ABaseTypeChangeIsRefused() =>
        Refused(Plan(("public class Enemy : IScorer", "public class Enemy : Exception, IScorer")), "Enemy", "base type");

    [Fact]
    public void AMemberAddedToAnEnumThatLivesIsRefused() =>
        Refused(Plan(("public enum Mood { Calm, Angry }", "public enum Mood { Calm, Angry, Bored }")), "Mood.Bored", "enum");

    [Fact]
    public void AConstructorAddedToAGenericTypeThatLivesIsRefused() =>
        Refused(Plan(("public class Box<T> { public T Value = default!; }",
                      "public class Box<T> { public T Value = default!; public Box(T v) { Value = v; } public Box() { } }")),
                "Box<T>.Box(T)", "generic type");

    [Fact]
    public void AConstructorAddedToAClassThatLivesIsAnInsert()
    {
        EditPlan plan = Plan(("private int _hp = 5;", "private int _hp = 5;\n    public Enemy(int hp) { _hp = hp; }\n    public Enemy() { }"));
        Assert.Empty(plan.Refusals);
        Assert.Contains(plan.Edits, e => e.Kind == Microsoft.CodeAnalysis.Emit.SemanticEditKind.Insert &&
                                         e.NewSymbol is Microsoft.CodeAnalysis.IMethodSymbol { MethodKind: Microsoft.CodeAnalysis.MethodKind.Constructor });
    }

    [Fact]
    public void AnAccessibilityChangeIsRefused() =>
        Refused(Plan(("public int Hp() => _hp;", "internal int Hp() => _hp;")), "Enemy.Hp()", "accessibility");

    [Fact]
    public void AStaticInitializerChangeSaysItTakesEffectAtTheNextStart()
    {
        EditPlan plan = Plan(("public static int Spawned = 3;", "public static int Spawned = 4;"));
        Assert.Empty(plan.Refusals);
        Assert.Empty(plan.Edits);
        ReloadNotice notice = Assert.Single(plan.Notices);
        Assert.Equal(ReloadNoticeKind.TakesEffectAtNextStart, notice.Kind);
        Assert.StartsWith("Enemy.Spawned", notice.Member, StringComparison.Ordinal);
    }

    [Fact]
    public void AChangedConstantUpdatesEveryMethodThatUsesIt()
    {
        EditPlan plan = Plan(("public const int Base = 10;", "public const int Base = 12;"));
        Assert.Empty(plan.Refusals);
        Assert.Equal(["Enemy.Score(int)", "Use.Twice()"],
                     plan.Edits.Select(e => EditAnalyzer.Display(e.NewSymbol!)).Order());
    }

    [Fact]
    public void AnInstanceInitializerChangeUpdatesTheConstructors()
    {
        EditPlan plan = Plan(("private int _hp = 5;", "private int _hp = 6;"));
        Assert.Equal(["Enemy.Enemy()"], plan.Edits.Select(e => EditAnalyzer.Display(e.NewSymbol!)));
    }

    [Fact]
    public void AnAttributeChangeIsANoticeAndTheBodyStillUpdates()
    {
        EditPlan plan = Plan(("[Obsolete(\"old\")] public int Old() => 1;", "[Obsolete(\"older\")] public int Old() => 2;"));
        Assert.Equal(ReloadNoticeKind.MetadataNotUpdated, Assert.Single(plan.Notices).Kind);
        Assert.Equal(["Enemy.Old()"], plan.Edits.Select(e => EditAnalyzer.Display(e.NewSymbol!)));
    }

    [Fact]
    public void ARemovedMethodStaysAndSaysSo()
    {
        EditPlan plan = Plan(("public static int Three() => 3; }", "}"));
        Assert.Empty(plan.Edits);
        ReloadNotice notice = Assert.Single(plan.Notices);
        Assert.Equal(ReloadNoticeKind.RemovedMemberStays, notice.Kind);
        Assert.StartsWith("Use.Three()", notice.Member, StringComparison.Ordinal);
    }

    [Fact]
    public void AnAddedInstanceFieldAndMethodOnAClassAreInserts()
    {
        EditPlan plan = Plan(("private int _hp = 5;", "private int _hp = 5;\n    private int _armor;\n    private int Armor() => _armor;"));
        Assert.Empty(plan.Refusals);
        Assert.Equal(["Enemy.Armor()", "Enemy._armor"],
                     plan.Edits.Select(e => EditAnalyzer.Display(e.NewSymbol!)).Order(StringComparer.Ordinal));
    }
}
