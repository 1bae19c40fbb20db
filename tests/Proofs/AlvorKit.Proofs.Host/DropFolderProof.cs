using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The "dropfolder" mode: what an attacker, or an accident, can do through a watched folder,
/// tried against the real watch in a profiled process (Linux). The game (ReloadCore.dll) is
/// loaded; folders that others can write to, or swap, are offered to WatchFolder; then, in a
/// private folder, links planted where the result goes, a real update, a FIFO, a link to
/// /dev/zero, a sparse 1.9 GB file, mutated copies of the real update, a Dispose with a FIFO
/// just dropped, and a watch whose object the game dropped, after collections.
/// </summary>
[System.Runtime.Versioning.UnsupportedOSPlatform("windows")]
internal static class DropFolderProof
{
    private const string Untouched = "untouched";

    public static DropFolderReport Run(string gameDll, string updateFile, string expected)
    {
        Assembly game = AssemblyLoadContext.Default.LoadFromAssemblyPath(gameDll);
        Func<string> constant = game.GetType("ReloadCore.Probes", throwOnError: true)!.GetMethod("Constant")!
            .CreateDelegate<Func<string>>();
        string original = constant();
        string root = Path.Combine(Path.GetDirectoryName(updateFile)!, "dropfolder");
        Directory.CreateDirectory(root);
        using Interceptor interceptor = Interceptor.Open();
        HotReloader reload = interceptor.Reload;

        var refusals = new List<FolderRefusal>
        {
            Offer(reload, "writable by everyone (0777)", Folder(root, "open", UnixFileMode.UserRead | UnixFileMode.UserWrite |
                UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupWrite | UnixFileMode.GroupExecute |
                UnixFileMode.OtherRead | UnixFileMode.OtherWrite | UnixFileMode.OtherExecute)),
            Offer(reload, "writable by its group (0770)", Folder(root, "group", UnixFileMode.UserRead | UnixFileMode.UserWrite |
                UnixFileMode.UserExecute | UnixFileMode.GroupRead | UnixFileMode.GroupWrite | UnixFileMode.GroupExecute)),
            Offer(reload, "owned by another user", OwnedByAnother(root)),
            Offer(reload, "a symbolic link to a private folder", Linked(root)),
            Offer(reload, "inside a folder everyone can write to (0777, no sticky bit)", Inside(root)),
        };
        string created = Path.Combine(root, "created", "drop");
        using (reload.WatchFolder(created))
        {
        }
        string createdMode = "0" + Convert.ToString((int)File.GetUnixFileMode(created), 8);

        // The private folder, with links planted where a result would be written: at the result's
        // own name and at the temporary name an earlier version used (Name.result.txt.<pid>.tmp).
        string drop = Path.Combine(root, "drop");
        string outside = Path.Combine(root, "outside.txt"), outsideTemp = Path.Combine(root, "outside-temp.txt");
        File.WriteAllText(outside, Untouched);
        File.WriteAllText(outsideTemp, Untouched);
        var results = new BlockingCollection<ReloadResult>();
        IDisposable watch = reload.WatchFolder(drop, results.Add);
        File.CreateSymbolicLink(Path.Combine(drop, "ReloadCore.result.txt"), outside);
        File.CreateSymbolicLink(Path.Combine(drop, $"ReloadCore.result.txt.{Environment.ProcessId}.tmp"), outsideTemp);

        // Mutated copies of the real update (4 to 12 bytes of its metadata delta changed, as a
        // fuzzer would), dropped before it, so each is read as the game's next generation: each
        // one gets a result and a result file, whatever its fault (some make the metadata reader
        // throw ArgumentException); none applies, none stops the queue.
        byte[] update = File.ReadAllBytes(updateFile);
        // The bytes of the metadata delta (after the file's 40-byte header): what the game reads
        // and translates first.
        int deltaBytes = BitConverter.ToInt32(update, 24);
        var random = new Random(2024);
        var outcomes = new List<string>();
        int resultFiles = 0;
        const int Mutations = 60;
        for (int i = 0; i < Mutations; i++)
        {
            byte[] mutated = (byte[])update.Clone();
            int flips = 4 + random.Next(9);
            for (int f = 0; f < flips; f++)
                mutated[40 + random.Next(deltaBytes)] = (byte)random.Next(256);
            string name = $"Mutant{i}";
            ReloadResult r = Drop(drop, name, mutated, results);
            outcomes.Add(r.Outcome + (r.Refusals.Count > 0 ? " " + r.Refusals[0].Reason + Cause(r.Refusals[0].Message) : ""));
            if (File.Exists(Path.Combine(drop, name + ".result.txt")))
                resultFiles++;
        }
        ReloadResult applied = Drop(drop, "ReloadCore", File.ReadAllBytes(updateFile), results);
        Polled<string> after = Patcher.PollFor(constant, expected, TimeSpan.FromSeconds(10));
        string resultPath = Path.Combine(drop, "ReloadCore.result.txt");
        bool resultIsRegular = File.Exists(resultPath) && new FileInfo(resultPath).LinkTarget is null;

        // A FIFO: refused without being opened; the queue goes on to the next drop.
        Check(mkfifo(Path.Combine(drop, "Fifo.hotreload.tmp"), 0x180), "mkfifo");
        File.Move(Path.Combine(drop, "Fifo.hotreload.tmp"), Path.Combine(drop, "Fifo.hotreload"));
        ReloadResult fifo = Take(results, "Fifo");
        bool fifoResultWritten = File.Exists(Path.Combine(drop, "Fifo.result.txt"));

        // A link to /dev/zero, then a sparse file of 1.9 GB: refused before a byte is read.
        long before = CurrentWorkingSet();
        File.CreateSymbolicLink(Path.Combine(drop, "Zero.hotreload.tmp"), "/dev/zero");
        File.Move(Path.Combine(drop, "Zero.hotreload.tmp"), Path.Combine(drop, "Zero.hotreload"));
        ReloadResult zero = Take(results, "Zero");
        using (var sparse = new FileStream(Path.Combine(drop, "Big.hotreload.tmp"), FileMode.CreateNew))
            sparse.SetLength(1_900_000_000);
        File.Move(Path.Combine(drop, "Big.hotreload.tmp"), Path.Combine(drop, "Big.hotreload"));
        ReloadResult big = Take(results, "Big");
        long grewMiB = (CurrentWorkingSet() - before) / (1024 * 1024);
        File.Delete(Path.Combine(drop, "Big.hotreload"));

        string afterMutants = constant();
        reload.RevertAll();
        Polled<string> reverted = Patcher.PollFor(constant, original, TimeSpan.FromSeconds(10));

        // Dispose returns at once with a FIFO just dropped.
        Check(mkfifo(Path.Combine(drop, "Late.hotreload"), 0x180), "mkfifo");
        Thread.Sleep(100);
        var stopwatch = Stopwatch.StartNew();
        watch.Dispose();
        long disposeMs = stopwatch.ElapsedMilliseconds;

        // A watch whose object the game does not keep keeps working after collections.
        string unkept = Path.Combine(root, "unkept");
        var unkeptResults = new BlockingCollection<ReloadResult>();
        WatchWithoutKeeping(reload, unkept, unkeptResults);
        for (int i = 0; i < 5; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        File.WriteAllBytes(Path.Combine(unkept, "Junk.hotreload.tmp"), [1, 2, 3]);
        File.Move(Path.Combine(unkept, "Junk.hotreload.tmp"), Path.Combine(unkept, "Junk.hotreload"));
        bool unkeptAnswered = unkeptResults.TryTake(out ReloadResult? junk, TimeSpan.FromSeconds(10));

        return new DropFolderReport(refusals, createdMode, applied.Outcome.ToString(), after, resultIsRegular,
            File.ReadAllText(outside), File.ReadAllText(outsideTemp),
            Describe(fifo), fifoResultWritten, Describe(zero), Describe(big), grewMiB,
            Mutations, outcomes, resultFiles, afterMutants, reverted, disposeMs,
            unkeptAnswered ? Describe(junk!) : null);
    }

    private static FolderRefusal Offer(HotReloader reload, string what, string folder)
    {
        try
        {
            using (reload.WatchFolder(folder))
                return new FolderRefusal(what, false, null);
        }
        catch (UnauthorizedAccessException e)
        {
            return new FolderRefusal(what, true, e.Message);
        }
    }

    private static string Folder(string root, string name, UnixFileMode mode)
    {
        string path = Path.Combine(root, name);
        Directory.CreateDirectory(path);
        File.SetUnixFileMode(path, mode); // past the umask
        return path;
    }

    // Root makes a folder and gives it to "nobody"; another user picks a folder root owns.
    private static string OwnedByAnother(string root)
    {
        if (geteuid() != 0)
            return "/var";
        string path = Folder(root, "theirs", UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        Check(chown(path, 65534, 65534), "chown");
        return path;
    }

    private static string Linked(string root)
    {
        string target = Folder(root, "target", UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        string link = Path.Combine(root, "link");
        File.CreateSymbolicLink(link, target);
        return link;
    }

    private static string Inside(string root)
    {
        string shared = Folder(root, "shared", (UnixFileMode)0x1FF);
        return Folder(shared, "drop", UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
    }

    private static void WatchWithoutKeeping(HotReloader reload, string folder, BlockingCollection<ReloadResult> results) =>
        _ = reload.WatchFolder(folder, results.Add);

    // Renamed into place, as the watcher drops an update.
    private static ReloadResult Drop(string drop, string name, byte[] bytes, BlockingCollection<ReloadResult> results)
    {
        File.WriteAllBytes(Path.Combine(drop, name + ".hotreload.tmp"), bytes);
        File.Move(Path.Combine(drop, name + ".hotreload.tmp"), Path.Combine(drop, name + ".hotreload"), overwrite: true);
        return Take(results, name);
    }

    private static ReloadResult Take(BlockingCollection<ReloadResult> results, string name) =>
        results.TryTake(out ReloadResult? result, TimeSpan.FromSeconds(30))
            ? result
            : throw new TimeoutException($"no result for {name} within 30 s");

    // The exception a refusal quotes ("(ArgumentException: ..."), if any.
    private static string Cause(string message) =>
        System.Text.RegularExpressions.Regex.Match(message, @"\((\w+Exception):") is { Success: true } m ? " " + m.Groups[1].Value : "";

    private static string Describe(ReloadResult r) =>
        r.Outcome + (r.Refusals.Count > 0 ? " " + r.Refusals[0].Message : "");

    private static long CurrentWorkingSet()
    {
        using var self = Process.GetCurrentProcess();
        return self.WorkingSet64;
    }

    private static void Check(int rc, string what)
    {
        if (rc != 0)
            throw new InvalidOperationException($"{what} failed: errno {Marshal.GetLastPInvokeError()}");
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int mkfifo([MarshalAs(UnmanagedType.LPUTF8Str)] string path, uint mode);

    [DllImport("libc", SetLastError = true)]
    private static extern int chown([MarshalAs(UnmanagedType.LPUTF8Str)] string path, uint owner, uint group);

    [DllImport("libc")]
    private static extern uint geteuid();
}
