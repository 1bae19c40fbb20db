using System.Collections.Concurrent;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// One assembly (AlvorKit.Proofs.Plugin) loaded twice in one profiled process (host mode
/// "modules"): in the default AssemblyLoadContext and in a plugin's. A module copy, not an MVID,
/// is what a patch targets: each copy is patched, replaced and restored on its own; a collectible
/// copy is refused with its own status and never makes the default copy unpatchable; the raw ABI
/// refuses an ambiguous MVID, a bogus module_id and a stale epoch without changing anything.
/// </summary>
[Trait("Feature", "Launch and loading")]
[Trait("Sanitized", "yes")]
public sealed class ModuleCopyProofs
{
    private const string Plugin = "AlvorKit.Proofs.Plugin";
    private const int Input = 5, Original = Input * 2;

    private static readonly ConcurrentDictionary<string, Lazy<ProcessResult>> Runs = new();

    // One launch per (variant, allowlist, tiering).
    private static T Report<T>(string variant, string modules, string tiering = PatchReports.TieredPgo)
    {
        ProcessResult run = Runs.GetOrAdd($"{variant}|{modules}|{tiering}", _ => new Lazy<ProcessResult>(() =>
            ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules),
                PatchReports.Tiering(tiering), TimeSpan.FromSeconds(120), "modules", variant))).Value;
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<T>();
    }

    public static TheoryData<string> Allowlists => new([Plugin, "*"]);

    // ------------------------------------------------------------------ (1) the plugin pattern

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachCopyOfAPluginAssemblyIsPatchedOnItsOwn(string tiering)
    {
        PluginPatternReport r = Report<PluginPatternReport>("plugin", Plugin, tiering);
        // A patch made while the default copy was the only one is replaced after the plugin
        // loaded a second copy: it stays on its copy (no MODULE_UNLOADED), the plugin's is untouched.
        AssertStep(r.InstallBeforePluginLoads, Input + 500, null, "Active");
        CopyStep replaced = AssertStep(r.ReplaceAfterPluginLoads, Input + 600, Input + 3, "Active");
        Assert.Equal("Ok", replaced.LastStatus);
        AssertStep(r.RemoveEarly, Input + 3, Input + 3, "Removed");

        CopiesReport copies = r.Copies;
        Assert.True(copies.DistinctModules && copies.SameMvid, $"{copies}");
        Assert.Equal(Original, r.Original.Default);
        Assert.Equal(Original, r.Original.Plugin);
        Attempt<DescribedCopies> described = r.Describe;
        Assert.True(described.Threw is null, $"{described}");
        DescribedCopies describe = Assert.IsType<DescribedCopies>(described.Value);
        Assert.True(describe.SameToken && describe.SameMvid && describe.SameBody, $"{describe}");
        Assert.NotEqual(describe.DefaultEpoch, describe.PluginEpoch);

        // Install on the default copy: only the default copy runs the replacement.
        CopyStep installDefault = AssertStep(r.InstallDefault, Input + 1000, Original, "Active");
        Assert.Equal(Input + 1000, installDefault.Direct);
        Assert.Equal(describe.DefaultEpoch, installDefault.ModuleEpoch);
        // Then the plugin's copy, with another replacement: each returns its own.
        CopyStep installPlugin = AssertStep(r.InstallPlugin, Input + 2000, Input + 1000, "Active");
        Assert.Equal(describe.PluginEpoch, installPlugin.ModuleEpoch);
        // A plan built for the plugin's copy replaces that copy's body, in that copy's patch.
        CopyStep planPlugin = AssertStep(r.PlanPlugin, Input + 7000, Input + 1000, "Active");
        Assert.True(planPlugin.SamePatch);
        Assert.Equal("Active", planPlugin.Generation);
        // Replace on the default copy works: it is loaded, so no MODULE_UNLOADED.
        CopyStep replaceDefault = AssertStep(r.ReplaceDefault, Input + 3000, Input + 7000, "Active");
        Assert.Equal("Ok", replaceDefault.LastStatus);
        Assert.Equal(Input + 3000, replaceDefault.Direct);
        // Removing each gives each its original back.
        CopyStep removeDefault = AssertStep(r.RemoveDefault, Original, Input + 7000, "Removed");
        Assert.Equal(Original, removeDefault.Direct);
        AssertStep(r.RemovePlugin, Original, Original, "Removed");
        Assert.Equal(0, r.LivePatchesAtEnd);
    }

    // ------------------------------------------------------------------ (2) a collectible copy

    [Theory]
    [MemberData(nameof(Allowlists))]
    public void ACollectibleCopyIsRefusedAndLeavesTheDefaultCopyPatchable(string modules)
    {
        CollectibleCopyReport r = Report<CollectibleCopyReport>("collectible", modules);
        Assert.Equal(modules, r.PatchableModules);
        Assert.Equal(Original, r.DefaultOriginal);
        Assert.Equal(Original, r.CollectibleOriginal);
        CopiesReport copies = r.Copies;
        Assert.True(copies.DistinctModules && copies.SameMvid, $"{copies}");

        // The default copy: describable and patchable while the collectible copy is loaded.
        Assert.True(r.DescribeDefault.Threw is null, $"{r.DescribeDefault}");
        AssertStep(r.InstallDefault, Input + 1000, Original, "Active");
        AssertStep(r.RemoveDefault, Original, Original, "Removed");

        // The collectible copy: its own status (not the allowlist's), as a PatchException whose
        // message says why, and it keeps running its original.
        foreach ((string step, Attempt<Done> refused) in new[]
                 {
                     ("describeCollectible", r.DescribeCollectible), ("installCollectible", r.InstallCollectible),
                     ("planCollectible", r.PlanCollectible),
                 })
        {
            Assert.True(refused.Threw == "PatchException", $"{step}: {refused}");
            Assert.Equal("ALVK_E_MODULE_COLLECTIBLE", refused.Status);
            Assert.Equal((int)InterceptionStatus.ModuleCollectible, refused.StatusCode);
            string message = refused.Message ?? throw new Xunit.Sdk.XunitException($"{step}: no message: {refused}");
            Assert.Contains("loaded in the collectible AssemblyLoadContext 'collectible plugin'", message);
            Assert.Contains("Load the assembly in a non-collectible context to patch it.", message);
            Assert.DoesNotContain("ALVORKIT_INTERCEPTION_MODULES", message);
        }
        PatchReports.AssertVisibleAtOnce(r.CollectibleAfterRefusal, Original);
        PatchReports.AssertVisibleAtOnce(r.CollectibleAfterPlan, Original);
        Assert.Equal(0, r.LivePatchesAtEnd);
    }

    // ------------------------------------------------------------------ (3) the raw ABI

    private static ModulesRawReport Raw => Report<ModulesRawReport>("raw", Plugin);

    [Fact]
    public void IdentifyTellsTheCopiesApartByAMethodHandle()
    {
        RawIdentify id = Raw.Identify;
        foreach (ModuleIdentity c in new[] { id.Default, id.Plugin })
        {
            Assert.Equal("Ok", c.Status);
            Assert.Equal("Allowed", c.Flags);
            Assert.Equal(2u, c.Copies);
            Assert.NotEqual(0ul, c.ModuleId);
        }
        Assert.True(id.DistinctIds);
        Assert.True(id.DistinctEpochs);
        Assert.Equal("ModuleAmbiguous", id.MvidOnly);
        Assert.Equal("UnknownModule", id.BogusHandle);
        Assert.Equal("UnknownModule", id.BogusToken);
        Assert.Equal("TokenNotMethodDef", id.TypeToken);
        Assert.Equal("UnknownModule", id.OtherMvid);
    }

    [Fact]
    public void DescribingNamesOneCopyOrRefuses()
    {
        RawDescribe d = Raw.Describe;
        RawIdentify id = Raw.Identify;
        Assert.Equal("ModuleAmbiguous", d.ByMvid);
        Assert.Equal("Ok", d.Default.Status);
        Assert.Equal(id.Default.ModuleId, d.Default.ModuleId);
        Assert.Equal(id.Default.Epoch, d.Default.Epoch);
        Assert.Equal("Allowed", d.Default.Flags);
        // Epoch 0: the live load of that ModuleID.
        Assert.Equal("Ok", d.PluginLiveEpoch.Status);
        Assert.Equal(id.Plugin.ModuleId, d.PluginLiveEpoch.ModuleId);
        Assert.Equal(id.Plugin.Epoch, d.PluginLiveEpoch.Epoch);
        Assert.True(d.SameHashes);
        Assert.Equal("UnknownModule", d.BogusModule);
        Assert.Equal("UnknownModule", d.ZeroModule);
        Assert.Equal("ModuleUnloaded", d.StaleEpoch);
    }

    [Theory]
    [InlineData("mvidOnly", "ModuleAmbiguous")]
    [InlineData("bogusModule", "UnknownModule")]
    [InlineData("staleEpoch", "ModuleUnloaded")]
    [InlineData("otherMvid", "UnknownModule")]
    public void AnInstallThatNamesNoLoadedCopyIsRejectedAndChangesNothing(string @case, string status)
    {
        RawRefusal r = Raw.Refused[@case];
        PatchReports.AssertCommand(r.Command, status);
        ModuleTelemetry telemetry = Assert.IsType<ModuleTelemetry>(r.Telemetry);
        Assert.Equal("Rejected", telemetry.State);
        Assert.Equal(status, telemetry.LastStatus);
        Assert.Equal(0ul, telemetry.ModuleId);
        PatchReports.AssertVisibleAtOnce(r.Default, Input + 3);
        PatchReports.AssertVisibleAtOnce(r.Plugin, Input + 3);
    }

    [Fact]
    public void AnEpochWithoutAModuleIsRefusedAtTheCall()
    {
        RawRefusal r = Raw.Refused["epochWithoutModule"];
        Assert.Equal("InvalidFlags", r.Command.Sync);
        PatchReports.AssertVisibleAtOnce(r.Default, Input + 3);
        PatchReports.AssertVisibleAtOnce(r.Plugin, Input + 3);
    }

    [Fact]
    public void InstallsByModuleIdPatchEachCopyOnItsOwn()
    {
        RawByCopy r = Raw.ByCopy;
        PatchReports.AssertCommand(r.InstallDefault.Command);
        PatchReports.AssertVisibleAtOnce(r.InstallDefault.Result, Input + 1000);
        PatchReports.AssertVisibleAtOnce(r.InstallDefault.Other, Input + 3);
        PatchReports.AssertCommand(r.InstallPlugin.Command);
        PatchReports.AssertVisibleAtOnce(r.InstallPlugin.Result, Input + 2000);
        PatchReports.AssertVisibleAtOnce(r.InstallPlugin.Other, Input + 1000);
        Assert.True(r.DistinctHandles);
        foreach ((string fact, bool holds) in new[]
                 {
                     ("defaultTelemetryModule", r.DefaultTelemetryModule), ("pluginTelemetryModule", r.PluginTelemetryModule),
                     ("defaultTelemetryEpoch", r.DefaultTelemetryEpoch), ("pluginTelemetryEpoch", r.PluginTelemetryEpoch),
                 })
            Assert.True(holds, fact);
        foreach (RawRemoval step in new[] { r.RemoveDefault, r.RemovePlugin })
        {
            PatchReports.AssertCommand(step.Command);
            Assert.Equal("Removed", step.State);
            PatchReports.AssertVisibleAtOnce(step.Result, Input + 3);
        }
        PatchReports.AssertVisibleAtOnce(r.RemoveDefault.Other, Input + 2000);
        PatchReports.AssertVisibleAtOnce(r.RemovePlugin.Other, Input + 3);
    }

    [Fact]
    public void ACollectibleCopyIsIdentifiedRefusedAndStaleOnceUnloaded()
    {
        RawCollectible r = Raw.Collectible;
        Assert.Equal("Ok", r.Identify.Status);
        Assert.Equal("Allowed, Collectible", r.Identify.Flags);
        Assert.Equal(3u, r.Identify.Copies);
        Assert.Equal("ModuleCollectible", r.Describe);
        PatchReports.AssertCommand(r.Install.Command, "ModuleCollectible");
        Assert.Equal("Rejected", r.Install.State.State);
        Assert.Equal(r.Identify.ModuleId, r.Install.State.ModuleId);
        Assert.Equal(Input + 3, r.Before);
        Assert.Equal(Input + 3, r.After);
        // Collectible copies do not count for the MVID alone: still the two non-collectible ones.
        Assert.Equal("ModuleAmbiguous", r.MvidOnly);
        // Once its context unloads (ModuleUnloadStarted), that load's epoch is stale.
        Assert.Equal("ModuleUnloaded", r.DescribeAfterUnload);
        PatchReports.AssertCommand(r.InstallAfterUnload, "ModuleUnloaded");
        Assert.Equal("Rejected", r.InstallAfterUnloadState.State);
    }

    // A managed-API step: it threw nothing, the patched copy reached `expected` on its first
    // call after the command, the other copy returned `other` on every call, and the patch is
    // in `state`.
    private static CopyStep AssertStep(Attempt<CopyStep> attempt, int expected, int? other, string state)
    {
        Assert.True(attempt.Threw is null, $"{attempt}");
        CopyStep step = Assert.IsType<CopyStep>(attempt.Value);
        PatchReports.AssertVisibleAtOnce(step.Result, expected);
        if (other is not null)
            Assert.True(step.Other is { Ok: true } steady && steady.Value == other,
                $"the other copy should return {other}: {step}");
        Assert.True(step.State == state, $"state {state}: {step}");
        return step;
    }
}
