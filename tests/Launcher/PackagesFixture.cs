using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>Runs packaging/pack.sh once for the tests that need the packages; they land in
/// build/packages, the feed samples/PackageConsumer/NuGet.config names.</summary>
public sealed class PackagesFixture
{
    public PackagesFixture()
    {
        Result = Processes.Run("bash", [Path.Combine(Repo.Root, "packaging", "pack.sh")], timeout: TimeSpan.FromMinutes(10)); // crossgen2 for every RID on a first pack
        Paths = Result.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    }

    public ProcessResult Result { get; }
    public IReadOnlyList<string> Paths { get; }
    public string Feed { get; } = Path.Combine(Repo.Root, "build", "packages");

    public string Package(string id) =>
        Paths.SingleOrDefault(p => Path.GetFileName(p) == $"{id}.{Version}.nupkg")
        ?? throw new Xunit.Sdk.XunitException($"pack.sh did not print {id}.{Version}.nupkg\n{Result}");

    /// <summary>The version this checkout builds as (MinVer, from Git): the built launcher's
    /// own, which every package pack.sh makes must carry.</summary>
    public static string Version => LauncherInfo.Version;
}

[CollectionDefinition(Name)]
public sealed class PackagesCollection : ICollectionFixture<PackagesFixture>
{
    public const string Name = "packages";
}
