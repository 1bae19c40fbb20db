using AlvorKit.Interception.Launcher;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>The search order, on a made-up layout in a temp folder (no repository above it).</summary>
public sealed class ProfilerLocatorTests : IDisposable
{
    private const string Rid = "linux-x64";
    private const string File = "libalvorkit_interception_profiler.so";
    private readonly TempDir _temp = new("locator");
    private readonly Dictionary<string, string?> _env = new();

    public void Dispose() => _temp.Dispose();

    private string Dir(string name) => _temp.Sub(name);

    private string Library(string relative)
    {
        string path = Path.Combine(_temp.Path, relative);
        Directory.CreateDirectory(Path.GetDirectoryName(path)!);
        System.IO.File.WriteAllText(path, "not really a library");
        return path;
    }

    private ProfilerLocator Locator(string? explicitPath = null, string? app = null) => new()
    {
        Rid = Rid,
        ExplicitPath = explicitPath,
        AppDirectory = app,
        ToolDirectory = Dir("tool"),
        WorkingDirectory = Dir("work"),
        ToolVersion = "0.3.0",
        GetEnvironment = name => _env.GetValueOrDefault(name),
    };

    [Fact]
    public void EachPlaceWinsOverTheOnesAfterIt()
    {
        _env["NUGET_PACKAGES"] = Dir("nuget");
        string cachedOlder = Library($"nuget/alvorkit.interception.profiler.native/0.3.0-beta/runtimes/{Rid}/native/{File}");
        Assert.Equal((cachedOlder, "the AlvorKit.Interception.Profiler.Native package"), Found(Locator(app: Dir("app"))));

        string cachedSame = Library($"nuget/alvorkit.interception.profiler.native/0.3.0/runtimes/{Rid}/native/{File}");
        Library($"nuget/alvorkit.interception.profiler.native/0.4.0/runtimes/{Rid}/native/{File}"); // another minor line: never
        Assert.Equal(cachedSame, Found(Locator(app: Dir("app"))).Path);

        string tool = Library($"tool/runtimes/{Rid}/native/{File}");
        Assert.Equal((tool, "next to the launcher"), Found(Locator(app: Dir("app"))));

        string appRuntimes = Library($"app/runtimes/{Rid}/native/{File}");
        Assert.Equal((appRuntimes, "the app's output"), Found(Locator(app: Dir("app"))));
        string appFlat = Library($"app/{File}");
        Assert.Equal(appFlat, Found(Locator(app: Dir("app"))).Path);

        string fromVariable = Library($"elsewhere/{File}");
        _env[ProfilerLocator.PathVariable] = fromVariable;
        Assert.Equal((fromVariable, ProfilerLocator.PathVariable), Found(Locator(app: Dir("app"))));

        string explicitFile = Library($"explicit/{File}");
        Assert.Equal((explicitFile, "--profiler"), Found(Locator(explicitFile, Dir("app"))));
        // A folder holding the RID's file name works too.
        Assert.Equal(explicitFile, Found(Locator(Path.Combine(_temp.Path, "explicit"), Dir("app"))).Path);
    }

    [Fact]
    public void ARelativeProfilerPathIsMadeAbsolute()
    {
        string lib = Library($"work/lib/{File}");
        Assert.Equal(lib, Found(Locator(Path.Combine("lib", File))).Path);
    }

    [Fact]
    public void AVariableNamingAMissingFileIsPassedOver()
    {
        _env[ProfilerLocator.PathVariable] = Path.Combine(_temp.Path, "gone", File);
        string tool = Library($"tool/runtimes/{Rid}/native/{File}");
        Assert.Equal(tool, Found(Locator()).Path);
    }

    [Fact]
    public void AMissingProfilerOptionIsFinalAndNamesEverything()
    {
        Library($"tool/runtimes/{Rid}/native/{File}"); // would be found, but --profiler was explicit
        string missing = Path.Combine(_temp.Path, "nope", File);
        var e = Assert.Throws<LauncherException>(() => Locator(missing).Locate());
        Assert.Equal(2, e.ExitCode);
        Assert.Contains($"RID {Rid}", e.Message);
        Assert.Contains($"expected a file named {File}", e.Message);
        Assert.Contains($"--profiler: {missing}", e.Message);
    }

    [Fact]
    public void NothingAnywhereListsEveryPlaceLookedAt()
    {
        _env["NUGET_PACKAGES"] = Dir("nuget");
        _env[ProfilerLocator.PathVariable] = Path.Combine(_temp.Path, "gone", File);
        var e = Assert.Throws<LauncherException>(() => Locator(app: Dir("app")).Locate());
        Assert.Equal(2, e.ExitCode);
        Assert.Contains($"no AlvorKit Interception Profiler library for RID {Rid}: expected a file named {File}", e.Message);
        Assert.Contains($"{ProfilerLocator.PathVariable}: {Path.Combine(_temp.Path, "gone", File)}", e.Message);
        Assert.Contains($"the app's output: {Path.Combine(_temp.Path, "app", "runtimes", Rid, "native", File)}", e.Message);
        Assert.Contains($"next to the launcher: {Path.Combine(_temp.Path, "tool", "runtimes", Rid, "native", File)}", e.Message);
        Assert.Contains(Path.Combine(_temp.Path, "nuget", "alvorkit.interception.profiler.native"), e.Message);
        Assert.Contains("a repository checkout: none", e.Message);
    }

    private static (string Path, string Source) Found(ProfilerLocator locator)
    {
        LocatedProfiler found = locator.Locate();
        Assert.True(Path.IsPathFullyQualified(found.Path));
        return (found.Path, found.Source);
    }
}
