using System.Buffers.Binary;
using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Text.Json;

namespace AlvorKit.Interception.HotReload;

/// <summary>What a notice of a reload is about.</summary>
public enum ReloadNoticeKind
{
    /// <summary>A static constructor or static field initializer changed: it ran when the type was
    /// first used and runs once per process, so the change takes effect at the next start.</summary>
    TakesEffectAtNextStart,

    /// <summary>Metadata the running module keeps as it was loaded (custom attributes, parameter
    /// names, inlining flags) changed: the code applies, the metadata does not until the next start.</summary>
    MetadataNotUpdated,

    /// <summary>A member was removed from the source: it stays in the running game, and nothing
    /// in the updated code calls it.</summary>
    RemovedMemberStays,
}

/// <summary>Something a reload applied only in part, or did not need to apply, said by name.</summary>
/// <param name="Kind">What it is about.</param>
/// <param name="Member">The member, as people write it ("Game.World.Update()").</param>
/// <param name="Message">For people: what happens and what to do.</param>
public sealed record ReloadNotice(ReloadNoticeKind Kind, string Member, string Message);

/// <summary>
/// One update of a loaded assembly in the form the C# compiler emits for Edit and Continue
/// (Roslyn's <c>Compilation.EmitDifference</c> against the loaded build): the metadata delta,
/// the IL delta and the PDB delta of one generation, the same three
/// <see cref="System.Reflection.Metadata.MetadataUpdater.ApplyUpdate"/> takes, plus what the
/// producer wants the game to report. <c>alvorkit-intercept watch</c> writes one file per save
/// (<see cref="Write"/>) and the game's <see cref="HotReloader.WatchFolder"/> reads it
/// (<see cref="Read"/>); <see cref="HotReloader.ApplyUpdate(ReloadDelta)"/> applies one.
/// </summary>
public sealed class ReloadDelta
{
    /// <summary>The largest file <see cref="Read"/> accepts (64 MiB).</summary>
    public const int MaxFileBytes = 64 * 1024 * 1024;

    private static ReadOnlySpan<byte> Magic => "ALVKRLD1"u8;

    private const int HeaderBytes = 8 + 16 + 4 * 4;

    /// <param name="assemblyName">The simple name of the loaded assembly the delta updates.</param>
    /// <param name="moduleVersionId">The MVID of the build the game loaded (the baseline).</param>
    /// <param name="metadata">The metadata delta (ECMA-335 Edit and Continue tables).</param>
    /// <param name="il">The IL delta (method bodies the metadata delta's RVAs point into).</param>
    /// <param name="pdb">The portable PDB delta (may be empty).</param>
    /// <param name="notices">What the producer found that applies only in part.</param>
    /// <param name="changedFiles">The source files of the save, for people (may be empty).</param>
    public ReloadDelta(string assemblyName, Guid moduleVersionId, ReadOnlyMemory<byte> metadata, ReadOnlyMemory<byte> il,
                       ReadOnlyMemory<byte> pdb = default, IReadOnlyList<ReloadNotice>? notices = null,
                       IReadOnlyList<string>? changedFiles = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(assemblyName);
        AssemblyName = assemblyName;
        ModuleVersionId = moduleVersionId;
        Metadata = metadata;
        IL = il;
        Pdb = pdb;
        Notices = notices ?? [];
        ChangedFiles = changedFiles ?? [];
    }

    /// <summary>The simple name of the loaded assembly the delta updates.</summary>
    public string AssemblyName { get; }

    /// <summary>The MVID of the build the game loaded.</summary>
    public Guid ModuleVersionId { get; }

    /// <summary>The metadata delta.</summary>
    public ReadOnlyMemory<byte> Metadata { get; }

    /// <summary>The IL delta.</summary>
    public ReadOnlyMemory<byte> IL { get; }

    /// <summary>The portable PDB delta.</summary>
    public ReadOnlyMemory<byte> Pdb { get; }

    /// <summary>What the producer found that applies only in part.</summary>
    public IReadOnlyList<ReloadNotice> Notices { get; }

    /// <summary>The source files of the save.</summary>
    public IReadOnlyList<string> ChangedFiles { get; }

    /// <summary>MethodDef tokens (of the loaded build) of the methods the update changes back to
    /// the build's own source, bound as the build bound it: the game puts their original bodies
    /// back rather than run the update's copy (whose lambdas and state machines are new ones).</summary>
    public IReadOnlyList<int> RestoredMethods { get; init; } = [];

    /// <summary>A rehearsal: the game reads, lays out, translates and validates the update as it
    /// would apply it, takes it up to the profiler (described and submitted under an owner the
    /// profiler refuses at the call, so nothing is queued), then discards it and changes nothing (the outcome is
    /// <see cref="ReloadOutcome.NothingChanged"/>, the generation stays). A producer sends one at
    /// its start, so that the code an update runs in the game is compiled before the first save;
    /// it rehearses an update that adds nothing, since a side assembly an update needs is built and
    /// loaded in a rehearsal too (and stays loaded, unreferenced).</summary>
    public bool IsRehearsal { get; init; }

    /// <summary>The update's generation id: its metadata delta's Module.EncId, the id the game
    /// reports as its generation (<see cref="ReloadResult.GenerationId"/>) once it applied the
    /// update; <see cref="Guid.Empty"/> when the metadata delta cannot be read.</summary>
    public Guid UpdateId => _updateId ??= ReadUpdateId(Metadata);

    private Guid? _updateId;

    private static Guid ReadUpdateId(ReadOnlyMemory<byte> metadata)
    {
        try
        {
            using MetadataReaderProvider provider = MetadataReaderProvider.FromMetadataImage(ImmutableArray.Create(metadata.Span));
            MetadataReader reader = provider.GetMetadataReader();
            // A delta's #GUID heap holds every generation's GUIDs so far: its own handle reads it.
            return reader.GetGuid(reader.GetModuleDefinition().GenerationId);
        }
        catch (BadImageFormatException)
        {
            return Guid.Empty;
        }
    }

    /// <summary>Writes the file: a fixed header (magic, MVID, section lengths), then the metadata,
    /// IL and PDB deltas and a UTF-8 JSON manifest (name, notices, files).</summary>
    public void Write(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        byte[] manifest = JsonSerializer.SerializeToUtf8Bytes(new Manifest
        {
            Assembly = AssemblyName,
            Files = [.. ChangedFiles],
            Notices = [.. Notices.Select(n => new ManifestNotice { Kind = n.Kind.ToString(), Member = n.Member, Message = n.Message })],
            Restored = [.. RestoredMethods],
            Rehearsal = IsRehearsal ? true : null,
        }, ManifestContext.Default.Manifest);
        Span<byte> header = stackalloc byte[HeaderBytes];
        Magic.CopyTo(header);
        ModuleVersionId.TryWriteBytes(header[8..]);
        BinaryPrimitives.WriteInt32LittleEndian(header[24..], Metadata.Length);
        BinaryPrimitives.WriteInt32LittleEndian(header[28..], IL.Length);
        BinaryPrimitives.WriteInt32LittleEndian(header[32..], Pdb.Length);
        BinaryPrimitives.WriteInt32LittleEndian(header[36..], manifest.Length);
        stream.Write(header);
        stream.Write(Metadata.Span);
        stream.Write(IL.Span);
        stream.Write(Pdb.Span);
        stream.Write(manifest);
    }

    /// <summary>The file's bytes.</summary>
    public byte[] ToArray()
    {
        using var buffer = new MemoryStream();
        Write(buffer);
        return buffer.ToArray();
    }

    /// <summary>Reads a file <see cref="Write"/> wrote.</summary>
    /// <exception cref="InvalidDataException">It is not one: a bad magic, lengths that do not
    /// add up to the file, more than <see cref="MaxFileBytes"/>, or a manifest that is not the
    /// expected JSON. The message says which.</exception>
    public static ReloadDelta Read(ReadOnlySpan<byte> file)
    {
        if (file.Length > MaxFileBytes)
            throw new InvalidDataException($"a reload delta is at most {MaxFileBytes} bytes; this one has {file.Length}");
        if (file.Length < HeaderBytes || !file[..8].SequenceEqual(Magic))
            throw new InvalidDataException("not a reload delta (no ALVKRLD1 header)");
        var mvid = new Guid(file.Slice(8, 16));
        long[] lengths = new long[4];
        long total = HeaderBytes;
        for (int i = 0; i < 4; i++)
        {
            lengths[i] = BinaryPrimitives.ReadInt32LittleEndian(file[(24 + 4 * i)..]);
            if (lengths[i] < 0)
                throw new InvalidDataException("a reload delta with a negative section length");
            total += lengths[i];
        }
        if (total != file.Length)
            throw new InvalidDataException($"a reload delta whose sections take {total} bytes in a file of {file.Length}");
        var sections = new byte[4][];
        int at = HeaderBytes;
        for (int i = 0; i < 4; i++)
        {
            sections[i] = file.Slice(at, (int)lengths[i]).ToArray();
            at += (int)lengths[i];
        }
        byte[] metadata = sections[0], il = sections[1], pdb = sections[2], manifestBytes = sections[3];
        Manifest? manifest;
        try
        {
            manifest = JsonSerializer.Deserialize(manifestBytes, ManifestContext.Default.Manifest);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"a reload delta whose manifest is not valid: {e.Message}", e);
        }
        if (manifest?.Assembly is not { Length: > 0 } assembly)
            throw new InvalidDataException("a reload delta whose manifest names no assembly");
        var notices = new List<ReloadNotice>();
        foreach (ManifestNotice n in manifest.Notices ?? [])
        {
            if (!Enum.TryParse(n.Kind, out ReloadNoticeKind kind) || n.Member is null || n.Message is null)
                throw new InvalidDataException($"a reload delta with a notice of unknown kind '{n.Kind}'");
            notices.Add(new ReloadNotice(kind, n.Member, n.Message));
        }
        if ((manifest.Restored ?? []).Any(t => (t >> 24) != 0x06))
            throw new InvalidDataException("a reload delta whose restored methods are not MethodDef tokens");
        return new ReloadDelta(assembly, mvid, metadata, il, pdb, notices, manifest.Files ?? [])
        {
            RestoredMethods = manifest.Restored ?? [],
            IsRehearsal = manifest.Rehearsal ?? false,
        };
    }

    internal sealed class Manifest
    {
        public string? Assembly { get; set; }

        public List<string>? Files { get; set; }

        public List<ManifestNotice>? Notices { get; set; }

        public List<int>? Restored { get; set; }

        public bool? Rehearsal { get; set; }
    }

    internal sealed class ManifestNotice
    {
        public string? Kind { get; set; }

        public string? Member { get; set; }

        public string? Message { get; set; }
    }
}

[System.Text.Json.Serialization.JsonSerializable(typeof(ReloadDelta.Manifest))]
[System.Text.Json.Serialization.JsonSourceGenerationOptions(PropertyNamingPolicy = System.Text.Json.Serialization.JsonKnownNamingPolicy.CamelCase)]
internal sealed partial class ManifestContext : System.Text.Json.Serialization.JsonSerializerContext;
