using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>COR_PRF_MONITOR values the profiler asks for (corprof.idl).</summary>
internal static class CorPrf
{
    public const uint MonitorModuleLoads = 0x00000004;
    public const uint MonitorJitCompilation = 0x00000020;
    public const uint MonitorObjectAllocated = 0x00000100;
    public const uint EnableRejit = 0x00040000;
    public const uint MonitorCacheSearches = 0x00020000;
    public const uint EnableObjectAllocated = 0x00800000;
    public const uint EnableStackSnapshot = 0x10000000;

    // ReadyToRun code stays on (no COR_PRF_DISABLE_ALL_NGEN_IMAGES, 0x80000000); cache searches
    // let the profiler refuse it for images that may inline an allowlisted module.
    public const uint Patching = MonitorModuleLoads | MonitorJitCompilation | EnableRejit | MonitorCacheSearches;
    // Immutable bits at startup; MonitorObjectAllocated is on only inside capture windows.
    public const uint Allocations = EnableObjectAllocated | EnableStackSnapshot;
}

/// <summary>The profiler loads into a real .NET 10 process and managed code reaches it.</summary>
[Trait("Feature", "Launch and loading")]
public sealed class ProfilerLoadProofs
{
    private static RuntimeStatusReport Status(StatusReport report) =>
        report.Status ?? throw new Xunit.Sdk.XunitException($"no status in {report}");

    [Trait("Platform", "linux")]
    [Fact]
    public void ProfiledHostReachesTheInstanceCoreClrLoaded()
    {
        ProcessResult run = ProfiledProcess.Run(
            ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host; Game.Logic"), "status");
        Assert.True(run.ExitCode == 0, run.ToString());
        StatusReport report = run.Report<StatusReport>();
        Assert.Null(report.Error);
        // One file mapped, and it is the one CoreCLR loaded.
        Assert.Equal(ProfiledProcess.NativeLibrary, Assert.Single(report.ProfilerMappings));
        Assert.Equal(3u, report.AbiMajor);
        Assert.Equal("Ok", report.StatusCall);
        RuntimeStatusReport s = Status(report);
        Assert.Equal(1u, s.Attached);
        Assert.Equal("Ok", s.StartupStatus);
        Assert.Equal(CorPrf.Patching, s.EventMaskLow);
        Assert.Equal(0u, s.EventMaskHigh);
        Assert.Equal("Named", s.AllowlistKind);
        Assert.Equal("AlvorKit.Proofs.Host;Game.Logic", s.Allowlist);
        Assert.Equal(2u, s.AllowlistCount);
        Assert.Equal(0u, s.AllocationProfiling);
        Assert.True(s.ProfilerInfoVersion >= 10);
        Assert.StartsWith($"{Environment.Version.Major}.", s.RuntimeVersion);
        Assert.Equal(1u, s.WorkerAlive);
        Assert.Equal(0, s.WorkerInitHResult);
        Assert.Equal(64u, s.QueueCapacity);
        Assert.Equal(0u, s.QueueDepth);
        Assert.DoesNotContain("[alvorkit-interception]", run.Stderr);
    }

    [Fact]
    public void AllocationProfilingAddsTheAllocationBits()
    {
        var env = ProfiledProcess.ProfiledEnvironment("*");
        env["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = "1";
        ProcessResult run = ProfiledProcess.Run(env, "status");
        RuntimeStatusReport s = Status(run.Report<StatusReport>());
        Assert.Equal(CorPrf.Patching | CorPrf.Allocations, s.EventMaskLow);
        Assert.Equal(1u, s.AllocationProfiling);
        Assert.Equal("All", s.AllowlistKind);
        Assert.Equal("*", s.Allowlist);
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
        StatusReport report = run.Report<StatusReport>();
        Assert.Empty(report.ProfilerMappings);
        Assert.Equal("PathUnset", report.Error);
        Assert.Contains("ALVORKIT_INTERCEPTION_PROFILER_PATH is not set", report.Message);
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
            StatusReport report = run.Report<StatusReport>();
            // CoreCLR loaded the real library; the copy the binding opened is another
            // instance, which CoreCLR never initialized.
            Assert.Equal(ProfiledProcess.NativeLibrary, Assert.Single(report.ProfilerMappings));
            Assert.Equal("NotAttached", report.Error);
            Assert.Contains("must name the same file as CORECLR_PROFILER_PATH", report.Message);
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
        Assert.Equal("LibraryNotLoadable", run.Report<StatusReport>().Error);
        Assert.Contains("does not name the library CoreCLR loaded", run.Stderr);
    }

    [Fact]
    public void MalformedAllowlistLeavesTheProfilerInert()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("Game;;Tools"), "status");
        RuntimeStatusReport s = Status(run.Report<StatusReport>());
        Assert.Equal(1u, s.Attached);
        Assert.Equal("AllowlistMalformed", s.StartupStatus);
        Assert.StartsWith("ALVK_E_ALLOWLIST_MALFORMED:", s.StartupStatusText);
        Assert.Equal(0u, s.EventMaskLow);
        Assert.Equal(0u, s.WorkerAlive);
        Assert.Equal("None", s.AllowlistKind);
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
        RuntimeStatusReport s = Status(run.Report<StatusReport>());
        Assert.Equal(1u, s.Attached);
        Assert.Equal("AllocationSizingMalformed", s.StartupStatus);
        Assert.Equal(0u, s.EventMaskLow);
        Assert.Equal(0u, s.WorkerAlive);
        Assert.Equal(0u, s.AllocationProfiling);
        Assert.Contains($"[alvorkit-interception] {variable}=\"{value}\" must be a whole number from 1 to", run.Stderr);
    }

    [Fact]
    public void MissingAllowlistRefusesPatchingButKeepsTheProfiler()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(null), "status");
        RuntimeStatusReport s = Status(run.Report<StatusReport>());
        Assert.Equal("NoPatchableModules", s.StartupStatus);
        // No ReJIT, so ReadyToRun code stays on; module loads are still watched.
        Assert.Equal(CorPrf.MonitorModuleLoads, s.EventMaskLow);
        Assert.Equal(1u, s.WorkerAlive);
        Assert.Contains("ALVORKIT_INTERCEPTION_MODULES is unset", run.Stderr);
    }
}
