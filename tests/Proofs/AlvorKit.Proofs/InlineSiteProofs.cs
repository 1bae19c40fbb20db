using System.Collections.Concurrent;
using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks on a method the JIT inlines, read from the JIT's own listings of the hot caller (both
/// tierings): the runtime never inlines a method with an active ReJIT version, so hooking Tiny
/// turns every inlined copy into a real call; a caller re-JIT'd with IL that calls a method with no
/// ReJIT version carrying the same woven body inlines it, hooks included, and runs them. This is what
/// a design for hooks at the inlined floor relies on (docs/Benchmarks.md, "Hooks on inlined targets").
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
        Assert.Equal(["before", "hooked", "redirected", "redirectRemoved", "hookRemoved"], r.Phases.Select(p => p.Name));
        return r;
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheCallerReturnsTheOriginalValuesAndRunsThePrefixOnlyWhileHooked(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        Assert.Equal(tiering == PatchReports.TieredPgo, r.TieringOn);
        foreach (InlineSitePhase p in r.Phases)
            Assert.True(p.Value == r.Expected, $"{p.Name}: {p.Value}, expected {r.Expected}");
        // 100 calls of Tiny per call of the caller: the prefix runs for each while Tiny is hooked,
        // through the carrier too (inlined, it still runs).
        Assert.Equal([0, 100, 100, 100, 0], r.Phases.Select(p => p.PrefixRuns));
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AnOptimizedCallerInlinesTheUnhookedTarget(string tiering)
    {
        string before = Run(tiering).Listings[0];
        Assert.True(before.Length > 0, "no optimized listing of the caller before hooking");
        Assert.False(Calls(before, "InlineSiteTargets:Tiny("), before);
        Assert.True(InlineCount(before) >= 1, before);
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void TheRuntimeNeverInlinesTheHookedTargetItself(string tiering)
    {
        string[] listings = Run(tiering).Listings;
        foreach (int phase in new[] { 1, 3 }) // hooked; hooked again after the redirect was removed
        {
            Assert.True(listings[phase].Length > 0, $"no optimized listing of the caller in phase {phase}");
            Assert.True(Calls(listings[phase], "InlineSiteTargets:Tiny(int):int"), listings[phase]);
        }
    }

    [Theory]
    [MemberData(nameof(Tierings))]
    public void AReJitCallerInlinesANeverReJitCarrierOfTheWovenBody(string tiering)
    {
        string redirected = Run(tiering).Listings[2];
        Assert.True(redirected.Length > 0, "no optimized listing of the redirected caller");
        // No call left: the carrier, its prefix and its postfix are all inlined into the loop.
        Assert.False(Calls(redirected, "InlineSiteTargets:"), redirected);
        Assert.False(Calls(redirected, "InlineSiteHooks:"), redirected);
        Assert.True(InlineCount(redirected) >= 3, $"the carrier and both hooks inlined: {redirected}");
    }
}
