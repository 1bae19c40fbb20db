using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Edits inside existing method bodies: each becomes a generation of the loaded method,
/// the compiler's body with the delta's new rows translated into the loaded module's tokens.</summary>
public sealed class BodyEditTests
{
    private const string Game = """
        namespace Demo;
        public static class Scoring
        {
            public static int PointsFor(int inGoal) => inGoal * 100;
            public static string Name() => "score";
        }
        """;

    [Fact]
    public void AChangedConstantIsOneBodyOfTheLoadedMethodWithNoRelocation()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Game.Replace("inGoal * 100", "inGoal * 120", StringComparison.Ordinal));
        Assert.Null(reload.Side);
        PreparedBody body = Assert.Single(reload.Bodies);
        Assert.Equal("Demo.Scoring.PointsFor(int)", body.Member);
        Assert.Equal(edits.Game.GetType("Demo.Scoring")!.GetMethod("PointsFor"), body.Target);
        Assert.Empty(body.Lowered.Relocations);
        Assert.False(body.IsOriginal);
        Assert.Equal("IL_0001: ldc.i4.s 100 → ldc.i4.s 120", body.Difference);
        Edits.AssertValid(body);
    }

    [Fact]
    public void ANewStringLiteralIsAUserStringRelocation()
    {
        using var edits = new Edits(Game);
        PreparedReload reload = edits.Apply(Game.Replace("\"score\"", "\"points!\"", StringComparison.Ordinal));
        PreparedBody body = Assert.Single(reload.Bodies);
        Assert.Single(Edits.Relocations(body, RelocationKind.UserString));
        Assert.Equal("IL_0000: ldstr \"score\" → ldstr \"points!\"", body.Difference);
        Edits.AssertValid(body);
    }

    [Fact]
    public void TheSourcePutBackIsTheOriginalBody()
    {
        using var edits = new Edits(Game);
        edits.Apply(Game.Replace("inGoal * 100", "inGoal * 120", StringComparison.Ordinal));
        PreparedReload back = edits.Apply(Game);
        PreparedBody body = Assert.Single(back.Bodies);
        Assert.True(body.IsOriginal, "the original source again is the loaded body");
        Assert.Equal(2, edits.Reloads.View.Generation);
    }

    [Fact]
    public void ManyGenerationsFollowOneAnother()
    {
        using var edits = new Edits(Game);
        for (int i = 1; i <= 5; i++)
        {
            PreparedReload reload = edits.Apply(Game.Replace("inGoal * 100", $"inGoal * {100 + i}", StringComparison.Ordinal));
            Assert.Single(reload.Bodies);
            Assert.Equal(i, edits.Reloads.View.Generation);
        }
        Assert.True(Assert.Single(edits.Apply(Game).Bodies).IsOriginal);
    }

    [Fact]
    public void AnUpdateFollowsTheGenerationBeforeIt()
    {
        using var edits = new Edits(Game);
        (ReloadDelta first, Action commitFirst) = edits.Delta(Game.Replace("* 100", "* 101", StringComparison.Ordinal));
        commitFirst(); // the watcher thinks the game has it; the game never applied it
        (ReloadDelta second, _) = edits.Delta(Game.Replace("* 100", "* 102", StringComparison.Ordinal));
        DeltaRefusedException refused = Assert.Throws<DeltaRefusedException>(() => edits.Reloads.Prepare(second, LoadedBody.Of));
        Assert.Equal(ReloadRefusalReason.OutOfSequence, refused.Reason);
        _ = first;
    }

    [Fact]
    public void BytesThatAreNoDeltaAreRefusedAsSuch()
    {
        using var edits = new Edits(Game);
        var junk = new ReloadDelta("Game", edits.Game.ManifestModule.ModuleVersionId, new byte[] { 1, 2, 3, 4 }, new byte[4]);
        DeltaRefusedException refused = Assert.Throws<DeltaRefusedException>(() => edits.Reloads.Prepare(junk, LoadedBody.Of));
        Assert.Equal(ReloadRefusalReason.NotADelta, refused.Reason);
        Assert.Equal(0, edits.Reloads.View.Generation);
    }

    [Fact]
    public void TheBaselineRowsPassAsTheLoadedModulesTokens()
    {
        const string caller = "public static class Caller { public static int Twice() => Demo.Scoring.PointsFor(2) * 2; }";
        using var edits = new Edits(Game + caller);
        PreparedReload reload = edits.Apply(Game + caller.Replace("PointsFor(2)", "PointsFor(3)", StringComparison.Ordinal));
        PreparedBody body = Assert.Single(reload.Bodies);
        Assert.Empty(body.Lowered.Relocations);
        int token = edits.Game.GetType("Demo.Scoring")!.GetMethod("PointsFor")!.MetadataToken;
        Assert.True(body.Lowered.Body.AsSpan().IndexOf(BitConverter.GetBytes(token)) > 0,
                    $"the call names PointsFor by its loaded token 0x{token:X8}");
        Edits.AssertValid(body);
    }
}

/// <summary>A method's signature changed, then changed back.</summary>
public sealed class SignatureEditTests
{
    private const string Game = """
        namespace Demo;
        public static class Edits
        {
            public static int Helper(int a) => a;
            public static int Use() => Helper(5);
        }
        public static class Elsewhere
        {
            public static int AlsoUse() => Edits.Helper(7);
        }
        """;

    [Fact]
    public void ANewSignatureIsANewMethodAndEveryCallerIsUpdated()
    {
        using var edits = new Edits(Game);
        string changed = Game.Replace("public static int Helper(int a) => a;",
                                      "public static int Helper(int a, int b = 1) => a + b;", StringComparison.Ordinal);
        PreparedReload reload = edits.Apply(changed);
        Assert.Equal(["Demo.Edits.Use()", "Demo.Elsewhere.AlsoUse()"], reload.Bodies.Select(b => b.Member).Order());
        Edits.CompileAll(reload);
        PreparedReload back = edits.Apply(Game);
        Assert.All(back.Bodies, b => Assert.True(b.IsOriginal, $"{b.Member} is its original again"));
    }
}

/// <summary>Which changed methods the watcher says are back to the build's own.</summary>
public sealed class RestoredTests
{
    [Fact]
    public void ACallerWhoseTextIsTheBuildsButWhoseCallBindsToANewOverloadIsNotTheOriginal()
    {
        const string game = """
            public static class Edits { public static int Helper(int a) => a; }
            public static class Frame { public static int Line() => Edits.Helper(5); }
            """;
        using var edits = new Edits(game);
        (ReloadDelta delta, _) = edits.Delta(game.Replace("Helper(int a) => a;", "Helper(int a, int b = 1) => a + b;",
                                                          StringComparison.Ordinal));
        Assert.Empty(delta.RestoredMethods);
        PreparedReload reload = edits.Reloads.Prepare(delta, LoadedBody.Of);
        PreparedBody line = Assert.Single(reload.Bodies);
        Assert.Equal("Frame.Line()", line.Member);
        Assert.False(line.IsOriginal);
    }

    [Fact]
    public void AMethodWithALambdaPutBackAsTheBuildHadItIsTheOriginal()
    {
        const string game = "public static class S { public static int F(int k) { System.Func<int, int> f = x => x + k; return f(1); } }";
        using var edits = new Edits(game);
        edits.Apply(game.Replace("x + k", "x * k", StringComparison.Ordinal));
        (ReloadDelta back, _) = edits.Delta(game);
        Assert.Single(back.RestoredMethods);
        PreparedReload reload = edits.Reloads.Prepare(back, LoadedBody.Of);
        Assert.True(reload.Bodies.Single(b => b.Member == "S.F(int)").IsOriginal);
        // The first edit's lambda is gone from the source: the compiler gives it a body that
        // throws if an old delegate still calls it.
        PreparedBody deleted = reload.Bodies.Single(b => b.Member.StartsWith("S.F (a lambda:", StringComparison.Ordinal));
        Assert.Contains("Attempted to invoke a deleted lambda", deleted.Difference, StringComparison.Ordinal);
    }
}
