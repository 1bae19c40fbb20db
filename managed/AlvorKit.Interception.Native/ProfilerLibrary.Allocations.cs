namespace AlvorKit.Interception.Native;

// The allocation capture functions: thin calls that return the native status.
public sealed unsafe partial class ProfilerLibrary
{
    /// <summary>alvk_capture_begin. Sets options.Size.</summary>
    public AlvkStatus CaptureBegin(AlvkCaptureOptions options) => CaptureBegin(options, size: null);

    /// <summary>alvk_capture_begin; `size` overrides options.Size (tests).</summary>
    internal AlvkStatus CaptureBegin(AlvkCaptureOptions options, uint? size)
    {
        options.Size = size ?? (uint)sizeof(AlvkCaptureOptions);
        return _exports.CaptureBegin(&options);
    }

    /// <summary>alvk_capture_end.</summary>
    public AlvkStatus CaptureEnd(out AlvkCaptureSummary summary) => CaptureEnd(out summary, size: null);

    /// <summary>alvk_capture_end; `size` overrides the summary's size field (tests).</summary>
    internal AlvkStatus CaptureEnd(out AlvkCaptureSummary summary, uint? size)
    {
        summary = default;
        summary.Size = size ?? (uint)sizeof(AlvkCaptureSummary);
        fixed (AlvkCaptureSummary* p = &summary)
            return _exports.CaptureEnd(p);
    }

    /// <summary>alvk_capture_read_types from index `first` into `types`; sets every
    /// element's Size to sizeof(AlvkTypeCount), which the library checks and takes as the
    /// array's stride (out[0].size).</summary>
    public AlvkStatus CaptureReadTypes(uint first, Span<AlvkTypeCount> types, out uint written)
    {
        written = 0;
        foreach (ref AlvkTypeCount t in types)
            t.Size = (uint)sizeof(AlvkTypeCount);
        fixed (AlvkTypeCount* p = types)
        fixed (uint* w = &written)
            return _exports.CaptureReadTypes(first, p, (uint)types.Length, w);
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
            return _exports.CaptureReadSamples(first, p, (uint)samples.Length, w);
    }

    /// <summary>alvk_capture_get_state: the capture machinery's phase and counters (ABI 3.5).
    /// Answers ALVK_E_ALLOCATION_PROFILING_OFF without allocation profiling, the fields still
    /// filled (phase Idle, profiling Off). Allocates nothing.</summary>
    public AlvkStatus CaptureGetState(out AlvkCaptureState state) => CaptureGetState(out state, size: null);

    /// <summary>alvk_capture_get_state; `size` overrides the state's size field (tests).</summary>
    internal AlvkStatus CaptureGetState(out AlvkCaptureState state, uint? size)
    {
        state = default;
        state.Size = size ?? (uint)sizeof(AlvkCaptureState);
        fixed (AlvkCaptureState* p = &state)
            return _exports.CaptureGetState(p);
    }

    /// <summary>alvk_capture_describe_function: the method of a frame of the last window.</summary>
    public AlvkStatus CaptureDescribeFunction(ulong functionId, out AlvkMethodInfo info)
    {
        info = default;
        info.Size = (uint)sizeof(AlvkMethodInfo);
        fixed (AlvkMethodInfo* p = &info)
            return _exports.CaptureDescribeFunction(functionId, p);
    }
}
