using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks and a whole-body replacement on a method the JIT inlines (a static method, a class's
/// instance method its caller reaches through callvirt, a struct's instance method, a class's
/// implicit interface implementation, virtual and final, its caller reaches through callvirt of its
/// own token, which the JIT devirtualizes; a public static method and a public class's instance
/// method of another assembly, whose caller names them through a MemberRef and is redirected to
/// a MemberRef of the carrier the profiler emits into the caller's module), read from the
/// JIT's own listings of the hot caller (both tierings): the runtime never inlines a method with an active ReJIT
/// version, so the profiler re-JITs the target's known inliner with IL calling a carrier of the
/// target's new body (a method with no ReJIT version), which the JIT inlines, hooks included; the
/// hooks run as often as they would through the target. Each removal gives the caller its original
/// IL back, which inlines the original target again (docs/Benchmarks.md, "Hooks on inlined
/// targets"). A caller of the final target through its interface, which names no token to redirect,
/// runs the hooks all the same.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed partial class InlineSiteProofs
{
    // Per kind of target: its hot caller (as the JIT's listings name it) and the type whose
    // methods the caller must not call once its code is final.
    private static readonly Dictionary<string, (string Caller, string Target)> Kinds = new()
    {
        ["static"] = ("InlineSiteCaller", "InlineSiteTargets"),
        ["class"] = ("InlineSiteClassCaller", "InlineSiteCounter"),
        ["struct"] = ("InlineSiteStructCaller", "InlineSiteVector"),
        ["final"] = ("InlineSiteFinalCaller", "InlineSiteEnemy"),
        ["cross"] = ("InlineSiteCrossCaller", "CrossModuleInlineTargets"),
        ["crossClass"] = ("InlineSiteCrossClassCaller", "CrossModuleCounter"),
        // Not carried: its own test below.
        ["crossTyped"] = ("InlineSiteCrossTypedCaller", "CrossModuleInlineTargets:Weigh"),
    };

    // The kinds whose caller's callvirt checks a class receiver for null: their null caller.
    private static readonly Dictionary<string, string> NullCallers = new()
    {
        ["class"] = "InlineSiteNullCaller",
        ["final"] = "InlineSiteFinalNullCaller",
    };

    public static TheoryData<string, string> NullKindsAndTierings
    {
        get
        {
            var data = new TheoryData<string, string>();
            foreach (string kind in NullCallers.Keys)
                foreach (string tiering in PatchReports.TieringModes)
                    data.Add(kind, tiering);
            return data;
        }
    }

    // The fourteen launches (seven kinds, two tierings), all started by the first test that needs one:
    // each spends most of its time waiting for its caller's code to settle, so they wait together.
    private static readonly Lazy<Dictionary<(string, string), Task<(InlineSiteReport Report, string[] Listings, string[] NullCallerListings, string[] InterfaceListings)>>> Runs =
        new(() => Kinds.Keys.SelectMany(kind => PatchReports.Tierings.Select(tiering => (kind, tiering)))
            .ToDictionary(key => key, key => Task.Factory.StartNew(() => Launch(key.kind, key.tiering), CancellationToken.None,
                TaskCreationOptions.LongRunning, TaskScheduler.Default)));

    public static TheoryData<string, string> KindsAndTierings
    {
        get
        {
            var data = new TheoryData<string, string>();
            foreach (string kind in Kinds.Keys.Where(k => k != "crossTyped"))
                foreach (string tiering in PatchReports.TieringModes)
                    data.Add(kind, tiering);
            return data;
        }
    }

    private static (InlineSiteReport Report, string[] Listings, string[] NullCallerListings, string[] InterfaceListings) Run(string kind, string tiering) =>
        Runs.Value[(kind, tiering)].GetAwaiter().GetResult();

    // One launch per kind and tiering: the report, and each phase's listings of the caller from the JIT's file.
    private static (InlineSiteReport Report, string[] Listings, string[] NullCallerListings, string[] InterfaceListings) Launch(string kind, string tiering)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-inline-sites-{Environment.ProcessId}-{kind}-{tiering}.txt");
        File.Delete(file);
        var environment = new Dictionary<string, string?>(PatchReports.Tiering(tiering))
        {
            ["DOTNET_JitDisasm"] = $"{Kinds[kind].Caller} {NullCallers.GetValueOrDefault(kind, "InlineSiteNullCaller")} InlineSitePhase0 InlineSitePhase1 InlineSitePhase2 " +
                                   "InlineSitePhase3 InlineSitePhase4" + (kind == "final" ? " InlineSiteInterfaceCaller" : ""),
            ["DOTNET_JitStdOutFile"] = file,
        };
        // The cross-module target's assembly is allowlisted beside the host's.
        string modules = kind.StartsWith("cross", StringComparison.Ordinal) ? "AlvorKit.Proofs.Host;AlvorKit.Proofs.Engine" : "AlvorKit.Proofs.Host";
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules),
            environment, TimeSpan.FromSeconds(180), "inlinesites", kind);
        Assert.True(run.ExitCode == 0, run.ToString());
        var listings = new InlineSiteListings(File.Exists(file) ? File.ReadAllText(file) : "");
        File.Delete(file);
        // Per phase, the caller's last optimized listing, or "".
        return (run.Report<InlineSiteReport>(),
            [.. Enumerable.Range(0, 5).Select(phase => listings.Final($"InlineSiteTargets:{Kinds[kind].Caller}(int):int", phase))],
            [.. Enumerable.Range(0, 5).Select(phase =>
                listings.Final($"InlineSiteTargets:{NullCallers.GetValueOrDefault(kind, "InlineSiteNullCaller")}(", phase))],
            [.. Enumerable.Range(0, 5).Select(phase => listings.Final("InlineSiteTargets:InlineSiteInterfaceCaller(", phase))]);
    }

    [GeneratedRegex(@"; (\d+) inlinees with PGO data; (\d+) single block inlinees; (\d+) inlinees without PGO data")]
    private static partial Regex Inlinees();

    private static bool Calls(string listing, string method) => InlineSiteListings.Calls(listing, method);

    private static int InlineCount(string listing)
    {
        Match m = Inlinees().Match(listing);
        return m.Success ? m.Groups.Values.Skip(1).Sum(g => int.Parse(g.Value, System.Globalization.CultureInfo.InvariantCulture)) : 0;
    }

    private static InlineSiteReport Report(string kind, string tiering)
    {
        InlineSiteReport r = Run(kind, tiering).Report;
        Assert.True(r.Refused is null, $"the interceptor did not open: {r.Refused}");
        Assert.Equal(["before", "hooked", "hookRemoved", "replaced", "replaceRemoved"], r.Phases.Select(p => p.Name));
        return r;
    }

    private static string Listing(string kind, string tiering, int phase)
    {
        string listing = Run(kind, tiering).Listings[phase];
        Assert.True(listing.Length > 0, $"no optimized listing of the caller in phase {phase}");
        return listing;
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void TheCallerReturnsWhatTheTargetWouldAndRunsThePrefixOnlyWhileHooked(string kind, string tiering)
    {
        InlineSiteReport r = Report(kind, tiering);
        Assert.Equal(tiering == PatchReports.TieredPgo, r.TieringOn);
        // The replacement returns one more than the target, for each of the 100 calls.
        int[] expected = [r.Expected, r.Expected, r.Expected, r.Expected + 100, r.Expected];
        Assert.Equal(expected, r.Phases.Select(p => p.Value));
        // 100 calls of the target per call of the caller: the prefix runs for each while the target
        // is hooked, inlined through the carrier as it would through the target, and never after the
        // removal.
        Assert.Equal([0, 100, 0, 0, 0], r.Phases.Select(p => p.PrefixRuns));
    }

    [Theory]
    [MemberData(nameof(NullKindsAndTierings))]
    public void ANullReceiverThrowsBeforeTheHooksRunAsTheCallersCallvirtChecked(string kind, string tiering)
    {
        // The class's carrier is static: it checks the receiver itself, first, as the callvirt it
        // replaced did (tiering off, the null caller was compiled optimized before the hook and so
        // inlined the target: it is one of the redirected callers).
        InlineSiteReport r = Report(kind, tiering);
        Assert.All(r.Phases, p => Assert.True(p.NullReceiverThrew == true, $"{p.Name}: no NullReferenceException"));
        Assert.All(r.Phases, p => Assert.Equal(0, p.NullReceiverPrefixRuns));
        if (tiering == PatchReports.TieredPgo)
            return; // tiering on, the null caller (called once a phase) stays at Tier0, which inlines nothing
        // Tiering off, the null caller was re-JIT'd with the hook calling the carrier, and inlines it:
        // the check that threw is the carrier's.
        string hooked = Run(kind, tiering).NullCallerListings[1];
        Assert.True(hooked.Length > 0, "the null caller was not re-JIT-compiled while the target was hooked");
        Assert.False(Calls(hooked, Kinds[kind].Target), hooked);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheFinalTargetCalledThroughItsInterfaceRunsTheHooksAndTheReplacement(string tiering)
    {
        // `callvirt IInlineSiteDamageable::Damage` names no token of the target, so nothing redirects
        // it; it reaches the patched target (or, devirtualized and inlined before the patch, is
        // re-JIT'd with its own IL, which calls it), whose prefix runs for each of the 100 calls.
        InlineSiteReport r = Report("final", tiering);
        Assert.Equal([r.Expected, r.Expected, r.Expected, r.Expected + 100, r.Expected], r.Phases.Select(p => p.InterfaceValue));
        Assert.Equal([0, 100, 0, 0, 0], r.Phases.Select(p => p.InterfacePrefixRuns));
        // Its final code while hooked or replaced keeps a real call of Damage (through the interface,
        // or devirtualized to the target), never the carrier: it names no token the redirect matches.
        foreach (int phase in new[] { 1, 3 })
        {
            string listing = Run("final", tiering).InterfaceListings[phase];
            Assert.True(listing.Length > 0, $"no optimized listing of the interface caller in phase {phase}");
            Assert.True(Calls(listing, ":Damage(int)"), listing);
            Assert.False(Calls(listing, "AlvkCarrier"), listing);
        }
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void TheTelemetryCountsTheCallersRedirectedToTheCarrierWhilePatched(string kind, string tiering)
    {
        InlineSiteReport r = Report(kind, tiering);
        // Read once the caller's code was final, beside the values above: the target carried by a
        // carrier of its body, its known inliner (or inliners: the null caller too, for the class)
        // redirected to it, none kept, none needing to be found as they compiled.
        foreach (InlineSitePhase phase in r.Phases.Where(p => p.Name is "hooked" or "replaced"))
        {
            InlineSiteCarrier? c = phase.Carrier;
            Assert.True(c is not null, $"{phase.Name}: no telemetry");
            Assert.Equal("Active", c.State);
            Assert.Equal(0x06, c.Token >>> 24); // a MethodDef
            Assert.True(c.Redirected >= 1, $"{phase.Name}: {c}");
            Assert.Equal(0, c.Kept);
        }
        // Another patch (and so another body, another carrier) for the replacement.
        Assert.NotEqual(r.Phases[1].Carrier!.Token, r.Phases[3].Carrier!.Token);
        Assert.All(r.Phases.Where(p => p.Name is not ("hooked" or "replaced")), p => Assert.Null(p.Carrier));
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void AnOptimizedCallerInlinesTheUnhookedTarget(string kind, string tiering)
    {
        string before = Listing(kind, tiering, 0);
        Assert.False(Calls(before, Kinds[kind].Target), before);
        Assert.True(InlineCount(before) >= 1, before);
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void TheHookedTargetIsInlinedWithItsHooksThroughItsCarrier(string kind, string tiering)
    {
        string hooked = Listing(kind, tiering, 1);
        // No call left: the carrier, its prefix and its postfix are all inlined into the loop.
        Assert.False(Calls(hooked, Kinds[kind].Target), hooked);
        Assert.False(Calls(hooked, "InlineSiteHooks:"), hooked);
        Assert.False(Calls(hooked, "InlineSiteTargets"), hooked);
        Assert.True(InlineCount(hooked) >= 3, $"the carrier and both hooks inlined: {hooked}");
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void TheReplacedTargetIsInlinedWithItsReplacementThroughItsCarrier(string kind, string tiering)
    {
        string replaced = Listing(kind, tiering, 3);
        Assert.False(Calls(replaced, Kinds[kind].Target), replaced);
        Assert.False(Calls(replaced, "InlineSiteTargets"), replaced);
        Assert.True(InlineCount(replaced) >= 2, $"the carrier and the replacement inlined: {replaced}");
    }

    [Theory]
    [MemberData(nameof(KindsAndTierings))]
    public void EachRemovalGivesTheCallerTheInlinedOriginalBack(string kind, string tiering)
    {
        foreach (int phase in new[] { 2, 4 })
        {
            string restored = Listing(kind, tiering, phase);
            Assert.False(Calls(restored, Kinds[kind].Target), restored);
            Assert.True(InlineCount(restored) >= 1, restored);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallerInAnotherModuleKeepsTheCallWhenTheTargetsSignatureNamesAType(string tiering)
    {
        // Weigh(CrossModuleCell): the caller's MemberRef names the struct by the host's TypeRef, a
        // signature the profiler does not re-encode, so the caller is not redirected: it calls the
        // patched target, whose hooks and replacement run all the same.
        InlineSiteReport r = Report("crossTyped", tiering);
        Assert.Equal([r.Expected, r.Expected, r.Expected, r.Expected + 100, r.Expected], r.Phases.Select(p => p.Value));
        Assert.Equal([0, 100, 0, 0, 0], r.Phases.Select(p => p.PrefixRuns));
        foreach (int phase in new[] { 1, 3 })
        {
            InlineSiteCarrier? c = r.Phases[phase].Carrier;
            Assert.True(c is not null, $"phase {phase}: no telemetry");
            Assert.Equal(0, c.Redirected);
            Assert.True(c.Kept >= 1, $"phase {phase}: {c}");
            string listing = Listing("crossTyped", tiering, phase);
            Assert.True(Calls(listing, "CrossModuleInlineTargets:Weigh"), listing);
            Assert.False(Calls(listing, "AlvkCarrier"), listing);
        }
    }
}
