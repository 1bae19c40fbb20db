using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept watch` as a person meets it: its help, and bad usage (exit 64,
/// the reason on stderr).</summary>
public class WatchCommandTests
{
    [Fact]
    public void WatchHelpDescribesEveryOptionAndTheGameSide()
    {
        ProcessResult r = Processes.Launcher(["watch", "--help"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        foreach (string option in new[] { "--project <csproj>", "--drop <folder>", "--configuration <name>", "--debounce <ms>",
                                           "--warm-up <updates>" })
            Assert.Matches($@"(?m)^  (-\w, )?{System.Text.RegularExpressions.Regex.Escape(option)}\s+\S", r.Stdout);
        Assert.Contains("interceptor.Reload.WatchFolder", r.Stdout);
        Assert.Contains("alvorkit-intercept watch --project Game/Game.csproj --drop build/reload", r.Stdout);
        Assert.True(r.Stdout.Split('\n').All(l => l.Length <= 100), "help wider than 100 columns\n" + r.Stdout);
    }

    [Fact]
    public void RootHelpNamesWatch()
    {
        ProcessResult r = Processes.Launcher(["--help"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Matches(@"(?m)^  watch\s+On every save of a game's project, compile what changed", r.Stdout);
    }

    [Theory]
    [InlineData("--drop", "d")]
    [InlineData("--project", "p.csproj")]
    public void AMissingRequiredOptionIsAUsageError(string given, string value)
    {
        ProcessResult r = Processes.Launcher(["watch", given, value]);
        Assert.Equal(64, r.ExitCode);
        string missing = given == "--drop" ? "--project" : "--drop";
        Assert.Contains($"Option '{missing}' is required", r.Stderr);
        Assert.Empty(r.Stdout);
    }

    [Fact]
    public void AProjectThatIsNotThereIsAUsageError()
    {
        using var dir = new TempDir("watch-missing");
        ProcessResult r = Processes.Launcher(["watch", "--project", Path.Combine(dir.Path, "None.csproj"), "--drop", dir.Sub("drop")]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains("watch: no project file", r.Stderr);
    }

    [Theory]
    [InlineData("--warm-up", "101", "--warm-up: give a number of updates from 0 to 100")]
    [InlineData("--warm-up", "-1", "--warm-up: give a number of updates from 0 to 100")]
    [InlineData("--debounce", "60001", "--debounce: give milliseconds from 0 to 60000")]
    [InlineData("--debounce", "-5", "--debounce: give milliseconds from 0 to 60000")]
    public void AnOutOfRangeNumberIsAUsageError(string option, string value, string message)
    {
        ProcessResult r = Processes.Launcher(["watch", "--project", "p.csproj", "--drop", "d", option, value]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains(message, r.Stderr);
    }
}
