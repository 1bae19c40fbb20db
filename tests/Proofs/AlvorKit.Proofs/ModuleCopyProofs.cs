using System.Collections.Concurrent;
using System.Text.Json.Nodes;
using AlvorKit.Interception;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// One assembly (AlvorKit.Proofs.Plugin) loaded twice in one profiled process (host mode
/// "modules"): in the default AssemblyLoadContext and in a plugin's. A module copy, not an MVID,
/// is what a patch targets: each copy is patched, replaced and restored on its own; a collectible
/// copy is refused with its own status and never makes the default copy unpatchable; the raw ABI
/// refuses an ambiguous MVID, a bogus module_id and a stale epoch without changing anything.
/// </summary>
public sealed class ModuleCopyProofs
{
    private const string Plugin = "AlvorKit.Proofs.Plugin";
    private const int Input = 5, Original = Input * 2;

    private static readonly ConcurrentDictionary<string, Lazy<JsonObject>> Reports = new();

    // One launch per (variant, allowlist, tiering).
    private static JsonObject Report(string variant, string modules, string tiering = PatchReports.TieredPgo) =>
        Reports.GetOrAdd($"{variant}|{modules}|{tiering}", _ => new Lazy<JsonObject>(() =>
        {
            ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules),
                PatchReports.Tiering(tiering), TimeSpan.FromSeconds(120), "modules", variant);
            Assert.True(run.ExitCode == 0, run.ToString());
            return run.Report;
        })).Value;

    public static TheoryData<string> Allowlists => new([Plugin, "*"]);

    // ------------------------------------------------------------------ (1) the plugin pattern

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EachCopyOfAPluginAssemblyIsPatchedOnItsOwn(string tiering)
    {
        JsonObject r = Report("plugin", Plugin, tiering);
        // A patch made while the default copy was the only one is replaced after the plugin
        // loaded a second copy: it stays on its copy (no MODULE_UNLOADED), the plugin's is untouched.
        AssertStep(r["installBeforePluginLoads"]!, Input + 500, null, "Active");
        AssertStep(r["replaceAfterPluginLoads"]!, Input + 600, Input + 3, "Active");
        Assert.Equal("Ok", r["replaceAfterPluginLoads"]!.Text("lastStatus"));
        AssertStep(r["removeEarly"]!, Input + 3, Input + 3, "Removed");

        JsonNode copies = r["copies"]!;
        Assert.True(copies.Value<bool>("distinctModules") && copies.Value<bool>("sameMvid"), copies.ToJsonString());
        Assert.Equal(Original, r["original"]!.Value<int>("default"));
        Assert.Equal(Original, r["original"]!.Value<int>("plugin"));
        JsonNode describe = r["describe"]!;
        Assert.True(describe["threw"] is null, describe.ToJsonString());
        Assert.True(describe.Value<bool>("sameToken") && describe.Value<bool>("sameMvid") &&
                    describe.Value<bool>("sameBody"), describe.ToJsonString());
        Assert.NotEqual(describe.Value<int>("defaultEpoch"), describe.Value<int>("pluginEpoch"));

        // Install on the default copy: only the default copy runs the replacement.
        AssertStep(r["installDefault"]!, Input + 1000, Original, "Active");
        Assert.Equal(Input + 1000, r["installDefault"]!.Value<int>("direct"));
        Assert.Equal(describe.Value<int>("defaultEpoch"), r["installDefault"]!.Value<int>("moduleEpoch"));
        // Then the plugin's copy, with another replacement: each returns its own.
        AssertStep(r["installPlugin"]!, Input + 2000, Input + 1000, "Active");
        Assert.Equal(describe.Value<int>("pluginEpoch"), r["installPlugin"]!.Value<int>("moduleEpoch"));
        // A plan built for the plugin's copy replaces that copy's body, in that copy's patch.
        AssertStep(r["planPlugin"]!, Input + 7000, Input + 1000, "Active");
        Assert.True(r["planPlugin"]!.Value<bool>("samePatch"));
        Assert.Equal("Active", r["planPlugin"]!.Text("generation"));
        // Replace on the default copy works: it is loaded, so no MODULE_UNLOADED.
        AssertStep(r["replaceDefault"]!, Input + 3000, Input + 7000, "Active");
        Assert.Equal("Ok", r["replaceDefault"]!.Text("lastStatus"));
        Assert.Equal(Input + 3000, r["replaceDefault"]!.Value<int>("direct"));
        // Removing each gives each its original back.
        AssertStep(r["removeDefault"]!, Original, Input + 7000, "Removed");
        Assert.Equal(Original, r["removeDefault"]!.Value<int>("direct"));
        AssertStep(r["removePlugin"]!, Original, Original, "Removed");
        Assert.Equal(0, r.Value<int>("livePatchesAtEnd"));
    }

    // ------------------------------------------------------------------ (2) a collectible copy

    [Theory]
    [MemberData(nameof(Allowlists))]
    public void ACollectibleCopyIsRefusedAndLeavesTheDefaultCopyPatchable(string modules)
    {
        JsonObject r = Report("collectible", modules);
        Assert.Equal(modules, r.Text("patchableModules"));
        Assert.Equal(Original, r.Value<int>("defaultOriginal"));
        Assert.Equal(Original, r.Value<int>("collectibleOriginal"));
        JsonNode copies = r["copies"]!;
        Assert.True(copies.Value<bool>("distinctModules") && copies.Value<bool>("sameMvid"), copies.ToJsonString());

        // The default copy: describable and patchable while the collectible copy is loaded.
        Assert.True(r["describeDefault"]!["threw"] is null, r["describeDefault"]!.ToJsonString());
        AssertStep(r["installDefault"]!, Input + 1000, Original, "Active");
        AssertStep(r["removeDefault"]!, Original, Original, "Removed");

        // The collectible copy: its own status (not the allowlist's), as a PatchException whose
        // message says why, and it keeps running its original.
        foreach (string step in new[] { "describeCollectible", "installCollectible", "planCollectible" })
        {
            JsonNode refused = r[step]!;
            Assert.True(refused.Text("threw") == "PatchException", $"{step}: {refused.ToJsonString()}");
            Assert.Equal("ALVK_E_MODULE_COLLECTIBLE", refused.Text("status"));
            Assert.Equal((int)InterceptionStatus.ModuleCollectible, refused.Value<int>("statusCode"));
            string message = refused.Text("message");
            Assert.Contains("loaded in the collectible AssemblyLoadContext 'collectible plugin'", message);
            Assert.Contains("Load the assembly in a non-collectible context to patch it.", message);
            Assert.DoesNotContain("ALVORKIT_INTERCEPTION_MODULES", message);
        }
        PatchReports.AssertVisibleAtOnce(r["collectibleAfterRefusal"]!, Original);
        PatchReports.AssertVisibleAtOnce(r["collectibleAfterPlan"]!, Original);
        Assert.Equal(0, r.Value<int>("livePatchesAtEnd"));
    }

    // ------------------------------------------------------------------ (3) the raw ABI

    private static JsonObject Raw => Report("raw", Plugin);

    [Fact]
    public void IdentifyTellsTheCopiesApartByAMethodHandle()
    {
        JsonNode id = Raw["identify"]!;
        foreach (string copy in new[] { "default", "plugin" })
        {
            JsonNode c = id[copy]!;
            Assert.Equal("Ok", c.Text("status"));
            Assert.Equal("Allowed", c.Text("flags"));
            Assert.Equal(2, c.Value<int>("copies"));
            Assert.NotEqual(0ul, c.Value<ulong>("moduleId"));
        }
        Assert.True(id.Value<bool>("distinctIds"));
        Assert.True(id.Value<bool>("distinctEpochs"));
        Assert.Equal("ModuleAmbiguous", id.Text("mvidOnly"));
        Assert.Equal("UnknownModule", id.Text("bogusHandle"));
        Assert.Equal("UnknownModule", id.Text("bogusToken"));
        Assert.Equal("TokenNotMethodDef", id.Text("typeToken"));
        Assert.Equal("UnknownModule", id.Text("otherMvid"));
    }

    [Fact]
    public void DescribingNamesOneCopyOrRefuses()
    {
        JsonNode d = Raw["describe"]!, id = Raw["identify"]!;
        Assert.Equal("ModuleAmbiguous", d.Text("byMvid"));
        Assert.Equal("Ok", d["default"]!.Text("status"));
        Assert.Equal(id["default"]!.Value<ulong>("moduleId"), d["default"]!.Value<ulong>("moduleId"));
        Assert.Equal(id["default"]!.Value<uint>("epoch"), d["default"]!.Value<uint>("epoch"));
        Assert.Equal("Allowed", d["default"]!.Text("flags"));
        // Epoch 0: the live load of that ModuleID.
        Assert.Equal("Ok", d["pluginLiveEpoch"]!.Text("status"));
        Assert.Equal(id["plugin"]!.Value<ulong>("moduleId"), d["pluginLiveEpoch"]!.Value<ulong>("moduleId"));
        Assert.Equal(id["plugin"]!.Value<uint>("epoch"), d["pluginLiveEpoch"]!.Value<uint>("epoch"));
        Assert.True(d.Value<bool>("sameHashes"));
        Assert.Equal("UnknownModule", d.Text("bogusModule"));
        Assert.Equal("UnknownModule", d.Text("zeroModule"));
        Assert.Equal("ModuleUnloaded", d.Text("staleEpoch"));
    }

    [Theory]
    [InlineData("mvidOnly", "ModuleAmbiguous")]
    [InlineData("bogusModule", "UnknownModule")]
    [InlineData("staleEpoch", "ModuleUnloaded")]
    [InlineData("otherMvid", "UnknownModule")]
    public void AnInstallThatNamesNoLoadedCopyIsRejectedAndChangesNothing(string @case, string status)
    {
        JsonNode r = Raw["refused"]![@case]!;
        PatchReports.AssertCommand(r, status);
        Assert.Equal("Rejected", r["telemetry"]!.Text("state"));
        Assert.Equal(status, r["telemetry"]!.Text("lastStatus"));
        Assert.Equal(0ul, r["telemetry"]!.Value<ulong>("moduleId"));
        PatchReports.AssertVisibleAtOnce(r["default"]!, Input + 3);
        PatchReports.AssertVisibleAtOnce(r["plugin"]!, Input + 3);
    }

    [Fact]
    public void AnEpochWithoutAModuleIsRefusedAtTheCall()
    {
        JsonNode r = Raw["refused"]!["epochWithoutModule"]!;
        Assert.Equal("InvalidFlags", r.Text("sync"));
        PatchReports.AssertVisibleAtOnce(r["default"]!, Input + 3);
        PatchReports.AssertVisibleAtOnce(r["plugin"]!, Input + 3);
    }

    [Fact]
    public void InstallsByModuleIdPatchEachCopyOnItsOwn()
    {
        JsonNode r = Raw["byCopy"]!;
        PatchReports.AssertCommand(r["installDefault"]!);
        PatchReports.AssertVisibleAtOnce(r["installDefault"]!["result"]!, Input + 1000);
        PatchReports.AssertVisibleAtOnce(r["installDefault"]!["plugin"]!, Input + 3);
        PatchReports.AssertCommand(r["installPlugin"]!);
        PatchReports.AssertVisibleAtOnce(r["installPlugin"]!["result"]!, Input + 2000);
        PatchReports.AssertVisibleAtOnce(r["installPlugin"]!["default"]!, Input + 1000);
        Assert.True(r.Value<bool>("distinctHandles"));
        foreach (string fact in new[]
                 {
                     "defaultTelemetryModule", "pluginTelemetryModule", "defaultTelemetryEpoch", "pluginTelemetryEpoch",
                 })
            Assert.True(r.Value<bool>(fact), fact);
        foreach (string step in new[] { "removeDefault", "removePlugin" })
        {
            PatchReports.AssertCommand(r[step]!);
            Assert.Equal("Removed", r[step]!.Text("state"));
            PatchReports.AssertVisibleAtOnce(r[step]!["result"]!, Input + 3);
        }
        PatchReports.AssertVisibleAtOnce(r["removeDefault"]!["other"]!, Input + 2000);
        PatchReports.AssertVisibleAtOnce(r["removePlugin"]!["other"]!, Input + 3);
    }

    [Fact]
    public void ACollectibleCopyIsIdentifiedRefusedAndStaleOnceUnloaded()
    {
        JsonNode r = Raw["collectible"]!;
        Assert.Equal("Ok", r["identify"]!.Text("status"));
        Assert.Equal("Allowed, Collectible", r["identify"]!.Text("flags"));
        Assert.Equal(3, r["identify"]!.Value<int>("copies"));
        Assert.Equal("ModuleCollectible", r.Text("describe"));
        PatchReports.AssertCommand(r["install"]!, "ModuleCollectible");
        Assert.Equal("Rejected", r["install"]!["state"]!.Text("state"));
        Assert.Equal(r["identify"]!.Value<ulong>("moduleId"), r["install"]!["state"]!.Value<ulong>("moduleId"));
        Assert.Equal(Input + 3, r.Value<int>("before"));
        Assert.Equal(Input + 3, r.Value<int>("after"));
        // Collectible copies do not count for the MVID alone: still the two non-collectible ones.
        Assert.Equal("ModuleAmbiguous", r.Text("mvidOnly"));
        // Once its context unloads (ModuleUnloadStarted), that load's epoch is stale.
        Assert.Equal("ModuleUnloaded", r.Text("describeAfterUnload"));
        PatchReports.AssertCommand(r["installAfterUnload"]!, "ModuleUnloaded");
        Assert.Equal("Rejected", r["installAfterUnloadState"]!.Text("state"));
    }

    // A managed-API step: the patched copy reached `expected` on its first call after the
    // command, the other copy returned `other` on every call, and the patch is in `state`.
    private static void AssertStep(JsonNode step, int expected, int? other, string state)
    {
        string json = step.ToJsonString();
        Assert.True(step["threw"] is null, json);
        PatchReports.AssertVisibleAtOnce(step["result"]!, expected);
        if (other is not null)
            Assert.True(step["other"]!.Value<bool>("ok") && step["other"]!.Value<int>("value") == other,
                $"the other copy should return {other}: {json}");
        Assert.True(step.Text("state") == state, $"state {state}: {json}");
    }
}
