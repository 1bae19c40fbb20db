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
