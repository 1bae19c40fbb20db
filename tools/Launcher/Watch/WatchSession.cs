using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using AlvorKit.Interception.HotReload;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>What `watch` was asked to do.</summary>
internal sealed record WatchOptions(string Project, string Drop, string Configuration, TimeSpan Debounce,
                                    TimeSpan ResultTimeout, int WarmUp);

/// <summary>
/// `watch`: reads the project's sources once and starts an Edit and Continue session against the
/// build the game loaded (saying whether the sources are that build's), then on every save of
/// its source files (debounced) compiles what changed as an update of that build, drops it into
/// the drop folder, and prints what changed, the compile time and what the game reported. The
/// next update is emitted against the last one the game applied. A save that does not compile,
/// or that a running game cannot take, prints why and drops nothing. Ctrl+C (or SIGTERM) stops
/// it after the update under way.
/// </summary>
internal sealed class WatchSession(WatchOptions options, TextWriter output)
{
    private const string Prefix = "watch: ";

    // An update dropped whose answer did not come: the game may still apply it.
    private (SourceUpdate Sources, EmittedUpdate Update)? _unanswered;

    /// <summary>`watch` itself: the SDK's compiler located first (before anything that needs its
    /// types is compiled by the JIT), then <see cref="Run"/>.</summary>
    public static int Start(WatchOptions options)
    {
        SdkCompiler.Require();
        return new WatchSession(options, Console.Out).Run();
    }

    public int Run()
    {
        var clock = Stopwatch.StartNew();
        string project = Path.GetFullPath(options.Project);
        if (!File.Exists(project))
            throw new LauncherException(ExitCodes.Usage, $"watch: no project file {project}");
        var drop = new DropFolder(options.Drop);
        string projectDirectory = Path.GetDirectoryName(project)!;

        Say($"reading the compiler arguments of {project} ({options.Configuration}) from MSBuild; compiling " +
            $"with {SdkCompiler.Directory}");
        IReadOnlyList<string> arguments = CompilerArguments.Read(project, options.Configuration, TimeSpan.FromMinutes(2));
        var compiler = new ProjectCompiler(arguments, projectDirectory);
        SourceUpdate first = compiler.Read();
        compiler.Commit(first);
        if (!File.Exists(compiler.BuiltOutput))
            throw new LauncherException(ExitCodes.BuildFailed,
                $"watch: {compiler.BuiltOutput} is missing: build the project (dotnet build -c {options.Configuration}) and " +
                "start the game from that build; updates are compiled against it");
        byte[] built = File.ReadAllBytes(compiler.BuiltOutput);
        EditSession session = EditSession.Start(compiler.Current, built, compiler.AssemblyName);
        Say($"{compiler.AssemblyName}: {compiler.SourceFiles.Count} source files, {compiler.GeneratorCount} source " +
            $"generators; updates against the build {session.ModuleVersionId} ({compiler.BuiltOutput})");
        CheckSources(built, compiler);
        if (options.WarmUp > 0)
        {
            var warm = Stopwatch.StartNew();
            session.WarmUp(compiler.Current, options.WarmUp, CancellationToken.None);
            Say($"warmed up the compiler ({options.WarmUp} updates, {Ms(warm.Elapsed)})");
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
            Say($"watching {projectDirectory} for saves; dropping into {drop.Path}; ready in {Ms(clock.Elapsed)}; Ctrl+C stops");
            while (changes.WaitForChanges(options.Debounce, stop.Token))
                Update(compiler, session, drop, () => changes.Pending, stop.Token);
        }
        finally
        {
            Console.CancelKeyPress -= onCancel;
        }
        Say("stopped");
        return ExitCodes.Ok;
    }

    private void Update(ProjectCompiler compiler, EditSession session, DropFolder drop, Func<bool> newSave,
                        CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        CatchUp(compiler, session, drop);
        SourceUpdate sources = compiler.Read(cancellationToken);
        if (sources.Changed.Count == 0 && sources.Succeeded)
            return; // saved without a change
        string files = string.Join(", ", sources.ChangedFiles.Select(f => Path.GetRelativePath(compiler.ProjectDirectory, f)));
        if (files.Length == 0)
            files = "nothing";
        if (!sources.Succeeded)
        {
            Say($"changed: {files}; does not compile ({Ms(clock.Elapsed)}), nothing dropped:");
            Lines(sources.Errors);
            return;
        }
        EditPlan plan = EditAnalyzer.Analyze(compiler.Current, sources.Compilation, sources.Changed, cancellationToken);
        if (plan.Refusals.Count > 0)
        {
            Say($"changed: {files}; the running game cannot take this save, nothing dropped (restart the game to take it):");
            Lines(plan.Refusals.Select(r => "  " + r));
            return;
        }
        IReadOnlyList<string> elsewhere = ProjectCompiler.ErrorsMentioning(sources,
            [.. plan.Notices.Where(n => n.Kind == ReloadNoticeKind.RemovedMemberStays).Select(n => ShortName(n.Member))],
            cancellationToken);
        if (elsewhere.Count > 0)
        {
            Say($"changed: {files}; does not compile ({Ms(clock.Elapsed)}), nothing dropped:");
            Lines(elsewhere);
            return;
        }
        if (plan.IsEmpty)
        {
            compiler.Commit(sources);
            Say($"changed: {files}; no method body to update ({Ms(clock.Elapsed)})");
            Lines(plan.Notices.Select(n => "  note: " + n.Message));
            return;
        }
        (EmittedUpdate? update, IReadOnlyList<string> errors) = session.Emit(sources.Compilation, plan, sources.ChangedFiles,
                                                                             cancellationToken);
        if (update is null)
        {
            Say($"changed: {files}; does not compile ({Ms(clock.Elapsed)}), nothing dropped:");
            Lines(errors);
            return;
        }
        Say($"changed: {files}; update {session.Generation + 1} compiled in {Ms(clock.Elapsed)} " +
            $"({update.Methods} method bodies, {plan.Edits.Count} edits)");
        DateTime dropped = drop.Drop(compiler.AssemblyName, update.Delta);
        Say($"dropped {compiler.AssemblyName}.hotreload; waiting for the game's result");
        GameAnswer? answer = drop.WaitForResult(compiler.AssemblyName, dropped, options.ResultTimeout, newSave, cancellationToken);
        if (answer is null)
        {
            _unanswered = (sources, update);
            if (cancellationToken.IsCancellationRequested)
                return; // stopped while waiting (Ctrl+C): not a timeout; "stopped" follows
            Say(newSave()
                ? "a new save came before the game's result"
                : $"no result from the game within {options.ResultTimeout.TotalSeconds:0} s " +
                  $"(is it running with interceptor.Reload.WatchFolder(\"{drop.Path}\")?)");
            return;
        }
        Print(answer);
        if (answer.Applied)
        {
            compiler.Commit(sources);
            session.Commit(update);
        }
        else if (answer.Outcome == ReloadOutcome.Refused)
        {
            Say("the game refused the update and runs what it ran before; the next save is compiled against that");
        }
    }

    // The game answered an earlier update after the watcher stopped waiting: that update is the
    // game's now, so the next one is emitted against it.
    private void CatchUp(ProjectCompiler compiler, EditSession session, DropFolder drop)
    {
        if (_unanswered is not ({ } sources, { } update))
            return;
        if (drop.Last(compiler.AssemblyName) is { Applied: true } answer && answer.Generation == session.Generation + 1)
        {
            compiler.Commit(sources);
            session.Commit(update);
            Say($"the game applied update {answer.Generation} after all");
        }
        _unanswered = null;
    }

    private void CheckSources(byte[] built, ProjectCompiler compiler)
    {
        IReadOnlyList<string>? differences = BuildSources.Differences(built, compiler.BuiltPdb, compiler.Current, compiler.SourceFiles);
        if (differences is null)
        {
            Say("warning: the build has no portable PDB to compare the sources with; if a source changed after the build, " +
                "rebuild and restart the game");
            return;
        }
        if (differences.Count == 0)
        {
            Say("the sources are the build's");
            return;
        }
        Say($"WARNING: {differences.Count} source file(s) changed since the build the game runs: an update carries only what " +
            "changes from now on, so rebuild (dotnet build -c " + options.Configuration + ") and restart the game to run them:");
        foreach (string d in differences.Take(10))
            output.WriteLine("  " + d);
        output.Flush();
    }

    private void Print(GameAnswer answer)
    {
        foreach (string line in answer.Text.Split('\n'))
            output.WriteLine("game: " + line.TrimEnd('\r'));
        output.Flush();
    }

    private void Lines(IEnumerable<string> lines)
    {
        foreach (string line in lines)
            output.WriteLine(line);
        output.Flush();
    }

    // "Game.World.Update(float)" -> "Update": the name other code would use.
    private static string ShortName(string member)
    {
        string name = member.Split('(')[0];
        int dot = name.LastIndexOf('.');
        return dot >= 0 ? name[(dot + 1)..] : name;
    }

    private void Say(string message)
    {
        output.WriteLine(Prefix + message);
        output.Flush();
    }

    private static string Ms(TimeSpan t) => string.Create(CultureInfo.InvariantCulture, $"{t.TotalMilliseconds:0} ms");
}
