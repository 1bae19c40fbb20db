using System.Collections.Concurrent;
using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks and a whole-body replacement on a method the JIT inlines, read from the JIT's own listings
/// of the hot caller (both tierings): the runtime never inlines a method with an active ReJIT
/// version, so the profiler re-JITs the target's known inliner with IL calling a carrier of the
/// target's new body (a method with no ReJIT version), which the JIT inlines, hooks included; the
/// hooks run as often as they would through the target. Each removal gives the caller its original
/// IL back, which inlines the original target again (docs/Benchmarks.md, "Hooks on inlined
/// targets").
/// </summary>
[Trait("Feature", "Hooks")]
public sealed partial class InlineSiteProofs
{
    private const string Caller = "InlineSiteTargets:InlineSiteCaller(int):int";

    private static readonly ConcurrentDictionary<string, Lazy<(InlineSiteReport Report, string[] Listings)>> Runs = new();

    public static TheoryData<string> Tierings => PatchReports.TieringModes;

    // One launch per tiering: the report, and each phase's listings of the caller from the JIT's file.
    private static (InlineSiteReport Report, string[] Listings) Run(string tiering) =>
        Runs.GetOrAdd(tiering, t => new Lazy<(InlineSiteReport, string[])>(() =>
        {
            string file = Path.Combine(Path.GetTempPath(), $"alvk-inline-sites-{Environment.ProcessId}-{t}.txt");
            File.Delete(file);
            var environment = new Dictionary<string, string?>(PatchReports.Tiering(t))
            {
                ["DOTNET_JitDisasm"] = "InlineSiteCaller InlineSitePhase0 InlineSitePhase1 InlineSitePhase2 " +
                                       "InlineSitePhase3 InlineSitePhase4",
                ["DOTNET_JitStdOutFile"] = file,
            };
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
                environment, TimeSpan.FromSeconds(180), "inlinesites");
            Assert.True(run.ExitCode == 0, run.ToString());
            string text = File.Exists(file) ? File.ReadAllText(file) : "";
            File.Delete(file);
            return (run.Report<InlineSiteReport>(), FinalListings(text));
        })).Value;

    // Per phase (cut at the listing of InlineSitePhaseN), the caller's last optimized listing, or "".
    private static string[] FinalListings(string text)
    {
        var finals = new string[5];
        Array.Fill(finals, "");
        int phase = -1;
        foreach (string listing in text.Split("; Assembly listing for method ").Skip(1))
        {
            string header = listing[..listing.IndexOf('\n', StringComparison.Ordinal)];
            Match mark = PhaseMark().Match(header);
            if (mark.Success)
                phase = int.Parse(mark.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
            else if (phase >= 0 && header.Contains(Caller, StringComparison.Ordinal) &&
                     (header.EndsWith("(Tier1)", StringComparison.Ordinal) || header.EndsWith("(FullOpts)", StringComparison.Ordinal)))
                finals[phase] = listing;
        }
        return finals;
    }

    [GeneratedRegex(@"InlineSiteTargets:InlineSitePhase(\d)\(\)")]
    private static partial Regex PhaseMark();

    [GeneratedRegex(@"; (\d+) inlinees with PGO data; (\d+) single block inlinees; (\d+) inlinees without PGO data")]
    private static partial Regex Inlinees();

    private static bool Calls(string listing, string method) =>
        listing.Split('\n').Any(line => line.TrimStart().StartsWith("call", StringComparison.Ordinal) &&
                                        line.Contains(method, StringComparison.Ordinal));

    private static int InlineCount(string listing)
    {
        Match m = Inlinees().Match(listing);
        return m.Success ? m.Groups.Values.Skip(1).Sum(g => int.Parse(g.Value, System.Globalization.CultureInfo.InvariantCulture)) : 0;
    }

    private static InlineSiteReport Report(string tiering)
    {
        InlineSiteReport r = Run(tiering).Report;
        Assert.True(r.Refused is null, $"the interceptor did not open: {r.Refused}");
        Assert.Equal(["before", "hooked", "hookRemoved", "replaced", "replaceRemoved"], r.Phases.Select(p => p.Name));
        return r;
    }

    private static string Listing(string tiering, int phase)
    {
        string listing = Run(tiering).Listings[phase];
        Assert.True(listing.Length > 0, $"no optimized listing of the caller in phase {phase}");
        return listing;
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheCallerReturnsWhatTheTargetWouldAndRunsThePrefixOnlyWhileHooked(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        Assert.Equal(tiering == PatchReports.TieredPgo, r.TieringOn);
        // The replacement returns one more than Tiny, for each of the 100 calls.
        int[] expected = [r.Expected, r.Expected, r.Expected, r.Expected + 100, r.Expected];
        Assert.Equal(expected, r.Phases.Select(p => p.Value));
        // 100 calls of Tiny per call of the caller: the prefix runs for each while Tiny is hooked,
        // inlined through the carrier as it would through Tiny, and never after the removal.
        Assert.Equal([0, 100, 0, 0, 0], r.Phases.Select(p => p.PrefixRuns));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnOptimizedCallerInlinesTheUnhookedTarget(string tiering)
    {
        string before = Listing(tiering, 0);
        Assert.False(Calls(before, "InlineSiteTargets:Tiny("), before);
        Assert.True(InlineCount(before) >= 1, before);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheHookedTargetIsInlinedWithItsHooksThroughItsCarrier(string tiering)
    {
        string hooked = Listing(tiering, 1);
        // No call left: the carrier, its prefix and its postfix are all inlined into the loop.
        Assert.False(Calls(hooked, "InlineSiteTargets"), hooked);
        Assert.False(Calls(hooked, "InlineSiteHooks:"), hooked);
        Assert.True(InlineCount(hooked) >= 3, $"the carrier and both hooks inlined: {hooked}");
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheReplacedTargetIsInlinedWithItsReplacementThroughItsCarrier(string tiering)
    {
        string replaced = Listing(tiering, 3);
        Assert.False(Calls(replaced, "InlineSiteTargets"), replaced);
        Assert.True(InlineCount(replaced) >= 2, $"the carrier and the replacement inlined: {replaced}");
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void EachRemovalGivesTheCallerTheInlinedOriginalBack(string tiering)
    {
        foreach (int phase in new[] { 2, 4 })
        {
            string restored = Listing(tiering, phase);
            Assert.False(Calls(restored, "InlineSiteTargets"), restored);
            Assert.True(InlineCount(restored) >= 1, restored);
        }
    }
}
