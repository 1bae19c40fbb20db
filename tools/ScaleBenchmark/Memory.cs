using System.Runtime.InteropServices;

namespace AlvorKit.ScaleBenchmark;

/// <summary>What this process holds: resident pages (/proc/self/status) and glibc's heap
/// (mallinfo2).</summary>
internal static partial class Memory
{
    /// <summary>One reading.</summary>
    internal readonly record struct Reading(long VmRssKiB, long RssAnonKiB, long HeapInUse, long HeapHeld, long RssFileKiB);

    /// <summary>Reads the process's memory now, after a full collection.</summary>
    internal static Reading Read()
    {
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        long rss = 0, anon = 0, file = 0;
        foreach (string line in File.ReadLines("/proc/self/status"))
        {
            if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                rss = KiB(line);
            else if (line.StartsWith("RssAnon:", StringComparison.Ordinal))
                anon = KiB(line);
            else if (line.StartsWith("RssFile:", StringComparison.Ordinal))
                file = KiB(line);
        }
        MallInfo2 m = mallinfo2();
        return new Reading(rss, anon, (long)m.Uordblks + (long)m.Hblkhd, (long)m.Arena + (long)m.Hblkhd, file);
    }

    /// <summary>Resident KiB per mapped file ("[anon]" for the rest), from /proc/self/smaps,
    /// largest first.</summary>
    internal static List<(string Name, long KiB)> ResidentByMapping()
    {
        var totals = new Dictionary<string, long>();
        string current = "[anon]";
        foreach (string line in File.ReadLines("/proc/self/smaps"))
        {
            string[] parts = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            if (parts.Length >= 5 && parts[0].Contains('-', StringComparison.Ordinal) && !parts[0].EndsWith(':'))
                current = parts.Length >= 6 ? Path.GetFileName(parts[5]) : "[anon]";
            else if (line.StartsWith("Rss:", StringComparison.Ordinal))
                totals[current] = totals.GetValueOrDefault(current) + KiB(line);
        }
        return [.. totals.Select(kv => (kv.Key, kv.Value)).OrderByDescending(t => t.Value)];
    }

    private static long KiB(string line) =>
        long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], System.Globalization.CultureInfo.InvariantCulture);

    [StructLayout(LayoutKind.Sequential)]
    private struct MallInfo2
    {
        public nuint Arena, Ordblks, Smblks, Hblks, Hblkhd, Usmblks, Fsmblks, Uordblks, Fordblks, Keepcost;
    }

    [LibraryImport("libc", EntryPoint = "mallinfo2")]
    private static partial MallInfo2 mallinfo2();
}
