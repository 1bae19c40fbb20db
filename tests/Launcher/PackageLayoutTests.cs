using System.IO.Compression;
using System.Security.Cryptography;
using System.Xml.Linq;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>What packaging/pack.sh puts in each package (the .nupkg zip entries and nuspec).</summary>
[Collection(PackagesCollection.Name)]
public class PackageLayoutTests(PackagesFixture packages)
{
    /// <summary>Whether pack.sh packed the API: managed/AlvorKit.Interception exists and
    /// ALVK_PACK_API=0 was not given.</summary>
    internal static bool ApiExpected =>
        File.Exists(Path.Combine(Repo.Root, "managed", "AlvorKit.Interception", "AlvorKit.Interception.csproj")) &&
        Environment.GetEnvironmentVariable("ALVK_PACK_API") != "0";

    private static readonly string LibraryEntry = $"runtimes/{Repo.Rid}/native/{Repo.LibraryFileName}";

    [Fact]
    public void PackScriptPrintsTheThreePackages()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        Assert.Equal(3, packages.Paths.Count);
        foreach (string path in packages.Paths)
        {
            Assert.True(Path.IsPathFullyQualified(path), path);
            Assert.True(File.Exists(path), path);
            Assert.Equal(packages.Feed, Path.GetDirectoryName(path));
        }
    }

    [Fact]
    public void NativePackage()
    {
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception.Profiler.Native"));
        var entries = Entries(zip);
        Assert.Contains(LibraryEntry, entries);
        Assert.Equal(Sha256(File.ReadAllBytes(Repo.NativeLibrary)), Sha256(zip.GetEntry(LibraryEntry)!));
        Assert.Contains("buildTransitive/AlvorKit.Interception.Profiler.Native.props", entries);
        Assert.Contains("buildTransitive/AlvorKit.Interception.Profiler.Native.targets", entries);
        Assert.Contains("README.md", entries);
        Assert.DoesNotContain(entries, e => e.StartsWith("lib/", StringComparison.Ordinal));
        AssertEveryRidAsChecked(zip, "");
        XElement metadata = Nuspec(zip);
        Assert.Equal("AlvorKit.Interception.Profiler.Native", Value(metadata, "id"));
        Assert.Equal(PackagesFixture.Version, Value(metadata, "version"));
        Assert.DoesNotContain(metadata.Descendants(), d => d.Name.LocalName == "dependency");
    }

    [Fact]
    public void ManagedPackage()
    {
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception"));
        var entries = Entries(zip);
        Assert.Contains("lib/net10.0/AlvorKit.Interception.Native.dll", entries);
        Assert.Equal(ApiExpected, entries.Contains("lib/net10.0/AlvorKit.Interception.dll"));
        Assert.DoesNotContain(entries, e => e.Contains("Packaging", StringComparison.Ordinal)); // the packaging project's own output
        // runtimes/ holds only the assemblies precompiled per RID (PackageReadyToRunTests); the
        // native library is the native package's.
        Assert.DoesNotContain(entries, e => e.StartsWith("runtimes/", StringComparison.Ordinal) && !e.Contains("/lib/net10.0/", StringComparison.Ordinal));

        XElement metadata = Nuspec(zip);
        Assert.Equal("AlvorKit.Interception", Value(metadata, "id"));
        Assert.Equal(PackagesFixture.Version, Value(metadata, "version"));
        XElement dependency = Assert.Single(metadata.Descendants(), d => d.Name.LocalName == "dependency");
        Assert.Equal("AlvorKit.Interception.Profiler.Native", (string?)dependency.Attribute("id"));
        Assert.Equal(PackagesFixture.Version, (string?)dependency.Attribute("version"));
        Assert.Null(dependency.Attribute("exclude")); // its buildTransitive targets must reach the app
    }

    [Fact]
    public void LauncherToolPackage()
    {
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception.Launcher"));
        var entries = Entries(zip);
        Assert.Contains("tools/net10.0/any/AlvorKit.Interception.Launcher.dll", entries);
        // run --reload's startup hook, the AlvorKit assemblies it loads into a game that has none, and the
        // rehearsal assembly whose method watch's reload warm-up patches.
        foreach (string hookFile in new[] { "AlvorKit.Interception.StartupHook.dll", "AlvorKit.Interception.dll",
                                            "AlvorKit.Interception.Native.dll", "AlvorKit.Interception.Allocations.dll",
                                            "AlvorKit.Interception.Rehearsal.dll" })
            Assert.Contains($"tools/net10.0/any/{hookFile}", entries);
        Assert.Contains($"tools/net10.0/any/{LibraryEntry}", entries);
        Assert.Equal(Sha256(File.ReadAllBytes(Repo.NativeLibrary)), Sha256(zip.GetEntry($"tools/net10.0/any/{LibraryEntry}")!));
        AssertEveryRidAsChecked(zip, ToolPrefix);
        using (var reader = new StreamReader(zip.GetEntry("tools/net10.0/any/DotnetToolSettings.xml")!.Open()))
        {
            XElement command = XDocument.Parse(reader.ReadToEnd()).Descendants("Command").Single();
            Assert.Equal("alvorkit-intercept", (string?)command.Attribute("Name"));
            Assert.Equal("AlvorKit.Interception.Launcher.dll", (string?)command.Attribute("EntryPoint"));
        }
        // The AlvorKit assemblies the tool carries are Release builds, the very files the managed
        // package ships (a solution pack once built them in Debug for the tool).
        using ZipArchive managed = ZipFile.OpenRead(packages.Package("AlvorKit.Interception"));
        foreach (string name in new[] { "AlvorKit.Interception.StartupHook.dll", "AlvorKit.Interception.dll",
                                        "AlvorKit.Interception.Native.dll", "AlvorKit.Interception.Allocations.dll",
                                        "AlvorKit.Interception.Rehearsal.dll" })
        {
            ZipArchiveEntry tool = zip.GetEntry($"{ToolPrefix}{name}")!;
            Assert.True(Optimized(tool), $"{ToolPrefix}{name} is not an optimized (Release) build");
            if (managed.GetEntry($"lib/net10.0/{name}") is { } shipped)
                Assert.Equal(Sha256(shipped), Sha256(tool));
        }
        XElement metadata = Nuspec(zip);
        Assert.Equal("AlvorKit.Interception.Launcher", Value(metadata, "id"));
        Assert.Equal(PackagesFixture.Version, Value(metadata, "version"));
        Assert.Contains(metadata.Descendants(), d => d.Name.LocalName == "packageType" && (string?)d.Attribute("name") == "DotnetTool");
    }

    private const string ToolPrefix = "tools/net10.0/any/";

    // One fact per RID, so a RID this machine did not build and check shows as skipped, with
    // the reason, instead of passing unseen. Each: both packages carry the checked file.
    [CheckedArtifactFact("linux-arm64")]
    public void LinuxArm64IsPackedAsChecked() => AssertPackedAsChecked("linux-arm64");

    [CheckedArtifactFact("win-x64")]
    public void WinX64IsPackedAsChecked() => AssertPackedAsChecked("win-x64");

    [CheckedArtifactFact("osx-arm64")]
    public void OsxArm64IsPackedAsChecked() => AssertPackedAsChecked("osx-arm64");

    private void AssertPackedAsChecked(string rid)
    {
        CheckedArtifact artifact = CrossArtifacts.Checked(rid)
            ?? throw new Xunit.Sdk.XunitException($"{CrossArtifacts.Record(rid)} disappeared while the tests ran");
        string entry = $"runtimes/{rid}/native/{AlvorKit.Interception.Launcher.Rids.LibraryFileName(rid)}";
        foreach ((string id, string prefix) in new[] { ("AlvorKit.Interception.Profiler.Native", ""), ("AlvorKit.Interception.Launcher", ToolPrefix) })
        {
            using ZipArchive zip = ZipFile.OpenRead(packages.Package(id));
            ZipArchiveEntry? packed = zip.GetEntry(prefix + entry);
            Assert.True(packed is not null, $"{id} has no {prefix + entry}, though {artifact.Path} was built and checked");
            Assert.True(artifact.Sha256 == Sha256(packed), $"{id}'s {prefix + entry} is not the checked {artifact.Path}");
        }
    }

    /// <summary>Every runtimes/ entry (under `prefix`) is a supported RID's library by its own
    /// name: this machine's is build/native-release's, another RID's is the checked file of
    /// build/native-&lt;rid&gt; (never one that was not checked); and every checked RID is there.</summary>
    private static void AssertEveryRidAsChecked(ZipArchive zip, string prefix)
    {
        var packed = new HashSet<string>(StringComparer.Ordinal);
        foreach (ZipArchiveEntry e in zip.Entries.Where(e => e.FullName.StartsWith(prefix + "runtimes/", StringComparison.Ordinal)))
        {
            string rid = e.FullName[prefix.Length..].Split('/')[1];
            Assert.Contains(rid, AlvorKit.Interception.Launcher.Rids.Supported);
            Assert.Equal($"{prefix}runtimes/{rid}/native/{AlvorKit.Interception.Launcher.Rids.LibraryFileName(rid)}", e.FullName);
            packed.Add(rid);
            if (rid == Repo.Rid)
                continue;
            CheckedArtifact? artifact = CrossArtifacts.Checked(rid);
            Assert.True(artifact is not null,
                $"{e.FullName} is packed but was never checked: no {CrossArtifacts.Record(rid)} (run tests/artifact/check_cross_*.sh, or ./build.sh test)");
            Assert.True(artifact.Sha256 == Sha256(e), $"{e.FullName} is not the checked {artifact.Path}");
        }
        Assert.Contains(Repo.Rid, packed);
        foreach (string rid in CrossArtifacts.OtherRids.Where(r => File.Exists(CrossArtifacts.Record(r))))
            Assert.True(packed.Contains(rid), $"{rid} was built and checked ({CrossArtifacts.Record(rid)}) but is not packed");
    }

    [Fact]
    public void OtherRidsAreTakenFromBuildNativeRidFolders()
    {
        // A made-up checkout: this RID's build in native-release, two other RIDs' libraries
        // dropped into build/native-<rid>/, and a stale native-<this rid> that native-release beats.
        using var temp = new TempDir("rids");
        string root = temp.Path;
        string Put(string relative, byte[] bytes)
        {
            string path = Path.Combine(root, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            File.WriteAllBytes(path, bytes);
            return path;
        }
        Put($"build/native-release/native/interception-profiler/{Repo.LibraryFileName}", File.ReadAllBytes(Repo.NativeLibrary));
        Put($"build/native-{Repo.Rid}/native/interception-profiler/{Repo.LibraryFileName}", "stale"u8.ToArray());
        string[] others = AlvorKit.Interception.Launcher.Rids.Supported.Where(r => r != Repo.Rid).Take(2).ToArray();
        foreach (string rid in others)
            Put($"build/native-{rid}/native/interception-profiler/{AlvorKit.Interception.Launcher.Rids.LibraryFileName(rid)}",
                System.Text.Encoding.UTF8.GetBytes(rid));
        Put("docs/Packages.md", "readme"u8.ToArray());
        string output = Path.Combine(root, "out");

        ProcessResult r = Processes.Run("dotnet",
            ["pack", Path.Combine(Repo.Root, "packaging", "AlvorKit.Interception.Profiler.Native", "AlvorKit.Interception.Profiler.Native.csproj"),
             "-c", "Release", "-o", output, $"-p:AlvkRepoRoot={root}/", "-nologo", "-v", "quiet"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        using ZipArchive zip = ZipFile.OpenRead(Path.Combine(output, $"AlvorKit.Interception.Profiler.Native.{PackagesFixture.Version}.nupkg"));
        var runtimes = Entries(zip).Where(e => e.StartsWith("runtimes/", StringComparison.Ordinal)).Order().ToList();
        Assert.Equal(others.Append(Repo.Rid).Select(rid => $"runtimes/{rid}/native/{AlvorKit.Interception.Launcher.Rids.LibraryFileName(rid)}").Order(), runtimes);
        Assert.Equal(Sha256(File.ReadAllBytes(Repo.NativeLibrary)), Sha256(zip.GetEntry(LibraryEntry)!));
        foreach (string rid in others)
            Assert.Equal(Sha256(System.Text.Encoding.UTF8.GetBytes(rid)),
                Sha256(zip.GetEntry($"runtimes/{rid}/native/{AlvorKit.Interception.Launcher.Rids.LibraryFileName(rid)}")!));

        // No library at all: packing fails and says how to build one.
        Directory.Delete(Path.Combine(root, "build"), recursive: true);
        ProcessResult none = Processes.Run("dotnet",
            ["pack", Path.Combine(Repo.Root, "packaging", "AlvorKit.Interception.Profiler.Native", "AlvorKit.Interception.Profiler.Native.csproj"),
             "-c", "Release", "-o", output, $"-p:AlvkRepoRoot={root}/", "-nologo", "-v", "quiet"]);
        Assert.NotEqual(0, none.ExitCode);
        Assert.Contains("No profiler library to pack", none.Stdout + none.Stderr);
    }

    private static HashSet<string> Entries(ZipArchive zip) => zip.Entries.Select(e => e.FullName).ToHashSet();

    private static XElement Nuspec(ZipArchive zip)
    {
        ZipArchiveEntry entry = zip.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal) && !e.FullName.Contains('/'));
        using var stream = entry.Open();
        return XDocument.Load(stream).Root!.Elements().Single(e => e.Name.LocalName == "metadata");
    }

    private static string? Value(XElement metadata, string name) =>
        metadata.Elements().SingleOrDefault(e => e.Name.LocalName == name)?.Value;

    private static string Sha256(ZipArchiveEntry entry)
    {
        using var stream = entry.Open();
        return Convert.ToHexString(SHA256.HashData(stream));
    }

    private static string Sha256(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes));

    /// <summary>Whether the assembly was compiled with optimizations: its DebuggableAttribute
    /// (DebuggingModes) lacks DisableOptimizations, which a Debug build sets.</summary>
    private static bool Optimized(ZipArchiveEntry entry)
    {
        var bytes = new MemoryStream();
        using (var stream = entry.Open())
            stream.CopyTo(bytes);
        bytes.Position = 0;
        using var pe = new System.Reflection.PortableExecutable.PEReader(bytes);
        System.Reflection.Metadata.MetadataReader metadata = System.Reflection.Metadata.PEReaderExtensions.GetMetadataReader(pe);
        foreach (var handle in metadata.GetAssemblyDefinition().GetCustomAttributes())
        {
            var attribute = metadata.GetCustomAttribute(handle);
            if (attribute.Constructor.Kind != System.Reflection.Metadata.HandleKind.MemberReference)
                continue;
            var constructor = metadata.GetMemberReference((System.Reflection.Metadata.MemberReferenceHandle)attribute.Constructor);
            if (constructor.Parent.Kind != System.Reflection.Metadata.HandleKind.TypeReference ||
                metadata.GetString(metadata.GetTypeReference((System.Reflection.Metadata.TypeReferenceHandle)constructor.Parent).Name) != "DebuggableAttribute")
                continue;
            var value = metadata.GetBlobReader(attribute.Value);
            Assert.Equal(8, value.Length); // prolog, DebuggingModes (int), no named arguments
            value.ReadUInt16();
            return (value.ReadInt32() & (int)System.Diagnostics.DebuggableAttribute.DebuggingModes.DisableOptimizations) == 0;
        }
        throw new Xunit.Sdk.XunitException($"{entry.FullName} has no DebuggableAttribute");
    }
}
