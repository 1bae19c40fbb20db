using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>What the packaged managed assemblies need from the machine beyond the runtime.</summary>
public class ApiDependencyTests
{
    /// <summary>System.Security.Cryptography loads OpenSSL (libssl) on Linux; a game on a system
    /// without it aborted in the API ("No usable version of libssl was found": PatchOwner's ID
    /// base came from RandomNumberGenerator, seen on linux-arm64 under qemu). The API and the
    /// binding reference no cryptography.</summary>
    [Theory]
    [InlineData("AlvorKit.Interception.dll")]
    [InlineData("AlvorKit.Interception.Native.dll")]
    public void TheManagedAssembliesReferenceNoCryptography(string file)
    {
        string path = Path.Combine(AppContext.BaseDirectory, file);
        Assert.True(File.Exists(path), path);
        using var stream = File.OpenRead(path);
        using var pe = new PEReader(stream);
        MetadataReader metadata = pe.GetMetadataReader();
        var references = metadata.AssemblyReferences
            .Select(h => metadata.GetString(metadata.GetAssemblyReference(h).Name)).ToList();
        Assert.Contains("System.Runtime", references); // the list is read
        Assert.DoesNotContain(references, r => r.StartsWith("System.Security.Cryptography", StringComparison.Ordinal));
    }
}
