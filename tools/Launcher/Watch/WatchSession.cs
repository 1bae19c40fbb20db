using System.Globalization;
using System.Runtime.InteropServices;
using AlvorKit.Interception.HotReload;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>What `watch` was asked to do.</summary>
internal sealed record WatchOptions(string Project, string Drop, string Configuration, TimeSpan Debounce,
                                    TimeSpan ResultTimeout, int WarmUp);

/// <summary>
/// `watch`: compiles the project once (and says whether that reproduces the project's own build),
/// then on every save of its source files (debounced) compiles again and drops the assembly into
/// the drop folder, and prints what changed, the build time, and what the game reported. A build
/// that does not compile prints the compiler's errors and drops nothing. Ctrl+C (or SIGTERM) stops
/// it after the build under way.
/// </summary>
internal sealed class WatchSession(WatchOptions options, TextWriter output)
{
    private const string Prefix = "watch: ";

    /// <summary>`watch` itself: the SDK's compiler located first (before anything that needs its
    /// types is compiled by the JIT), then <see cref="Run"/>.</summary>
    public static int Start(WatchOptions options)
    {
        SdkCompiler.Require();
        return new WatchSession(options, Console.Out).Run();
    }

    public int Run()
    {
        string project = Path.GetFullPath(options.Project);
        if (!File.Exists(project))
            throw new LauncherException(ExitCodes.Usage, $"watch: no project file {project}");
        var drop = new DropFolder(options.Drop);
        string projectDirectory = Path.GetDirectoryName(project)!;
        string ownPlace = Directory.CreateDirectory(Path.Combine(projectDirectory, "obj", "alvorkit-watch")).FullName;

        Say($"reading the compiler arguments of {project} ({options.Configuration}) from MSBuild; compiling " +
            $"with {SdkCompiler.Directory}");
        IReadOnlyList<string> arguments = CompilerArguments.Read(project, options.Configuration, TimeSpan.FromMinutes(2));
        var compiler = new ProjectCompiler(arguments, projectDirectory);
        CompileResult first = compiler.Compile();
        if (!first.Succeeded)
        {
            Say($"the project does not compile as it is ({Ms(first.Elapsed)}):");
            foreach (string error in first.Errors)
                output.WriteLine(error);
        }
        else
        {
            Say($"{compiler.AssemblyName}: {compiler.SourceFiles.Count} source files, {compiler.GeneratorCount} source " +
                $"generators, compiled in {Ms(first.Elapsed)}");
            string ours = Path.Combine(ownPlace, compiler.AssemblyName + ".dll");
            DropFolder.Write(ours, first.Image!);
            CheckReproduces(compiler.BuiltOutput, ours);
            if (options.WarmUp > 0)
            {
                var clock = System.Diagnostics.Stopwatch.StartNew();
                compiler.Rehearse(options.WarmUp);
                Say($"warmed up the compiler ({options.WarmUp} compiles, {Ms(clock.Elapsed)})");
            }
        }

        using var stop = new CancellationTokenSource();
        using var changes = new SourceChanges(projectDirectory, compiler.IsSource, path =>
            Say($"{Path.GetRelativePath(projectDirectory, path)} is not one of the files the project compiled when the " +
                "watcher started (a new file?): restart watch to compile it"));
        ConsoleCancelEventHandler onCancel = (_, e) =>
        {
            e.Cancel = true;
            stop.Cancel();
        };
        Console.CancelKeyPress += onCancel;
        using PosixSignalRegistration? term = OperatingSystem.IsWindows()
            ? null
            : PosixSignalRegistration.Create(PosixSignal.SIGTERM, c =>
            {
                c.Cancel = true;
                stop.Cancel();
            });
        try
        {
            Say($"watching {projectDirectory} for saves; dropping into {drop.Path}; Ctrl+C stops");
            while (changes.WaitForChanges(options.Debounce, stop.Token))
                Rebuild(compiler, drop, ownPlace, () => changes.Pending, stop.Token);
        }
        finally
        {
            Console.CancelKeyPress -= onCancel;
        }
        Say("stopped");
        return ExitCodes.Ok;
    }

    private void Rebuild(ProjectCompiler compiler, DropFolder drop, string ownPlace, Func<bool> newSave,
                         CancellationToken cancellationToken)
    {
        CompileResult result = compiler.Compile(cancellationToken);
        if (result.ChangedFiles.Count == 0 && result.Succeeded)
            return; // saved without a change
        string files = string.Join(", ", result.ChangedFiles.Select(f => Path.GetRelativePath(compiler.ProjectDirectory, f)));
        if (!result.Succeeded)
        {
            Say($"changed: {(files.Length > 0 ? files : "nothing")}; build failed in {Ms(result.Elapsed)}, nothing dropped:");
            foreach (string error in result.Errors)
                output.WriteLine(error);
            output.Flush();
            return;
        }
        Say($"changed: {files}; built in {Ms(result.Elapsed)}");
        DateTime dropped = drop.Drop(compiler.AssemblyName, result.Image!, result.Pdb);
        // The watcher's own copy of its latest build, after the drop: not on the way to the game.
        DropFolder.Write(Path.Combine(ownPlace, compiler.AssemblyName + ".dll"), result.Image!);
        Say($"dropped {compiler.AssemblyName}.dll; waiting for the game's result");
        string? answer = drop.WaitForResult(compiler.AssemblyName, dropped, options.ResultTimeout, newSave, cancellationToken);
        if (answer is null && cancellationToken.IsCancellationRequested)
            return; // stopped while waiting (Ctrl+C): not a timeout; "stopped" follows
        if (answer is null && newSave())
            Say("a new save came before the game's result: building that");
        else if (answer is null)
            Say($"no result from the game within {options.ResultTimeout.TotalSeconds:0} s " +
                $"(is it running with interceptor.Reload.WatchFolder(\"{drop.Path}\")?)");
        else
            foreach (string line in answer.TrimEnd().Split('\n'))
                output.WriteLine("game: " + line.TrimEnd('\r'));
        output.Flush();
    }

    private void CheckReproduces(string builtOutput, string ours)
    {
        if (!File.Exists(builtOutput))
        {
            Say($"warning: {builtOutput} is missing: build the project ({options.Configuration}) and start the game from " +
                "that build, or the game's assembly cannot be compared with what the watcher compiles");
            return;
        }
        AssemblyComparison comparison = AssemblyComparer.Compare(builtOutput, ours);
        string[] differences =
        [
            .. comparison.RefusalMessage is { } refusal ? [refusal] : Array.Empty<string>(),
            .. comparison.ChangedMethods.Select(m => m.ToString()),
            .. comparison.RudeEdits.Select(e => e.Message),
            .. comparison.GeneratedChanges.Select(e => e.Message),
        ];
        if (differences.Length == 0)
        {
            Say($"unchanged sources reproduce the project's build ({builtOutput})");
            return;
        }
        Say($"WARNING: the unchanged sources do not reproduce the project's build {builtOutput}: " +
            $"{differences.Length} difference(s); the first edit would carry them too. Rebuild the game " +
            $"(dotnet build -c {options.Configuration}) and restart it, or check the compiler version. Differences:");
        foreach (string d in differences.Take(10))
            output.WriteLine("  " + d);
    }

    private void Say(string message)
    {
        output.WriteLine(Prefix + message);
        output.Flush();
    }

    private static string Ms(TimeSpan t) => string.Create(CultureInfo.InvariantCulture, $"{t.TotalMilliseconds:0} ms");
}
