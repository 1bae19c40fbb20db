using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using AlvorKit.Interception.HotReload;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>What `watch` was asked to do.</summary>
internal sealed record WatchOptions(string Project, string Drop, string Configuration, TimeSpan Debounce,
                                    TimeSpan ResultTimeout, int WarmUp)
{
    /// <summary>`-- [command]`: the game watch starts itself (empty: `dotnet` the project's
    /// TargetPath; WatchCommand); null: a game started some other way watches <see cref="Drop"/>.</summary>
    public IReadOnlyList<string>? Game { get; init; }

    /// <summary>--profiler, for the game watch starts.</summary>
    public string? ProfilerPath { get; init; }

    /// <summary>Canceled when the game watch started has exited: the watch ends with it.</summary>
    public CancellationToken GameExited { get; init; }
}

/// <summary>
/// `watch`: reads the project's sources once and starts an Edit and Continue session against the
/// build the game loaded (saying whether the sources are that build's), then on every save of
/// its source files (debounced) compiles what changed as an update of that build, drops it into
/// the drop folder, and prints what changed, the compile time and what the game reported. The
/// next update is emitted against the last one the game applied. A save that does not compile,
/// or that a running game cannot take, prints why and drops nothing. Ctrl+C (or SIGTERM) stops
/// it at any moment, MSBuild's and a compile's included: what is under way is abandoned (an
/// update is dropped whole or not at all: a drop is a rename), and it exits 0.
/// </summary>
internal sealed class WatchSession(WatchOptions options, TextWriter output)
{
    private const string Prefix = "watch: ";

    // What the game runs, as far as its answers tell (set in Run).
    private UpdateHistory _history = null!;

    /// <summary>`watch` itself: <see cref="Run"/>.</summary>
    public static int Start(WatchOptions options) => new WatchSession(options, Console.Out).Run();

    public int Run()
    {
        // Ctrl+C and SIGTERM are the watch's from its start: each step takes the token (MSBuild is
        // ended, a compile abandoned), so a signal never meets an unhandled cancellation or the
        // runtime's default ending (130, 143), whatever the watch is doing.
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(options.GameExited);
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
            // The SDK's compiler is located before anything that needs its types is compiled by
            // the JIT (Watch is, when it is first called).
            SdkCompiler.Require();
            Watch(stop.Token);
        }
        // Stopped in the middle of a step; MSBuild may also have failed first, from the Ctrl+C a
        // terminal sends it too.
        catch (Exception e) when (stop.IsCancellationRequested && e is OperationCanceledException or LauncherException)
        {
        }
        finally
        {
            Console.CancelKeyPress -= onCancel;
        }
        Say("stopped");
        return ExitCodes.Ok;
    }

    // The watch until `stopping` is canceled (it then returns, or throws OperationCanceledException).
    private void Watch(CancellationToken stopping)
    {
        var clock = Stopwatch.StartNew();
        string project = Path.GetFullPath(options.Project);
        if (!File.Exists(project))
            throw new LauncherException(ExitCodes.Usage, $"watch: no project file {project}");
        DropFolder drop;
        try
        {
            drop = new DropFolder(options.Drop);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new LauncherException(ExitCodes.Usage, $"watch: --drop {options.Drop}: cannot make the folder: {e.Message}");
        }
        string projectDirectory = Path.GetDirectoryName(project)!;

        Say($"reading the compiler arguments of {project} ({options.Configuration}) from MSBuild; compiling " +
            $"with {SdkCompiler.Directory}");
        IReadOnlyList<string> arguments = CompilerArguments.Read(project, options.Configuration, TimeSpan.FromMinutes(2),
                                                                 stopping);
        TimeSpan msbuild = clock.Elapsed;
        var compiler = new ProjectCompiler(arguments, projectDirectory);
        SourceUpdate first = compiler.Read(stopping);
        compiler.Commit(first);
        if (!File.Exists(compiler.BuiltOutput))
            throw new LauncherException(ExitCodes.BuildFailed,
                $"watch: {compiler.BuiltOutput} is missing: build the project (dotnet build -c {options.Configuration}) and " +
                "start the game from that build; updates are compiled against it");
        byte[] built = File.ReadAllBytes(compiler.BuiltOutput);
        EditSession session = EditSession.Start(compiler.Current, built, compiler.AssemblyName);
        _history = new UpdateHistory(first, session.Baseline);
        Say($"{compiler.AssemblyName}: {compiler.SourceFiles.Count} source files, {compiler.GeneratorCount} source " +
            $"generators; updates against the build {session.ModuleVersionId} ({compiler.BuiltOutput}); " +
            $"MSBuild {Ms(msbuild)}, sources read {Ms(clock.Elapsed - msbuild)}");
        CheckSources(built, compiler);
        if (options.WarmUp > 0)
        {
            var warm = Stopwatch.StartNew();
            ReloadDelta? rehearsal = WarmUp.Run(compiler, session, options.WarmUp, stopping);
            stopping.ThrowIfCancellationRequested();
            if (rehearsal is not null)
            {
                Say($"warmed up the compiler ({options.WarmUp} updates, {Ms(warm.Elapsed)})");
                Rehearse(compiler, session, drop, rehearsal, stopping);
            }
        }

        using var changes = new SourceChanges(projectDirectory, compiler.IsSource, path =>
            Say($"{Path.GetRelativePath(projectDirectory, path)} is not one of the files the project compiled when the " +
                "watcher started (a new file?): restart watch to compile it"));
        Say($"watching {projectDirectory} for saves; dropping into {drop.Path}; ready in {Ms(clock.Elapsed)}; Ctrl+C stops");
        if (options.WarmUp > 0)
            WarmUp.BindAllInBackground(compiler, stopping);
        while (changes.WaitForChanges(options.Debounce, stopping))
            Update(compiler, session, drop, changes, again: true, stopping);
    }

    // How long the files of a save that does not compile (or that removes members) must have
    // stayed as they were read before it is trusted: longer than the pauses of a writer that
    // writes a file in place in pieces.
    private static readonly TimeSpan SettleTime = TimeSpan.FromSeconds(1);

    // How long the start waits for the game's answer to a rehearsal.
    private static readonly TimeSpan RehearsalPatience = TimeSpan.FromSeconds(2);

    // How long a new save waits for the game's answer to the update before it.
    private static readonly TimeSpan PatienceWithNewSaves = TimeSpan.FromSeconds(1);

    private void Update(ProjectCompiler compiler, EditSession session, DropFolder drop, SourceChanges changes, bool again,
                        CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        Func<bool> newSave = () => changes.Pending;
        CatchUp(compiler, session, drop);
        SourceUpdate sources = compiler.Read(changes.TakeChanged(), null, cancellationToken);
        if (sources.Changed.Count == 0 && sources.Succeeded)
            return; // saved without a change
        if (changes.Pending)
            return; // saved again meanwhile (or a file read half-written): the next turn reads it
        string files = string.Join(", ", sources.ChangedFiles.Select(f => Path.GetRelativePath(compiler.ProjectDirectory, f)));
        if (files.Length == 0)
            files = "nothing";
        if (!sources.Succeeded)
        {
            if (!Settled(compiler, changes, sources, cancellationToken))
                return;
            Say($"changed: {files}; does not compile ({Ms(clock.Elapsed)}), nothing dropped:");
            Lines(sources.Errors);
            return;
        }
        TimeSpan read = clock.Elapsed;
        EditPlan plan = EditAnalyzer.Analyze(compiler.Current, sources.Compilation, sources.Changed, cancellationToken);
        TimeSpan analyzed = clock.Elapsed;
        if (changes.Pending)
            return;
        if (plan.Refusals.Count > 0)
        {
            if (!Settled(compiler, changes, sources, cancellationToken))
                return;
            Say($"changed: {files}; the running game cannot take this save, nothing dropped (restart the game to take it):");
            Lines(plan.Refusals.Select(r => "  " + r));
            return;
        }
        // A member removed may be a file cut short: taken (committed, or emitted) once it settles.
        TimeSpan settled = clock.Elapsed;
        if (plan.Notices.Any(n => n.Kind == ReloadNoticeKind.RemovedMemberStays) &&
            !Settled(compiler, changes, sources, cancellationToken))
            return;
        settled = clock.Elapsed - settled;
        IReadOnlyList<string> elsewhere = ProjectCompiler.ErrorsMentioning(sources,
            [.. plan.Notices.Where(n => n.Kind == ReloadNoticeKind.RemovedMemberStays).Select(n => ShortName(n.Member))],
            cancellationToken);
        if (elsewhere.Count > 0)
        {
            if (!Settled(compiler, changes, sources, cancellationToken))
                return;
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
            if (!Settled(compiler, changes, sources, cancellationToken))
                return;
            Say($"changed: {files}; does not compile ({Ms(clock.Elapsed)}), nothing dropped:");
            Lines(errors);
            return;
        }
        Say($"changed: {files}; update {session.Generation + 1} compiled in {Ms(clock.Elapsed)} " +
            $"({Count(update.Methods, "method body", "method bodies")}, {Count(plan.Edits.Count, "edit", "edits")}; " +
            $"read and checked {Ms(read)}, analyzed {Ms(analyzed - read)}, " +
            (settled >= TimeSpan.FromMilliseconds(1) ? $"settled {Ms(settled)}, " : "") +
            $"emitted {Ms(clock.Elapsed - analyzed - settled)})");
        DateTime dropped = drop.Drop(compiler.AssemblyName, update.Delta);
        _history.Dropped(sources, update);
        Say($"dropped {compiler.AssemblyName}.hotreload; waiting for the game's result");
        // The game answers within milliseconds when it runs: a save that comes meanwhile waits
        // for the answer, unless it takes long (a game that is not running).
        var waiting = Stopwatch.StartNew();
        GameAnswer? answer = drop.WaitForResult(compiler.AssemblyName, update.Delta.UpdateId, dropped, options.ResultTimeout,
                                                () => waiting.Elapsed > PatienceWithNewSaves && newSave(), cancellationToken);
        if (answer is null)
        {
            if (cancellationToken.IsCancellationRequested)
                return; // stopped while waiting (Ctrl+C): not a timeout; "stopped" follows
            Say(newSave()
                ? "a new save came before the game's result"
                : $"no result from the game within {options.ResultTimeout.TotalSeconds:0} s " +
                  $"(is it running with interceptor.Reload.WatchFolder(\"{drop.Path}\")?)");
            return;
        }
        Print(answer);
        if (answer.Applied && answer.Update == update.Delta.UpdateId)
        {
            _history.Applied(compiler, session, sources, update);
            return;
        }
        if (_history.Follow(answer, compiler, session) is { } moved)
        {
            // The game runs another generation than the one this update followed: emit it again
            // against what the game runs.
            Say(moved);
            if (again)
                Update(compiler, session, drop, changes, again: false, cancellationToken);
            return;
        }
        if (answer.Outcome == ReloadOutcome.Refused)
            Say("the game refused the update and runs what it ran before; the next save is compiled against that");
    }

    // The game, if it runs already, prepares an update and applies nothing: the code its first
    // real update runs is then compiled. Its answer also says which generation it runs.
    private void Rehearse(ProjectCompiler compiler, EditSession session, DropFolder drop, ReloadDelta rehearsal,
                          CancellationToken cancellationToken)
    {
        DateTime dropped = drop.Drop(compiler.AssemblyName, rehearsal);
        GameAnswer? answer = drop.WaitForResult(compiler.AssemblyName, rehearsal.UpdateId, dropped, RehearsalPatience,
                                                () => false, cancellationToken);
        cancellationToken.ThrowIfCancellationRequested();
        if (answer is null)
        {
            Say($"no game answered a rehearsal within {RehearsalPatience.TotalSeconds:0} s (not started yet?): its first " +
                "update compiles the game's side of hot reload, and takes longer");
            return;
        }
        if (answer.Outcome == ReloadOutcome.NothingChanged)
        {
            Say($"the game rehearsed an update in {Ms(DateTime.UtcNow - dropped)}, applying nothing");
            return;
        }
        Print(answer);
        if (_history.Follow(answer, compiler, session) is { } moved)
            Say(moved);
    }

    // An editor (or a slow disk) that writes a file in place, truncated then written in pieces,
    // perhaps with pauses between them, is read at its first event, half written: half a file does
    // not compile, or reads as deleted members. A save is compiled at once, and such a read is
    // trusted (its errors printed, its removals taken) only once it has settled: no other save
    // came and no file it changed was written for SettleTime, and each still holds the text that
    // was read. False: it is read again, at the next turn (SourceChanges.ReadAgain).
    private static bool Settled(ProjectCompiler compiler, SourceChanges changes, SourceUpdate sources,
                                CancellationToken cancellationToken)
    {
        bool settled = Quiet(changes, sources.ChangedFiles, cancellationToken) && compiler.AsRead(sources);
        if (!settled && !cancellationToken.IsCancellationRequested)
            changes.ReadAgain();
        return settled && !cancellationToken.IsCancellationRequested;
    }

    // Whether no save comes until each of `files` was last written SettleTime ago (at most
    // SettleTime from now: a clock that runs ahead waits no longer).
    private static bool Quiet(SourceChanges changes, IReadOnlyList<string> files, CancellationToken cancellationToken)
    {
        DateTime deadline = DateTime.UtcNow + SettleTime;
        while (true)
        {
            DateTime written = files.Select(LastWrite).DefaultIfEmpty(DateTime.UtcNow).Max();
            TimeSpan wait = Min(written + SettleTime, deadline) - DateTime.UtcNow;
            if (wait <= TimeSpan.Zero)
                return true;
            if (changes.SaveWithin(wait, cancellationToken) || cancellationToken.IsCancellationRequested)
                return false;
        }
    }

    private static DateTime LastWrite(string path)
    {
        try
        {
            return File.GetLastWriteTimeUtc(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return DateTime.UtcNow;
        }
    }

    private static DateTime Min(DateTime a, DateTime b) => a < b ? a : b;

    // An answer that came after the watcher stopped waiting: the game may run that update now.
    private void CatchUp(ProjectCompiler compiler, EditSession session, DropFolder drop)
    {
        if (_history.Pending is null || drop.Last(compiler.AssemblyName) is not { } answer)
            return;
        if (_history.Follow(answer, compiler, session) is { } moved)
            Say(moved);
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

    private static string Count(int n, string one, string many) =>
        string.Create(CultureInfo.InvariantCulture, $"{n} {(n == 1 ? one : many)}");

    private static string Ms(TimeSpan t) => string.Create(CultureInfo.InvariantCulture, $"{t.TotalMilliseconds:0} ms");
}
