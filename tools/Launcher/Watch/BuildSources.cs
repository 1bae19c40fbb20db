using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// Whether the sources the watcher starts from are the ones the game's build was compiled from:
/// the build's portable PDB lists every document it compiled with a checksum of its text (the
/// compiler's own, SHA-256 or SHA-1), and each is compared with the checksum of the watcher's
/// document of the same text. An update is emitted against the build, so a source that changed
/// before the watcher started would be missing from every update: the watcher says which.
/// </summary>
internal static class BuildSources
{
    private static readonly Guid Sha1 = new("ff1816ec-aa5e-4d10-87f7-6f4963833460");
    private static readonly Guid Sha256 = new("8829d00f-11b8-4213-878b-770e8597ac16");

    /// <summary>The project's source files that differ (paths, each once), or null when the build
    /// has no PDB to compare with. Only <paramref name="sourceFiles"/> are compared: the source
    /// generators' documents follow from them (and their checksums from the generator's own choice).</summary>
    public static IReadOnlyList<string>? Differences(byte[] image, string? pdbPath, Compilation compilation,
                                                     IReadOnlyCollection<string> sourceFiles)
    {
        MetadataReaderProvider? provider = Open(image, pdbPath);
        if (provider is null)
            return null;
        using (provider)
        {
            MetadataReader pdb = provider.GetMetadataReader();
            var sources = new HashSet<string>(sourceFiles, StringComparer.Ordinal);
            SyntaxTree[] own = [.. compilation.SyntaxTrees.Where(t => sources.Contains(t.FilePath))];
            var ours = new Dictionary<(SourceHashAlgorithm, string), string>();
            foreach (SyntaxTree tree in own)
            {
                SourceText text = tree.GetText();
                ours.TryAdd((text.ChecksumAlgorithm, Convert.ToHexString(text.GetChecksum().AsSpan())), tree.FilePath);
            }
            var matched = new HashSet<string>(StringComparer.Ordinal);
            var differ = new List<string>();
            foreach (DocumentHandle handle in pdb.Documents)
            {
                Document document = pdb.GetDocument(handle);
                Guid algorithm = pdb.GetGuid(document.HashAlgorithm);
                SourceHashAlgorithm kind = algorithm == Sha256 ? SourceHashAlgorithm.Sha256
                    : algorithm == Sha1 ? SourceHashAlgorithm.Sha1 : SourceHashAlgorithm.None;
                if (kind == SourceHashAlgorithm.None)
                    continue;
                string hash = Convert.ToHexString(pdb.GetBlobBytes(document.Hash));
                string name = pdb.GetString(document.Name);
                if (ours.TryGetValue((kind, hash), out string? path))
                    matched.Add(path);
                else if (sources.Contains(name))
                    differ.Add(name);
            }
            // A document the build did not compile (or compiled with other text).
            foreach (SyntaxTree tree in own)
            {
                if (!matched.Contains(tree.FilePath) &&
                    !differ.Any(d => Path.GetFileName(d) == Path.GetFileName(tree.FilePath)))
                    differ.Add(tree.FilePath);
            }
            return differ;
        }
    }

    private static MetadataReaderProvider? Open(byte[] image, string? pdbPath)
    {
        if (pdbPath is not null && File.Exists(pdbPath))
            return MetadataReaderProvider.FromPortablePdbImage(ImmutableArray.Create(File.ReadAllBytes(pdbPath)));
        using var pe = new PEReader(ImmutableArray.Create(image));
        DebugDirectoryEntry embedded = pe.ReadDebugDirectory()
            .FirstOrDefault(e => e.Type == DebugDirectoryEntryType.EmbeddedPortablePdb);
        return embedded.DataSize > 0 ? pe.ReadEmbeddedPortablePdbDebugDirectoryData(embedded) : null;
    }
}
