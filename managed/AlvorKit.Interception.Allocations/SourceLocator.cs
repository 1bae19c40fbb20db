using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace AlvorKit.Interception.Allocations;

/// <summary>
/// Maps (module MVID, MethodDef token, IL offset) to a source file and line through the
/// Portable PDB of an assembly loaded in this process: the .pdb beside Assembly.Location,
/// or the one embedded in the assembly. Each PDB is opened once per locator.
/// </summary>
public sealed class SourceLocator : IDisposable
{
    private const int HiddenLine = 0xFEEFEE;

    private readonly Dictionary<Guid, MetadataReaderProvider?> _pdbs = [];
    private Dictionary<Guid, Assembly>? _assemblies;

    /// <summary>The file and line of the statement holding `ilOffset`, or null when the
    /// module, its PDB or a visible sequence point at or before that offset is missing.</summary>
    public (string File, int Line)? Locate(Guid mvid, uint methodToken, int ilOffset)
    {
        if (mvid == Guid.Empty || ilOffset < 0 || methodToken >> 24 != 0x06)
            return null;
        MetadataReader? pdb = Pdb(mvid);
        int row = (int)(methodToken & 0x00FF_FFFF);
        if (pdb is null || row == 0 || row > pdb.MethodDebugInformation.Count)
            return null;
        // MethodDebugInformation rows parallel the MethodDef table.
        MethodDebugInformation method = pdb.GetMethodDebugInformation(MetadataTokens.MethodDebugInformationHandle(row));
        SequencePoint? best = null;
        foreach (SequencePoint point in method.GetSequencePoints())
        {
            if (point.IsHidden || point.StartLine == HiddenLine || point.Offset > ilOffset)
                continue;
            if (best is null || point.Offset >= best.Value.Offset)
                best = point;
        }
        if (best is not { } found)
            return null;
        string file = pdb.GetString(pdb.GetDocument(found.Document).Name);
        return (file, found.StartLine);
    }

    private MetadataReader? Pdb(Guid mvid)
    {
        if (!_pdbs.TryGetValue(mvid, out MetadataReaderProvider? provider))
        {
            provider = Open(mvid);
            _pdbs[mvid] = provider;
        }
        return provider?.GetMetadataReader();
    }

    private MetadataReaderProvider? Open(Guid mvid)
    {
        if (!Assemblies().TryGetValue(mvid, out Assembly? assembly))
        {
            _assemblies = null; // loaded since: look again once
            if (!Assemblies().TryGetValue(mvid, out assembly))
                return null;
        }
        string location = assembly.Location;
        if (string.IsNullOrEmpty(location))
            return null;
        MetadataReaderProvider? provider = null;
        try
        {
            string pdbPath = Path.ChangeExtension(location, ".pdb");
            if (File.Exists(pdbPath))
            {
                provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(pdbPath));
            }
            else
            {
                using var pe = new PEReader(File.OpenRead(location));
                foreach (DebugDirectoryEntry entry in pe.ReadDebugDirectory())
                    if (entry.Type == DebugDirectoryEntryType.EmbeddedPortablePdb)
                        provider = pe.ReadEmbeddedPortablePdbDebugDirectoryData(entry);
            }
            provider?.GetMetadataReader(); // a Windows PDB fails here
            return provider;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or BadImageFormatException)
        {
            provider?.Dispose();
            return null; // the frame keeps its method name only
        }
    }

    private Dictionary<Guid, Assembly> Assemblies()
    {
        if (_assemblies is null)
        {
            _assemblies = [];
            foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
            {
                if (assembly.IsDynamic)
                    continue;
                foreach (Module module in assembly.GetModules())
                    _assemblies.TryAdd(module.ModuleVersionId, assembly);
            }
        }
        return _assemblies;
    }

    /// <summary>Closes the Portable PDBs opened so far.</summary>
    public void Dispose()
    {
        foreach (MetadataReaderProvider? provider in _pdbs.Values)
            provider?.Dispose();
        _pdbs.Clear();
    }
}
