using System.Text;

namespace AlvorKit.Interception.Native;

// Hand-written conveniences on the generated structs (Generated/Abi.g.cs): strings out of
// fixed UTF-8 buffers, hashes as hex, MVIDs from and to Guid, requests built from a method
// description. No layout here: the generated file is the only declaration of each struct.

/// <summary>Helpers shared by the partial structs.</summary>
public static class AlvkText
{
    /// <summary>The NUL-terminated UTF-8 text in a fixed buffer.</summary>
    public static unsafe string Utf8Z(byte* p, int capacity)
    {
        var span = new ReadOnlySpan<byte>(p, capacity);
        int end = span.IndexOf((byte)0);
        return Encoding.UTF8.GetString(end < 0 ? span : span[..end]);
    }

    /// <summary>The Guid an alvk_mvid holds (its bytes are Guid.ToByteArray()'s).</summary>
    public static unsafe Guid ToGuid(this in AlvkMvid mvid)
    {
        fixed (byte* p = mvid.Bytes)
            return new Guid(new ReadOnlySpan<byte>(p, 16));
    }
}

public unsafe partial struct AlvkMvid
{
    /// <summary>The alvk_mvid of a module version ID.</summary>
    public static AlvkMvid From(Guid mvid)
    {
        AlvkMvid result = default;
        mvid.TryWriteBytes(new Span<byte>(result.Bytes, 16));
        return result;
    }
}

public unsafe partial struct AlvkRuntimeStatus
{
    /// <summary>runtime_version as text.</summary>
    public readonly string RuntimeVersion
    {
        get { fixed (byte* p = RuntimeVersionUtf8) return AlvkText.Utf8Z(p, (int)AlvkConstants.RuntimeVersionCapacity); }
    }

    /// <summary>The normalized allowlist as text.</summary>
    public readonly string Allowlist
    {
        get { fixed (byte* p = AllowlistUtf8) return AlvkText.Utf8Z(p, (int)AlvkConstants.AllowlistTextCapacity); }
    }
}

public unsafe partial struct AlvkMethodDescription
{
    /// <summary>The method flags as the enum.</summary>
    public readonly AlvkMethodFlags MethodFlags => (AlvkMethodFlags)Flags;

    /// <summary>signature_hash in hex.</summary>
    public readonly string SignatureHashHex
    {
        get { fixed (byte* p = SignatureHash) return Convert.ToHexString(new ReadOnlySpan<byte>(p, 32)); }
    }

    /// <summary>body_identity in hex.</summary>
    public readonly string BodyIdentityHex
    {
        get { fixed (byte* p = BodyIdentity) return Convert.ToHexString(new ReadOnlySpan<byte>(p, 32)); }
    }
}

public unsafe partial struct AlvkInstallRequest
{
    /// <summary>A request for the method `target` describes, with both hashes copied.</summary>
    public static AlvkInstallRequest For(in AlvkMethodDescription target, IntPtr replacement, ulong owner,
        AlvkInstallFlags flags = AlvkInstallFlags.None)
    {
        AlvkInstallRequest request = default;
        request.Size = (uint)sizeof(AlvkInstallRequest);
        request.MethodToken = target.MethodToken;
        request.ModuleMvid = target.ModuleMvid;
        fixed (byte* hash = target.SignatureHash)
            new ReadOnlySpan<byte>(hash, 32).CopyTo(new Span<byte>(request.SignatureHash, 32));
        fixed (byte* body = target.BodyIdentity)
            new ReadOnlySpan<byte>(body, 32).CopyTo(new Span<byte>(request.BodyIdentity, 32));
        request.Replacement = (ulong)replacement;
        request.Owner = owner;
        request.Flags = (uint)flags;
        return request;
    }
}

public unsafe partial struct AlvkGeneration
{
    /// <summary>A generation for the method `target` describes, with its loaded-body identity
    /// copied; the caller fills the pointers and counts.</summary>
    public static AlvkGeneration For(in AlvkMethodDescription target, ulong priorGeneration, ulong owner,
        AlvkInstallFlags flags = AlvkInstallFlags.None)
    {
        AlvkGeneration generation = default;
        generation.Size = (uint)sizeof(AlvkGeneration);
        generation.MethodToken = target.MethodToken;
        generation.ModuleMvid = target.ModuleMvid;
        fixed (byte* body = target.BodyIdentity)
            new ReadOnlySpan<byte>(body, 32).CopyTo(new Span<byte>(generation.ExpectedBodyIdentity, 32));
        generation.PriorGeneration = priorGeneration;
        generation.Owner = owner;
        generation.Flags = (uint)flags;
        return generation;
    }
}

public unsafe partial struct AlvkTypeCount
{
    /// <summary>The type's name.</summary>
    public readonly string Name
    {
        get { fixed (byte* p = NameUtf8) return AlvkText.Utf8Z(p, (int)AlvkConstants.TypeNameCapacity); }
    }
}

public unsafe partial struct AlvkMethodInfo
{
    /// <summary>"Namespace.Type.Method".</summary>
    public readonly string Name
    {
        get { fixed (byte* p = NameUtf8) return AlvkText.Utf8Z(p, (int)AlvkConstants.MethodNameCapacity); }
    }
}

/// <summary>Names of the allocation-profiling environment variables.</summary>
public static class AlvkCapture
{
    /// <summary>Set at startup to turn allocation profiling on: "sampled", or "exact" (or "1").</summary>
    public const string ProfilingVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING";
    /// <summary>The per-type table's size in types (read at startup, within ALVK_MAX_TYPE_SLOTS).</summary>
    public const string TypeSlotsVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_TYPES";
    /// <summary>The sample storage's size in samples (read at startup, within ALVK_MAX_SAMPLE_SLOTS).</summary>
    public const string SampleSlotsVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES";
}
