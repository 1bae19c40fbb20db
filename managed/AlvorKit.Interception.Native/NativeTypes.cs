using System.Runtime.InteropServices;
using System.Text;

namespace AlvorKit.Interception.Native;

/// <summary>alvk_status: pinned values from include/alvorkit_interception_profiler.h.</summary>
public enum AlvkStatus : int
{
    Ok = 0,
    NullArgument = 1,
    StructSize = 2,
    NotAttached = 3,
    BufferTooSmall = 4,
    Internal = 99,
    ProfilerPathUnset = 100,
    ProfilerPathMismatch = 101,
    AllowlistMalformed = 102,
    NoPatchableModules = 103,
    ProfilerInfoUnavailable = 104,
    EventMaskRefused = 105,
    AllocationFlagMalformed = 106,
    WorkerUnavailable = 200,
    QueueFull = 201,
    Timeout = 202,
    SignatureMalformed = 300,
    SignatureUnsupported = 301,
    MethodBodyMalformed = 302,
    GenericTargetUnsupported = 303,
    LimitExceeded = 304,
    UnknownModule = 310,
    ModuleNotAllowed = 311,
    ModuleUnloaded = 312,
    TokenNotMethodDef = 313,
    TokenOutOfRange = 314,
    MethodHasNoIL = 315,
    MetadataFailed = 316,
    CatalogFull = 317,
    SignatureHashMismatch = 318,
    BodyIdentityMismatch = 319,
    UnknownPatch = 400,
    NotOwner = 401,
    InvalidOwner = 402,
    InvalidReplacement = 403,
    InvalidFlags = 404,
    PatchTableFull = 405,
    OwnersFull = 406,
    PatchEnded = 407,
    RejitFailed = 408,
    MetadataEmitFailed = 409,
    StaleGeneration = 500,
    UnknownGeneration = 501,
    ILMalformed = 502,
    RelocationMalformed = 503,
    RelocationNotOperand = 504,
    RelocationKindMismatch = 505,
    RelocationOverlap = 506,
    ILMapInvalid = 507,
    CompilationFailed = 508,
}

/// <summary>alvk_method_flags.</summary>
[Flags]
public enum AlvkMethodFlags : uint
{
    None = 0,
    HasThis = 0x1,
    Generic = 0x2,
    DeclaringTypeGeneric = 0x4,
    ValueTypeReceiver = 0x8,
}

/// <summary>alvk_mvid: the bytes of Guid.ToByteArray().</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkMvid
{
    public fixed byte Bytes[16];

    public static AlvkMvid From(Guid mvid)
    {
        AlvkMvid result = default;
        mvid.TryWriteBytes(new Span<byte>(result.Bytes, 16));
        return result;
    }
}

/// <summary>alvk_method_description, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkMethodDescription
{
    public uint Size;
    public uint MethodToken;
    public AlvkMvid ModuleMvid;
    public uint ModuleEpoch;
    public uint MethodAttributes;
    public uint ImplAttributes;
    public AlvkMethodFlags Flags;
    public uint DeclaringType;
    public uint ParamCount;
    public uint SignatureLength;
    public uint BodySize;
    public uint CodeSize;
    public uint MaxStack;
    public uint EhClauseCount;
    public uint LocalSignature;
    public fixed byte SignatureHash[32];
    public fixed byte BodyIdentity[32];

    public readonly string SignatureHashHex
    {
        get { fixed (byte* p = SignatureHash) return Convert.ToHexString(new ReadOnlySpan<byte>(p, 32)); }
    }

    public readonly string BodyIdentityHex
    {
        get { fixed (byte* p = BodyIdentity) return Convert.ToHexString(new ReadOnlySpan<byte>(p, 32)); }
    }
}

/// <summary>alvk_allowlist_kind.</summary>
public enum AlvkAllowlistKind : int
{
    None = 0,
    Named = 1,
    All = 2,
}

/// <summary>alvk_runtime_status, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkRuntimeStatus
{
    public const int RuntimeVersionCapacity = 64;
    public const int AllowlistTextCapacity = 4096;

    public uint Size;
    public uint Attached;
    public AlvkStatus StartupStatus;
    public uint ProfilerInfoVersion;
    public uint EventMaskLow;
    public uint EventMaskHigh;
    public uint RuntimeType;
    public ushort RuntimeMajor;
    public ushort RuntimeMinor;
    public ushort RuntimeBuild;
    public ushort RuntimeQfe;
    public AlvkAllowlistKind AllowlistKind;
    public uint AllowlistCount;
    public uint AllocationProfiling;
    public uint WorkerAlive;
    public int WorkerInitHResult;
    public uint QueueCapacity;
    public uint QueueDepth;
    public ulong CommandsCompleted;
    public fixed byte RuntimeVersionUtf8[RuntimeVersionCapacity];
    public fixed byte AllowlistUtf8[AllowlistTextCapacity];

    public readonly string RuntimeVersion
    {
        get { fixed (byte* p = RuntimeVersionUtf8) return Utf8Z(p, RuntimeVersionCapacity); }
    }

    public readonly string Allowlist
    {
        get { fixed (byte* p = AllowlistUtf8) return Utf8Z(p, AllowlistTextCapacity); }
    }

    private static string Utf8Z(byte* p, int capacity)
    {
        var span = new ReadOnlySpan<byte>(p, capacity);
        int end = span.IndexOf((byte)0);
        return Encoding.UTF8.GetString(end < 0 ? span : span[..end]);
    }
}
