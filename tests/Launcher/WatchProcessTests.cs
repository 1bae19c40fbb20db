using AlvorKit.Interception.HotReload;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept watch` as a process on a small game: it says whether its sources
/// are the build's, compiles a save as an update and drops it, prints the compiler's errors and
/// drops nothing for a save that does not compile, and stops cleanly on Ctrl+C.</summary>
public sealed class WatchProcessTests(SmallGame game) : IClassFixture<SmallGame>
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
}
