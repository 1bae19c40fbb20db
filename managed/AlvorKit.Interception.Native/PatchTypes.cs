using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

/// <summary>alvk_install_flags.</summary>
[Flags]
public enum AlvkInstallFlags : uint
{
    None = 0,
    /// <summary>RequestReJIT of the target and the inliners the profiler saw, instead of
    /// RequestReJITWithInliners(COR_PRF_REJIT_BLOCK_INLINING).</summary>
    InlinerFallback = 0x1,
}

/// <summary>alvk_patch_state.</summary>
public enum AlvkPatchState : int
{
    Pending = 0,
    Active = 1,
    Removed = 2,
    Failed = 3,
    Rejected = 4,
    Unloaded = 5,
}

/// <summary>alvk_install_request, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkInstallRequest
{
    public uint Size;
    public uint MethodToken;
    public AlvkMvid ModuleMvid;
    public fixed byte SignatureHash[32];
    public fixed byte BodyIdentity[32];
    public ulong Replacement;
    public ulong Owner;
    public AlvkInstallFlags Flags;
    public uint Reserved;

    /// <summary>A request for the method `target` describes, with its hashes copied.</summary>
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
        request.Flags = flags;
        return request;
    }
}

/// <summary>alvk_patch_telemetry, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkPatchTelemetry
{
    public uint Size;
    public AlvkPatchState State;
    public AlvkStatus LastStatus;
    public uint PendingCommands;
    public uint CommandsCompleted;
    public uint OwnerCount;
    public AlvkInstallFlags Flags;
    public uint ModuleEpoch;
    public uint MethodToken;
    public uint CalliSignatureToken;
    public uint GetReJITParameters;
    public uint ReJITStarted;
    public uint ReJITFinished;
    public uint ReJITErrors;
    public uint InlinersReJITted;
    public int RequestHResult;
    public int SetILHResult;
    public int CompilationHResult;
    public int ErrorHResult;
    public int MetadataHResult;
    public ulong Replacement;
    public ulong CommandElapsedNs;
    public ulong CompileElapsedNs;
}
