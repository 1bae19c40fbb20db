using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Edits inside method bodies: each is found in exactly the method that changed, with
/// the difference that makes it one, and is no rude edit.</summary>
public sealed class BodyChangeTests
{
    private static string Player(string members) => $$"""
        using System;
        using System.Linq;
        using System.Threading.Tasks;
        namespace Game.Logic;
        public class Player
        {
        {{members}}
            public static int Untouched(int x) => x + 1;
        }
        """;

    private static AssemblyComparison Edit(string before, string after)
    {
        AssemblyComparison result = Builds.Compare(Player(before), Player(after));
        Assert.True(result.IsCompared, result.RefusalMessage);
        Assert.Empty(result.RudeEdits);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Untouched(int)", BodyChanged: false });
        return result;
    }

    private static MethodComparison Single(AssemblyComparison result, string member)
    {
        MethodComparison changed = Assert.Single(result.ChangedMethods);
        Assert.Equal(member, changed.Member);
        return changed;
    }

    [Fact]
    public void AChangedConstant()
    {
        AssemblyComparison result = Edit("public static int Speed(int x) => x * 2;",
                                         "public static int Speed(int x) => x * 3;");

        MethodComparison speed = Single(result, "Game.Logic.Player.Speed(int)");
        Assert.Equal("IL_0001: ldc.i4.2 → ldc.i4.3", speed.Difference);
        Assert.Empty(result.GeneratedChanges);
    }

    [Fact]
    public void AChangedBranch()
    {
        AssemblyComparison result = Edit("public static int Bonus(int x) { if (x > 10) return 5; return 0; }",
                                         "public static int Bonus(int x) { if (x < 10) return 5; return 0; }");

        MethodComparison bonus = Single(result, "Game.Logic.Player.Bonus(int)");
        Assert.StartsWith("IL_0003: ble.s → bge.s", bonus.Difference, StringComparison.Ordinal);
        Assert.Empty(result.GeneratedChanges);
    }

    [Fact]
    public void ANewStringLiteral()
    {
        AssemblyComparison result = Edit("public static string Title() => \"hello\";",
                                         "public static string Title() => \"hello, world\";");

        MethodComparison title = Single(result, "Game.Logic.Player.Title()");
        Assert.Equal("IL_0000: ldstr \"hello\" → \"hello, world\"", title.Difference);
    }

    [Fact]
    public void ACallToAFrameworkMethodNeverReferencedBefore()
    {
        AssemblyComparison result = Edit("public static int Limit(int x) => Math.Max(x, 1);",
                                         "public static int Limit(int x) => Math.Min(x, 1);");

        MethodComparison limit = Single(result, "Game.Logic.Player.Limit(int)");
        Assert.Equal("IL_0002: call System.Math::Max(int, int) : int → System.Math::Min(int, int) : int",
                     limit.Difference);
    }

    [Fact]
    public void ACallToAGenericMethodWithANewInstantiation()
    {
        const string helper = "public static string Name<T>() => typeof(T).Name;\n";
        AssemblyComparison result = Edit(helper + "public static string Which() => Name<int>();",
                                         helper + "public static string Which() => Name<long>();");

        MethodComparison which = Single(result, "Game.Logic.Player.Which()");
        Assert.Equal("IL_0000: call Game.Logic.Player::Name<int>() : string → " +
                     "Game.Logic.Player::Name<long>() : string", which.Difference);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Name`1()", BodyChanged: false });
    }

    [Fact]
    public void ATryCatchWithANewCatchType()
    {
        AssemblyComparison result = Edit(
            "public static int Parse(string s) { try { return int.Parse(s); } catch (FormatException) { return -1; } }",
            "public static int Parse(string s) { try { return int.Parse(s); } catch (OverflowException) { return -1; } }");

        MethodComparison parse = Single(result, "Game.Logic.Player.Parse(string)");
        Assert.Equal("exception clause 0: catch System.FormatException → System.OverflowException", parse.Difference);
    }

    [Fact]
    public void AChangedLambdaBodyIsTheLambdasChangeNotItsCallers()
    {
        AssemblyComparison result = Edit("public static int Sum(int[] xs) => xs.Select(x => x * 2).Sum();",
                                         "public static int Sum(int[] xs) => xs.Select(x => x * 3).Sum();");

        MethodComparison lambda = Single(result, "Game.Logic.Player+<>c.<Sum>b__0_0(int)");
        Assert.True(lambda.IsGenerated);
        Assert.Equal("IL_0001: ldc.i4.2 → ldc.i4.3", lambda.Difference);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Sum(int[])", BodyChanged: false });
        MemberEdit change = Assert.Single(result.GeneratedChanges);
        Assert.Equal("BodyChanged: Game.Logic.Player+<>c.<Sum>b__0_0(int) (IL_0001: ldc.i4.2 → ldc.i4.3)",
                     change.Message);
    }

    [Fact]
    public void AnAsyncMethodsBodyChangeIsItsStateMachinesMoveNext()
    {
        AssemblyComparison result = Edit(
            "public static async Task<int> RunAsync(int x) { await Task.Yield(); return x * 2; }",
            "public static async Task<int> RunAsync(int x) { await Task.Yield(); return x * 3; }");

        MethodComparison moveNext = Single(result, "Game.Logic.Player+<RunAsync>d__0.MoveNext()");
        Assert.True(moveNext.IsGenerated);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.RunAsync(int)", BodyChanged: false });
        MemberEdit change = Assert.Single(result.GeneratedChanges);
        Assert.Equal(EditKind.BodyChanged, change.Kind);
        Assert.Equal("Game.Logic.Player+<RunAsync>d__0.MoveNext()", change.Member);
    }

    [Fact]
    public void ANewLambdaIsAGeneratedMemberWithoutCounterpartNotARudeEdit()
    {
        AssemblyComparison result = Edit("public static int Sum(int[] xs) => xs.Sum();",
                                         "public static int Sum(int[] xs) => xs.Select(x => x * 2).Sum();");

        Single(result, "Game.Logic.Player.Sum(int[])");
        MemberEdit added = Assert.Single(result.GeneratedChanges);
        Assert.Equal("TypeAdded: Game.Logic.Player+<>c", added.Message);
        Assert.True(added.IsGenerated);
    }

    // Two calls swapped between two methods: each MemberRef keeps its row (the first call emitted
    // is the first reference either way), so the bytes of both bodies are what they were. A
    // comparer of bytes or token numbers would report nothing; both methods changed.
    [Fact]
    public void SwappedCallsAndStringsWithTheSameTokensAreChanges()
    {
        string loaded = Builds.Compile(Player("""
            public static int First(int x) => Math.Abs(x);
            public static int Second(int x) => Math.Sign(x);
            public static string Left() => "left";
            public static string Right() => "rght";
            """));
        string rebuilt = Builds.Compile(Player("""
            public static int First(int x) => Math.Sign(x);
            public static int Second(int x) => Math.Abs(x);
            public static string Left() => "rght";
            public static string Right() => "left";
            """));
        foreach (string method in new[] { "First", "Second", "Left", "Right" })
            Assert.Equal(Builds.RawIL(loaded, "Game.Logic.Player", method),
                         Builds.RawIL(rebuilt, "Game.Logic.Player", method));

        AssemblyComparison result = AssemblyComparer.Compare(loaded, rebuilt);

        Assert.Empty(result.RudeEdits);
        Assert.Equal(["Game.Logic.Player.First(int)", "Game.Logic.Player.Second(int)", "Game.Logic.Player.Left()",
                      "Game.Logic.Player.Right()"],
                     result.ChangedMethods.Select(m => m.Member));
        Assert.Equal("IL_0000: ldstr \"left\" → \"rght\"",
                     result.Methods.Single(m => m.Member == "Game.Logic.Player.Left()").Difference);
    }

    [Fact]
    public void AChangedClosureBodyIsTheDisplayClassMethodsChange()
    {
        AssemblyComparison result = Edit(
            "public static int Scale(int[] xs, int k) => xs.Select(x => x * k + 1).Sum();",
            "public static int Scale(int[] xs, int k) => xs.Select(x => x * k + 2).Sum();");

        MethodComparison lambda = Single(result, "Game.Logic.Player+<>c__DisplayClass0_0.<Scale>b__0(int)");
        Assert.True(lambda.IsGenerated);
        Assert.Contains(result.Methods, m => m is { Member: "Game.Logic.Player.Scale(int[], int)", BodyChanged: false });
        Assert.Equal(["BodyChanged: Game.Logic.Player+<>c__DisplayClass0_0.<Scale>b__0(int)"],
                     result.GeneratedChanges.Select(e => $"{e.Kind}: {e.Member}"));
    }

    [Fact]
    public void ARemovedLambdaIsAGeneratedMemberWithoutCounterpart()
    {
        AssemblyComparison result = Edit("public static int Sum(int[] xs) => xs.Select(x => x * 2).Sum();",
                                         "public static int Sum(int[] xs) => xs.Sum();");

        Single(result, "Game.Logic.Player.Sum(int[])");
        Assert.Equal(["TypeRemoved: Game.Logic.Player+<>c"], result.GeneratedChanges.Select(e => e.Message));
    }

    [Fact]
    public void ALocalNewlyKeptAcrossAnAwaitIsAGeneratedFieldAdded()
    {
        AssemblyComparison result = Edit(
            "public static async Task<int> RunAsync(int x) { await Task.Yield(); return x; }",
            "public static async Task<int> RunAsync(int x) { int y = x * 2; await Task.Yield(); return y; }");

        Single(result, "Game.Logic.Player+<RunAsync>d__0.MoveNext()");
        Assert.Equal(["BodyChanged: Game.Logic.Player+<RunAsync>d__0.MoveNext()",
                      "FieldAdded: Game.Logic.Player+<RunAsync>d__0.<y>5__2"],
                     result.GeneratedChanges.Select(e => $"{e.Kind}: {e.Member}").Order(StringComparer.Ordinal));
    }

    // The IL does the same thing instruction for instruction (its box token moved: a TypeRef was
    // added); only the local's declared type changed. The IL is compared first, so the difference
    // reported being the locals' shows the code compared equal.
    [Fact]
    public void AChangedLocalTypeWithTheSameCode()
    {
        AssemblyComparison result = Edit(
            "public static int Hash(int x) { object o = x; return o.GetHashCode() + o.GetHashCode(); }",
            "public static int Hash(int x) { IComparable o = x; return o.GetHashCode() + o.GetHashCode(); }");

        MethodComparison hash = Single(result, "Game.Logic.Player.Hash(int)");
        Assert.Equal("locals (object) → (System.IComparable)", hash.Difference);
    }
}
