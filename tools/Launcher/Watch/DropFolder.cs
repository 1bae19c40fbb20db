using System.Globalization;
using AlvorKit.Interception.HotReload;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>The game's answer to an update: its result file's first line, read.</summary>
/// <param name="Outcome">Applied, NothingChanged, Refused, Failed.</param>
/// <param name="Generation">How many updates the game has applied now.</param>
/// <param name="Text">The summary to print.</param>
internal sealed record GameAnswer(ReloadOutcome Outcome, int Generation, string Text)
{
    /// <summary>The update is the game's now.</summary>
    public bool Applied => Outcome is ReloadOutcome.Applied or ReloadOutcome.NothingChanged;

    /// <summary>Reads a result file; null when it is not one.</summary>
    public static GameAnswer? Parse(string file)
    {
        string[] lines = file.Replace("\r", "", StringComparison.Ordinal).Split('\n');
        if (lines.Length == 0 || !lines[0].StartsWith("#alvk ", StringComparison.Ordinal))
            return null;
        Dictionary<string, string> fields = lines[0][6..].Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .Select(f => f.Split('=', 2)).Where(f => f.Length == 2).ToDictionary(f => f[0], f => f[1], StringComparer.Ordinal);
        if (!fields.TryGetValue("outcome", out string? outcome) || !Enum.TryParse(outcome, out ReloadOutcome parsed) ||
            !fields.TryGetValue("generation", out string? generation) ||
            !int.TryParse(generation, NumberStyles.None, CultureInfo.InvariantCulture, out int number))
            return null;
        return new GameAnswer(parsed, number, string.Join('\n', lines.Skip(1)).TrimEnd());
    }
}

/// <summary>
/// The folder the game watches (HotReloader.WatchFolder). An update goes in as
/// `Name.hotreload`, written beside it under a temporary name and renamed into place, so the game
/// never sees half a file. The game answers with `Name.result.txt`.
/// </summary>
internal sealed class DropFolder(string path)
{
    public string Path { get; } = Directory.CreateDirectory(path).FullName;

    /// <summary>Drops the update for `name` and returns the time just before its rename.</summary>
    public DateTime Drop(string name, ReloadDelta delta)
    {
        DateTime before = DateTime.UtcNow;
        Write(System.IO.Path.Combine(Path, name + ".hotreload"), delta.ToArray());
        return before;
    }

    /// <summary>The game's latest answer for `name`, if it wrote one.</summary>
    public GameAnswer? Last(string name)
    {
        try
        {
            string file = System.IO.Path.Combine(Path, name + ".result.txt");
            return File.Exists(file) ? GameAnswer.Parse(File.ReadAllText(file)) : null;
        }
        catch (IOException)
        {
            return null;
        }
    }

    /// <summary>The game's answer for `name`, once it is newer than <paramref name="since"/>;
    /// null if none came within <paramref name="timeout"/> or <paramref name="giveUp"/> said so first.</summary>
    public GameAnswer? WaitForResult(string name, DateTime since, TimeSpan timeout, Func<bool> giveUp,
                                     CancellationToken cancellationToken)
    {
        string path = System.IO.Path.Combine(Path, name + ".result.txt");
        DateTime deadline = DateTime.UtcNow + timeout;
        while (!cancellationToken.IsCancellationRequested)
        {
            try
            {
                var info = new FileInfo(path);
                if (info.Exists && info.LastWriteTimeUtc >= since && GameAnswer.Parse(File.ReadAllText(path)) is { } answer)
                    return answer;
            }
            catch (IOException)
            {
                // being renamed into place: read it on the next turn
            }
            if (DateTime.UtcNow >= deadline || giveUp())
                return null;
            cancellationToken.WaitHandle.WaitOne(5);
        }
        return null;
    }

    /// <summary>Writes <paramref name="path"/> as a temporary file in the same folder, then renames it into place.</summary>
    internal static void Write(string path, byte[] bytes)
    {
        string temporary = $"{path}.{Environment.ProcessId}.tmp";
        File.WriteAllBytes(temporary, bytes);
        File.Move(temporary, path, overwrite: true);
    }
}
