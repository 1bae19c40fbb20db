using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

// The allocation capture functions: thin calls that return the native status. Their exports
// are resolved on first use, from the library at Path (the instance CoreCLR loaded).
public sealed unsafe partial class ProfilerLibrary
{
    private CaptureExports? _capture;

    private CaptureExports Capture => _capture ??= new CaptureExports(Path);

    private sealed class CaptureExports
    {
        public readonly delegate* unmanaged<AlvkCaptureOptions*, AlvkStatus> Begin;
        public readonly delegate* unmanaged<AlvkCaptureSummary*, AlvkStatus> End;
        public readonly delegate* unmanaged<uint, AlvkTypeCount*, uint, uint*, AlvkStatus> ReadTypes;
        public readonly delegate* unmanaged<uint, AlvkSample*, uint, uint*, AlvkStatus> ReadSamples;
        public readonly delegate* unmanaged<ulong, AlvkMethodInfo*, AlvkStatus> DescribeFunction;

        public CaptureExports(string path)
        {
            IntPtr handle = NativeLibrary.Load(path);
            Begin = (delegate* unmanaged<AlvkCaptureOptions*, AlvkStatus>)Export(handle, path, "alvk_capture_begin");
            End = (delegate* unmanaged<AlvkCaptureSummary*, AlvkStatus>)Export(handle, path, "alvk_capture_end");
            ReadTypes = (delegate* unmanaged<uint, AlvkTypeCount*, uint, uint*, AlvkStatus>)Export(
                handle, path, "alvk_capture_read_types");
            ReadSamples = (delegate* unmanaged<uint, AlvkSample*, uint, uint*, AlvkStatus>)Export(
                handle, path, "alvk_capture_read_samples");
            DescribeFunction = (delegate* unmanaged<ulong, AlvkMethodInfo*, AlvkStatus>)Export(
                handle, path, "alvk_capture_describe_function");
        }
    }

    /// <summary>Resolves the capture exports now, so the first CaptureBegin does no work
    /// (and allocates nothing) before the window opens.</summary>
    public void PrepareCapture() => _ = Capture;

    /// <summary>alvk_capture_begin. Sets options.Size; `size` overrides it (tests).</summary>
    public AlvkStatus CaptureBegin(AlvkCaptureOptions options, uint? size = null)
    {
        options.Size = size ?? (uint)sizeof(AlvkCaptureOptions);
        return Capture.Begin(&options);
    }

    /// <summary>alvk_capture_end; `size` overrides the summary's size field (tests).</summary>
    public AlvkStatus CaptureEnd(out AlvkCaptureSummary summary, uint? size = null)
    {
        summary = default;
        summary.Size = size ?? (uint)sizeof(AlvkCaptureSummary);
        fixed (AlvkCaptureSummary* p = &summary)
            return Capture.End(p);
    }

    /// <summary>alvk_capture_read_types from index `first` into `types`; sets every
    /// element's Size, which the library checks.</summary>
    public AlvkStatus CaptureReadTypes(uint first, Span<AlvkTypeCount> types, out uint written)
    {
        written = 0;
        foreach (ref AlvkTypeCount t in types)
            t.Size = (uint)sizeof(AlvkTypeCount);
        fixed (AlvkTypeCount* p = types)
        fixed (uint* w = &written)
            return Capture.ReadTypes(first, p, (uint)types.Length, w);
    }

    /// <summary>alvk_capture_read_samples from index `first` into `samples`; sets every
    /// element's Size.</summary>
    public AlvkStatus CaptureReadSamples(uint first, Span<AlvkSample> samples, out uint written)
    {
        written = 0;
        foreach (ref AlvkSample s in samples)
            s.Size = (uint)sizeof(AlvkSample);
        fixed (AlvkSample* p = samples)
        fixed (uint* w = &written)
            return Capture.ReadSamples(first, p, (uint)samples.Length, w);
    }

    /// <summary>alvk_capture_describe_function: the method of a frame of the last window.</summary>
    public AlvkStatus CaptureDescribeFunction(ulong functionId, out AlvkMethodInfo info)
    {
        info = default;
        info.Size = (uint)sizeof(AlvkMethodInfo);
        fixed (AlvkMethodInfo* p = &info)
            return Capture.DescribeFunction(functionId, p);
    }
}
