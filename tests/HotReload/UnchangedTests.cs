using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Rebuilds that do the same thing: nothing is reported, even where every token moved.</summary>
public sealed class UnchangedTests
{
    private const string Game = """
        using System;
        using System.Linq;
        using System.Threading.Tasks;
        namespace Game.Logic;
        public class Player
        {
            private int _health = 100;
            public int Score(int x) => x * 2 + _health;
            public static string Greet(string name) => "hello " + name;
            public static int Sum(int[] xs) => xs.Select(x => x * 2).Sum();
            public static async Task<int> RunAsync(int x) { await Task.Yield(); return x * 2; }
            public static int Parse(string s) { try { return int.Parse(s); } catch (FormatException) { return -1; } }
            public static string Name<T>() => typeof(T).Name;
        }
        public struct Vector { public float X; public float Y; public float Length() => MathF.Sqrt(X * X + Y * Y); }
        """;

    [Fact]
    public void TheSameSourceChangesNothing()
    {
        AssemblyComparison result = Builds.Compare(Game, Game);

        Assert.True(result.IsCompared, result.RefusalMessage);
        Assert.Equal("Game", result.AssemblyName);
        Assert.Empty(result.RudeEdits);
        Assert.Empty(result.GeneratedChanges);
        Assert.Empty(result.ChangedMethods);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Score(int)", BodyChanged: false });
        Assert.Contains(result.Methods,
                        m => m is { Member: "Game.Logic.Player+<RunAsync>d__4.MoveNext()", IsGenerated: true });
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player+<>c.<Sum>b__3_0(int)", IsGenerated: true });
    }

    // Types and members reordered, and a method placed first that now references a type, a method
    // and a string the loaded build never had: every TypeDef, MethodDef, MemberRef, TypeRef and
    // user-string offset moves. Only the edited method changed.
    [Fact]
    public void ATokenShiftAloneIsNoChange()
    {
        const string before = """
            namespace Game.Logic;
            public class Player
            {
                public static int Clamp(int x) => System.Math.Max(x, 0);
                public static string Label(int x) => "score " + x.ToString();
                public static int Twice(int x) => Clamp(x) * 2;
                public static int Shifted() => 0;
            }
            public class Enemy { public static int Hit(int damage) => Player.Twice(damage) + 1; }
            """;
        const string after = """
            namespace Game.Logic;
            public class Enemy { public static int Hit(int damage) => Player.Twice(damage) + 1; }
            public class Player
            {
                public static int Shifted() => new System.Text.StringBuilder("new text").Append(System.Guid.Empty).Length;
                public static int Twice(int x) => Clamp(x) * 2;
                public static string Label(int x) => "score " + x.ToString();
                public static int Clamp(int x) => System.Math.Max(x, 0);
            }
            """;
        string loaded = Builds.Compile(before), rebuilt = Builds.Compile(after);

        // The precondition that makes this test mean something: the unchanged bodies' bytes differ.
        foreach (string method in new[] { "Twice", "Label", "Clamp" })
            Assert.NotEqual(Builds.RawIL(loaded, "Game.Logic.Player", method),
                            Builds.RawIL(rebuilt, "Game.Logic.Player", method));
        Assert.NotEqual(Builds.RawIL(loaded, "Game.Logic.Enemy", "Hit"), Builds.RawIL(rebuilt, "Game.Logic.Enemy", "Hit"));

        AssemblyComparison result = AssemblyComparer.Compare(loaded, rebuilt);

        Assert.Empty(result.RudeEdits);
        Assert.Empty(result.GeneratedChanges);
        Assert.Equal(["Game.Logic.Player.Shifted()"], result.ChangedMethods.Select(m => m.Member));
        Assert.All(["Game.Logic.Player.Clamp(int)", "Game.Logic.Player.Label(int)", "Game.Logic.Player.Twice(int)",
                    "Game.Logic.Enemy.Hit(int)"],
                   name => Assert.Contains(result.Methods, m => m.Member == name && !m.BodyChanged));
    }

    [Fact]
    public void AStreamOverloadComparesTheSameWay()
    {
        string loaded = Builds.Compile(Game), rebuilt = Builds.Compile(Game);
        using FileStream a = File.OpenRead(loaded), b = File.OpenRead(rebuilt);

        AssemblyComparison result = AssemblyComparer.Compare(a, b);

        Assert.True(result.IsCompared);
        Assert.NotEmpty(result.Methods);
        Assert.Empty(result.ChangedMethods);
    }
}
