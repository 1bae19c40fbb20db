using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Patching a method that a hot, optimized caller inlined: the caller returns the
/// replacement's result after install and the original's after removal, both with
/// RequestReJITWithInliners (the default) and with ALVK_INSTALL_INLINER_FALLBACK; the caller's
/// re-JIT is counted in the target's telemetry.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Platform", "all")]
public sealed class PatchInliningProofs
{
    public static TheoryData<string, string> Paths => PatchReports.WithTierings(["withinliners", "fallback"]);

    private static InliningReport Report(string path, string tiering) =>
        PatchReports.Get<InliningReport>(tiering, "inlining", path);

    [Theory]
    [MemberData(nameof(Paths))]
    public void TheInliningCallerSeesTheReplacementThenTheOriginal(string path, string tiering)
    {
        InliningReport r = Report(path, tiering);
        Assert.Equal(path == "fallback", r.Fallback);
        Assert.Equal(15, r.Original);
        PatchReports.AssertCommand(r.Install.Command);
        PatchReports.AssertVisibleAtOnce(r.Install.Result, 515);
        PatchReports.AssertCommand(r.Remove.Command);
        PatchReports.AssertVisibleAtOnce(r.Remove.Result, 15);
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public void TelemetryCountsTheInliners(string path, string tiering)
    {
        InliningReport r = Report(path, tiering);
        TelemetryReport install = r.Install.Telemetry, remove = r.Remove.Telemetry;
        // HotCaller, Small's one caller, inlines the carrier of its body: Small itself may never
        // be called, or compiled, while patched or after the removal.
        PatchReports.AssertHealthyTelemetry(install, "Active", inlined: true);
        PatchReports.AssertHealthyTelemetry(remove, "Removed", inlined: true);
        Assert.Equal(path == "fallback" ? 1u : 0u, install.Flags);
        // HotCaller inlined Small, so the install ReJITted HotCaller too.
        Assert.True(install.InlinersRejitted >= 1, $"inlinersRejitted after install: {install}");
    }
}
