namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// The folder the game watches (HotReloader.WatchFolder). A rebuild goes in as `Name.dll` (and
/// `Name.pdb`), each written beside it under a temporary name and renamed into place, the PDB
/// first, so the game never sees half a file. The game answers with `Name.result.txt`.
/// </summary>
internal sealed class DropFolder(string path)
{
    public string Path { get; } = Directory.CreateDirectory(path).FullName;

    /// <summary>Drops `name.dll` (and its PDB) and returns the time just before the assembly's rename.</summary>
    public DateTime Drop(string name, byte[] image, byte[]? pdb)
    {
        if (pdb is not null)
            Write(System.IO.Path.Combine(Path, name + ".pdb"), pdb);
        DateTime before = DateTime.UtcNow;
        Write(System.IO.Path.Combine(Path, name + ".dll"), image);
        return before;
    }

    /// <summary>The game's result for `name`, once it is newer than <paramref name="since"/>;
    /// null if none came within <paramref name="timeout"/> or <paramref name="giveUp"/> said so first.</summary>
    public string? WaitForResult(string name, DateTime since, TimeSpan timeout, Func<bool> giveUp,
                                 CancellationToken cancellationToken)
    {
        string path = System.IO.Path.Combine(Path, name + ".result.txt");
        DateTime deadline = DateTime.UtcNow + timeout;
        while (!cancellationToken.IsCancellationRequested)
        {
            try
            {
                var info = new FileInfo(path);
                if (info.Exists && info.LastWriteTimeUtc >= since)
                    return File.ReadAllText(path);
            }
            catch (IOException)
            {
                // being renamed into place: read it on the next turn
            }
            if (DateTime.UtcNow >= deadline || giveUp())
                return null;
            cancellationToken.WaitHandle.WaitOne(50);
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
