using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;

namespace AlvorKit.Interception.Native;

/// <summary>alvk_capture_mode.</summary>
public enum AlvkCaptureMode : int
{
    /// <summary>Exact per-type counts only.</summary>
    CountOnly = 0,
    /// <summary>Counts, plus sampled stacks.</summary>
    Sampled = 1,
}

/// <summary>The allocation-capture constants of the header (ALVK_MAX_SAMPLE_FRAMES,
/// ALVK_DEFAULT_*, ...) and its statuses 600-604, which AlvkStatus does not name yet.</summary>
public static class AlvkCapture
{
    public const int MaxSampleFrames = 64;
    public const int TypeNameCapacity = 512;
    public const int MethodNameCapacity = 256;
    public const uint DefaultSampleIntervalBytes = 102400;
    public const uint DefaultTypeSlots = 4096;
    public const uint MaxTypeSlots = 1048576;
    public const uint DefaultSampleSlots = 1024;
    public const uint MaxSampleSlots = 262144;

    public const string ProfilingVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING";
    public const string TypeSlotsVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_TYPES";
    public const string SampleSlotsVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES";

    /// <summary>ALVK_E_ALLOCATION_PROFILING_OFF.</summary>
    public const AlvkStatus AllocationProfilingOff = (AlvkStatus)600;
    /// <summary>ALVK_E_CAPTURE_ACTIVE.</summary>
    public const AlvkStatus CaptureActive = (AlvkStatus)601;
    /// <summary>ALVK_E_CAPTURE_NOT_ACTIVE.</summary>
    public const AlvkStatus CaptureNotActive = (AlvkStatus)602;
    /// <summary>ALVK_E_NO_CAPTURE.</summary>
    public const AlvkStatus NoCapture = (AlvkStatus)603;
    /// <summary>ALVK_E_UNKNOWN_FUNCTION.</summary>
    public const AlvkStatus UnknownFunction = (AlvkStatus)604;

    /// <summary>The status's name, the capture statuses included.</summary>
    public static string StatusName(AlvkStatus status) => (int)status switch
    {
        600 => nameof(AllocationProfilingOff),
        601 => nameof(CaptureActive),
        602 => nameof(CaptureNotActive),
        603 => nameof(NoCapture),
        604 => nameof(UnknownFunction),
        _ => status.ToString(),
    };

    /// <summary>The Guid an alvk_mvid holds (its bytes are Guid.ToByteArray()'s).</summary>
    public static unsafe Guid ToGuid(this in AlvkMvid mvid)
    {
        fixed (byte* p = mvid.Bytes)
            return new Guid(new ReadOnlySpan<byte>(p, 16));
    }

    internal static unsafe string Utf8Z(byte* p, int capacity)
    {
        var span = new ReadOnlySpan<byte>(p, capacity);
        int end = span.IndexOf((byte)0);
        return Encoding.UTF8.GetString(end < 0 ? span : span[..end]);
    }
}

/// <summary>alvk_capture_options, field for field (32 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkCaptureOptions
{
    public uint Size;
    public AlvkCaptureMode Mode;
    public uint SampleIntervalBytes;
    public uint MaxSamples;
    public uint MaxFrames;
    public uint Reserved;
    public ulong Seed;
}

/// <summary>alvk_capture_summary, field for field (72 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkCaptureSummary
{
    public uint Size;
    public AlvkCaptureMode Mode;
    public uint TypeCount;
    public uint SampleCount;
    public ulong TotalObjects;
    public ulong TotalBytes;
    public ulong OverflowObjects;
    public ulong OverflowBytes;
    public ulong DroppedSamples;
    public ulong ElapsedNs;
    public uint TypeSlots;
    public uint SampleSlots;
}

/// <summary>alvk_type_count, field for field (32 + 512 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkTypeCount
{
    public uint Size;
    public uint Reserved;
    public ulong ClassId;
    public ulong Count;
    public ulong Bytes;
    public fixed byte NameUtf8[AlvkCapture.TypeNameCapacity];

    public readonly string Name
    {
        get { fixed (byte* p = NameUtf8) return AlvkCapture.Utf8Z(p, AlvkCapture.TypeNameCapacity); }
    }
}

/// <summary>alvk_frame, field for field (40 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkFrame
{
    /// <summary>0 for a native frame.</summary>
    public ulong FunctionId;
    public ulong Ip;
    /// <summary>Zero when not in a catalogued module.</summary>
    public AlvkMvid ModuleMvid;
    public uint MethodToken;
    /// <summary>-1 when unknown (prolog, epilog, no mapping).</summary>
    public int ILOffset;
}

/// <summary>alvk_sample.frames: ALVK_MAX_SAMPLE_FRAMES frames in line.</summary>
[InlineArray(AlvkCapture.MaxSampleFrames)]
public struct AlvkFrames
{
    private AlvkFrame _first;
}

/// <summary>alvk_sample, field for field (24 + 64 * 40 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public struct AlvkSample
{
    public uint Size;
    public uint FrameCount;
    public ulong ClassId;
    public ulong WeightBytes;
    /// <summary>Innermost first; FrameCount of them are valid.</summary>
    public AlvkFrames Frames;
}

/// <summary>alvk_method_info, field for field (24 + 256 bytes).</summary>
[StructLayout(LayoutKind.Sequential)]
public unsafe struct AlvkMethodInfo
{
    public uint Size;
    public uint MethodToken;
    public AlvkMvid ModuleMvid;
    public fixed byte NameUtf8[AlvkCapture.MethodNameCapacity];

    /// <summary>"Namespace.Type.Method".</summary>
    public readonly string Name
    {
        get { fixed (byte* p = NameUtf8) return AlvkCapture.Utf8Z(p, AlvkCapture.MethodNameCapacity); }
    }
}
