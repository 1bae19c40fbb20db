using System.Collections.Concurrent;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// A module is patchable whenever it loaded (host mode "modules loadorder"), both tierings: a
/// copy loaded and run before the process's first call into the profiler, and a copy loaded
/// from bytes into another AssemblyLoadContext after it (its image laid out as the file: the
/// profiler reads its MVID through the image's section table, and the API finds the copy by it).
/// </summary>
[Trait("Feature", "Launch and loading")]
public sealed class ModuleLoadOrderProofs
{
    private const int Input = 5, Original = Input * 2;

    private static readonly ConcurrentDictionary<string, Lazy<ProcessResult>> Runs = new();

    // One launch per tiering, the plugin assembly allowlisted.
    private static ModuleLoadOrderReport Report(string tiering)
    {
        ProcessResult run = Runs.GetOrAdd(tiering, _ => new Lazy<ProcessResult>(() =>
            ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Plugin"),
                PatchReports.Tiering(tiering), TimeSpan.FromSeconds(120), "modules", "loadorder"))).Value;
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report<ModuleLoadOrderReport>();
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AModuleLoadedBeforeTheFirstCommandIsPatchedAndRestored(string tiering)
    {
        ModuleLoadOrderReport r = Report(tiering);
        Assert.Equal(Original, r.OriginalBeforeOpen);
        Assert.True(r.Early.LoadedBeforeFirstCommand);
        Assert.False(r.Early.LoadedFromBytes);
        Assert.Null(r.Early.Error);
        Assert.True(r.Early.Patched!.Ok, $"patched: {r.Early.Patched}");
        Assert.Equal(Input + 1000, r.Early.Patched.Actual);
        Assert.True(r.Early.Restored!.Ok, $"restored: {r.Early.Restored}");
        Assert.Equal(Original, r.Early.Restored.Actual);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AModuleLoadedFromBytesAfterTheFirstCommandIsPatchedOnItsOwnAndRestored(string tiering)
    {
        ModuleLoadOrderReport r = Report(tiering);
        Assert.True(r.FromBytes.LoadedFromBytes);
        Assert.Equal("bytes", r.FromBytes.LoadContext);
        Assert.Null(r.FromBytes.Error);
        Assert.True(r.FromBytes.Patched!.Ok, $"patched: {r.FromBytes.Patched}");
        Assert.Equal(Input + 2000, r.FromBytes.Patched.Actual);
        Assert.Equal(Original, r.FromBytes.OtherCopyWhilePatched); // the default copy is untouched
        Assert.True(r.FromBytes.Restored!.Ok, $"restored: {r.FromBytes.Restored}");
        Assert.Equal(Original, r.FromBytes.Restored.Actual);
    }
}
