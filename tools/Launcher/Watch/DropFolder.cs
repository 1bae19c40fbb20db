using System.Globalization;
using AlvorKit.Interception.HotReload;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>The game's answer to an update: its result file's first line, read.</summary>
/// <param name="Outcome">Applied, NothingChanged, Refused, Failed.</param>
/// <param name="Generation">How many updates the game has applied now.</param>
/// <param name="Id">The id of the generation the game runs now (empty: the build's own).</param>
/// <param name="Update">The id of the update this answers (empty: the file could not be read).</param>
/// <param name="Text">The summary to print.</param>
internal sealed record GameAnswer(ReloadOutcome Outcome, int Generation, Guid Id, Guid Update, string Text)
{
    /// <summary>The update is the game's now.</summary>
    public bool Applied => Outcome is ReloadOutcome.Applied or ReloadOutcome.NothingChanged;

    /// <summary>When the game wrote it.</summary>
    public DateTime Written { get; init; }

    /// <summary>Reads a result file; null when it is not one.</summary>
    public static GameAnswer? Parse(string file)
    {
        string[] lines = file.Replace("\r", "", StringComparison.Ordinal).Split('\n');
        if (lines.Length == 0 || !lines[0].StartsWith("#alvk ", StringComparison.Ordinal))
            return null;
        Dictionary<string, string> fields = lines[0][6..].Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Select(f => f.Split('=', 2)).Where(f => f.Length == 2)
            .GroupBy(f => f[0], StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.First()[1], StringComparer.Ordinal);
        if (!fields.TryGetValue("outcome", out string? outcome) || !Enum.TryParse(outcome, out ReloadOutcome parsed) ||
            !fields.TryGetValue("generation", out string? generation) ||
            !int.TryParse(generation, NumberStyles.None, CultureInfo.InvariantCulture, out int number) ||
            !fields.TryGetValue("id", out string? id) || !Guid.TryParseExact(id, "D", out Guid runs) ||
            !fields.TryGetValue("update", out string? update) || !Guid.TryParseExact(update, "D", out Guid answers))
            return null;
        return new GameAnswer(parsed, number, runs, answers, string.Join('\n', lines.Skip(1)).TrimEnd());
    }
}

/// <summary>
/// The folder the game watches (HotReloader.WatchFolder). An update goes in as
/// `Name.hotreload`, written beside it under a temporary name and renamed into place, so the game
/// never sees half a file. The game answers with `Name.result.txt`.
/// </summary>
internal sealed class DropFolder(string path)
{
    // Created private (0700), as the game's watch creates it: it refuses a folder anyone else
    // can write to.
    public string Path { get; } = (OperatingSystem.IsWindows()
        ? Directory.CreateDirectory(path)
        : Directory.CreateDirectory(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute)).FullName;

    /// <summary>Drops the update for `name` and returns the time just before its rename.</summary>
    public DateTime Drop(string name, ReloadDelta delta)
    {
        DateTime before = DateTime.UtcNow;
        Write(System.IO.Path.Combine(Path, name + ".hotreload"), delta.ToArray());
        return before;
    }

    /// <summary>The game's latest answer for `name`, if it wrote one.</summary>
    public GameAnswer? Last(string name) => Read(System.IO.Path.Combine(Path, name + ".result.txt"), DateTime.MinValue);

    /// <summary>The game's answer to the update <paramref name="update"/> of `name` (or to a file
    /// it could not read, written since <paramref name="since"/>); null if none came within
    /// <paramref name="timeout"/> or <paramref name="giveUp"/> said so first.</summary>
    public GameAnswer? WaitForResult(string name, Guid update, DateTime since, TimeSpan timeout, Func<bool> giveUp,
                                     CancellationToken cancellationToken)
    {
        string path = System.IO.Path.Combine(Path, name + ".result.txt");
        DateTime deadline = DateTime.UtcNow + timeout;
        // A file's time comes from the file system's coarser clock: a little before `since` may be after it.
        DateTime notBefore = since - TimeSpan.FromMilliseconds(50);
        while (!cancellationToken.IsCancellationRequested)
        {
            if (Read(path, notBefore) is { } answer &&
                (answer.Update == update || answer.Update == Guid.Empty))
                return answer;
            if (DateTime.UtcNow >= deadline || giveUp())
                return null;
            cancellationToken.WaitHandle.WaitOne(5);
        }
        return null;
    }

    // The answer in `path` if it was written after `since`.
    private static GameAnswer? Read(string path, DateTime since)
    {
        try
        {
            var info = new FileInfo(path);
            if (!info.Exists || info.LastWriteTimeUtc <= since)
                return null;
            return GameAnswer.Parse(File.ReadAllText(path)) is { } answer ? answer with { Written = info.LastWriteTimeUtc } : null;
        }
        catch (IOException)
        {
            return null; // being renamed into place: read it on the next turn
        }
        catch (UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Writes <paramref name="path"/> as a temporary file in the same folder, then renames it into place.</summary>
    internal static void Write(string path, byte[] bytes)
    {
        string temporary = $"{path}.{Environment.ProcessId}.tmp";
        File.WriteAllBytes(temporary, bytes);
        File.Move(temporary, path, overwrite: true);
    }
}
