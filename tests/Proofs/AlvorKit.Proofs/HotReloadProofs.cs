using AlvorKit.Tests.Support;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Edit, save, and the running Release game runs it: the real loop in profiled processes
/// (ReloadLoop: two games, tiering on and off, watching one drop folder, and `alvorkit-intercept
/// watch` on their project, which compiles each save as an update of the build the games
/// loaded). Each edit is written to the game's source, must show in the frames both games
/// print, and is then reverted in source, after which the original output comes back — added
/// methods, fields and types, a changed signature whose caller is in another file, and new
/// lambdas included. An edit a running game cannot take is refused by the watcher, by name and
/// location, before anything is dropped, and the frames do not change. The facts share the loop
/// and leave the source as they found it.
/// </summary>
[Trait("Feature", "Hot reload")]
[Trait("Sanitized", "yes")]
public sealed class HotReloadProofs(ReloadLoop loop) : IClassFixture<ReloadLoop>
{
    private const string EditsFile = "Edits.cs";
    private const string GreetingDeclaration = "public static string Greeting()";
    private const string SpeedBody = "if (frame < 0)\n            return -1;\n        return 7;";

    [Fact]
    public void AChangedConstantAndBranchRunsThenTheOriginalReturns() =>
        AppliesThenReverts(EditsFile, SpeedBody, "if (frame >= 0)\n            return 12;\n        return 7;", "speed", "12");

    [Fact]
    public void ANewStringLiteralRunsAndTheWatcherSaysWhatChanged()
    {
        int watchMark = loop.GameWatch.Mark;
        AppliesThenReverts(EditsFile, "=> \"hello\";", "=> \"howdy, a new literal\";", "greet", "howdy, a new literal");
        loop.GameWatch.WaitFor(watchMark, l => l.StartsWith("watch: changed: Edits.cs; update ", StringComparison.Ordinal) &&
                                               l.Contains(" compiled in ", StringComparison.Ordinal),
                               ReloadLoop.Wait, "naming the saved file and the compile time");
        loop.GameWatch.WaitFor(watchMark, l => l.StartsWith("game: ReloadGame: ", StringComparison.Ordinal) &&
                                               l.Contains("applied in", StringComparison.Ordinal),
                               ReloadLoop.Wait, "with the game's result and apply time");
        loop.GameWatch.WaitFor(watchMark, l => l.Contains("ReloadGame.Edits.Greeting()", StringComparison.Ordinal),
                               ReloadLoop.Wait, "naming the changed method");
    }

    [Fact]
    public void ACallToAFrameworkMethodTheModuleNeverReferencedRuns() =>
        AppliesThenReverts(EditsFile, "=> \"fw:none\";",
                           "=> \"fw:\" + Math.BigMul(6000, 7).ToString(CultureInfo.InvariantCulture);", "fw", "fw:42000");

    [Fact]
    public void ACallWithANewGenericInstantiationRuns() =>
        AppliesThenReverts(EditsFile, "Describe<int>(1)", "Describe<long>(2L)", "generic", "Int64:2");

    [Fact]
    public void ATryCatchWithANewCatchTypeRuns() =>
        AppliesThenReverts(EditsFile, "catch (ArgumentOutOfRangeException)\n        {\n            return \"caught-range\";",
                           "catch (ArgumentException)\n        {\n            return \"caught-argument\";", "guarded",
                           "caught-argument");

    [Fact]
    public void AChangedLambdaBodyInItsExistingClosureClassRuns() =>
        AppliesThenReverts(EditsFile, "x => x + 1", "x => x * 10", "lambda", "lambda:10");

    [Fact]
    public void AnAsyncMethodsChangedBodyRuns() =>
        AppliesThenReverts(EditsFile, "(n * 3)", "(n * 4)", "async", "async:4");

    [Fact]
    public void AnInlinedCalleeOfAHotLoopRunsItsNewBody() =>
        AppliesThenReverts("Hot.cs", "public static int Tiny() => 1;", "public static int Tiny() => 2;", "hot", "200000");

    [Fact]
    public void AnAddedMethodAndFieldApply() =>
        AppliesThenReverts(EditsFile, [("return 7;", "_speedCalls++;\n        return AddedMethod() + (_speedCalls > 0 ? 0 : 100);"),
                                       (GreetingDeclaration, "private static int _speedCalls;\n\n    private static int AddedMethod() => 14;\n\n    " + GreetingDeclaration)],
                           "speed", "14");

    [Fact]
    public void AnAddedRecordTypeApplies() =>
        AppliesThenReverts(EditsFile, [("=> \"hello\";", "=> new Greeting2(\"hi\", 2).ToString();"),
                                       ("public static class Edits", "public sealed record Greeting2(string Word, int Times);\n\npublic static class Edits")],
                           "greet", "Greeting2 { Word = hi, Times = 2 }");

    [Fact]
    public void ANewSignatureAppliesWithItsCallerInAnotherFile() =>
        AppliesThenReverts(EditsFile, [("public static int Helper(int a) => a;", "public static int Helper(int a, int b = 1) => a + b;")],
                           "helper", "6");

    [Fact]
    public void AnEditTheRunningGameCannotTakeIsRefusedByTheWatcherAndChangesNothing()
    {
        string path = loop.Source(EditsFile);
        string original = File.ReadAllText(path);
        int watchMark = loop.GameWatch.Mark;
        int[] marks = loop.Games.Select(g => g.Mark).ToArray();
        try
        {
            Save(path, Replace(original, "public static int Speed(int frame)", "internal static int Speed(int frame)"));
            (_, int at) = loop.GameWatch.WaitFor(watchMark,
                l => l.Contains("the running game cannot take this save, nothing dropped", StringComparison.Ordinal),
                ReloadLoop.Wait, "refusing the save");
            (string refusal, _) = loop.GameWatch.WaitFor(at, l => l.Contains("its accessibility changed", StringComparison.Ordinal),
                                                       ReloadLoop.Wait, "naming what it refuses");
            Assert.Matches(@"Edits\.cs\(\d+,\d+\): Edits\.Speed\(int\): its accessibility changed", refusal);
            Thread.Sleep(500);
            for (int g = 0; g < marks.Length; g++)
            {
                Assert.DoesNotContain(loop.Games[g].Lines.Skip(marks[g]), l => l.StartsWith("reload:", StringComparison.Ordinal));
                AssertFramesUnchanged(loop.Games[g], loop.Games[g].Mark, 3);
            }
        }
        finally
        {
            RestoreAndSettle(path, original, expectUpdate: false);
        }
    }

    [Fact]
    public void AnEditToALoadedAssemblyThatIsNotAllowlistedIsRefused() =>
        RefusedAndNothingChanges(Path.Combine("ReloadLib", "Library.cs"), "ReloadLib", "NotAllowlisted", "ReloadLib.Library.Tag()",
            ("=> \"lib-1\";", "=> \"lib-2\";"));

    [Fact]
    public void ARebuildThatDoesNotCompilePrintsTheErrorsAndDropsNothing()
    {
        string path = loop.Source(EditsFile);
        string original = File.ReadAllText(path);
        string dropped = Path.Combine(loop.Drop, "ReloadGame.hotreload");
        DateTime before = File.Exists(dropped) ? File.GetLastWriteTimeUtc(dropped) : DateTime.MinValue;
        int watchMark = loop.GameWatch.Mark;
        int[] marks = loop.Games.Select(g => g.Mark).ToArray();
        try
        {
            Save(path, Replace(original, "return 7;", "return 7 +;"));
            (string failed, int at) = loop.GameWatch.WaitFor(watchMark,
                l => l.Contains("does not compile", StringComparison.Ordinal), ReloadLoop.Wait, "saying it does not compile");
            Assert.Contains("nothing dropped", failed, StringComparison.Ordinal);
            (string error, _) = loop.GameWatch.WaitFor(at, l => l.Contains(": error CS", StringComparison.Ordinal),
                                                       ReloadLoop.Wait, "with a compiler error");
            Assert.Matches(@"Edits\.cs\(\d+,\d+\): error CS1525: ", error);
            // Nothing reached the drop folder, and the games go on as they were.
            Thread.Sleep(500);
            Assert.Equal(before, File.Exists(dropped) ? File.GetLastWriteTimeUtc(dropped) : DateTime.MinValue);
            for (int g = 0; g < marks.Length; g++)
            {
                Assert.DoesNotContain(loop.Games[g].Lines.Skip(marks[g]), l => l.StartsWith("reload:", StringComparison.Ordinal));
                AssertFramesUnchanged(loop.Games[g], loop.Games[g].Mark, 3);
            }
        }
        finally
        {
            RestoreAndSettle(path, original, expectUpdate: false);
        }
    }

    /// <summary>Saves the edit; both games must print <paramref name="expected"/> for
    /// <paramref name="key"/>, with the other outputs unchanged; then the source goes back and
    /// both games print the original again.</summary>
    private void AppliesThenReverts(string file, string from, string to, string key, string expected) =>
        AppliesThenReverts(file, [(from, to)], key, expected);

    private void AppliesThenReverts(string file, (string From, string To)[] edits, string key, string expected)
    {
        string path = loop.Source(file);
        string original = File.ReadAllText(path);
        int[] marks = loop.Games.Select(g => g.Mark).ToArray();
        try
        {
            Save(path, edits.Aggregate(original, (text, e) => Replace(text, e.From, e.To)));
            for (int g = 0; g < marks.Length; g++)
            {
                (string line, _) = WaitWithResults(loop.Games[g], marks[g], l => Frames.Value(l, key) == expected,
                                                   $"with {key}={expected} (the edit applied)");
                foreach (var (k, v) in Frames.Parse(line).Where(kv => kv.Key != key))
                    Assert.True(loop.Baseline[k] == v, $"{k}={v} changed with an edit of {key}\n{line}");
                // The result line comes after the apply, so after (or around) the first new frame.
                (string result, _) = WaitWithResults(loop.Games[g], marks[g],
                    l => l.StartsWith("reload: ReloadGame ", StringComparison.Ordinal), "with the reload's result");
                Assert.StartsWith("reload: ReloadGame Applied ", result, StringComparison.Ordinal);
            }
        }
        finally
        {
            RestoreAndSettle(path, original);
        }
    }

    /// <summary>Saves the edit; both games must report it refused (<paramref name="reason"/>,
    /// naming <paramref name="member"/>) and print the same frames after it as before.</summary>
    private void RefusedAndNothingChanges(string file, string assembly, string reason, string member,
                                          params (string From, string To)[] edits)
    {
        string path = loop.Source(file);
        string original = File.ReadAllText(path);
        int[] marks = loop.Games.Select(g => g.Mark).ToArray();
        try
        {
            Save(path, edits.Aggregate(original, (text, e) => Replace(text, e.From, e.To)));
            for (int g = 0; g < marks.Length; g++)
            {
                (string result, int at) = loop.Games[g].WaitFor(marks[g],
                    l => l.StartsWith($"reload: {assembly} ", StringComparison.Ordinal), ReloadLoop.Wait,
                    $"with the result of the {assembly} rebuild");
                Assert.StartsWith($"reload: {assembly} Refused ", result, StringComparison.Ordinal);
                Assert.Matches($@"refusals=\[.*{reason}:[^\]]*{member}", result);
                AssertFramesUnchanged(loop.Games[g], at + 1, 5);
            }
        }
        finally
        {
            RestoreAndSettle(path, original, expectUpdate: false);
        }
    }

    /// <summary>WaitFor, and on a timeout the game's `reload:` lines since the mark too (the
    /// tail shows frames only).</summary>
    private static (string Line, int Index) WaitWithResults(StreamingProcess game, int mark, Func<string, bool> match,
                                                            string what)
    {
        try
        {
            return game.WaitFor(mark, match, ReloadLoop.Wait, what);
        }
        catch (TimeoutException e)
        {
            string results = string.Join('\n', game.Lines.Skip(mark).Where(l => !Frames.IsFrame(l)));
            throw new TimeoutException($"{e.Message}\n--- the game's other lines since the edit\n{results}", e);
        }
    }

    /// <summary>The next <paramref name="count"/> frames from <paramref name="from"/> on are the baseline.</summary>
    private void AssertFramesUnchanged(StreamingProcess game, int from, int count)
    {
        int next = from;
        for (int i = 0; i < count; i++)
        {
            (string line, int at) = game.WaitFor(next, Frames.IsFrame, ReloadLoop.Wait, "with a frame");
            Assert.True(Frames.Parse(line).All(kv => loop.Baseline[kv.Key] == kv.Value),
                        $"a frame changed where nothing should have:\n{line}\nexpected {string.Join(", ", loop.Baseline)}");
            next = at + 1;
        }
    }

    /// <summary>Puts the original source back and, when the edit was applied, waits until both
    /// games have reported the revert's update and print the baseline again, so the next fact
    /// starts from the original with no result pending. An edit that was never applied (refused,
    /// or not compiling) needs no update to revert: the watcher sees the source it had.</summary>
    private void RestoreAndSettle(string path, string original, bool expectUpdate = true)
    {
        if (File.ReadAllText(path) == original)
            return;
        if (!expectUpdate)
        {
            Save(path, original);
            Thread.Sleep(300);
            return;
        }
        string assembly = path.Contains("ReloadLib", StringComparison.Ordinal) ? "ReloadLib" : "ReloadGame";
        int[] marks = loop.Games.Select(g => g.Mark).ToArray();
        Save(path, original);
        for (int g = 0; g < marks.Length; g++)
        {
            StreamingProcess game = loop.Games[g];
            (_, int at) = WaitWithResults(game, marks[g], l => l.StartsWith($"reload: {assembly} ", StringComparison.Ordinal),
                                          "with the result of the revert's rebuild");
            WaitWithResults(game, at, l => Frames.IsFrame(l) && Frames.Parse(l).All(kv => loop.Baseline[kv.Key] == kv.Value),
                            "showing the original output again after the source was reverted");
        }
    }

    private static string Replace(string text, string from, string to)
    {
        Assert.True(text.Contains(from, StringComparison.Ordinal), $"the game's source no longer holds '{from}'");
        return text.Replace(from, to, StringComparison.Ordinal);
    }

    /// <summary>Saves as an editor does: a temporary file renamed over the source.</summary>
    private static void Save(string path, string text)
    {
        string temporary = path + ".save~";
        File.WriteAllText(temporary, text);
        File.Move(temporary, path, overwrite: true);
    }
}
