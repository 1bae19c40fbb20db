using System.CommandLine;
using System.CommandLine.Invocation;
using System.CommandLine.Parsing;

namespace AlvorKit.Interception.Launcher;

internal static class Program
{
    private const string Prefix = "alvorkit-intercept: ";

    private static readonly HashSet<string> SdkVerbs =
        new(StringComparer.Ordinal) { "run", "build", "test", "watch", "publish", "pack", "msbuild" };

    public static int Main(string[] args) =>
        Run(args, Console.Out, Console.Error, new LauncherCommandLine(Execute));

    /// <summary>`args` read and run by <paramref name="commandLine"/>: a usage error (exit 64) and a
    /// refusal written to <paramref name="error"/>, the help and the version to
    /// <paramref name="output"/>; otherwise the command's own action runs and gives the exit code.</summary>
    internal static int Run(string[] args, TextWriter output, TextWriter error, LauncherCommandLine commandLine)
    {
        // `help` and `help run` read as --help and run --help.
        if (args is ["help", .. var rest])
            args = [.. rest, "--help"];
        ParseResult parse = commandLine.Parse(args);
        List<string> errors = [.. parse.Errors.Select(e => e.Message), .. commandLine.MoreErrors(parse, args)];
        if (parse.Action is ParseErrorAction || errors.Count > 0)
        {
            foreach (string message in errors)
                error.WriteLine(Prefix + message);
            error.WriteLine(Prefix + $"see `{LauncherCommandLine.CommandPath(parse)} --help` for the options and an example.");
            return ExitCodes.Usage;
        }
        try
        {
            return parse.Invoke(new InvocationConfiguration
            {
                // LauncherException is reported below; ChildRunner handles the signals itself.
                EnableDefaultExceptionHandler = false,
                ProcessTerminationTimeout = null,
                Output = output,
                Error = error,
            });
        }
        catch (LauncherException e)
        {
            error.WriteLine(Prefix + e.Message);
            return e.ExitCode;
        }
    }

    private static int Execute(Options options)
    {
        string? modules = ModuleList.Normalize(options.Modules, options.IsolatedProof);
        string rid = Rids.Current();
        var locator = new ProfilerLocator
        {
            Rid = rid,
            ExplicitPath = options.ProfilerPath,
            AppDirectory = options.Verb == Verb.Run ? AppDirectoryOf(options.Command) : null,
        };
        var settings = new ProfilerSettings(locator.Locate(), rid, modules, options.Allocations);
        bool quiet = options.Quiet;
        if (modules is null)
            Info(quiet, $"no --modules: {ProfilerSettings.ModulesVariable} is left unset, so patching is off " +
                        "(allocation accounting only).");

        if (options.Verb == Verb.Env)
        {
            Console.Out.Write(EnvWriter.Write(settings, options.Format));
            return ExitCodes.Ok;
        }

        Info(quiet, $"profiler {settings.Profiler.Path} (from {settings.Profiler.Source}); " +
                    $"modules {modules ?? "none (patching off)"}; allocations {options.Allocations.ToString().ToLowerInvariant()}");
        if (IsDotnetSdkCommand(options.Command))
            Info(quiet, $"warning: every .NET process `{string.Join(' ', options.Command.Take(2))}` starts loads the " +
                        "profiler, MSBuild and the SDK included; build first, then run `dotnet <app>.dll` or the app's executable.");
        IReadOnlyList<Variable> variables = settings.Variables();
        if (options.ReloadFolder is { } reload)
        {
            if (modules is null)
                throw new LauncherException(ExitCodes.Usage, "--reload needs --modules naming the game's assemblies: " +
                                                             "without them patching is off and no update could apply.");
            string hook = ReloadHook.Locate();
            string folder = ReloadHook.PrepareFolder(reload);
            variables = [.. variables, .. ReloadHook.Variables(folder, hook,
                                                               Environment.GetEnvironmentVariable(ReloadHook.HooksVariable))];
            Info(quiet, $"reload: the game applies every update dropped into {folder} (its startup hook: {hook})");
        }
        return ChildRunner.Run(options.Command, variables);
    }

    private static void Info(bool quiet, string message)
    {
        if (!quiet)
            Console.Error.WriteLine(Prefix + message);
    }

    /// <summary>The folder of the app the command starts: the first existing .dll after
    /// `dotnet` (`dotnet Game.dll`, `dotnet exec Game.dll`), else the command itself when it is
    /// a path to a file (an apphost such as ./Game).</summary>
    internal static string? AppDirectoryOf(IReadOnlyList<string> command)
    {
        if (command.Count == 0)
            return null;
        if (IsDotnet(command[0]))
        {
            string? dll = command.Skip(1).FirstOrDefault(a =>
                a.EndsWith(".dll", StringComparison.OrdinalIgnoreCase) && File.Exists(a));
            return dll is null ? null : Path.GetDirectoryName(Path.GetFullPath(dll));
        }
        string first = command[0];
        bool isPath = first.Contains('/') || first.Contains(Path.DirectorySeparatorChar);
        return isPath && File.Exists(first) ? Path.GetDirectoryName(Path.GetFullPath(first)) : null;
    }

    private static bool IsDotnet(string program) =>
        Path.GetFileNameWithoutExtension(program).Equals("dotnet", StringComparison.OrdinalIgnoreCase);

    private static bool IsDotnetSdkCommand(IReadOnlyList<string> command) =>
        command.Count > 1 && IsDotnet(command[0]) && SdkVerbs.Contains(command[1]);
}
