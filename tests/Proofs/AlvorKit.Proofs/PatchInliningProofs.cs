using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Patching a method that a hot, optimized caller inlined: the caller returns the
/// replacement's result after install and the original's after removal, both with
/// RequestReJITWithInliners (the default) and with ALVK_INSTALL_INLINER_FALLBACK.
/// </summary>
public sealed class PatchInliningProofs
{
    public static TheoryData<string, string> Paths => PatchReports.WithTierings(["withinliners", "fallback"]);

    private static JsonObject Report(string path, string tiering) => PatchReports.Get(tiering, "inlining", path);

    [Theory]
    [MemberData(nameof(Paths))]
    public void TheInliningCallerSeesTheReplacementThenTheOriginal(string path, string tiering)
    {
        JsonObject r = Report(path, tiering);
        Assert.Equal(path == "fallback", r.Value<bool>("fallback"));
        Assert.Equal(15, r.Value<int>("original"));
        PatchReports.AssertCommand(r["install"]!);
        PatchReports.AssertVisibleAtOnce(r["install"]!["result"]!, 515);
        PatchReports.AssertCommand(r["remove"]!);
        PatchReports.AssertVisibleAtOnce(r["remove"]!["result"]!, 15);
    }

    [Theory]
    [MemberData(nameof(Paths))]
    public void TelemetryCountsTheInliners(string path, string tiering)
    {
        JsonObject r = Report(path, tiering);
        JsonNode install = r["install"]!["telemetry"]!, remove = r["remove"]!["telemetry"]!;
        PatchReports.AssertHealthyTelemetry(install, "Active");
        PatchReports.AssertHealthyTelemetry(remove, "Removed");
        Assert.Equal(path == "fallback" ? 1u : 0u, install.Value<uint>("flags"));
        // HotCaller inlined Small, so the install ReJITted HotCaller too.
        Assert.True(install.Value<uint>("inlinersRejitted") >= 1, $"inlinersRejitted after install: {install.ToJsonString()}");
    }
}
