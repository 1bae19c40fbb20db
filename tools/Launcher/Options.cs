namespace AlvorKit.Interception.Launcher;

internal enum Verb { Help, Version, Run, Env }

internal enum EnvFormat { Sh, PowerShell, Json, LaunchSettings }

/// <summary>The parsed command line.</summary>
internal sealed class Options
{
    public Verb Verb { get; private set; } = Verb.Help;
    public List<string> Modules { get; } = [];
    public bool Allocations { get; private set; }
    public bool IsolatedProof { get; private set; }
    public bool Quiet { get; private set; }
    public string? ProfilerPath { get; private set; }
    public EnvFormat Format { get; private set; } = OperatingSystem.IsWindows() ? EnvFormat.PowerShell : EnvFormat.Sh;
    public List<string> Command { get; } = [];

    public const string Usage = """
        alvorkit-intercept: start a .NET process under the AlvorKit Interception Profiler.

        usage:
          alvorkit-intercept run [--modules A;B] [--allocations] [--profiler <path>] [--quiet] -- <command...>
          alvorkit-intercept env [--modules A;B] [--allocations] [--profiler <path>] [--format sh|powershell|json|launchSettings]
          alvorkit-intercept --version | --help

        options:
          --modules <names>   assembly simple names whose methods may be patched, separated by ';' or ','
                              (ALVORKIT_INTERCEPTION_MODULES); may be repeated. Required unless --allocations
                              is given, in which case patching is off.
          --allocations       enable allocation accounting (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1).
          --profiler <path>   the native library to load (a file, or a folder holding it); default: found
                              as docs/Packages.md describes.
          --isolated-proof    allow --modules '*' (every module); for isolated proof processes only.
          --format <f>        env output: sh (default on Unix), powershell (default on Windows), json,
                              launchSettings (a Properties/launchSettings.json profile).
          --quiet             run: print nothing of the launcher's own but errors.

        `run` starts the command with the inherited standard streams and environment plus the
        profiler's variables, forwards Ctrl+C/SIGTERM to it and exits with its exit code.
        Start the built app (dotnet Game.dll, or its executable), not `dotnet run`: every .NET
        process the command starts loads the profiler.

        exit codes: the command's own; 2 no profiler library for this RID (or an unsupported RID);
        64 bad arguments or a refused request; 127 the command could not be started.
        """;

    public static Options Parse(IReadOnlyList<string> args)
    {
        var options = new Options();
        if (args.Count == 0)
            throw new LauncherException(ExitCodes.Usage, "no command given.\n\n" + Usage);
        switch (args[0])
        {
            case "-h" or "--help" or "help":
                return options;
            case "--version":
                options.Verb = Verb.Version;
                return options;
            case "run":
                options.Verb = Verb.Run;
                break;
            case "env":
                options.Verb = Verb.Env;
                break;
            default:
                throw new LauncherException(ExitCodes.Usage, $"unknown command '{args[0]}'.\n\n" + Usage);
        }

        int i = 1;
        for (; i < args.Count; i++)
        {
            string arg = args[i];
            if (arg == "--")
            {
                i++;
                break;
            }
            if (!arg.StartsWith('-'))
                break; // the command starts here (`--` is optional)
            string name = arg;
            string? inline = null;
            int eq = arg.IndexOf('=');
            if (arg.StartsWith("--", StringComparison.Ordinal) && eq > 0)
            {
                name = arg[..eq];
                inline = arg[(eq + 1)..];
            }
            switch (name)
            {
                case "--modules":
                    options.Modules.Add(Value(args, ref i, name, inline));
                    break;
                case "--allocations":
                    NoValue(name, inline);
                    options.Allocations = true;
                    break;
                case "--isolated-proof":
                    NoValue(name, inline);
                    options.IsolatedProof = true;
                    break;
                case "--profiler":
                    options.ProfilerPath = Value(args, ref i, name, inline);
                    break;
                case "--quiet" or "-q" when options.Verb == Verb.Run:
                    NoValue(name, inline);
                    options.Quiet = true;
                    break;
                case "--format" when options.Verb == Verb.Env:
                    options.Format = ParseFormat(Value(args, ref i, name, inline));
                    break;
                case "-h" or "--help":
                    options.Verb = Verb.Help;
                    return options;
                default:
                    throw new LauncherException(ExitCodes.Usage, $"unknown option '{arg}' for {args[0]}.\n\n" + Usage);
            }
        }
        for (; i < args.Count; i++)
            options.Command.Add(args[i]);

        if (options.Verb == Verb.Run && options.Command.Count == 0)
            throw new LauncherException(ExitCodes.Usage, "run: no command given; put it after `--`, e.g. alvorkit-intercept run --modules Game.Logic -- dotnet Game.dll");
        if (options.Verb == Verb.Env && options.Command.Count > 0)
            throw new LauncherException(ExitCodes.Usage, $"env takes no command (got '{options.Command[0]}'); use run to start one.");
        if (options.Modules.Count == 0 && !options.Allocations)
            throw new LauncherException(ExitCodes.Usage,
                "give --modules <assemblies to patch> (e.g. --modules Game.Logic;Game.Core), or --allocations " +
                "for allocation accounting without patching.");
        return options;
    }

    private static string Value(IReadOnlyList<string> args, ref int i, string name, string? inline)
    {
        if (inline is not null)
            return inline;
        if (i + 1 >= args.Count || args[i + 1] == "--")
            throw new LauncherException(ExitCodes.Usage, $"{name} needs a value.");
        return args[++i];
    }

    private static void NoValue(string name, string? inline)
    {
        if (inline is not null)
            throw new LauncherException(ExitCodes.Usage, $"{name} takes no value.");
    }

    private static EnvFormat ParseFormat(string value) => value.ToLowerInvariant() switch
    {
        "sh" or "bash" or "zsh" => EnvFormat.Sh,
        "powershell" or "pwsh" or "ps1" => EnvFormat.PowerShell,
        "json" => EnvFormat.Json,
        "launchsettings" => EnvFormat.LaunchSettings,
        _ => throw new LauncherException(ExitCodes.Usage, $"--format {value}: give sh, powershell, json or launchSettings."),
    };
}
