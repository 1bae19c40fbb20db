using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept watch` as a process on a small game: it says whether its sources
/// are the build's, compiles a save as an update and drops it, prints the compiler's errors and
/// drops nothing for a save that does not compile, and stops cleanly on Ctrl+C.</summary>
[Collection(SmallGameCollection.Name)]
public sealed class WatchProcessTests(SmallGame game)
{
    private static readonly TimeSpan Wait = TimeSpan.FromSeconds(60);

    [Fact]
    public void SavesAreRebuiltAndDroppedErrorsArePrintedAndCtrlCStops()
    {
        using var dir = new TempDir("watch-process");
        string drop = dir.Sub("drop");
        string dll = Path.Combine(drop, "Small.hotreload");
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--debounce", "50", "--warm-up", "2"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        watch.WaitFor(0, l => l.StartsWith("watch: Small: ", StringComparison.Ordinal) &&
                              l.Contains($"({Path.Combine(game.Folder, "obj", "Release", "net10.0", "Small.dll")}); MSBuild ",
                                         StringComparison.Ordinal),
                      Wait, "naming the build it updates");
        watch.WaitFor(0, l => l == "watch: the sources are the build's", Wait, "saying the sources are the build's");
        watch.WaitFor(0, l => l.StartsWith("watch: warmed up the compiler (2 updates, ", StringComparison.Ordinal), Wait,
                      "warming up");
        // No game runs: the rehearsal the watcher drops at its start goes unanswered, and says so.
        watch.WaitFor(0, l => l.StartsWith("watch: no game answered a rehearsal within 2 s", StringComparison.Ordinal), Wait,
                      "saying no game rehearsed");
        int mark = watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching").Index;
        Assert.True(ReloadDelta.Read(File.ReadAllBytes(dll)).IsRehearsal); // nothing but a rehearsal before a save

        string original = File.ReadAllText(game.Other);
        try
        {
            File.WriteAllText(game.Other, original.Replace("\"other\"", "\"saved\"", StringComparison.Ordinal));
            mark = watch.WaitFor(mark, l => l.StartsWith("watch: changed: Other.cs; update 1 compiled in ", StringComparison.Ordinal),
                                 Wait, "after the save").Index;
            mark = watch.WaitFor(mark, l => l == "watch: dropped Small.hotreload; waiting for the game's result", Wait,
                                 "dropping").Index;
            Assert.False(ReloadDelta.Read(File.ReadAllBytes(dll)).IsRehearsal);
            DateTime droppedAt = File.GetLastWriteTimeUtc(dll);

            // A save that does not compile: the compiler's error, and the drop stays as it was.
            File.WriteAllText(game.Other, original.Replace("\"other\";", "\"other\"", StringComparison.Ordinal));
            mark = watch.WaitFor(mark, l => l.Contains("does not compile", StringComparison.Ordinal), Wait,
                                 "saying it does not compile").Index;
            Assert.Contains("watch: changed: Other.cs; does not compile (", watch.Lines[mark]);
            Assert.EndsWith("nothing dropped:", watch.Lines[mark]);
            string error = watch.WaitFor(mark + 1, l => l.Contains(": error CS", StringComparison.Ordinal), Wait,
                                         "with the compiler's error").Line;
            Assert.Matches(@"Other\.cs\(1,\d+\): error CS1002: ; expected$", error);
            Assert.Equal(droppedAt, File.GetLastWriteTimeUtc(dll));
        }
        finally
        {
            File.WriteAllText(game.Other, original);
        }

        // A file the project did not compile when the watcher started is named, once.
        string added = Path.Combine(game.Folder, "Added.cs");
        try
        {
            File.WriteAllText(added, "internal static class Added { }\n");
            watch.WaitFor(mark, l => l == "watch: Added.cs is not one of the files the project compiled when the watcher " +
                                          "started (a new file?): restart watch to compile it", Wait, "naming the new file");
        }
        finally
        {
            File.Delete(added);
        }

        Assert.True(watch.Interrupt(TimeSpan.FromSeconds(30)),
            $"watch did not stop on SIGINT (sent at {watch.InterruptedAt?.TotalSeconds:0.000} s)\n{watch.Tail(20)}\n{watch.Diagnose()}");
        Assert.Equal(0, watch.ExitCode);
        Assert.Contains("watch: stopped", watch.Lines);
    }

    // An editor (or a slow disk) that writes a file in place: truncated, then written in pieces
    // with a pause between them. The watcher reads the file at its first event, half written: an
    // empty file (a class removed) or half a class (does not compile). Neither may print an
    // error, commit or drop anything: the one update is the whole file's.
    [Theory]
    [InlineData("two halves")]
    [InlineData("empty, then whole")]
    public void AFileWrittenInPlaceInPiecesIsCompiledOnceWhole(string pieces)
    {
        using var dir = new TempDir("watch-pieces");
        string drop = dir.Sub("drop");
        string dll = Path.Combine(drop, "Small.hotreload");
        using var watch = StreamingProcess.Start("watch", "dotnet",
            [Repo.Launcher, "watch", "--project", game.Project, "--drop", drop, "--warm-up", "2"],
            Processes.WithEmptyNuGetCache(), game.Folder);
        int mark = watch.WaitFor(0, l => l.StartsWith("watch: watching ", StringComparison.Ordinal), Wait, "watching").Index;

        string original = File.ReadAllText(game.Other);
        const string Literal = "written in place, in pieces";
        byte[] whole = System.Text.Encoding.UTF8.GetBytes(
            "// Other.cs, written in place\ninternal static class Other\n{\n    public static string Name() => \"" + Literal +
            "\";\n}\n");
        int first = pieces == "two halves" ? whole.Length / 2 : 0;
        try
        {
            using (var file = new FileStream(game.Other, FileMode.Open, FileAccess.Write, FileShare.ReadWrite))
            {
                file.SetLength(0);
                file.Write(whole, 0, first);
                file.Flush(flushToDisk: true);
                Thread.Sleep(300);
                file.Write(whole, first, whole.Length - first);
            }
            int dropped = watch.WaitFor(mark, l => l == "watch: dropped Small.hotreload; waiting for the game's result", Wait,
                                        "dropping the whole file's update").Index;
            // Longer than the watcher waits for a file to settle: nothing else comes of the pieces.
            Thread.Sleep(2000);
            string[] after = [.. watch.Lines.Skip(mark + 1)];
            string[] changed = [.. after.Where(l => l.StartsWith("watch: changed: ", StringComparison.Ordinal))];
            Assert.True(changed.Length == 1 && changed[0].StartsWith("watch: changed: Other.cs; update 1 compiled in ",
                                                                      StringComparison.Ordinal),
                        $"one update of the whole file expected\n{watch.Tail(20)}");
            Assert.DoesNotContain(after, l => l.Contains("error", StringComparison.OrdinalIgnoreCase) ||
                                              l.Contains("does not compile", StringComparison.Ordinal) ||
                                              l.Contains("cannot take", StringComparison.Ordinal) ||
                                              l.Contains("note:", StringComparison.Ordinal));
            Assert.Equal("watch: dropped Small.hotreload; waiting for the game's result", watch.Lines[dropped]);

            // The update is the whole file's: its new string, nothing removed, only Other.cs.
            ReloadDelta delta = ReloadDelta.Read(File.ReadAllBytes(dll));
            Assert.False(delta.IsRehearsal);
            Assert.Equal(["Other.cs"], delta.ChangedFiles.Select(Path.GetFileName));
            Assert.Empty(delta.Notices);
            byte[] literal = System.Text.Encoding.Unicode.GetBytes(Literal);
            Assert.True(delta.Metadata.Span.IndexOf(literal) >= 0, "the update does not carry the whole file's string");
        }
        finally
        {
            File.WriteAllText(game.Other, original);
        }
        Assert.True(watch.Interrupt(TimeSpan.FromSeconds(30)), watch.Tail(20));
        Assert.Equal(0, watch.ExitCode);
    }
}
