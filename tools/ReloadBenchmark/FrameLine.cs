using System.Globalization;
using System.Text.RegularExpressions;

namespace ReloadBenchmark;

/// <summary>LiveDemo's frame line ("  42 |...| score     31 (+  2)  movement: ..."): the points
/// Scoring.PointsFor gave that frame, and the banner each start prints (with its process id).</summary>
internal static partial class FrameLine
{
    public static int? Points(string line)
    {
        Match m = Frame().Match(line);
        return m.Success ? int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }

    public static bool IsFrame(string line) => Frame().IsMatch(line);

    public static int? BannerPid(string line)
    {
        Match m = Banner().Match(line);
        return m.Success ? int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }

    [GeneratedRegex(@"^\s*\d+ \|[^|]*\| score\s+-?\d+ \(\+\s*(-?\d+)\)")]
    private static partial Regex Frame();

    [GeneratedRegex(@"^LiveDemo \([^)]*pid (\d+)\)")]
    private static partial Regex Banner();
}
