using Microsoft.CodeAnalysis.Emit;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// What the game can be running, as this watcher made it: the build (generation 0) and each
/// update the game applied since, by the update's id, and the update dropped whose answer has not
/// come yet. Every answer of the game says which generation it runs; when that is another one than
/// the watcher's (an answer that came after the watcher stopped waiting, a game restarted from
/// the build), the compiler and the Edit and Continue session move to it, so the next update is
/// emitted against what the game really runs.
/// </summary>
internal sealed class UpdateHistory
{
    private readonly List<State> _states = [];
    private (SourceUpdate Sources, EmittedUpdate Update)? _pending;

    private sealed record State(Guid Id, SourceUpdate Sources, EmitBaseline Baseline);

    /// <param name="build">The sources of the build the game loaded.</param>
    /// <param name="baseline">The session's baseline of that build.</param>
    public UpdateHistory(SourceUpdate build, EmitBaseline baseline) => _states.Add(new State(Guid.Empty, build, baseline));

    /// <summary>The id of the generation the watcher takes the game to run (empty: the build).</summary>
    public Guid Current => _states[^1].Id;

    /// <summary>The update dropped whose answer did not come.</summary>
    public EmittedUpdate? Pending => _pending?.Update;

    /// <summary><paramref name="update"/> was dropped; its answer is awaited.</summary>
    public void Dropped(SourceUpdate sources, EmittedUpdate update) => _pending = (sources, update);

    /// <summary>The game applied <paramref name="update"/>: the next is emitted against it.</summary>
    public void Applied(ProjectCompiler compiler, EditSession session, SourceUpdate sources, EmittedUpdate update)
    {
        compiler.Commit(sources);
        session.Commit(update);
        _states.Add(new State(update.Delta.UpdateId, sources, update.Next));
        _pending = null;
    }

    /// <summary>
    /// Follows an answer of the game: when it runs another generation than the watcher's, the
    /// compiler and <paramref name="session"/> move to that one (the pending update applied after
    /// all, or an earlier state). Returns what to tell the developer, or null when nothing moved.
    /// </summary>
    public string? Follow(GameAnswer answer, ProjectCompiler compiler, EditSession session)
    {
        if (_pending is { } pending && answer.Update == pending.Update.Delta.UpdateId && !answer.Applied)
            _pending = null; // refused or failed: the game runs what it ran
        if (answer.Id == Current)
            return null;
        if (_pending is { } late && late.Update.Delta.UpdateId == answer.Id)
        {
            Applied(compiler, session, late.Sources, late.Update);
            return $"the game applied update {session.Generation} after all";
        }
        int index = _states.FindIndex(s => s.Id == answer.Id);
        if (index < 0)
            return $"the game runs generation {answer.Generation} ({answer.Id:D}), which this watcher did not make: " +
                   "restart the game from the build, or restart the watcher against the build the game runs";
        _states.RemoveRange(index + 1, _states.Count - index - 1);
        State state = _states[index];
        compiler.Commit(state.Sources);
        session.Reset(state.Baseline, index);
        _pending = null;
        return index == 0
            ? "the game runs the build again (restarted?): the next update carries every change since the build"
            : $"the game runs update {index}: the next update carries every change since that one";
    }
}
