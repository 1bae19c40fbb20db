using System.Runtime.InteropServices;
using AlvorKit.Interception.Launcher;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

public class RidTests
{
    [Theory]
    [InlineData("linux-x64", "linux", Architecture.X64, "linux-x64")]
    [InlineData("linux-arm64", "linux", Architecture.Arm64, "linux-arm64")]
    [InlineData("osx-arm64", "osx", Architecture.Arm64, "osx-arm64")]
    [InlineData("win-x64", "win", Architecture.X64, "win-x64")]
    [InlineData("ubuntu.24.04-x64", "linux", Architecture.X64, "linux-x64")] // a distro-built runtime
    [InlineData("fedora.41-arm64", "linux", Architecture.Arm64, "linux-arm64")]
    public void SupportedRuntimesMapToTheirPortableRid(string runtimeRid, string os, Architecture arch, string expected) =>
        Assert.Equal(expected, Rids.Resolve(runtimeRid, os, arch));

    [Theory]
    [InlineData("linux-musl-x64", "linux", Architecture.X64)]
    [InlineData("osx-x64", "osx", Architecture.X64)]
    [InlineData("win-x86", "win", Architecture.X86)]
    [InlineData("win-arm64", "win", Architecture.Arm64)]
    [InlineData("freebsd-x64", "freebsd", Architecture.X64)]
    [InlineData("linux-arm", "linux", Architecture.Arm)]
    public void AnyOtherRidIsAClearUnsupportedRidError(string runtimeRid, string os, Architecture arch)
    {
        var e = Assert.Throws<LauncherException>(() => Rids.Resolve(runtimeRid, os, arch));
        Assert.Equal(2, e.ExitCode);
        Assert.StartsWith("unsupported RID " + runtimeRid, e.Message);
        Assert.Contains("linux-x64, linux-arm64, osx-arm64, win-x64", e.Message);
    }

    [Theory]
    [InlineData("linux-x64", "libalvorkit_interception_profiler.so")]
    [InlineData("linux-arm64", "libalvorkit_interception_profiler.so")]
    [InlineData("osx-arm64", "libalvorkit_interception_profiler.dylib")]
    [InlineData("win-x64", "alvorkit_interception_profiler.dll")]
    public void LibraryFileNamePerRid(string rid, string fileName) => Assert.Equal(fileName, Rids.LibraryFileName(rid));

    [Fact]
    public void ThisMachineHasASupportedRid() => Assert.Contains(Rids.Current(), Rids.Supported);
}

public class ModuleListTests
{
    [Theory]
    [InlineData("Game.Logic;Game.Core", "Game.Logic;Game.Core")]
    [InlineData("Game.Logic,Game.Core", "Game.Logic;Game.Core")]
    [InlineData(" Game.Logic ; Game.Core; ", "Game.Logic;Game.Core")]
    [InlineData("My_Game-2", "My_Game-2")]
    public void NamesAreNormalizedToTheProfilersForm(string given, string expected) =>
        Assert.Equal(expected, ModuleList.Normalize([given], isolatedProof: false));

    [Fact]
    public void RepeatedOptionsJoin() =>
        Assert.Equal("A;B;C", ModuleList.Normalize(["A", "B;C"], isolatedProof: false));

    [Fact]
    public void WatchAllowlistsAlvorKitsRehearsalAssemblyShippedBesideTheHook()
    {
        // watch's list: the game's assembly, then the one whose method the game's reload warm-up
        // patches for real (run's list is the names given: RunCommandTests).
        Assert.Equal("Game.Logic;AlvorKit.Interception.Rehearsal", ReloadHook.WatchModules("Game.Logic"));
        Assert.True(File.Exists(Path.Combine(Path.GetDirectoryName(ReloadHook.Locate(Path.GetDirectoryName(Repo.Launcher)))!,
                                             ReloadHook.RehearsalModule + ".dll")), "the rehearsal assembly is not beside the hook");
    }

    [Fact]
    public void NoOptionMeansUnset() => Assert.Null(ModuleList.Normalize([], isolatedProof: false));

    [Theory]
    [InlineData("bin/Game.dll", "outside [A-Za-z0-9._-]")]
    [InlineData("Game.Logic;;Game.Core", "empty entry")]
    [InlineData("", "empty")]
    [InlineData("Game;game", "listed twice")]
    [InlineData("*;Game", "mixes '*'")]
    public void MalformedListsAreRefused(string given, string why)
    {
        var e = Assert.Throws<LauncherException>(() => ModuleList.Normalize([given], isolatedProof: true));
        Assert.Equal(64, e.ExitCode);
        Assert.Contains(why, e.Message);
    }

    [Fact]
    public void MoreThan32NamesAreRefused()
    {
        var e = Assert.Throws<LauncherException>(() =>
            ModuleList.Normalize([string.Join(';', Enumerable.Range(0, 33).Select(i => $"M{i}"))], false));
        Assert.Contains("at most 32", e.Message);
    }

    [Fact]
    public void StarIsRefusedOutsideIsolatedProofs()
    {
        var e = Assert.Throws<LauncherException>(() => ModuleList.Normalize(["*"], isolatedProof: false));
        Assert.Equal(64, e.ExitCode);
        Assert.Contains("isolated proof", e.Message);
        Assert.Contains("--isolated-proof", e.Message);
    }

    [Fact]
    public void StarIsAcceptedForIsolatedProofs() => Assert.Equal("*", ModuleList.Normalize(["*"], isolatedProof: true));
}
