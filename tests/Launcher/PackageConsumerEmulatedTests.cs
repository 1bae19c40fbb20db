using System.Diagnostics;
using System.Text.Json.Nodes;
using Xunit;
using Xunit.Abstractions;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>samples/PackageConsumer published for linux-arm64 from the local feed and started
/// the way a game developer on an x64 machine would start it: under the launcher, the emulator
/// as the command (`alvorkit-intercept run --profiler &lt;the app's arm64 library&gt; --modules
/// PackageConsumer -- qemu-aarch64-static -L /usr/aarch64-linux-gnu &lt;app&gt;`).</summary>
[Collection(PackagesCollection.Name)]
public class PackageConsumerEmulatedTests(PackagesFixture packages, ITestOutputHelper output)
{
    private const string Rid = "linux-arm64";

    [EmulatedPackageFact(Rid)]
    public void TheSamplePublishedForLinuxArm64RunsPatchedUnderQemu()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        Emulator qemu = Emulator.For(Rid)!;
        CheckedArtifact arm64 = CrossArtifacts.Checked(Rid)!;
        using var temp = new TempDir("consumer-arm64");
        string artifacts = Path.Combine(temp.Path, "artifacts");

        // The NuGet cache is the test run's own (NUGET_PACKAGES): pack.sh dropped its stale
        // AlvorKit copies, and the linux-arm64 runtime pack stays cached between runs.
        var clock = Stopwatch.StartNew();
        ProcessResult publish = Processes.Run("dotnet",
            ["publish", Path.Combine(Repo.Root, "samples", "PackageConsumer", "PackageConsumer.csproj"), "-c", "Release",
             "-r", Rid, "--self-contained", "-p:InvariantGlobalization=true", "--artifacts-path", artifacts,
             "-nologo", "-v", "quiet"],
            timeout: TimeSpan.FromMinutes(5));
        Assert.True(publish.ExitCode == 0, publish.ToString());
        output.WriteLine($"publish -r {Rid} --self-contained: {clock.Elapsed.TotalSeconds:F1} s");

        // The SDK copied the package's runtimes/linux-arm64/native/ library next to the app:
        // the very file build/native-linux-arm64 built and checked.
        string published = Path.Combine(artifacts, "publish", "PackageConsumer", $"release_{Rid}");
        string app = Path.Combine(published, "PackageConsumer");
        string library = Path.Combine(published, Rids.LibraryFileName(Rid));
        Assert.True(File.Exists(app), app);
        Assert.True(File.Exists(library), $"no {library}: the package's {Rid} library did not land next to the app");
        Assert.Equal(arm64.Sha256, CrossArtifacts.Sha256(File.ReadAllBytes(library)));
        // The publish took the package's linux-arm64 images of the managed assemblies
        // (runtimes/linux-arm64/lib/), which the arm64 runtime below runs.
        Assert.Equal(Rid, ManagedImage.Read(File.ReadAllBytes(Path.Combine(published, "AlvorKit.Interception.Native.dll"))).CompiledFor);

        // The launcher runs on this (x64) machine and takes the arm64 library as given: it cannot
        // know what the command after -- runs (here an emulator), so it does not look at the
        // library's architecture. It sets CORECLR_PROFILER_PATH and _64 to the file, and the
        // arm64 runtime loads it from one of those.
        (string file, string[] args) = qemu.Command(app, []);
        IReadOnlyDictionary<string, string?> environment = qemu.Environment;
        clock.Restart();
        ProcessResult run = Processes.Launcher(
            ["run", "--profiler", library, "--modules", "PackageConsumer", "--", file, .. args], environment,
            workingDirectory: published);
        output.WriteLine($"alvorkit-intercept run ... -- {file} {string.Join(' ', args)}: {clock.Elapsed.TotalSeconds:F1} s");
        output.WriteLine(run.ToString());
        Assert.Contains($"profiler {library} (from --profiler)", run.Stderr);
        PackageConsumerTests.AssertPatchedAndRestored(run, library);

        // This machine's own (x64) library given for the arm64 app: the launcher starts it all
        // the same; the runtime cannot load it, and the app's API says so.
        ProcessResult wrong = Processes.Launcher(
            ["run", "--profiler", Repo.NativeLibrary, "--modules", "PackageConsumer", "--", file, .. args], environment,
            workingDirectory: published);
        Assert.True(wrong.ExitCode == 3, wrong.ToString());
        Assert.Contains($"profiler {Repo.NativeLibrary} (from --profiler)", wrong.Stderr);
        Assert.Contains("PackageConsumer: the profiler is not available (ProfilerNotLoaded)", wrong.Stderr);
        Assert.Contains($"{Repo.NativeLibrary} cannot be loaded", wrong.Stderr);
    }
}

/// <summary>A fact that needs the emulator for `rid` and that RID's checked library: skipped,
/// with what is missing, when this machine lacks either.</summary>
public sealed class EmulatedPackageFactAttribute : FactAttribute
{
    public EmulatedPackageFactAttribute(string rid)
    {
        if (Emulator.For(rid) is null)
            Skip = rid == "linux-arm64"
                ? "linux-arm64 under emulation: qemu-aarch64-static (Debian: qemu-user-static) or the arm64 sysroot /usr/aarch64-linux-gnu/lib (libc6-arm64-cross) is not installed"
                : $"{rid} under emulation: no emulator for it on this machine";
        else if (CrossArtifacts.NotCheckedReason(rid) is { } reason)
            Skip = reason;
    }
}
