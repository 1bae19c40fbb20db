namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Applies the method bodies of a rebuilt assembly to the assembly this process loaded
/// (<see cref="Interceptor.Reload"/>). Edit, save, rebuild into another folder, and the running
/// Release game runs the new bodies: every changed body of one rebuild goes in together or not at
/// all, and <see cref="RevertAll"/> puts every original back.
/// </summary>
public sealed class HotReloader
{
    internal HotReloader(Interceptor interceptor) => throw new NotImplementedException();

    /// <summary>The owner of every generation applied from source.</summary>
    public PatchOwner Owner => throw new NotImplementedException();

    /// <summary>Compares <paramref name="rebuiltAssemblyPath"/> with the loaded assembly of the same
    /// name and the bodies applied from source so far, then applies what changed as one batch.</summary>
    public ReloadResult Apply(string rebuiltAssemblyPath) => throw new NotImplementedException();

    /// <summary><see cref="Apply"/> without blocking the calling thread on the profiler's worker.</summary>
    public Task<ReloadResult> ApplyAsync(string rebuiltAssemblyPath, CancellationToken cancellationToken = default) =>
        throw new NotImplementedException();

    /// <summary>Every method applied from source runs its original body again.</summary>
    public ReloadResult RevertAll() => throw new NotImplementedException();

    /// <summary><see cref="RevertAll"/> without blocking the calling thread.</summary>
    public Task<ReloadResult> RevertAllAsync(CancellationToken cancellationToken = default) =>
        throw new NotImplementedException();

    /// <summary>
    /// Watches <paramref name="folder"/> for rebuilt assemblies (<c>Name.dll</c>, written there by
    /// <c>alvorkit-intercept watch</c> as a temporary file renamed into place) and applies each one
    /// as <see cref="ApplyAsync"/> does, one at a time. After each, it writes the result's
    /// <see cref="ReloadResult.Summary"/> to <c>Name.result.txt</c> in the folder (temporary file,
    /// then rename), for the watcher to print, and calls <paramref name="onResult"/>.
    /// </summary>
    /// <param name="folder">The drop folder (created if missing).</param>
    /// <param name="onResult">Called with each result on a thread-pool thread; null: none.</param>
    /// <returns>Dispose it to stop watching (an apply under way finishes first).</returns>
    public IDisposable WatchFolder(string folder, Action<ReloadResult>? onResult = null) =>
        throw new NotImplementedException();
}
