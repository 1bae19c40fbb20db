using System.CommandLine;
using System.CommandLine.Help;
using System.Globalization;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;
using AlvorKit.Interception.Launcher.Watch;

namespace AlvorKit.Interception.Launcher;

internal enum Verb { Run, Env }

internal enum EnvFormat { Sh, PowerShell, Json, LaunchSettings }

/// <summary>--allocations: what ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING is set to.</summary>
internal enum AllocationProfiling { Off, Sampled, Exact }

/// <summary>What `run` or `env` was asked to do, read from a parse.</summary>
internal sealed record Options(
    Verb Verb,
    IReadOnlyList<string> Modules,
    AllocationProfiling Allocations,
    bool IsolatedProof,
    bool Quiet,
    string? ProfilerPath,
    EnvFormat Format,
    IReadOnlyList<string> Command)
{
    /// <summary>run --reload: the drop folder the game's startup hook watches; null: no reload.</summary>
    public string? ReloadFolder { get; init; }
}

/// <summary>
/// The command line (System.CommandLine): `run`, `env` and `watch`, their options, --help, --version.
/// Parse errors and the launcher's own refusals are exit code 64 (ExitCodes.Usage); the parser
/// prints nothing itself, Program does.
/// </summary>
internal sealed class LauncherCommandLine
{
    public const string Name = "alvorkit-intercept";

    private static readonly EnvFormat DefaultFormat = OperatingSystem.IsWindows() ? EnvFormat.PowerShell : EnvFormat.Sh;

    private readonly Option<string[]> _modules = new("--modules", "-m")
    {
        HelpName = "names",
        Description = "Assembly simple names whose methods may be patched, separated by ';' or ',' " +
                      "(Game.Logic,Game.Core); may be repeated. Sets ALVORKIT_INTERCEPTION_MODULES. " +
                      "Required unless --allocations is given; without it patching is off.",
        Arity = ArgumentArity.OneOrMore,
        AllowMultipleArgumentsPerToken = false,
    };

    // --allocations is a switch; its values are two more spellings of it, whole arguments the
    // parser matches before it would split them at '=' or ':' (a word after a bare
    // --allocations is the command's). MoreErrors refuses any other value.
    private readonly Option<bool> _allocations = new("--allocations")
    {
        Description = "Enable allocation capture windows (sets ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING). " +
                      "--allocations or --allocations=sampled: the runtime keeps its fast allocation path and, " +
                      "while a window is open, samples about one allocation per 100 KiB allocated (an open " +
                      "window costs a few percent; docs/Benchmarks.md); windows report estimates with " +
                      "approximate 95% intervals (large and pinned objects exact). " +
                      "--allocations=exact: exact counts, but every allocation in the process takes the slow " +
                      "path for its whole life, window open or not (measured 4.8x slower allocation on a " +
                      "small-object loop with no window open, 8.5x in one; docs/Benchmarks.md).",
    };

    private readonly Option<bool> _allocationsSampled = new("--allocations=sampled", "--allocations:sampled")
    {
        Hidden = true,
    };

    private readonly Option<bool> _allocationsExact = new("--allocations=exact", "--allocations:exact")
    {
        Hidden = true,
    };

    private readonly Option<string> _profiler = new("--profiler")
    {
        HelpName = "path",
        Description = "The native profiler library to load: a file, or a folder holding it. By default it is " +
                      "found next to the app, next to this tool, in the NuGet packages folder or in a " +
                      "repository build (docs/Packages.md).",
        Validators = { NotEmpty("give the library's file or folder") },
    };

    private readonly Option<string> _reload = new("--reload")
    {
        HelpName = "folder",
        Description = "Hot reload with no code in the game: the game applies every update dropped into this folder " +
                      "(by `watch --drop <folder>`), through a startup hook the launcher adds to the game's " +
                      "DOTNET_STARTUP_HOOKS (after any already there). A missing folder is created private (mode 0700).",
        Validators = { NotEmpty("give the folder the game is to watch") },
    };

    private readonly Option<bool> _isolatedProof = new("--isolated-proof")
    {
        Description = "Allow --modules '*' (every module, the .NET framework included). For isolated proof " +
                      "processes only, never for a game.",
    };

    private readonly Option<bool> _quiet = new("--quiet", "-q")
    {
        Description = "Print nothing of the launcher's own but errors.",
    };

    private readonly Option<EnvFormat?> _format = new("--format")
    {
        HelpName = "sh|powershell|json|launchSettings",
        Description = "How to print the variables: sh (eval in sh, bash, zsh; the default on Unix), powershell " +
                      "(pipe to Invoke-Expression; the default on Windows), json, or launchSettings (a " +
                      "Properties/launchSettings.json profile).",
        CustomParser = ParseFormat,
    };

    private readonly Argument<string[]> _command = new("command")
    {
        HelpName = "command",
        Description = "The command to start, after `--`: `dotnet Game.dll [args]` or the game's executable. " +
                      "Everything from its first word on is passed to it unchanged.",
        Arity = ArgumentArity.ZeroOrMore,
        CaptureRemainingTokens = true,
    };

    private readonly Option<string> _project = new("--project", "-p")
    {
        HelpName = "csproj",
        Description = "The game's C# project whose sources to watch (the one that builds the assembly the game loaded).",
        Required = true,
        Validators = { NotEmpty("give the game's project file") },
    };

    private readonly Option<string> _drop = new("--drop", "-d")
    {
        HelpName = "folder",
        Description = "The folder the game watches (interceptor.Reload.WatchFolder): each update goes there as " +
                      "Name.hotreload, renamed into place; the game answers with Name.result.txt. Required unless " +
                      "a command follows `--`: then a private folder of watch's own by default.",
        Validators = { NotEmpty("give the folder the game watches") },
    };

    // watch's game: after `--`, how to start it; a bare `--` starts `dotnet <the project's TargetPath>`.
    private readonly Argument<string[]> _game = new("command")
    {
        HelpName = "command",
        Description = "After `--`: how to start the game (`dotnet bin/Release/net10.0/Game.dll`); watch builds the " +
                      "project, starts it under the profiler with reload on, and stops it with itself. A bare `--`: " +
                      "`dotnet <the project's TargetPath>`.",
        Arity = ArgumentArity.ZeroOrMore,
        CaptureRemainingTokens = true,
    };

    private readonly Option<string> _configuration = new("--configuration", "-c")
    {
        HelpName = "name",
        Description = "The build configuration whose compiler arguments to use: the game's (default Release).",
        DefaultValueFactory = _ => "Release",
        Validators = { NotEmpty("give a build configuration") },
    };

    private readonly Option<int> _debounce = new("--debounce")
    {
        HelpName = "ms",
        Description = "Compile an update once no save came for this long (default 0: at the save; a save that " +
                      "does not compile, or that removes members, is taken only once its files have stayed as read " +
                      "for 1 s: a file written in pieces is read whole).",
        DefaultValueFactory = _ => 0,
        CustomParser = r => Number(r, "--debounce", 60_000, "give milliseconds from 0 to 60000"),
    };

    private readonly Option<int> _warmUp = new("--warm-up")
    {
        HelpName = "updates",
        Description = "At start, take a save's whole path this many times (a file read with a comment added, " +
                      "analyzed, one of its methods emitted as an update), drop the last as a rehearsal the game " +
                      "prepares and applies nothing of, then bind every file once in the background, so the first " +
                      "real save is as fast as the next (default 3; 0: none of it).",
        DefaultValueFactory = _ => 3,
        CustomParser = r => Number(r, "--warm-up", 100, "give a number of updates from 0 to 100"),
    };

    /// <param name="execute">What `run` and `env` do with their options.</param>
    /// <param name="watchAction">What `watch` does (null: <see cref="WatchCommand.Start"/>).</param>
    /// <param name="helpToFile">The help goes to a file or a pipe (null: whether this process's
    /// stdout is redirected), where its lines are kept to 100 columns.</param>
    public LauncherCommandLine(Func<Options, int> execute, Func<WatchOptions, int>? watchAction = null,
                               bool? helpToFile = null)
    {
        _format.CompletionSources.Add("sh", "powershell", "json", "launchSettings");

        var run = new Command("run", "Start a command under the profiler: the inherited environment plus the " +
                                     "profiler's variables, the same standard streams. Ctrl+C and SIGTERM reach the " +
                                     "command; the launcher exits with the command's exit code.")
        {
            _modules, _allocations, _allocationsSampled, _allocationsExact, _profiler, _reload, _isolatedProof, _quiet, _command,
        };
        run.Validators.Add(r =>
        {
            if (r.GetValue(_command) is not { Length: > 0 })
                r.AddError("run: no command given; put it after `--`, e.g. " +
                           $"{Name} run --modules Game.Logic -- dotnet Game.dll");
        });
        run.Validators.Add(RequireModulesOrAllocations);
        run.SetAction(parse => execute(Read(parse, Verb.Run)));

        var env = new Command("env", "Print the variables `run` would set, for a shell, a script or an IDE launch " +
                                     "profile, and start nothing.")
        {
            _modules, _allocations, _allocationsSampled, _allocationsExact, _profiler, _isolatedProof, _format,
        };
        env.Validators.Add(RequireModulesOrAllocations);
        env.SetAction(parse => execute(Read(parse, Verb.Env)));

        var watch = new Command("watch", "On every save of a game's project, compile what changed as an update of " +
                                         "the build the game loaded (the C# compiler's own Edit and Continue delta, " +
                                         "in this process, with the project's own compiler arguments) and drop it " +
                                         "into the folder the running game watches; print what changed, the compile " +
                                         "time and what the game applied or refused. With `-- [command]`, the whole " +
                                         "loop in one command: it builds the project, starts the game under the " +
                                         "profiler with reload on, and stops it with itself. Ctrl+C stops.")
        {
            _project, _drop, _configuration, _debounce, _warmUp, _profiler, _game,
        };
        // Without a game, --drop is required (MoreErrors); with one, an empty Drop asks for a private folder.
        watch.SetAction(parse => (watchAction ?? WatchCommand.Start)(new WatchOptions(
            parse.GetValue(_project)!, parse.GetValue(_drop) ?? "", parse.GetValue(_configuration) ?? "Release",
            TimeSpan.FromMilliseconds(parse.GetValue(_debounce)), TimeSpan.FromSeconds(10), parse.GetValue(_warmUp))
        {
            Game = StartsGame(parse) ? parse.GetValue(_game) ?? [] : null,
            ProfilerPath = parse.GetValue(_profiler),
        }));

        Root = new RootCommand("Start a .NET game under the AlvorKit Interception Profiler, so that the game (or a " +
                               "dev console inside it) can hot-patch its own methods and capture its allocations.")
        {
            run, env, watch,
        };
        Root.HelpName = Name;
        Root.SetAction(int (ParseResult _) => throw new LauncherException(ExitCodes.Usage,
            $"no command given: `{Name} run ... -- <command>` starts one, `{Name} env ...` prints the variables; " +
            $"see `{Name} --help` for the options and an example."));

        var help = Root.Options.OfType<HelpOption>().Single();
        var parserHelp = (HelpAction)help.Action!;
        if (helpToFile ?? Console.IsOutputRedirected)
            parserHelp.MaxWidth = 100; // a file or a pipe: lines a person can still read
        help.Action = new HelpWithExamples(parserHelp);

        var version = Root.Options.OfType<VersionOption>().Single();
        version.Description = "Print the launcher's version.";
        version.Action = new PrintVersion();
    }

    public RootCommand Root { get; }

    /// <summary>Parses `args` (response files off: an `@word` belongs to the command).</summary>
    public ParseResult Parse(IReadOnlyList<string> args) =>
        Root.Parse(args, new ParserConfiguration { ResponseFileTokenReplacer = null });

    /// <summary>Usage errors the parser cannot see: a switch written with a value
    /// (`--quiet=1`: the parser would take the value for the command's first word), a value of
    /// --allocations other than sampled or exact, or one not joined to it by '=' or ':', and
    /// an unknown option where `run`'s command (or `watch`'s game) would start (`--modles A`: the
    /// parser would start it as the command) unless `--` comes before it, and a `watch` with neither
    /// --drop nor a game to start.</summary>
    public IEnumerable<string> MoreErrors(ParseResult parse, IReadOnlyList<string> args)
    {
        foreach (string error in AllocationErrors(parse, args))
            yield return error;
        Option[] switches = [_isolatedProof, _quiet];
        IReadOnlyList<Token> tokens = parse.Tokens;
        for (int i = 0; i + 1 < tokens.Count; i++)
        {
            if (tokens[i].Type != TokenType.Option || !switches.Any(o => o.Name == tokens[i].Value || o.Aliases.Contains(tokens[i].Value)))
                continue;
            string name = tokens[i].Value, value = tokens[i + 1].Value;
            if (args.Contains($"{name}={value}") || args.Contains($"{name}:{value}"))
                yield return $"{name} takes no value (got '{value}').";
        }
        string verb = parse.CommandResult.Command.Name;
        if (verb is "run" or "watch" && parse.GetValue(verb == "run" ? _command : _game) is [var first, ..] command &&
            first.StartsWith('-') && first != "-" && args.Count > command.Length)
        {
            string before = args[args.Count - command.Length - 1];
            if (before != "--")
                yield return $"Unrecognized option '{first}' for {verb}; a command that starts with '-' goes after `--`.";
        }
        if (verb == "watch" && parse.Action is not HelpWithExamples && parse.GetResult(_drop) is null && !StartsGame(parse))
            yield return "Option '--drop' is required: give --drop <folder> (the folder your running game watches), " +
                         "or end with `-- [command]` for watch to start the game with reload on.";
    }

    /// <summary>watch starts the game: a command, or a bare `--`, ends the command line.</summary>
    private bool StartsGame(ParseResult parse) =>
        parse.GetValue(_game) is { Length: > 0 } || parse.Tokens.Any(t => t.Type == TokenType.DoubleDash);

    /// <summary>--allocations=sampled and --allocations=exact are whole arguments (see
    /// _allocations): any other joined value reaches the parser split, the value standing after
    /// the switch, where it would start the command; a value standing alone after the switch reads
    /// as the command's first word too, and a true or false after it is taken as the switch's
    /// value. All are refused, naming the two values, as is giving the option twice.</summary>
    private IEnumerable<string> AllocationErrors(ParseResult parse, IReadOnlyList<string> args)
    {
        IReadOnlyList<Token> tokens = parse.Tokens;
        for (int i = 0; i + 1 < tokens.Count; i++)
        {
            if (tokens[i].Type != TokenType.Option || tokens[i].Value != _allocations.Name)
                continue;
            string value = tokens[i + 1].Value;
            if (args.Contains($"{_allocations.Name}={value}") || args.Contains($"{_allocations.Name}:{value}"))
                yield return $"{_allocations.Name}={value}: give sampled or exact ({_allocations.Name} alone " +
                             "means sampled).";
            else if (value is "sampled" or "exact" && tokens[i + 1].Type == TokenType.Argument)
                yield return $"write {_allocations.Name}={value} (a word after {_allocations.Name} is the " +
                             $"command's first word; a command named {value} goes after `--`).";
        }
        // The parser lets a bool option take a following true or false word as its value
        // (`--allocations false` would turn sampled profiling on): refuse it, naming the values.
        if (parse.GetResult(_allocations) is { Tokens: [var word, ..] } &&
            !args.Contains($"{_allocations.Name}={word.Value}") && !args.Contains($"{_allocations.Name}:{word.Value}"))
            yield return $"{_allocations.Name} takes no '{word.Value}': give {_allocations.Name}=sampled or " +
                         $"{_allocations.Name}=exact ({_allocations.Name} alone means sampled; leave it out for none).";
        Option[] spellings = [_allocations, _allocationsSampled, _allocationsExact];
        if (spellings.Sum(o => parse.GetResult(o) is { Implicit: false } given ? given.IdentifierTokenCount : 0) > 1)
            yield return $"give {_allocations.Name} once (--allocations, --allocations=sampled or --allocations=exact).";
    }

    /// <summary>The command whose usage a parse error should point to: `run`, `env`, `watch` or the root.</summary>
    public static string CommandPath(ParseResult parse) =>
        parse.CommandResult.Command is RootCommand ? Name : $"{Name} {parse.CommandResult.Command.Name}";

    private Options Read(ParseResult parse, Verb verb) => new(
        verb,
        parse.GetValue(_modules) ?? [],
        Given(parse.RootCommandResult, _allocationsExact) ? AllocationProfiling.Exact
        : Given(parse.RootCommandResult, _allocations) || Given(parse.RootCommandResult, _allocationsSampled)
            ? AllocationProfiling.Sampled
            : AllocationProfiling.Off,
        parse.GetValue(_isolatedProof),
        verb == Verb.Run && parse.GetValue(_quiet),
        parse.GetValue(_profiler),
        (verb == Verb.Env ? parse.GetValue(_format) : null) ?? DefaultFormat,
        verb == Verb.Run ? parse.GetValue(_command) ?? [] : [])
    {
        ReloadFolder = verb == Verb.Run ? parse.GetValue(_reload) : null,
    };

    private void RequireModulesOrAllocations(CommandResult r)
    {
        if (r.GetResult(_modules) is null && !Given(r, _allocations) && !Given(r, _allocationsSampled) &&
            !Given(r, _allocationsExact))
            r.AddError("give --modules <assemblies to patch> (e.g. --modules Game.Logic;Game.Core), or --allocations " +
                       "for allocation accounting without patching.");
    }

    // A switch's result exists with its default too: given means written on the command line.
    private static bool Given(SymbolResult r, Option option) => r.GetResult(option) is { Implicit: false };

    // A number option's value, from 0 to `max`. Anything else (a word, a fraction, a number past
    // int's range either way, a negative one) is a usage error naming the range: the parser's own
    // int conversion would leave such a word to GetValue, which throws. No value, or several,
    // are the parser's errors (the option's arity).
    private static int Number(ArgumentResult r, string name, int max, string give)
    {
        if (r.Tokens.Count != 1)
            return 0;
        string value = r.Tokens[0].Value;
        if (int.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n) && n >= 0 && n <= max)
            return n;
        r.AddError($"{name}: {give} (got '{value}').");
        return 0;
    }

    // A path or a name given empty (`--drop ""`, an unset shell variable) is refused: it does not
    // mean what leaving the option out means.
    private static Action<OptionResult> NotEmpty(string give) => r =>
    {
        if (r.Tokens.Any(t => string.IsNullOrWhiteSpace(t.Value)))
            r.AddError($"{r.Option.Name}: {give}, not an empty value.");
    };

    private static EnvFormat? ParseFormat(ArgumentResult r)
    {
        string value = r.Tokens.Count > 0 ? r.Tokens[^1].Value : "";
        switch (value.ToLowerInvariant())
        {
            case "sh" or "bash" or "zsh": return EnvFormat.Sh;
            case "powershell" or "pwsh" or "ps1": return EnvFormat.PowerShell;
            case "json": return EnvFormat.Json;
            case "launchsettings": return EnvFormat.LaunchSettings;
            default:
                r.AddError($"--format {value}: give sh, powershell, json or launchSettings.");
                return null;
        }
    }

    /// <summary>The sections after the options: examples, and the exit codes.</summary>
    private static void WriteMore(Command command, TextWriter o)
    {
        switch (command)
        {
            case RootCommand:
                o.WriteLine("Examples:");
                o.WriteLine($"  {Name} run --modules Game.Logic -- dotnet bin/Release/net10.0/Game.dll");
                o.WriteLine($"  {Name} run --modules Game.Logic,Game.Core --allocations -- ./bin/Release/net10.0/Game");
                o.WriteLine($"  eval \"$({Name} env --modules Game.Logic)\"");
                o.WriteLine($"  {Name} watch --project Game/Game.csproj --drop build/reload");
                o.WriteLine($"  {Name} watch --project Game/Game.csproj --");
                o.WriteLine();
                o.WriteLine($"Run `{Name} run --help`, `{Name} env --help` or");
                o.WriteLine($"`{Name} watch --help` for each command's options.");
                o.WriteLine("Start the built game (dotnet Game.dll, or its executable), not `dotnet run`: every .NET");
                o.WriteLine("process the command starts loads the profiler, MSBuild and the SDK included.");
                o.WriteLine();
                WriteExitCodes(o);
                return;
            case { Name: "run" }:
                o.WriteLine("The options come first; everything after `--` is the command, passed on unchanged.");
                o.WriteLine();
                o.WriteLine("Examples:");
                o.WriteLine($"  {Name} run --modules Game.Logic -- dotnet bin/Release/net10.0/Game.dll --level 3");
                o.WriteLine("      patching allowed in Game.Logic; `--level 3` goes to the game");
                o.WriteLine($"  {Name} run --allocations -- ./bin/Release/net10.0/Game");
                o.WriteLine("      allocation capture only (sampled: estimates, the fast allocation path kept),");
                o.WriteLine("      patching off");
                o.WriteLine($"  {Name} run --allocations=exact -- ./bin/Release/net10.0/Game");
                o.WriteLine("      exact allocation counts; every allocation of the game is several times slower");
                o.WriteLine($"  {Name} run --reload build/reload --modules Game -- dotnet Game.dll");
                o.WriteLine("      hot reload with no code in the game: it applies every update `watch --drop");
                o.WriteLine("      build/reload` drops (a startup hook added to the game's DOTNET_STARTUP_HOOKS)");
                o.WriteLine();
                WriteExitCodes(o);
                return;
            case { Name: "env" }:
                o.WriteLine("Examples:");
                o.WriteLine($"  eval \"$({Name} env --modules Game.Logic)\"                      sh, bash, zsh");
                o.WriteLine($"  {Name} env --modules Game.Logic --format powershell | Invoke-Expression");
                o.WriteLine($"  {Name} env --modules Game.Logic --format launchSettings        an IDE launch profile");
                o.WriteLine();
                o.WriteLine("Exit codes: 0 printed; 2 no profiler library for this RID; 64 bad arguments.");
                return;
            case { Name: "watch" }:
                o.WriteLine("The game runs its Release build under the profiler and watches the drop folder:");
                o.WriteLine("  using var watching = interceptor.Reload.WatchFolder(\"build/reload\");");
                o.WriteLine("or, with no code in the game, `run --reload build/reload` starts it watching. With a");
                o.WriteLine("command after `--` (a bare `--`: dotnet <the project's TargetPath>), watch does it all:");
                o.WriteLine("builds the project, starts the game under the profiler with reload on (--modules: the");
                o.WriteLine("project's assembly; a private drop folder unless --drop names one) and stops it with itself.");
                o.WriteLine("The watcher never writes the game's files: it compiles each save as an update of the build");
                o.WriteLine("the game loaded (bin/ and obj/ as the project's build left them) and drops the update.");
                o.WriteLine("A save that does not compile, or that the running game cannot take, prints why and drops nothing.");
                o.WriteLine();
                o.WriteLine("Examples:");
                o.WriteLine($"  {Name} watch --project Game/Game.csproj --");
                o.WriteLine($"  {Name} watch -p Game/Game.csproj -- dotnet Game/bin/Release/net10.0/Game.dll --level 3");
                o.WriteLine($"  {Name} watch --project Game/Game.csproj --drop build/reload");
                o.WriteLine($"  {Name} watch -p Game/Game.csproj -d build/reload --configuration Release");
                o.WriteLine();
                o.WriteLine("Exit codes: 0 stopped (Ctrl+C); 1 the build failed, or MSBuild could not give the compiler");
                o.WriteLine("arguments; 64 bad arguments or no such project. With a game: the game's own (128 + the");
                o.WriteLine("signal that ended it; Ctrl+C and SIGTERM reach it, and it is ended when watch stops).");
                return;
        }
    }

    private static void WriteExitCodes(TextWriter o)
    {
        o.WriteLine("Exit codes:");
        o.WriteLine("  the command's own   run: what the command exited with (128 + the signal that ended it)");
        o.WriteLine("  2                   no profiler library for this RID, or an unsupported RID");
        o.WriteLine("  64                  bad arguments, or a refused request (such as --modules '*')");
        o.WriteLine("  127                 run: the command could not be started");
    }

    /// <summary>The parser's help (description, usage, arguments, options, commands), then examples.</summary>
    private sealed class HelpWithExamples(HelpAction help) : SynchronousCommandLineAction
    {
        public override bool ClearsParseErrors => true;

        public override int Invoke(ParseResult parseResult)
        {
            help.Invoke(parseResult);
            WriteMore(parseResult.CommandResult.Command, parseResult.InvocationConfiguration.Output);
            return ExitCodes.Ok;
        }
    }

    private sealed class PrintVersion : SynchronousCommandLineAction
    {
        public override int Invoke(ParseResult parseResult)
        {
            parseResult.InvocationConfiguration.Output.WriteLine(LauncherInfo.Version);
            return ExitCodes.Ok;
        }
    }
}
