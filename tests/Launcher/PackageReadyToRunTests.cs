using System.IO.Compression;
using System.Reflection.PortableExecutable;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>The managed package ships its assemblies precompiled (ReadyToRun) for every supported
/// RID beside their IL images, and the assemblies this checkout's tests, proofs and benchmarks
/// load are the same precompiled images (managed/ReadyToRun.targets).</summary>
[Collection(PackagesCollection.Name)]
public class PackageReadyToRunTests(PackagesFixture packages)
{
    private static readonly string[] Assemblies =
        ["AlvorKit.Interception.dll", "AlvorKit.Interception.Native.dll", "AlvorKit.Interception.Allocations.dll"];

    [Fact]
    public void EveryRidHasReadyToRunCodeForEveryAssembly()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception"));
        foreach (string assembly in PackedAssemblies())
        {
            ReadyToRunImage il = ReadyToRunImage.Read(Bytes(zip, $"lib/net10.0/{assembly}"));
            Assert.False(il.HasReadyToRunHeader, $"lib/net10.0/{assembly} should be the IL image (any runtime)");
            foreach (string rid in Rids.Supported)
            {
                string entry = $"runtimes/{rid}/lib/net10.0/{assembly}";
                Assert.True(zip.GetEntry(entry) is not null, $"the package has no {entry}");
                ReadyToRunImage image = ReadyToRunImage.Read(Bytes(zip, entry));
                Assert.True(image.HasReadyToRunHeader, $"{entry} has no ReadyToRun header (ManagedNativeHeader with 'RTR')");
                Assert.True(image.CompiledFor == rid, $"{entry} was compiled for {image.CompiledFor} (PE machine 0x{image.Machine:X4}), not {rid}");
                Assert.True(image.Mvid == il.Mvid, $"{entry} is not compiled from lib/net10.0/{assembly} (another MVID)");
            }
        }
        // Nothing else under runtimes/: the native library is the native package's.
        Assert.DoesNotContain(zip.Entries, e => e.FullName.StartsWith("runtimes/", StringComparison.Ordinal) &&
            !Rids.Supported.Any(rid => e.FullName.StartsWith($"runtimes/{rid}/lib/net10.0/", StringComparison.Ordinal)));
    }

    [Fact]
    public void TheProofsLoadAssembliesPrecompiledForThisRid()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception"));
        string host = Path.Combine(Repo.Root, "tests", "Proofs", "AlvorKit.Proofs.Host", "bin", Repo.Configuration, "net10.0");
        foreach (string assembly in PackedAssemblies())
        {
            string built = Path.Combine(host, assembly);
            Assert.True(File.Exists(built), $"{built} is missing: build tests/Proofs/AlvorKit.Proofs");
            byte[] bytes = File.ReadAllBytes(built);
            ReadyToRunImage image = ReadyToRunImage.Read(bytes);
            Assert.True(image.HasReadyToRunHeader, $"the proof host's {assembly} is not precompiled");
            Assert.Equal(Repo.Rid, image.CompiledFor);
            // Precompiled by the same target that made the package's image for this RID (not
            // compared byte for byte or by MVID: other tests build projects that reference
            // managed/ and may rebuild it between the proofs' build and the pack).
            Assert.True(zip.GetEntry($"runtimes/{Repo.Rid}/lib/net10.0/{assembly}") is not null);
        }
    }

    [Fact]
    public void AnIlOnlyAssemblyIsNotTakenForAPrecompiledOne()
    {
        // The reader itself: the launcher is built IL only (not under managed/), so the check
        // that finds the header in the package's images finds none in it.
        ReadyToRunImage launcher = ReadyToRunImage.Read(File.ReadAllBytes(Repo.Launcher));
        Assert.False(launcher.HasReadyToRunHeader);
        Assert.Null(launcher.CompiledFor);
    }

    private static string[] PackedAssemblies() =>
        PackageLayoutTests.ApiExpected ? Assemblies : ["AlvorKit.Interception.Native.dll"];

    private static byte[] Bytes(ZipArchive zip, string entry)
    {
        using Stream stream = (zip.GetEntry(entry) ?? throw new Xunit.Sdk.XunitException($"the package has no {entry}")).Open();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}

/// <summary>What a PE file says about its precompiled code: the CLI header's ManagedNativeHeader
/// directory pointing at a READYTORUN_HEADER (signature 'RTR'), and the machine the code is for
/// (the PE machine XOR the target OS's constant, as crossgen2 writes it).</summary>
internal sealed record ReadyToRunImage(bool HasReadyToRunHeader, ushort Machine, string? CompiledFor, Guid Mvid)
{
    private const uint Signature = 0x00525452; // "RTR"

    public static ReadyToRunImage Read(byte[] bytes)
    {
        using var pe = new PEReader(new MemoryStream(bytes));
        DirectoryEntry native = pe.PEHeaders.CorHeader!.ManagedNativeHeaderDirectory;
        bool header = false;
        if (native.Size >= 4 && pe.PEHeaders.TryGetDirectoryOffset(native, out int offset))
            header = BitConverter.ToUInt32(bytes, offset) == Signature;
        var machine = (ushort)pe.PEHeaders.CoffHeader.Machine;
        System.Reflection.Metadata.MetadataReader metadata = System.Reflection.Metadata.PEReaderExtensions.GetMetadataReader(pe);
        Guid mvid = metadata.GetGuid(metadata.GetModuleDefinition().Mvid);
        return new ReadyToRunImage(header, machine, header ? Rid(machine) : null, mvid);
    }

    private static string? Rid(ushort machine)
    {
        foreach ((string os, ushort xor) in new[] { ("win", (ushort)0), ("linux", (ushort)0x7B79), ("osx", (ushort)0x4644) })
            foreach ((string arch, ushort pe) in new[] { ("x64", (ushort)0x8664), ("arm64", (ushort)0xAA64) })
                if ((ushort)(pe ^ xor) == machine)
                    return $"{os}-{arch}";
        return null;
    }
}
