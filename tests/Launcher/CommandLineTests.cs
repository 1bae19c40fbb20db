using System.CommandLine;
using AlvorKit.Interception.Launcher;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>The command line as a person meets it: --help for each command (a description of
/// every command and option, examples, exit codes), --version, and bad usage (exit 64, the
/// reason and where to read more on stderr, nothing on stdout, nothing started). The launcher's
/// process is started for the help, the version and one bad usage; the rest read the command
/// line in this process, as Main does (<see cref="LauncherInProcess"/>).</summary>
public class HelpAndUsageTests
{
    [Fact]
    public void TheProcessPrintsTheHelpOnStdoutNarrowEnoughForAFile() => AssertRootHelp(Processes.Launcher(["--help"]));

    [Fact]
    public void TheProcessRefusesBadUsageWithExit64AndStartsNothing()
    {
        string marker = Path.Combine(Path.GetTempPath(), $"alvk-usage-{Guid.NewGuid():N}");
        ProcessResult r = Processes.Launcher(["run", "--modules", "A", "--no-such-option", "--", "touch", marker]);
        Assert.True(r.ExitCode == 64, r.ToString());
        Assert.Empty(r.Stdout);
        Assert.Contains("alvorkit-intercept: Unrecognized option '--no-such-option' for run", r.Stderr);
        Assert.Contains("see `alvorkit-intercept run --help` for the options and an example", r.Stderr);
        Assert.False(File.Exists(marker), "the command ran after a usage error");
    }

    [Theory]
    [InlineData("--help")]
    [InlineData("-h")]
    [InlineData("help")]
    public void RootHelpDescribesBothCommandsWithExamples(string flag) => AssertRootHelp(LauncherInProcess.Run([flag]));

    private static void AssertRootHelp(ProcessResult r)
    {
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Empty(r.Stderr);
        Assert.Contains("Start a .NET game under the AlvorKit Interception Profiler", r.Stdout);
        Assert.Matches(@"(?m)^  run <command>\s+Start a command under the profiler", r.Stdout);
        Assert.Matches(@"(?m)^  env\s+Print the variables `run` would set", r.Stdout);
        Assert.Contains("Examples:", r.Stdout);
        Assert.Contains("alvorkit-intercept run --modules Game.Logic -- dotnet bin/Release/net10.0/Game.dll", r.Stdout);
        Assert.Contains("not `dotnet run`", r.Stdout);
        Assert.Matches(@"(?m)^  64\s+bad arguments", r.Stdout);
        Assert.True(r.Stdout.Split('\n').All(l => l.Length <= 100), "help wider than 100 columns\n" + r.Stdout);
    }

    [Theory]
    [InlineData("run", "--help")]
    [InlineData("help", "run")]
    public void RunHelpDescribesEveryOption(string first, string second)
    {
        ProcessResult r = LauncherInProcess.Run([first, second]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Contains("alvorkit-intercept run", r.Stdout);
        foreach (string option in new[] { "--modules <names>", "--allocations", "--profiler <path>", "--isolated-proof", "--quiet" })
            Assert.Matches($@"(?m)^  (-\w, )?{System.Text.RegularExpressions.Regex.Escape(option)}\s+\S", r.Stdout);
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES", r.Stdout);
        Assert.Contains("everything after `--` is the command", r.Stdout);
        Assert.Contains("alvorkit-intercept run --modules Game.Logic -- dotnet bin/Release/net10.0/Game.dll --level 3", r.Stdout);
        Assert.Matches(@"(?m)^  127\s+run: the command could not be started", r.Stdout);
        Assert.DoesNotContain("--format", r.Stdout);
        Assert.True(r.Stdout.Split('\n').All(l => l.Length <= 100), "help wider than 100 columns\n" + r.Stdout);
    }

    [Fact]
    public void EnvHelpDescribesTheFormats()
    {
        ProcessResult r = LauncherInProcess.Run(["env", "--help"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Matches(@"(?m)^  --format <sh\|powershell\|json\|launchSettings>\s+How to print the variables", r.Stdout);
        Assert.Contains("eval \"$(alvorkit-intercept env --modules Game.Logic)\"", r.Stdout);
        Assert.DoesNotContain("--quiet", r.Stdout);
    }

    [Fact]
    public void VersionIsThePackageVersion()
    {
        ProcessResult r = Processes.Launcher(["--version"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Equal(PackagesFixture.Version, r.Stdout.Trim());
    }

    [Theory]
    [InlineData(new string[0], "no command given", "alvorkit-intercept --help")]
    [InlineData(new[] { "run", "--modules", "A", "--no-such-option", "--", "true" }, "Unrecognized option '--no-such-option' for run", "alvorkit-intercept run --help")]
    [InlineData(new[] { "run", "--modules", "--", "true" }, "Required argument missing for option: '--modules'", "alvorkit-intercept run --help")]
    [InlineData(new[] { "run", "--modules", "A", "--allocations=1", "--", "true" }, "--allocations=1: give sampled or exact (--allocations alone means sampled)", "alvorkit-intercept run --help")]
    [InlineData(new[] { "run", "--allocations:fast", "true" }, "--allocations=fast: give sampled or exact", "alvorkit-intercept run --help")]
    [InlineData(new[] { "env", "--allocations=fast" }, "--allocations=fast: give sampled or exact", "alvorkit-intercept env --help")]
    [InlineData(new[] { "run", "--allocations", "exact", "--", "true" }, "write --allocations=exact (a word after --allocations is the command's first word", "alvorkit-intercept run --help")]
    [InlineData(new[] { "run", "--allocations=Exact", "--", "true" }, "--allocations=Exact: give sampled or exact", "alvorkit-intercept run --help")]
    [InlineData(new[] { "env", "--allocations", "--allocations=exact" }, "give --allocations once", "alvorkit-intercept env --help")]
    [InlineData(new[] { "run", "--modules", "A", "--quiet=1", "--", "true" }, "--quiet takes no value (got '1')", "alvorkit-intercept run --help")]
    [InlineData(new[] { "run", "--", "true" }, "give --modules", "alvorkit-intercept run --help")]
    [InlineData(new[] { "env", "--modules", "A", "Game.dll" }, "Unrecognized command or argument 'Game.dll'", "alvorkit-intercept env --help")]
    [InlineData(new[] { "env", "--modules", "A", "--quiet" }, "Unrecognized command or argument '--quiet'", "alvorkit-intercept env --help")]
    [InlineData(new[] { "env", "--modules", "A", "--format" }, "Required argument missing for option: '--format'", "alvorkit-intercept env --help")]
    public void BadUsageExits64NamingTheProblemAndTheHelp(string[] args, string message, string help)
    {
        ProcessResult r = LauncherInProcess.Run(args, out bool commandRan);
        Assert.True(r.ExitCode == 64, r.ToString());
        Assert.Empty(r.Stdout);
        Assert.Contains("alvorkit-intercept: " + message, r.Stderr);
        Assert.Contains($"see `{help}` for the options and an example", r.Stderr);
        Assert.False(commandRan, "the command ran after a usage error");
    }

    // The parser would take a true or false after the switch as its value (`--allocations false`
    // turned sampled profiling on): both words are refused, and the command does not run.
    [Theory]
    [InlineData("run", "false")]
    [InlineData("run", "true")]
    [InlineData("env", "false")]
    [InlineData("env", "true")]
    public void AllocationsRefusesATrueOrFalseWord(string verb, string word)
    {
        string[] args = verb == "run" ? ["run", "--allocations", word, "--", "true"] : ["env", "--allocations", word];
        ProcessResult r = LauncherInProcess.Run(args, out bool commandRan);
        Assert.True(r.ExitCode == 64, r.ToString());
        Assert.Empty(r.Stdout);
        Assert.Contains($"alvorkit-intercept: --allocations takes no '{word}': give --allocations=sampled or " +
                        "--allocations=exact", r.Stderr);
        Assert.Contains($"see `alvorkit-intercept {verb} --help` for the options and an example", r.Stderr);
        Assert.False(commandRan, "the command ran after a usage error");
    }

    // Every number option of every command, with words that are not numbers, numbers past int's
    // range either way, negative numbers and numbers past the option's own range; and every
    // option that takes a path or a name, given an empty one.
    public static TheoryData<string[], string> BadValues()
    {
        var data = new TheoryData<string[], string>();
        string[] watch = ["watch", "--project", "p.csproj", "--drop", "d"];
        foreach ((string option, string give, int max) in new[]
                 {
                     ("--debounce", "give milliseconds from 0 to 60000", 60_000),
                     ("--warm-up", "give a number of updates from 0 to 100", 100),
                 })
        {
            foreach (string value in new[]
                     {
                         "abc", "1.5", "0x10", "1e3", "", "99999999999", "2147483648", "-99999999999", "-2147483649",
                         "-1", (max + 1).ToString(System.Globalization.CultureInfo.InvariantCulture),
                     })
                data.Add([.. watch, option, value], $"{option}: {give} (got '{value}').");
            data.Add([.. watch, $"{option}=abc"], $"{option}: {give} (got 'abc').");
            data.Add([.. watch, option, "1", option, "2"], $"Option '{option}' expects a single argument but 2 were provided.");
            data.Add([.. watch, option], $"Required argument missing for option: '{option}'.");
        }
        data.Add(["watch", "--project", "", "--drop", "d"], "--project: give the game's project file, not an empty value.");
        data.Add(["watch", "--project", "p.csproj", "--drop", ""], "--drop: give the folder the game watches, not an empty value.");
        data.Add([.. watch, "--configuration", ""], "--configuration: give a build configuration, not an empty value.");
        data.Add(["run", "--modules", "A", "--profiler", "", "--", "true"],
                 "--profiler: give the library's file or folder, not an empty value.");
        data.Add(["env", "--modules", "A", "--profiler", ""], "--profiler: give the library's file or folder, not an empty value.");
        return data;
    }

    [Theory]
    [MemberData(nameof(BadValues))]
    public void EveryBadValueOfEveryOptionIsAOneLineUsageError(string[] args, string message)
    {
        ProcessResult r = LauncherInProcess.Run(args, out bool commandRan);
        Assert.True(r.ExitCode == 64, r.ToString());
        Assert.Empty(r.Stdout);
        Assert.Equal(["alvorkit-intercept: " + message,
                      $"alvorkit-intercept: see `alvorkit-intercept {args[0]} --help` for the options and an example."],
                     r.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.False(commandRan, "the command ran after a usage error");
    }
}

/// <summary>How the parser reads a command line (in process: the options `run` and `env` get).</summary>
public class CommandLineParsingTests
{
    private static Options Parse(params string[] args)
    {
        Options? seen = null;
        var commandLine = new LauncherCommandLine(o =>
        {
            seen = o;
            return 0;
        });
        ParseResult parse = commandLine.Parse(args);
        Assert.True(parse.Errors.Count == 0, string.Join("\n", parse.Errors.Select(e => e.Message)));
        Assert.Equal(0, parse.Invoke());
        return seen ?? throw new Xunit.Sdk.XunitException("no command ran");
    }

    [Fact]
    public void TheCommandStartsAtItsFirstWordWithOrWithoutDoubleDash()
    {
        Options withDashes = Parse("run", "--modules", "Game.Logic", "--", "dotnet", "Game.dll", "--modules", "X", "-q", "--");
        Assert.Equal(Verb.Run, withDashes.Verb);
        Assert.Equal(["Game.Logic"], withDashes.Modules);
        Assert.False(withDashes.Quiet);
        Assert.Equal(["dotnet", "Game.dll", "--modules", "X", "-q", "--"], withDashes.Command);

        Options without = Parse("run", "--modules", "Game.Logic", "dotnet", "Game.dll", "--allocations", "@args.rsp");
        Assert.Equal(AllocationProfiling.Off, without.Allocations);
        Assert.Equal(["dotnet", "Game.dll", "--allocations", "@args.rsp"], without.Command);
    }

    [Fact]
    public void RepeatedAndInlineOptions()
    {
        Options o = Parse("run", "--modules=A", "-m", "B;C", "--modules", "D", "--allocations", "-q", "--profiler", "/p/lib.so", "--", "game");
        Assert.Equal(["A", "B;C", "D"], o.Modules);
        Assert.Equal("A;B;C;D", ModuleList.Normalize(o.Modules, isolatedProof: false));
        Assert.Equal(AllocationProfiling.Sampled, o.Allocations);
        Assert.True(o.Quiet);
        Assert.Equal("/p/lib.so", o.ProfilerPath);
        Assert.Equal(["game"], o.Command);
    }

    [Theory]
    [InlineData("Sampled", "--allocations")]
    [InlineData("Sampled", "--allocations=sampled")]
    [InlineData("Exact", "--allocations=exact")]
    [InlineData("Exact", "--allocations:exact")]
    public void AllocationsIsSampledBareOrTheValueJoinedToIt(string mode, string option)
    {
        AllocationProfiling expected = Enum.Parse<AllocationProfiling>(mode);
        Options run = Parse("run", option, "--", "game", "--allocations=exact");
        Assert.Equal(expected, run.Allocations);
        Assert.Equal(["game", "--allocations=exact"], run.Command);

        Options withoutDashes = Parse("run", option, "dotnet", "Game.dll");
        Assert.Equal(expected, withoutDashes.Allocations);
        Assert.Equal(["dotnet", "Game.dll"], withoutDashes.Command);

        Assert.Equal(expected, Parse("env", option).Allocations);
    }

    [Fact]
    public void AllocationsIsOffWithoutTheOption() =>
        Assert.Equal(AllocationProfiling.Off, Parse("run", "--modules", "A", "--", "game").Allocations);

    [Theory]
    [InlineData("sh", "Sh")]
    [InlineData("bash", "Sh")]
    [InlineData("PowerShell", "PowerShell")]
    [InlineData("pwsh", "PowerShell")]
    [InlineData("json", "Json")]
    [InlineData("launchSettings", "LaunchSettings")]
    public void EnvFormats(string given, string expected)
    {
        Options o = Parse("env", "--allocations", "--format", given);
        Assert.Equal(Verb.Env, o.Verb);
        Assert.Equal(expected, o.Format.ToString());
        Assert.Empty(o.Modules);
        Assert.Empty(o.Command);
    }

    [Fact]
    public void EnvFormatDefaultsToThisOsShell() =>
        Assert.Equal(OperatingSystem.IsWindows() ? EnvFormat.PowerShell : EnvFormat.Sh, Parse("env", "--modules", "A").Format);
}
