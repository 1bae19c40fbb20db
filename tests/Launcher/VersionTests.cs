using System.Reflection;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>The version every assembly and package is built as, computed from Git (MinVer;
/// docs/Packages.md, "Versions"), against what the repository states about it: the floor in
/// Directory.Build.props, the sample's version range and the CHANGELOG.</summary>
public partial class VersionTests
{
    [Fact]
    public void TheVersionIsSemVerOnTheFloorsLineOrLater()
    {
        (int major, int minor, string prerelease) = Parse(LauncherInfo.Version);
        (int floorMajor, int floorMinor) = Floor();
        Assert.True((major, minor).CompareTo((floorMajor, floorMinor)) >= 0,
            $"{LauncherInfo.Version} is below MinVerMinimumMajorMinor {floorMajor}.{floorMinor}");
        // A prerelease is MinVer's alpha.0.<height> (no tag, or commits after one); a tag names
        // its own prerelease identifiers, so only the shape is checked then.
        if (prerelease.StartsWith("alpha.0.", StringComparison.Ordinal))
            Assert.Matches(@"^alpha\.0\.(0|[1-9][0-9]*)$", prerelease);
    }

    [Fact]
    public void EveryShippedAssemblyHasTheOneVersionAndItsMajorMinorAsAssemblyVersion()
    {
        (int major, int minor, _) = Parse(LauncherInfo.Version);
        Assembly[] shipped =
        [
            typeof(LauncherInfo).Assembly,
            typeof(Interceptor).Assembly,
            typeof(Native.ProfilerLibrary).Assembly,
            typeof(Allocations.AllocationCapture).Assembly,
            Assembly.LoadFrom(Path.Combine(Path.GetDirectoryName(Repo.Launcher)!, "AlvorKit.Interception.StartupHook.dll")),
            Assembly.LoadFrom(Path.Combine(Path.GetDirectoryName(Repo.Launcher)!, "AlvorKit.Interception.Rehearsal.dll")),
        ];
        foreach (Assembly assembly in shipped)
        {
            string? informational = assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
            Assert.NotNull(informational);
            Assert.Equal(LauncherInfo.Version, informational.Split('+')[0]);
            Assert.Equal(new Version(major, minor, 0, 0), assembly.GetName().Version);
        }
    }

    [Fact]
    public void TheSampleTakesTheFloorsLine()
    {
        (int major, int minor) = Floor();
        XElement props = XElement.Load(Path.Combine(Repo.Root, "samples", "PackageConsumer", "Directory.Packages.props"));
        var versions = props.Descendants("PackageVersion").ToDictionary(e => (string)e.Attribute("Include")!, e => (string)e.Attribute("Version")!);
        Assert.Equal($"{major}.{minor}.*-*", versions["AlvorKit.Interception"]);
        Assert.Equal($"{major}.{minor}.*-*", versions["AlvorKit.Interception.Profiler.Native"]);
    }

    [Fact]
    public void TheChangelogHasASectionForTheFloorsVersion()
    {
        (int major, int minor) = Floor();
        string changelog = File.ReadAllText(Path.Combine(Repo.Root, "CHANGELOG.md"));
        Assert.Matches($@"(?m)^## \[{major}\.{minor}\.0\]", changelog);
    }

    /// <summary>MinVerMinimumMajorMinor from the repository's Directory.Build.props.</summary>
    private static (int Major, int Minor) Floor()
    {
        XElement props = XElement.Load(Path.Combine(Repo.Root, "Directory.Build.props"));
        string floor = props.Descendants("MinVerMinimumMajorMinor").Single().Value;
        string[] parts = floor.Split('.');
        Assert.Equal(2, parts.Length);
        return (int.Parse(parts[0], System.Globalization.CultureInfo.InvariantCulture),
                int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture));
    }

    /// <summary>A SemVer 2.0 version without build metadata: major, minor and prerelease.</summary>
    private static (int Major, int Minor, string Prerelease) Parse(string version)
    {
        Match m = SemVer().Match(version);
        Assert.True(m.Success, $"'{version}' is not a SemVer 2.0 version");
        return (int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture),
                int.Parse(m.Groups[2].Value, System.Globalization.CultureInfo.InvariantCulture),
                m.Groups[4].Value);
    }

    [GeneratedRegex(@"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-((?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?$")]
    private static partial Regex SemVer();
}
