using System.IO.Compression;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>Precompiled (ReadyToRun) code only where the runtime that loads it is the one it was
/// compiled for: the managed package carries each assembly's image per RID under
/// runtimes/&lt;rid&gt;/lib/, compiled from the IL of lib/; everything a runtime of any RID may
/// load (lib/, the launcher tool's tools/net10.0/any/, the build's own outputs) is IL only. The
/// runtime refuses an image of another machine with BadImageFormatException instead of
/// JIT-compiling its IL, so a misplaced image breaks every game on the other RIDs.</summary>
[Collection(PackagesCollection.Name)]
public class PackageReadyToRunTests(PackagesFixture packages)
{
    private static readonly string[] Assemblies =
        ["AlvorKit.Interception.dll", "AlvorKit.Interception.Native.dll", "AlvorKit.Interception.Allocations.dll"];

    [Fact]
    public void EveryRidHasItsOwnImageOfEveryAssemblyCompiledFromTheIlOfLib()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        using ZipArchive zip = ZipFile.OpenRead(packages.Package("AlvorKit.Interception"));
        foreach (string assembly in PackedAssemblies())
        {
            ManagedImage il = ManagedImage.Read(Bytes(zip, $"lib/net10.0/{assembly}"));
            Assert.True(il.IsIlOnly, $"lib/net10.0/{assembly} should be IL only: {il}");
            foreach (string rid in Rids.Supported)
            {
                string entry = $"runtimes/{rid}/lib/net10.0/{assembly}";
                Assert.True(zip.GetEntry(entry) is not null, $"the package has no {entry}");
                ManagedImage image = ManagedImage.Read(Bytes(zip, entry));
                Assert.True(image.HasReadyToRunHeader, $"{entry} has no ReadyToRun header: {image}");
                Assert.True(image.CompiledFor == rid, $"{entry} is compiled for {image.CompiledFor ?? "no known RID"}, not {rid}: {image}");
                Assert.True(image.Mvid == il.Mvid, $"{entry} is not compiled from lib/net10.0/{assembly} (another MVID)");
            }
        }
        // Nothing else under runtimes/: the native library is the native package's.
        Assert.DoesNotContain(zip.Entries, e => e.FullName.StartsWith("runtimes/", StringComparison.Ordinal) &&
            !Rids.Supported.Any(rid => e.FullName.StartsWith($"runtimes/{rid}/lib/net10.0/", StringComparison.Ordinal)));
    }

    [Fact]
    public void NoPackageCarriesPrecompiledCodeInARidNeutralPlace()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        int managed = 0;
        foreach (string package in packages.Paths)
        {
            using ZipArchive zip = ZipFile.OpenRead(package);
            foreach (ZipArchiveEntry entry in zip.Entries.Where(e => e.FullName.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)))
            {
                ManagedImage? image = ManagedImage.TryRead(Bytes(zip, entry.FullName));
                if (image is null)
                    continue; // not a managed assembly: a native library (runtimes/<rid>/native/)
                managed++;
                string name = $"{Path.GetFileName(package)}: {entry.FullName}";
                string? rid = RidOf(entry.FullName);
                if (rid is null)
                    Assert.True(image.IsIlOnly, $"{name} is loaded by a runtime of any RID but is not IL only: {image}");
                else
                    Assert.True(!image.HasReadyToRunHeader || image.CompiledFor == rid, $"{name} is under {rid} but compiled for {image.CompiledFor}: {image}");
            }
        }
        // The launcher, its startup hook and the AlvorKit assemblies of both managed packages at least.
        Assert.True(managed >= 5, $"only {managed} managed assemblies seen in {string.Join(", ", packages.Paths)}");
    }

    [Fact]
    public void TheBuildsOwnOutputsStayIlOnly()
    {
        // What the proofs load, and what a publish for another RID (the platform proofs) or the
        // tool package copies: the managed/ projects' outputs as the build leaves them.
        foreach (string assembly in Assemblies)
        {
            string name = Path.GetFileNameWithoutExtension(assembly);
            string built = Path.Combine(Repo.Root, "managed", name, "bin", Repo.Configuration, "net10.0", assembly);
            Assert.True(File.Exists(built), $"{built} is missing: build managed/{name}");
            ManagedImage image = ManagedImage.Read(File.ReadAllBytes(built));
            Assert.True(image.IsIlOnly, $"{built} is not IL only: {image}");
        }
    }

    [Fact]
    public void TheReaderTellsIlFromPrecompiledCode()
    {
        // This test assembly is IL only; the runtime's own System.Private.CoreLib is precompiled
        // for this machine.
        ManagedImage il = ManagedImage.Read(File.ReadAllBytes(typeof(PackageReadyToRunTests).Assembly.Location));
        Assert.True(il.IsIlOnly, il.ToString());
        Assert.Null(il.CompiledFor);
        ManagedImage coreLib = ManagedImage.Read(File.ReadAllBytes(typeof(object).Assembly.Location));
        Assert.False(coreLib.IsIlOnly, coreLib.ToString());
        Assert.True(coreLib.HasReadyToRunHeader, coreLib.ToString());
        Assert.Equal(Repo.Rid, coreLib.CompiledFor);
        Assert.Null(ManagedImage.TryRead([0x4D, 0x5A, 0, 0]));
    }

    /// <summary>The RID a package path is specific to: runtimes/&lt;rid&gt;/ anywhere in it
    /// (a tool package nests it under tools/&lt;tfm&gt;/any/), else null.</summary>
    private static string? RidOf(string path)
    {
        string[] parts = path.Split('/');
        int at = Array.IndexOf(parts, "runtimes");
        return at >= 0 && at + 1 < parts.Length - 1 ? parts[at + 1] : null;
    }

    private static string[] PackedAssemblies() =>
        PackageLayoutTests.ApiExpected ? Assemblies : ["AlvorKit.Interception.Native.dll"];

    internal static byte[] Bytes(ZipArchive zip, string entry)
    {
        using Stream stream = (zip.GetEntry(entry) ?? throw new Xunit.Sdk.XunitException($"the package has no {entry}")).Open();
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }
}

/// <summary>What a PE file says about its code: the CLI header's flags (ILONLY), its
/// ManagedNativeHeader directory pointing at a READYTORUN_HEADER (signature 'RTR'), and the
/// machine the code is for (the PE machine XOR the target OS's constant, as crossgen2 writes it;
/// an IL-only image says I386 or AMD64 and means any).</summary>
internal sealed record ManagedImage(bool IsIlOnly, bool HasReadyToRunHeader, ushort Machine, string? CompiledFor, Guid Mvid)
{
    private const uint Signature = 0x00525452; // "RTR"

    public static ManagedImage Read(byte[] bytes) =>
        TryRead(bytes) ?? throw new Xunit.Sdk.XunitException("not a managed PE image (no CLI header)");

    public static ManagedImage? TryRead(byte[] bytes)
    {
        using var pe = new PEReader(new MemoryStream(bytes));
        PEHeaders headers;
        try
        {
            headers = pe.PEHeaders;
        }
        catch (BadImageFormatException)
        {
            return null;
        }
        if (headers.CorHeader is not { } cor)
            return null;
        DirectoryEntry native = cor.ManagedNativeHeaderDirectory;
        bool header = false;
        if (native.Size >= 4 && headers.TryGetDirectoryOffset(native, out int offset))
            header = BitConverter.ToUInt32(bytes, offset) == Signature;
        bool ilOnly = (cor.Flags & CorFlags.ILOnly) != 0 && !header;
        var machine = (ushort)headers.CoffHeader.Machine;
        MetadataReader metadata = pe.GetMetadataReader();
        Guid mvid = metadata.GetGuid(metadata.GetModuleDefinition().Mvid);
        return new ManagedImage(ilOnly, header, machine, header ? Rid(machine) : null, mvid);
    }

    private static string? Rid(ushort machine)
    {
        foreach ((string os, ushort xor) in new[] { ("win", (ushort)0), ("linux", (ushort)0x7B79), ("osx", (ushort)0x4644) })
            foreach ((string arch, ushort pe) in new[] { ("x64", (ushort)0x8664), ("arm64", (ushort)0xAA64) })
                if ((ushort)(pe ^ xor) == machine)
                    return $"{os}-{arch}";
        return null;
    }

    public override string ToString() =>
        $"ILONLY {IsIlOnly}, ReadyToRun header {HasReadyToRunHeader}, PE machine 0x{Machine:X4}" + (CompiledFor is null ? "" : $" ({CompiledFor})");
}
