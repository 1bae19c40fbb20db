using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>COR_PRF_MONITOR values the profiler asks for (corprof.idl).</summary>
internal static class CorPrf
{
    public const uint MonitorModuleLoads = 0x00000004;
    public const uint MonitorJitCompilation = 0x00000020;
    public const uint MonitorObjectAllocated = 0x00000100;
    public const uint EnableRejit = 0x00040000;
    public const uint DisableAllNgenImages = 0x80000000;
    public const uint EnableObjectAllocated = 0x00800000;
    public const uint EnableStackSnapshot = 0x10000000;

    public const uint Patching = MonitorModuleLoads | MonitorJitCompilation | EnableRejit | DisableAllNgenImages;
    // Immutable bits at startup; MonitorObjectAllocated is on only inside capture windows.
    public const uint Allocations = EnableObjectAllocated | EnableStackSnapshot;
}

/// <summary>The profiler loads into a real .NET 10 process and managed code reaches it.</summary>
public sealed class ProfilerLoadProofs
{
    private static JsonObject Status(JsonObject report) =>
        report["status"]?.AsObject() ?? throw new Xunit.Sdk.XunitException($"no status in {report}");

    [Fact]
    public void ProfiledHostReachesTheInstanceCoreClrLoaded()
    {
        ProcessResult run = ProfiledProcess.Run(
            ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host; Game.Logic"), "status");
        Assert.True(run.ExitCode == 0, run.ToString());
        JsonObject report = run.Report;
        Assert.Null(report["error"]);
        // One file mapped, and it is the one CoreCLR loaded.
        JsonArray mappings = report["profilerMappings"]!.AsArray();
        Assert.Single(mappings);
        Assert.Equal(ProfiledProcess.NativeLibrary, mappings[0]!.GetValue<string>());
        Assert.Equal(3u, report["abiMajor"]!.GetValue<uint>());
        Assert.Equal("Ok", report["statusCall"]!.GetValue<string>());
        JsonObject s = Status(report);
        Assert.Equal(1u, s["attached"]!.GetValue<uint>());
        Assert.Equal("Ok", s["startupStatus"]!.GetValue<string>());
        Assert.Equal(CorPrf.Patching, s["eventMaskLow"]!.GetValue<uint>());
        Assert.Equal(0u, s["eventMaskHigh"]!.GetValue<uint>());
        Assert.Equal("Named", s["allowlistKind"]!.GetValue<string>());
        Assert.Equal("AlvorKit.Proofs.Host;Game.Logic", s["allowlist"]!.GetValue<string>());
        Assert.Equal(2u, s["allowlistCount"]!.GetValue<uint>());
        Assert.Equal(0u, s["allocationProfiling"]!.GetValue<uint>());
        Assert.True(s["profilerInfoVersion"]!.GetValue<uint>() >= 10);
        Assert.StartsWith($"{Environment.Version.Major}.", s["runtimeVersion"]!.GetValue<string>());
        Assert.Equal(1u, s["workerAlive"]!.GetValue<uint>());
        Assert.Equal(0, s["workerInitHResult"]!.GetValue<int>());
        Assert.Equal(64u, s["queueCapacity"]!.GetValue<uint>());
        Assert.Equal(0u, s["queueDepth"]!.GetValue<uint>());
        Assert.DoesNotContain("[alvorkit-interception]", run.Stderr);
    }

    [Fact]
    public void AllocationProfilingAddsTheAllocationBits()
    {
        var env = ProfiledProcess.ProfiledEnvironment("*");
        env["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = "1";
        ProcessResult run = ProfiledProcess.Run(env, "status");
        JsonObject s = Status(run.Report);
        Assert.Equal(CorPrf.Patching | CorPrf.Allocations, s["eventMaskLow"]!.GetValue<uint>());
        Assert.Equal(1u, s["allocationProfiling"]!.GetValue<uint>());
        Assert.Equal("All", s["allowlistKind"]!.GetValue<string>());
        Assert.Equal("*", s["allowlist"]!.GetValue<string>());
    }

    [Fact]
    public void UnprofiledLaunchDoesNotLoadTheLibrary()
    {
        var env = new Dictionary<string, string?>
        {
            // The binding's variable alone must not load anything into the runtime.
            ["ALVORKIT_INTERCEPTION_MODULES"] = "Game",
        };
        ProcessResult run = ProfiledProcess.Run(env, "status");
        JsonObject report = run.Report;
        Assert.Empty(report["profilerMappings"]!.AsArray());
        Assert.Equal("PathUnset", report["error"]!.GetValue<string>());
        Assert.Contains("ALVORKIT_INTERCEPTION_PROFILER_PATH is not set", report["message"]!.GetValue<string>());
    }

    [Fact]
    public void ProfilerPathNamingACopyIsAClearStartupError()
    {
        string dir = Directory.CreateTempSubdirectory("alvk-proof-").FullName;
        try
        {
            string copy = Path.Combine(dir, "libalvorkit_interception_profiler.so");
            File.Copy(ProfiledProcess.NativeLibrary, copy);
            var env = ProfiledProcess.ProfiledEnvironment("Game");
            env["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = copy;
            ProcessResult run = ProfiledProcess.Run(env, "status");
            JsonObject report = run.Report;
            // CoreCLR loaded the real library; the copy the binding opened is another
            // instance, which CoreCLR never initialized.
            Assert.Equal(ProfiledProcess.NativeLibrary, Assert.Single(report["profilerMappings"]!.AsArray())!.GetValue<string>());
            Assert.Equal("NotAttached", report["error"]!.GetValue<string>());
            Assert.Contains("must name the same file as CORECLR_PROFILER_PATH", report["message"]!.GetValue<string>());
            // The instance CoreCLR loaded said why, naming both files, and stayed inert.
            Assert.Contains("ALVORKIT_INTERCEPTION_PROFILER_PATH=" + copy, run.Stderr);
            Assert.Contains("does not name the library CoreCLR loaded (" + ProfiledProcess.NativeLibrary + ")", run.Stderr);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Fact]
    public void ProfilerPathNamingNoFileIsReported()
    {
        var env = ProfiledProcess.ProfiledEnvironment("Game");
        env["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = "/nonexistent/libalvorkit_interception_profiler.so";
        ProcessResult run = ProfiledProcess.Run(env, "status");
        Assert.Equal("LibraryNotLoadable", run.Report["error"]!.GetValue<string>());
        Assert.Contains("does not name the library CoreCLR loaded", run.Stderr);
    }

    [Fact]
    public void MalformedAllowlistLeavesTheProfilerInert()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("Game;;Tools"), "status");
        JsonObject s = Status(run.Report);
        Assert.Equal(1u, s["attached"]!.GetValue<uint>());
        Assert.Equal("AllowlistMalformed", s["startupStatus"]!.GetValue<string>());
        Assert.StartsWith("ALVK_E_ALLOWLIST_MALFORMED:", s["startupStatusText"]!.GetValue<string>());
        Assert.Equal(0u, s["eventMaskLow"]!.GetValue<uint>());
        Assert.Equal(0u, s["workerAlive"]!.GetValue<uint>());
        Assert.Equal("None", s["allowlistKind"]!.GetValue<string>());
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES is malformed: entry 2 \"\" is empty", run.Stderr);
    }

    [Theory]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_TYPES", "abc")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_TYPES", "0")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_TYPES", "-1")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_TYPES", "1048577")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES", "abc")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES", "0")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES", "-1")]
    [InlineData("ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES", "262145")]
    public void MalformedAllocationSizeLeavesTheProfilerInert(string variable, string value)
    {
        var env = ProfiledProcess.ProfiledEnvironment("Game");
        env["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = "1";
        env[variable] = value;
        ProcessResult run = ProfiledProcess.Run(env, "status");
        JsonObject s = Status(run.Report);
        Assert.Equal(1u, s["attached"]!.GetValue<uint>());
        Assert.Equal("AllocationSizingMalformed", s["startupStatus"]!.GetValue<string>());
        Assert.Equal(0u, s["eventMaskLow"]!.GetValue<uint>());
        Assert.Equal(0u, s["workerAlive"]!.GetValue<uint>());
        Assert.Equal(0u, s["allocationProfiling"]!.GetValue<uint>());
        Assert.Contains($"[alvorkit-interception] {variable}=\"{value}\" must be a whole number from 1 to", run.Stderr);
    }

    [Fact]
    public void MissingAllowlistRefusesPatchingButKeepsTheProfiler()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(null), "status");
        JsonObject s = Status(run.Report);
        Assert.Equal("NoPatchableModules", s["startupStatus"]!.GetValue<string>());
        // No ReJIT, so ReadyToRun code stays on; module loads are still watched.
        Assert.Equal(CorPrf.MonitorModuleLoads, s["eventMaskLow"]!.GetValue<uint>());
        Assert.Equal(1u, s["workerAlive"]!.GetValue<uint>());
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES is unset", run.Stderr);
    }
}
