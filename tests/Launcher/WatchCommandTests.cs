using System.CommandLine;
using AlvorKit.Interception.Launcher.Watch;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept watch` as a person meets it: its help, and bad usage (exit 64,
/// the reason on stderr). The help and the parser's refusals are read in this process
/// (<see cref="LauncherInProcess"/>); a project, a drop folder or a configuration refused once
/// watch starts, in the launcher's process.</summary>
public class WatchCommandTests
{
    [Fact]
    public void WatchHelpDescribesEveryOptionAndTheGameSide()
    {
        ProcessResult r = LauncherInProcess.Run(["watch", "--help"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        foreach (string option in new[] { "--project <csproj>", "--drop <folder>", "--configuration <name>", "--debounce <ms>",
                                           "--warm-up <updates>" })
            Assert.Matches($@"(?m)^  (-\w, )?{System.Text.RegularExpressions.Regex.Escape(option)}\s+\S", r.Stdout);
        Assert.Contains("interceptor.Reload.WatchFolder", r.Stdout);
        Assert.Contains("alvorkit-intercept watch --project Game/Game.csproj --drop build/reload", r.Stdout);
        Assert.Contains("alvorkit-intercept watch --project Game/Game.csproj --\n", r.Stdout); // the whole loop
        Assert.True(r.Stdout.Split('\n').All(l => l.Length <= 100), "help wider than 100 columns\n" + r.Stdout);
    }

    [Fact]
    public void RootHelpNamesWatch()
    {
        ProcessResult r = LauncherInProcess.Run(["--help"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Matches(@"(?m)^  watch <command>\s+On every save of a game's project, compile what changed", r.Stdout);
    }

    [Theory]
    [InlineData("--drop", "d")]
    [InlineData("--project", "p.csproj")]
    public void AMissingRequiredOptionIsAUsageError(string given, string value)
    {
        ProcessResult r = LauncherInProcess.Run(["watch", given, value]);
        Assert.Equal(64, r.ExitCode);
        string missing = given == "--drop" ? "--project" : "--drop";
        Assert.Contains($"Option '{missing}' is required", r.Stderr);
        Assert.Empty(r.Stdout);
    }

    [Fact]
    public void AnUnknownOptionWhereTheGameWouldStartIsAUsageError()
    {
        ProcessResult r = LauncherInProcess.Run(["watch", "--project", "p.csproj", "--drop", "d", "--bogus"]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains("Unrecognized option '--bogus' for watch; a command that starts with '-' goes after `--`.", r.Stderr);
    }

    private static WatchOptions Parsed(params string[] args)
    {
        WatchOptions? seen = null;
        var commandLine = new LauncherCommandLine(_ => 0, o =>
        {
            seen = o;
            return 0;
        });
        ParseResult parse = commandLine.Parse(args);
        Assert.Empty(parse.Errors.Select(e => e.Message).Concat(commandLine.MoreErrors(parse, args)));
        Assert.Equal(0, parse.Invoke());
        return seen ?? throw new Xunit.Sdk.XunitException("watch did not run");
    }

    [Fact]
    public void AfterDoubleDashComesTheGameWatchStarts()
    {
        WatchOptions dropOnly = Parsed("watch", "--project", "G.csproj", "--drop", "d");
        Assert.Null(dropOnly.Game);
        Assert.Equal("d", dropOnly.Drop);

        WatchOptions bare = Parsed("watch", "--project", "G.csproj", "--");
        Assert.Equal([], bare.Game);
        Assert.Equal("", bare.Drop); // watch makes a private folder of its own

        WatchOptions command = Parsed("watch", "-p", "G.csproj", "--profiler", "/p/lib.so", "--", "dotnet", "G.dll", "--drop", "x");
        Assert.Equal(["dotnet", "G.dll", "--drop", "x"], command.Game);
        Assert.Equal("", command.Drop);
        Assert.Equal("/p/lib.so", command.ProfilerPath);
    }

    [Fact]
    public void AProjectThatIsNotThereIsAUsageError()
    {
        using var dir = new TempDir("watch-missing");
        ProcessResult r = Processes.Launcher(["watch", "--project", Path.Combine(dir.Path, "None.csproj"), "--drop", dir.Sub("drop")]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains("watch: no project file", r.Stderr);
    }

    [Fact]
    public void ADropFolderThatCannotBeMadeIsAUsageError()
    {
        using var dir = new TempDir("watch-drop");
        string project = Path.Combine(dir.Path, "Game.csproj");
        File.WriteAllText(project, "<Project />");
        string file = Path.Combine(dir.Path, "a-file");
        File.WriteAllText(file, "");
        ProcessResult r = Processes.Launcher(["watch", "--project", project, "--drop", file]);
        Assert.True(r.ExitCode == 64, r.ToString());
        Assert.Empty(r.Stdout);
        string line = Assert.Single(r.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"alvorkit-intercept: watch: --drop {file}: cannot make the folder: ", line);
    }

    // A configuration the project was never built in: MSBuild gives its compiler arguments, whose
    // referenced project's output is not there. Said in one line, exit 1 (build first), no crash.
    [Fact]
    public void AConfigurationNotBuiltIsABuildErrorNotACrash()
    {
        using var dir = new TempDir("watch-config");
        Directory.CreateDirectory(Path.Combine(dir.Path, "Lib"));
        Directory.CreateDirectory(Path.Combine(dir.Path, "Game"));
        File.WriteAllText(Path.Combine(dir.Path, "Lib", "Lib.csproj"),
            "<Project Sdk=\"Microsoft.NET.Sdk\"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>");
        File.WriteAllText(Path.Combine(dir.Path, "Lib", "Lib.cs"), "public static class Lib { public static int One() => 1; }\n");
        string project = Path.Combine(dir.Path, "Game", "Game.csproj");
        File.WriteAllText(project, """
            <Project Sdk="Microsoft.NET.Sdk">
              <PropertyGroup><TargetFramework>net10.0</TargetFramework><OutputType>Exe</OutputType></PropertyGroup>
              <ItemGroup><ProjectReference Include="../Lib/Lib.csproj" /></ItemGroup>
            </Project>
            """);
        File.WriteAllText(Path.Combine(dir.Path, "Game", "Game.cs"), "System.Console.WriteLine(Lib.One());\n");
        ProcessResult restore = Processes.Run("dotnet", ["restore", project, "-nologo", "-v", "quiet"],
                                              Processes.WithEmptyNuGetCache(), dir.Path, TimeSpan.FromMinutes(3));
        Assert.True(restore.ExitCode == 0, restore.ToString());

        ProcessResult r = Processes.Launcher(["watch", "--project", project, "--drop", dir.Sub("drop"), "-c", "Unbuilt"],
                                             workingDirectory: dir.Path);
        Assert.True(r.ExitCode == 1, r.ToString());
        Assert.DoesNotContain("Unhandled exception", r.Stderr);
        string line = Assert.Single(r.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Matches(@"^alvorkit-intercept: watch: .*Lib\.dll, a reference of the project, is missing: build the project in " +
                       @"the configuration watch was given \(--configuration\)", line);
    }

    [Theory]
    [InlineData("--warm-up", "101", "--warm-up: give a number of updates from 0 to 100")]
    [InlineData("--warm-up", "-1", "--warm-up: give a number of updates from 0 to 100")]
    [InlineData("--debounce", "60001", "--debounce: give milliseconds from 0 to 60000")]
    [InlineData("--debounce", "-5", "--debounce: give milliseconds from 0 to 60000")]
    public void AnOutOfRangeNumberIsAUsageError(string option, string value, string message)
    {
        ProcessResult r = LauncherInProcess.Run(["watch", "--project", "p.csproj", "--drop", "d", option, value]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains(message, r.Stderr);
    }
}
