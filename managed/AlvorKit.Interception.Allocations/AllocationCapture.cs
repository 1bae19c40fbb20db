using System.Diagnostics;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.Allocations;

/// <summary>How a window records: the fields of alvk_capture_options (0 means the profiler's default).</summary>
public readonly record struct AllocationCaptureOptions(
    AlvkCaptureMode Mode = AlvkCaptureMode.Sampled,
    uint SampleIntervalBytes = 0,
    uint MaxSamples = 0,
    uint MaxFrames = 0,
    ulong Seed = 0)
{
    public static AllocationCaptureOptions CountOnly => new(AlvkCaptureMode.CountOnly);
    public static AllocationCaptureOptions Sampled => new(AlvkCaptureMode.Sampled);
}

/// <summary>A capture call the profiler refused; Status is the native status.</summary>
public sealed class AllocationCaptureException(AlvkStatus status, string message) : Exception(message)
{
    public AlvkStatus Status { get; } = status;
}

/// <summary>
/// Allocation capture windows: Begin opens one, End closes it and reads everything the
/// profiler recorded (all types, all samples) into an AllocationReport, with each frame
/// resolved to its method name and, through the module's Portable PDB, its source line.
/// The process must have started with ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1.
/// Between Begin and End this class allocates nothing: what the window counts is the
/// program's.
/// </summary>
public sealed class AllocationCapture
{
    private const int TypePage = 256;
    private const int SamplePage = 32;

    public AllocationCapture(ProfilerLibrary library)
    {
        Library = library;
        // Resolve the exports and compile End's path now, so neither happens inside a window.
        library.PrepareCapture();
        RuntimeHelpers.PrepareMethod(typeof(AllocationCapture).GetMethod(nameof(End))!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(ProfilerLibrary).GetMethod(nameof(ProfilerLibrary.CaptureEnd))!.MethodHandle);
    }

    /// <summary>Opens the profiler CoreCLR loaded (ProfilerLibrary.Open) for capture.</summary>
    public static AllocationCapture Open() => new(ProfilerLibrary.Open());

    public ProfilerLibrary Library { get; }

    /// <summary>Opens a window; throws AllocationCaptureException if the profiler refuses.</summary>
    public void Begin(AllocationCaptureOptions options)
    {
        AlvkStatus status = Library.CaptureBegin(new AlvkCaptureOptions
        {
            Mode = options.Mode,
            SampleIntervalBytes = options.SampleIntervalBytes,
            MaxSamples = options.MaxSamples,
            MaxFrames = options.MaxFrames,
            Seed = options.Seed,
        });
        if (status != AlvkStatus.Ok)
            throw Refused("alvk_capture_begin", status);
    }

    /// <summary>Closes the window and reads its counts and samples.</summary>
    public AllocationReport End()
    {
        AlvkStatus status = Library.CaptureEnd(out AlvkCaptureSummary summary);
        if (status == AlvkStatus.Timeout)
            WaitForResolution(); // the worker is still naming types and frames
        else if (status != AlvkStatus.Ok)
            throw Refused("alvk_capture_end", status);
        return Read(summary);
    }

    private AllocationReport Read(in AlvkCaptureSummary summary)
    {
        var types = new List<TypeAllocation>((int)summary.TypeCount);
        var typePage = new AlvkTypeCount[TypePage];
        for (uint first = 0; ; )
        {
            Check("alvk_capture_read_types", Library.CaptureReadTypes(first, typePage, out uint written));
            for (int i = 0; i < written; i++)
            {
                ref AlvkTypeCount t = ref typePage[i];
                string name = t.Name;
                types.Add(new TypeAllocation(name.Length > 0 ? name : $"[class 0x{t.ClassId:x}]", t.ClassId, t.Count,
                    t.Bytes));
            }
            first += written;
            if (written < typePage.Length)
                break;
        }

        var byClass = types.ToDictionary(t => t.ClassId);
        var samples = new List<AllocationSample>((int)summary.SampleCount);
        var methods = new Dictionary<ulong, string>();
        using var sources = new SourceLocator();
        var samplePage = new AlvkSample[SamplePage];
        for (uint first = 0; ; )
        {
            Check("alvk_capture_read_samples", Library.CaptureReadSamples(first, samplePage, out uint written));
            for (int i = 0; i < written; i++)
                samples.Add(Resolve(in samplePage[i], byClass, methods, sources));
            first += written;
            if (written < samplePage.Length)
                break;
        }
        return new AllocationReport(summary, types, samples);
    }

    private AllocationSample Resolve(in AlvkSample sample, Dictionary<ulong, TypeAllocation> byClass,
        Dictionary<ulong, string> methods, SourceLocator sources)
    {
        int count = (int)Math.Min(sample.FrameCount, (uint)(int)AlvkConstants.MaxSampleFrames);
        var frames = new AllocationFrame[count];
        for (int k = 0; k < count; k++)
        {
            AlvkFrame f = sample.Frames[k];
            Guid mvid = f.ModuleMvid.ToGuid();
            var source = sources.Locate(mvid, f.MethodToken, f.ILOffset);
            frames[k] = new AllocationFrame(MethodName(f.FunctionId, methods), source?.File, source?.Line, mvid,
                f.MethodToken, f.ILOffset);
        }
        byClass.TryGetValue(sample.ClassId, out TypeAllocation? type);
        // The objects a sample stands for: its bytes over its type's exact mean size.
        ulong objects = 1;
        if (type is { Count: > 0, Bytes: > 0 })
            objects = Math.Max(1, (ulong)Math.Round(sample.WeightBytes / ((double)type.Bytes / type.Count)));
        return new AllocationSample(type?.Name ?? $"[class 0x{sample.ClassId:x}]", sample.ClassId, sample.WeightBytes,
            objects, frames);
    }

    private string MethodName(ulong functionId, Dictionary<ulong, string> methods)
    {
        if (functionId == 0)
            return "[native code]";
        if (!methods.TryGetValue(functionId, out string? name))
        {
            AlvkStatus status = Library.CaptureDescribeFunction(functionId, out AlvkMethodInfo info);
            name = status == AlvkStatus.Ok && info.Name.Length > 0
                ? info.Name
                : $"[function 0x{functionId:x}: {status.ToString()}]";
            methods[functionId] = name;
        }
        return name;
    }

    // alvk_capture_end returned ALVK_E_TIMEOUT: the results become readable when the worker
    // has resolved them (reads answer ALVK_E_NO_CAPTURE until then).
    private void WaitForResolution()
    {
        var clock = Stopwatch.StartNew();
        while (Library.CaptureReadTypes(0, [], out _) == AlvkStatus.NoCapture)
        {
            if (clock.Elapsed > TimeSpan.FromSeconds(30))
                throw Refused("alvk_capture_end", AlvkStatus.Timeout);
            Thread.Sleep(10);
        }
    }

    private void Check(string call, AlvkStatus status)
    {
        if (status != AlvkStatus.Ok)
            throw Refused(call, status);
    }

    private AllocationCaptureException Refused(string call, AlvkStatus status) =>
        new(status, $"{call} returned {status.ToString()}: {Library.StatusString(status)}");
}
