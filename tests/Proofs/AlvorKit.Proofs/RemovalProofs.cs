using System.Collections.Concurrent;
using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Removing one patch undoes that patch alone. Tiny is patched to call TinyLevel1 (the outer
/// patch, a direct call the JIT inlines into Tiny's new body), TinyLevel1 to TinyLevel2 (the inner
/// patch); then both are removed, inner first or outer first. After every step each caller returns
/// what the patches still installed call for, and each patch still installed says so.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class NestedPatchRemovalProofs
{
    private const int Input = 7;
    private const int Original = Input * 3 + 1, Level1 = Input * 3 + 100, Level2 = Input * 3 + 200;

    public static TheoryData<string, string> Orders => PatchReports.WithTierings(["nested-inner", "nested-outer"]);

    [Theory]
    [MemberData(nameof(Orders))]
    public void EachRemovalUndoesOnlyItsOwnPatch(string order, string tiering)
    {
        NestedRemovalReport r = PatchReports.Get<NestedRemovalReport>(tiering, "removal", order);
        AssertStep(r.Original, Original, Level1, outer: false, inner: false);
        Assert.Equal(4, r.Steps.Count);
        AssertStep(r.Steps[0], Level1, Level1, outer: true, inner: false);
        AssertStep(r.Steps[1], Level2, Level2, outer: true, inner: true);
        if (order == "nested-inner")
        {
            // The inner patch gone: Tiny still calls TinyLevel1 (the outer patch), now original.
            AssertStep(r.Steps[2], Level1, Level1, outer: true, inner: false);
            AssertStep(r.Steps[3], Original, Level1, outer: false, inner: false);
        }
        else
        {
            // The outer patch gone: Tiny is original, TinyLevel1 still calls TinyLevel2.
            AssertStep(r.Steps[2], Original, Level2, outer: false, inner: true);
            AssertStep(r.Steps[3], Original, Level1, outer: false, inner: false);
        }
    }

    private static void AssertStep(NestedStep step, int tiny, int level1, bool outer, bool inner)
    {
        Assert.True(step.Tiny.Ok && step.Tiny.Actual == tiny, $"{step.Step}: Tiny's caller {step.Tiny}, expected {tiny}");
        Assert.True(step.Level1.Ok && step.Level1.Actual == level1,
            $"{step.Step}: TinyLevel1's caller {step.Level1}, expected {level1}");
        Assert.True(step.OuterInstalled == outer, $"{step.Step}: outer installed {step.OuterInstalled}");
        Assert.True(step.InnerInstalled == inner, $"{step.Step}: inner installed {step.InnerInstalled}");
    }
}

/// <summary>
/// After the last patch on a method is removed, a caller that inlined it inlines it again: the
/// JIT's own listings of the caller (DOTNET_JitDisasm into DOTNET_JitStdOutFile) show no call to
/// the target in the code the caller ran before the patch, none while it is patched either (the
/// runtime does not inline a re-JIT'd method, so the caller, a known inliner, is re-JIT'd calling a
/// carrier of the patched body, which it inlines) and none again in the code compiled after the
/// removal; the caller's values follow. Phase marks the host compiles as each phase starts place
/// each listing.
/// </summary>
[Trait("Feature", "Patches")]
public sealed class RemovalRestoresInliningProofs
{
    private const int Input = 7;
    private const string ListingStart = "; Assembly listing for method ";

    /// <summary>One listing of Caller: the phase it was compiled in, its header, whether it calls Tiny.</summary>
    private sealed record Listing(string Phase, string Header, bool CallsTarget, string Text);

    private sealed record Run(RestoredCallerReport Report, IReadOnlyList<Listing> Listings);

    private static readonly ConcurrentDictionary<string, Lazy<Run>> Runs = new();

    private static Run Launch(string tiering) => Runs.GetOrAdd(tiering, t => new Lazy<Run>(() =>
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-removal-{t}-{Guid.NewGuid():N}.asm");
        try
        {
            var environment = new Dictionary<string, string?>(PatchReports.Tiering(t))
            {
                ["DOTNET_JitDisasm"] = "*RemovalTargets:Caller *RemovalTargets:Phase*",
                ["DOTNET_JitStdOutFile"] = file,
            };
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
                environment, TimeSpan.FromSeconds(120), "removal", "caller");
            Assert.True(run.ExitCode == 0, run.ToString());
            return new Run(run.Report<RestoredCallerReport>(), File.Exists(file) ? Parse(File.ReadAllText(file)) : []);
        }
        finally
        {
            File.Delete(file);
        }
    })).Value;

    // The listings of Caller in the order the JIT wrote them, each with the last phase mark before it.
    private static List<Listing> Parse(string text)
    {
        var listings = new List<Listing>();
        string phase = "start";
        foreach (string part in text.Split(ListingStart, StringSplitOptions.RemoveEmptyEntries))
        {
            string header = part.Split('\n', 2)[0].Trim();
            if (header.Contains("RemovalTargets:Phase", StringComparison.Ordinal))
                phase = header.Contains(":PhaseBefore(", StringComparison.Ordinal) ? "before"
                    : header.Contains(":PhaseDuring(", StringComparison.Ordinal) ? "during" : "after";
            else if (header.Contains("RemovalTargets:Caller(", StringComparison.Ordinal))
                listings.Add(new Listing(phase, header,
                    Regex.IsMatch(part, @"\bcall\b[^\n]*RemovalTargets:Tiny\("), ListingStart + part));
        }
        return listings;
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheCallerReturnsTheOriginalThenTheReplacementThenTheOriginal(string tiering)
    {
        RestoredCallerReport r = Launch(tiering).Report;
        Assert.True(r.Before.Ok && r.Before.Actual == Input * 3 + 2, $"before: {r.Before}");
        Assert.True(r.During.Ok && r.During.Actual == Input * 3 + 8, $"during: {r.During}");
        Assert.True(r.After.Ok && r.After.Actual == Input * 3 + 2, $"after: {r.After}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheCallersCodeInlinesTheTargetAgainAfterRemoval(string tiering)
    {
        Run run = Launch(tiering);
        Assert.True(run.Report.JitStdOutFile is not null, "DOTNET_JitStdOutFile did not reach the process");
        string all = string.Join("\n", run.Listings.Select(l => $"[{l.Phase}] {l.Header} calls Tiny: {l.CallsTarget}"));
        // The code each phase ended with: the last listing of Caller compiled in it.
        Listing Final(string phase) => run.Listings.LastOrDefault(l => l.Phase == phase)
            ?? throw new Xunit.Sdk.XunitException($"no listing of Caller was compiled {phase} the patch:\n{all}");
        Listing before = Final("before"), during = Final("during"), after = Final("after");
        Assert.True(Optimized(before) && !before.CallsTarget, $"before the patch, Caller's final code inlines Tiny:\n{all}\n{before.Text}");
        Assert.True(Optimized(during) && !during.CallsTarget && !Regex.IsMatch(during.Text, @"\bcall\b[^\n]*RemovalTargets"),
            $"while Tiny is patched, Caller's final code inlines the carrier of its patched body:\n{all}\n{during.Text}");
        Assert.True(Optimized(after) && !after.CallsTarget, $"after the removal, Caller's final code inlines Tiny again:\n{all}\n{after.Text}");
    }

    // Optimized code (tier 1, or full opts with tiering off): the code that inlines.
    private static bool Optimized(Listing listing) =>
        listing.Text.Contains("; optimized code", StringComparison.Ordinal);
}
