using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks and a whole-body replacement put on methods the JIT inlines (static methods, a class's
/// instance method called through callvirt, a struct's, a class's and a struct's implicit interface
/// implementation, virtual and final, called through their own token) before their hot callers are first called,
/// read from the JIT's own listings of those callers (both tierings). A caller first compiled while
/// its target has a ReJIT version never inlined it and was never reported as its inliner; the
/// profiler finds it as it is compiled (its IL calls a carried target), routes it to the target's
/// carrier and re-JITs it, so its final code inlines the woven body, hooks included; each removal
/// gives it its original IL back, which inlines the original target again. A caller that ran at
/// Tier0 before its target was hooked (tiering on; Tier0 inlines nothing) is found the same way at
/// tiering's next compilation of it. The patches' telemetry counts the callers found and redirected.
/// Targets whose carrier is refused (a virtual method that may be overridden, a generic type's method, a static method over
/// 32 IL bytes) leave their callers calling them, and the telemetry says why (docs/Benchmarks.md,
/// "Hooks on inlined targets"; docs/Limits.md).
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class InlineSiteFirstCallProofs
{
    private const string Targets = "InlineSiteFirstCallTargets:";
    private const string HookCaller = "InlineSiteFirstHookCaller";
    private const string InstallCaller = "InlineSiteFirstInstallCaller";
    private const string Tier0Caller = "InlineSiteTier0Caller";
    private const string ClassCaller = "InlineSiteFirstClassCaller";
    private const string StructCaller = "InlineSiteFirstStructCaller";
    private const string FinalCaller = "InlineSiteFirstFinalCaller";
    private const string StructFinalCaller = "InlineSiteFirstStructFinalCaller";

    // Each phase whose target's carrier is refused: its caller, its target, the phase, and the reason.
    private static readonly (string Caller, string Target, int Phase, string State)[] Refused =
    [
        ("InlineSiteVirtualCaller", "Scaled(int):int", 7, "Virtual"),
        ("InlineSiteGenericCaller", "Scaled(int):int", 8, "Generic"),
        ("InlineSiteBigCaller", "BigTiny", 9, "TooBig"),
    ];

    // Each patched phase: its caller, what its code must not call once final, and the phase.
    private static readonly (string Caller, string Target, int Phase)[] Patched =
    [
        (HookCaller, "HookedTiny", 0), (InstallCaller, "ReplacedTiny", 2), (Tier0Caller, "Tier0Tiny", 4),
        (ClassCaller, "InlineSiteFirstCounter", 5), (StructCaller, "InlineSiteFirstVector", 6),
        (FinalCaller, "InlineSiteFirstEnemy", 10), (StructFinalCaller, "InlineSiteFirstArmor", 11),
    ];

    // Both tierings launched by the first test that needs one: each waits for its callers' code to settle.
    private static readonly Lazy<Dictionary<string, Task<(InlineSiteReport Report, InlineSiteListings Listings)>>> Runs =
        new(() => PatchReports.Tierings.ToDictionary(tiering => tiering, tiering => Task.Factory.StartNew(() => Launch(tiering),
            CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)));

    private static (InlineSiteReport Report, InlineSiteListings Listings) Launch(string tiering)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-inline-first-call-{Environment.ProcessId}-{tiering}.txt");
        File.Delete(file);
        var environment = new Dictionary<string, string?>(PatchReports.Tiering(tiering))
        {
            ["DOTNET_JitDisasm"] = $"{HookCaller} {InstallCaller} {Tier0Caller} {ClassCaller} {StructCaller} {FinalCaller} {StructFinalCaller} " +
                                   string.Join(' ', Refused.Select(r => r.Caller)) + " " +
                                   string.Join(' ', Enumerable.Range(0, 12).Select(i => $"InlineSitePhase{i}")),
            ["DOTNET_JitStdOutFile"] = file,
        };
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
            environment, TimeSpan.FromSeconds(240), "inlinesites", "firstcall");
        Assert.True(run.ExitCode == 0, run.ToString());
        var listings = new InlineSiteListings(File.Exists(file) ? File.ReadAllText(file) : "");
        File.Delete(file);
        return (run.Report<InlineSiteReport>(), listings);
    }

    private static (InlineSiteReport Report, InlineSiteListings Listings) Run(string tiering) => Runs.Value[tiering].GetAwaiter().GetResult();

    private static string Header(string caller) => $"{Targets}{caller}(int):int";

    // The caller's final optimized listing of the phase.
    private static string Final(string tiering, string caller, int phase)
    {
        string last = Run(tiering).Listings.Final(Header(caller), phase);
        Assert.True(last.Length > 0, $"no optimized listing of {caller} in phase {phase}");
        return last;
    }

    private static bool Calls(string listing, string method) => InlineSiteListings.Calls(listing, method);

    private static InlineSiteReport Report(string tiering)
    {
        InlineSiteReport r = Run(tiering).Report;
        Assert.True(r.Refused is null, $"the interceptor did not open: {r.Refused}");
        Assert.Equal(tiering == PatchReports.TieredPgo, r.TieringOn);
        Assert.Equal(["hooked", "hookRemoved", "replaced", "replaceRemoved", "tier0Hooked", "classHooked", "structHooked",
                "virtualHooked", "genericHooked", "bigHooked", "finalHooked", "structFinalHooked"],
            r.Phases.Select(p => p.Name));
        return r;
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheCallersReturnWhatTheTargetsWouldAndRunThePrefixOnlyWhileHooked(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        // The replacement returns one more than the target, for each of the 100 calls.
        Assert.Equal([r.Expected, r.Expected, r.Expected + 100, r.Expected, r.Expected, r.Expected, r.Expected, r.Expected,
                r.Expected, r.Expected, r.Expected, r.Expected],
            r.Phases.Select(p => p.Value));
        Assert.Equal([100, 0, 0, 0, 100, 100, 100, 100, 100, 100, 100, 100], r.Phases.Select(p => p.PrefixRuns));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallerFirstCompiledWhilePatchedCalledTheTargetThenInlinesItsCarrier(string tiering)
    {
        foreach ((string caller, string target, int phase) in Patched.Where(p => p.Caller != Tier0Caller))
        {
            // Its first code calls the patched target: the runtime inlines no method with a ReJIT version.
            List<string> all = Run(tiering).Listings.InPhase(Header(caller), phase);
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
    public void ACallerThatRanBeforeTheHookInlinesTheCarrierOnceOptimized(string tiering)
    {
        var listings = Run(tiering).Listings;
        // Its code from before the hook (phase -1: before any mark).
        var before = listings.Of(Header(Tier0Caller)).Where(l => l.Phase == -1).ToList();
        Assert.True(before.Count >= 1, "the caller was not compiled before the hook");
        if (tiering == PatchReports.TieredPgo)
        {
            // Tiering on: Tier0 alone, which calls the target (it inlines nothing). Tiering's next
            // compilation of its original IL (with PGO, an instrumented one before Tier1) comes in the
            // hooked phase, where the target has a ReJIT version: it calls the target, and the profiler
            // finds the caller then.
            Assert.All(before, l => Assert.EndsWith("Tier0)", l.Header)); // (Tier0) or, with PGO, (Instrumented Tier0)
            Assert.True(Calls(before[0].Text, "Tier0Tiny"), before[0].Text);
            List<string> hooked = listings.InPhase(Header(Tier0Caller), 4);
            Assert.True(hooked.Count >= 2, "fewer than two compilations of the caller while hooked");
            Assert.True(Calls(hooked[0], "Tier0Tiny"), hooked[0]);
        }
        else
        {
            // Tiering off: optimized at once, inlining the target: a known inliner, redirected as such.
            Assert.False(Calls(before[^1].Text, "Tier0Tiny"), before[^1].Text);
        }
        string final = Final(tiering, Tier0Caller, 4);
        Assert.False(Calls(final, "Tier0Tiny"), final);
        Assert.False(Calls(final, "AlvkCarrier"), final);
        Assert.False(Calls(final, "InlineSiteHooks:"), final);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTelemetryCountsTheCallersFoundAsTheyCompiled(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        foreach ((string caller, _, int phase) in Patched)
        {
            InlineSiteCarrier? c = r.Phases[phase].Carrier;
            Assert.True(c is not null, $"{caller}: no telemetry");
            Assert.Equal("Active", c.State);
            Assert.Equal(0x06, c.Token >>> 24); // a MethodDef
            Assert.Equal(0, c.Kept);
            // Tiering off, the Tier0 caller was a known inliner (compiled optimized before the hook): it is
            // redirected, not found. Every other caller is found as it compiled.
            bool known = caller == Tier0Caller && tiering != PatchReports.TieredPgo;
            Assert.True(known ? c.Discovered == 0 : c.Discovered >= 1, $"{caller}: {c}");
            Assert.True(c.Redirected >= Math.Max(1, c.Discovered), $"{caller}: {c}");
        }
        Assert.All(r.Phases.Where(p => p.Name is "hookRemoved" or "replaceRemoved"), p => Assert.Null(p.Carrier));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallerOfATargetWithNoCarrierKeepsItsCallAndTheTelemetrySaysWhy(string tiering)
    {
        InlineSiteReport r = Report(tiering);
        foreach ((string caller, string target, int phase, string state) in Refused)
        {
            InlineSiteCarrier? c = r.Phases[phase].Carrier;
            Assert.True(c is not null, $"{caller}: no telemetry");
            Assert.Equal(state, c.State);
            Assert.Equal(0, c.Token);
            Assert.Equal(0, c.Redirected);
            Assert.Equal(0, c.Discovered);
            // Its final code calls the hooked target: the runtime inlines no method with a ReJIT version.
            string final = Final(tiering, caller, phase);
            Assert.True(Calls(final, target), final);
            Assert.False(Calls(final, "AlvkCarrier"), final);
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
