using System.Runtime.InteropServices;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The proofs run where they say: the profiled process is the RID's (ALVK_PROOF_RID's under its
/// emulator, linux-arm64 under qemu-user or win-x64 under Wine; this machine's own otherwise),
/// and CoreCLR there loaded the library from the path the profiler's variable names.
/// </summary>
public sealed class PlatformProofs
{
    private static (string Architecture, string Platform) Expected(string rid) => rid switch
    {
        "linux-x64" => (nameof(Architecture.X64), "Linux"),
        "linux-arm64" => (nameof(Architecture.Arm64), "Linux"),
        "win-x64" => (nameof(Architecture.X64), "Windows"),
        "osx-arm64" => (nameof(Architecture.Arm64), "macOS"),
        _ => throw new ArgumentOutOfRangeException(nameof(rid), rid, "not a RID the proofs run for"),
    };

    [Fact]
    public void TheProfiledProcessRunsAsTheRidAndCoreClrLoadedTheProfiler()
    {
        string rid = ProfiledProcess.EmulatedRid ?? RuntimeInformation.RuntimeIdentifier;
        Dictionary<string, string?> environment = ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host");
        if (ProfiledProcess.Emulated is { } emulator)
        {
            // Only the RID's own variable names the library: CoreCLR read that one.
            Assert.Null(environment["CORECLR_PROFILER_PATH"]);
            Assert.Equal(ProfiledProcess.NativeLibraryAsSeen, environment[emulator.ProfilerPathVariable]);
        }
        ProcessResult run = ProfiledProcess.Run(environment, "platform");
        Assert.True(run.ExitCode == 0, run.ToString());
        PlatformReport report = run.Report<PlatformReport>();

        Assert.Equal(rid, report.RuntimeIdentifier);
        (string architecture, string platform) = Expected(rid);
        Assert.Equal(architecture, report.ProcessArchitecture);
        Assert.Equal(platform, report.OSPlatform);

        StatusReport status = report.Status;
        Assert.True(status.Error is null, $"{status}\n{run}");
        Assert.Equal(ProfiledProcess.NativeLibraryAsSeen, status.Library);
        Assert.Equal("Ok", status.StatusCall);
        RuntimeStatusReport s = status.Status ?? throw new Xunit.Sdk.XunitException($"no status in {status}");
        Assert.Equal(1u, s.Attached);
        Assert.Equal("Ok", s.StartupStatus);
        Assert.Equal(1u, s.WorkerAlive);
        Assert.DoesNotContain("[alvorkit-interception]", run.Stderr);
    }
}
