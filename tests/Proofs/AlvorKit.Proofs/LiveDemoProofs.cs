using System.Diagnostics;
using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// samples/LiveDemo in its fast mode (40 frames, 5 ms ticks) under the profiler: while its loop
/// runs, its dev console installs, replaces, applies a plan, weaves a postfix and removes through
/// the managed API, and every frame drawn between two commands shows the movement, scoring and
/// bonus rules that stage expects: changed after the patches, back to the original after their
/// removal; under the woven postfix the bonus changed while the original still counted the streak.
/// </summary>
[Trait("Feature", "Managed API")]
public sealed class LiveDemoProofs
{
    public static string Demo { get; } = LocateDemo();

    private static readonly string[] FastMode = ["--frames", "40", "--tick-ms", "5", "--json"];

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FramesChangeWithThePatchesAndReturnAfterTheirRemoval(string tiering)
    {
        ProcessResult run = RunDemo(ProfiledProcess.ProfiledEnvironment("LiveDemo"), PatchReports.Tiering(tiering), FastMode);
        Assert.True(run.ExitCode == 0, run.ToString());
        JsonObject r = run.Report;
        Assert.True(r.Value<bool>("liveDemo"), run.Stdout);
        Assert.False(r.Value<bool>("consoleFailed"), run.Stdout);
        Assert.True(r.Value<bool>("changedAfterInstall"), r["stages"]!.ToJsonString());
        Assert.True(r.Value<bool>("returnedAfterRemove"), r["stages"]!.ToJsonString());
        Assert.True(r.Value<bool>("ok"), r["stages"]!.ToJsonString());

        // Eight stages, each with frames drawn entirely inside it, every one of them as expected.
        string[] movement = ["original", "reverse", "hop", "hop", "original", "original", "original", "original"];
        string[] scoring = ["original", "original", "original", "bonus", "bonus", "original", "original", "original"];
        string[] bonus = ["original", "original", "original", "original", "original", "original", "x10", "original"];
        JsonArray stages = r["stages"]!.AsArray();
        Assert.Equal(8, stages.Count);
        for (int s = 0; s < stages.Count; s++)
        {
            JsonNode stage = stages[s]!;
            Assert.Equal(movement[s], stage.Text("expectedMovement"));
            Assert.Equal(scoring[s], stage.Text("expectedScoring"));
            Assert.Equal(bonus[s], stage.Text("expectedBonus"));
            Assert.True(stage.Value<int>("cleanFrames") >= 1, stage.ToJsonString());
            Assert.True(stage.Value<int>("matchingFrames") == stage.Value<int>("cleanFrames"), stage.ToJsonString());
        }

        // The frames themselves: the original before the first command and after the last.
        JsonArray frames = r["frames"]!.AsArray();
        JsonNode first = frames[0]!, last = frames[^1]!;
        Assert.Equal(("original", "original"), (first.Text("Movement"), first.Text("Scoring")));
        Assert.Equal(("original", "original"), (last.Text("Movement"), last.Text("Scoring")));
        Assert.Equal(7, last.Value<int>("Stage"));
        foreach (string shown in new[] { "reverse", "hop" })
            Assert.Contains(frames, f => f!.Text("Movement") == shown);
        Assert.Contains(frames, f => f!.Text("Scoring") == "bonus" && f!.Value<int>("Points") >= 100);
        // The woven postfix: frames whose bonus is ten times the streak plus one, while the
        // original Streak.Bonus still counted the streak; every clean frame of that stage is one.
        var woven = frames.Where(f => f!.Value<int>("Stage") == 6 && f!.Value<bool>("Clean")).ToList();
        Assert.NotEmpty(woven);
        Assert.All(woven, f => Assert.True(f!.Text("Bonus") == "x10" && f!.Value<bool>("StreakCounted"), f!.ToJsonString()));
        Assert.All(woven, f => Assert.True(f!.Value<int>("BonusPoints") % 10 == 1, f!.ToJsonString()));
        Assert.All(frames.Where(f => f!.Value<int>("Stage") != 6 && f!.Value<bool>("Clean")),
            f => Assert.True(f!.Text("Bonus") == "original" && f!.Value<bool>("StreakCounted"), f!.ToJsonString()));

        // Seven commands, telemetry of both patches while active and once removed, and the woven
        // patch's composition while it was installed.
        JsonArray events = r["events"]!.AsArray();
        Assert.Equal(7, events.Count(e => e!["command"] is not null));
        JsonNode wovenEvent = Assert.Single(events, e => e!["woven"] is not null)!;
        Assert.True(wovenEvent.Value<bool>("installed"), wovenEvent.ToJsonString());
        Assert.Contains("TimesTen", wovenEvent.Text("composition"), StringComparison.Ordinal);
        var telemetry = events.Where(e => e!["telemetry"] is not null).ToList();
        Assert.Equal(4, telemetry.Count);
        Assert.Equal(["Active", "Active", "Removed", "Removed"], telemetry.Select(t => t!.Text("state")));
        foreach (JsonNode? t in telemetry.Take(2))
        {
            // In force through the target's own compilation; or, for a target its callers inline,
            // through their re-JIT calling a carrier of its body, when nothing calls the target
            // itself any more (the frames above show the body in force either way).
            bool compiled = t!["callbacks"]!.Value<int>("finished") >= 1 && t.Value<double>("compileElapsedMs") > 0;
            Assert.True(compiled || t["callbacks"]!.Value<int>("inliners") >= 1, t.ToJsonString());
            Assert.Equal(0, t["callbacks"]!.Value<int>("errors"));
        }
        Assert.Contains("[telemetry] scoring: Scoring.PointsFor(int) -> plan 'bonus x100'", run.Stdout);
    }

    [Fact]
    public void WithoutTheProfilerItSaysWhatToSetAndExitsNonZero()
    {
        ProcessResult run = RunDemo(new Dictionary<string, string?>(), null, FastMode);
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("not loaded in this process", run.Stderr);
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES=LiveDemo", run.Stderr);
        Assert.Contains("alvorkit-intercept run --modules <assemblies> -- <command>", run.Stderr);
        Assert.DoesNotContain("score", run.Stdout);
    }

    [Fact]
    public void WithoutItsModuleAllowedItSaysSoAndExitsNonZero()
    {
        ProcessResult run = RunDemo(ProfiledProcess.ProfiledEnvironment("Game.Logic"), null, FastMode);
        Assert.Equal(2, run.ExitCode);
        Assert.Contains("Add 'LiveDemo' to ALVORKIT_INTERCEPTION_MODULES", run.Stderr);
    }

    private static ProcessResult RunDemo(IReadOnlyDictionary<string, string?> environment,
        IReadOnlyDictionary<string, string?>? extra, params string[] args) =>
        ProfiledProcess.RunAssembly(Demo, environment, extra, TimeSpan.FromSeconds(90), args);

    private static string LocateDemo()
    {
        return Checkout.Required("ALVK_LIVE_DEMO", "build samples/LiveDemo (./build.sh test builds it)",
            "samples", "LiveDemo", "bin", Checkout.Configuration, "net10.0", "LiveDemo.dll");
    }
}
