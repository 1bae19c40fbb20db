using System.Runtime.InteropServices;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The proofs run where they say: the profiled process is the RID's (ALVK_PROOF_RID's under its
/// emulator, linux-arm64 under qemu-user or win-x64 under Wine; this machine's own otherwise),
/// and CoreCLR there loaded the library from the path the profiler's variable names.
/// </summary>
[Trait("Feature", "Platforms")]
[Trait("Platform", "all")]
public sealed class PlatformProofs
{
    private static (string Architecture, string Platform) Expected(string rid) => rid switch
    {
        "linux-x64" => (nameof(Architecture.X64), "Linux"),
        "linux-arm64" => (nameof(Architecture.Arm64), "Linux"),
        "win-x64" => (nameof(Architecture.X64), "Windows"),
        _ => throw new ArgumentOutOfRangeException(nameof(rid), rid, "not a RID the proofs run for"),
    };

    [Fact]
    public void TheProfiledProcessRunsAsTheRidAndCoreClrLoadedTheProfiler()
    {
        string rid = ProfiledProcess.EmulatedRid ?? RuntimeInformation.RuntimeIdentifier;
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"), "platform");
        Assert.True(run.ExitCode == 0, run.ToString());
        PlatformReport report = run.Report<PlatformReport>();
        // The variables as the process got them (through qemu or Wine): under an emulator only the
        // RID's own names the library, so the attached profiler below shows CoreCLR read that one.
        string expectedVariable = ProfiledProcess.Emulated?.ProfilerPathVariable ?? "CORECLR_PROFILER_PATH";
        Assert.Equal(PlatformReport.ProfilerPathVariableNames, report.ProfilerPathVariables.Keys.Order(StringComparer.Ordinal));
        foreach (var (variable, value) in report.ProfilerPathVariables)
            Assert.True((variable == expectedVariable ? ProfiledProcess.NativeLibraryAsSeen : null) == value,
                $"{variable}={value ?? "(unset)"} in the process; only {expectedVariable} should name the library\n{run}");

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
