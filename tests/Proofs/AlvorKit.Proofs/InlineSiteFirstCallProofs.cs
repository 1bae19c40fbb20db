using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A hook and a whole-body replacement put on methods the JIT inlines before their hot callers are
/// first called, read from the JIT's own listings of those callers (both tierings). A caller first
/// compiled while its target has a ReJIT version never inlined it and was never reported as its
/// inliner; the profiler finds it as it is compiled (its IL calls a carried target), routes it to
/// the target's carrier and re-JITs it, so its final code inlines the woven body, hooks included;
/// each removal gives it its original IL back, which inlines the original target again
/// (docs/Benchmarks.md, "Hooks on inlined targets").
/// </summary>
[Trait("Feature", "Hooks")]
public sealed partial class InlineSiteFirstCallProofs
{
    private const string HookCaller = "InlineSiteFirstHookCaller";
    private const string InstallCaller = "InlineSiteFirstInstallCaller";

    // Both tierings launched by the first test that needs one: each waits for its callers' code to settle.
    private static readonly Lazy<Dictionary<string, Task<(InlineSiteReport Report, string Text)>>> Runs =
        new(() => PatchReports.Tierings.ToDictionary(tiering => tiering, tiering => Task.Factory.StartNew(() => Launch(tiering),
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)));

    private static (InlineSiteReport Report, string Text) Launch(string tiering)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-inline-first-call-{Environment.ProcessId}-{tiering}.txt");
        File.Delete(file);
        var environment = new Dictionary<string, string?>(PatchReports.Tiering(tiering))
        {
            ["DOTNET_JitDisasm"] = $"{HookCaller} {InstallCaller} InlineSitePhase0 InlineSitePhase1 InlineSitePhase2 InlineSitePhase3",
            ["DOTNET_JitStdOutFile"] = file,
        };
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
            environment, TimeSpan.FromSeconds(180), "inlinesites", "firstcall");
        Assert.True(run.ExitCode == 0, run.ToString());
        string text = File.Exists(file) ? File.ReadAllText(file) : "";
        File.Delete(file);
        return (run.Report<InlineSiteReport>(), text);
    }

    private static (InlineSiteReport Report, string Text) Run(string tiering) => Runs.Value[tiering].GetAwaiter().GetResult();

    // The caller's listings in a phase (cut at the listing of InlineSitePhaseN): all of them, in order.
    private static List<string> Listings(string tiering, string caller, int phase)
    {
        var found = new List<string>();
        int current = -1;
        foreach (string listing in Run(tiering).Text.Split("; Assembly listing for method ").Skip(1))
        {
            string header = listing[..listing.IndexOf('\n', StringComparison.Ordinal)];
            Match mark = PhaseMark().Match(header);
            if (mark.Success)
                current = int.Parse(mark.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
            else if (current == phase && header.Contains($"InlineSiteFirstCallTargets:{caller}(int):int", StringComparison.Ordinal))
                found.Add(listing);
        }
        return found;
    }

    // The caller's last optimized listing (Tier1 or FullOpts) of the phase: its final code.
    private static string Final(string tiering, string caller, int phase)
    {
        string? last = Listings(tiering, caller, phase).LastOrDefault(listing =>
        {
            string header = listing[..listing.IndexOf('\n', StringComparison.Ordinal)];
            return header.EndsWith("(Tier1)", StringComparison.Ordinal) || header.EndsWith("(FullOpts)", StringComparison.Ordinal);
        });
        Assert.True(last is not null, $"no optimized listing of {caller} in phase {phase}");
        return last;
    }

    [GeneratedRegex(@"InlineSiteTargets:InlineSitePhase(\d)\(\)")]
    private static partial Regex PhaseMark();

    private static bool Calls(string listing, string method) =>
        listing.Split('\n').Any(line => line.TrimStart().StartsWith("call", StringComparison.Ordinal) &&
                                        line.Contains(method, StringComparison.Ordinal));

    private static InlineSiteReport Report(string tiering)
    {
        InlineSiteReport r = Run(tiering).Report;
        Assert.True(r.Refused is null, $"the interceptor did not open: {r.Refused}");
        Assert.Equal(tiering == PatchReports.TieredPgo, r.TieringOn);
        Assert.Equal(["hooked", "hookRemoved", "replaced", "replaceRemoved"], r.Phases.Select(p => p.Name));
        return r;
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheCallersReturnWhatTheTargetsWouldAndRunThePrefixOnlyWhileHooked(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        // The replacement returns one more than the target, for each of the 100 calls.
        Assert.Equal([r.Expected, r.Expected, r.Expected + 100, r.Expected], r.Phases.Select(p => p.Value));
        Assert.Equal([100, 0, 0, 0], r.Phases.Select(p => p.PrefixRuns));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallerFirstCompiledWhilePatchedCalledTheTargetThenInlinesItsCarrier(string tiering)
    {
        foreach ((string caller, string target, int phase) in new[] { (HookCaller, "HookedTiny", 0), (InstallCaller, "ReplacedTiny", 2) })
        {
            // Its first code calls the patched target: the runtime inlines no method with a ReJIT version.
            List<string> all = Listings(tiering, caller, phase);
            Assert.True(all.Count >= 2, $"{caller}: fewer than two compilations in phase {phase}");
            Assert.True(Calls(all[0], target), all[0]);
            // Its final code calls neither the target nor its carrier nor a hook: all inlined.
            string final = Final(tiering, caller, phase);
            Assert.False(Calls(final, target), final);
            Assert.False(Calls(final, "AlvkCarrier"), final);
            Assert.False(Calls(final, "InlineSiteHooks:"), final);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachRemovalGivesTheCallerTheInlinedOriginalBack(string tiering)
    {
        foreach ((string caller, string target, int phase) in new[] { (HookCaller, "HookedTiny", 1), (InstallCaller, "ReplacedTiny", 3) })
        {
            string restored = Final(tiering, caller, phase);
            Assert.False(Calls(restored, target), restored);
            Assert.False(Calls(restored, "AlvkCarrier"), restored);
        }
    }
}
