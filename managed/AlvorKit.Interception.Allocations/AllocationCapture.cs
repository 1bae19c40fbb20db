using System.Diagnostics;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.Allocations;

/// <summary>What a window records.</summary>
public enum AllocationCaptureMode
{
    /// <summary>Exact per-type counts and bytes only.</summary>
    CountOnly = 0,

    /// <summary>Counts, plus sampled allocation stacks.</summary>
    Sampled = 1,
}

/// <summary>How a window records (0 means the profiler's default).</summary>
/// <param name="Mode">Counts only, or counts and sampled stacks.</param>
/// <param name="SampleIntervalBytes">The mean bytes between two samples.</param>
/// <param name="MaxSamples">At most this many samples (up to the storage fixed at startup).</param>
/// <param name="MaxFrames">At most this many frames per sample.</param>
/// <param name="Seed">The sampling's random seed (0: one of the profiler's choosing).</param>
public readonly record struct AllocationCaptureOptions(
    AllocationCaptureMode Mode = AllocationCaptureMode.Sampled,
    uint SampleIntervalBytes = 0,
    uint MaxSamples = 0,
    uint MaxFrames = 0,
    ulong Seed = 0)
{
    /// <summary>A count-only window.</summary>
    public static AllocationCaptureOptions CountOnly => new(AllocationCaptureMode.CountOnly);

    /// <summary>A sampled window with the profiler's defaults.</summary>
    public static AllocationCaptureOptions Sampled => new(AllocationCaptureMode.Sampled);
}

/// <summary>A capture call the profiler refused: <see cref="InterceptionException.Status"/> says why
/// (for example <see cref="InterceptionStatus.AllocationProfilingOff"/> or
/// <see cref="InterceptionStatus.CaptureActive"/>).</summary>
public sealed class AllocationCaptureException : InterceptionException
{
    internal AllocationCaptureException(InterceptionStatus status, string call, string message)
        : base(message, status)
    {
        Call = call;
    }

    /// <summary>The profiler's status (never null for this exception).</summary>
    public new InterceptionStatus Status => base.Status!.Value;

    /// <summary>The profiler function that refused, such as <c>alvk_capture_begin</c>.</summary>
    public string Call { get; }
}

/// <summary>
/// Allocation capture windows, from <c>interceptor.Allocations</c>:
/// <code>
/// using (var window = interceptor.Allocations.Begin(AllocationCaptureOptions.Sampled))
/// {
///     RunTheFrame();
///     AllocationReport report = window.End();
/// }
/// </code>
/// <see cref="Begin"/> opens a window; <see cref="AllocationWindow.End"/> closes it and reads
/// everything the profiler recorded (all types, all samples) into an <see cref="AllocationReport"/>,
/// with each frame resolved to its method name and, through the module's Portable PDB, its
/// source line. The process must have started with ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1
/// (<c>alvorkit-intercept run --allocations</c>). One window is open at a time in the process.
/// Between Begin and End nothing here allocates: what the window counts is the program's.
/// </summary>
public sealed class AllocationCapture
{
    private const int TypePage = 256;
    private const int SamplePage = 32;

    internal AllocationCapture(ProfilerLibrary library)
    {
        Library = library;
        // Compile End's path now, so it does not happen inside a window.
        RuntimeHelpers.PrepareMethod(typeof(AllocationWindow).GetMethod(nameof(AllocationWindow.End))!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(AllocationCapture).GetMethod(nameof(EndCore),
            System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic)!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(ProfilerLibrary).GetMethod(nameof(ProfilerLibrary.CaptureEnd),
            [typeof(AlvkCaptureSummary).MakeByRefType()])!.MethodHandle);
    }

    internal ProfilerLibrary Library { get; }

    /// <summary>Whether the process started with allocation profiling
    /// (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1); without it, <see cref="Begin"/> throws
    /// with <see cref="InterceptionStatus.AllocationProfilingOff"/>.</summary>
    public bool IsEnabled =>
        Library.GetRuntimeStatus(out AlvkRuntimeStatus status) == AlvkStatus.Ok && status.AllocationProfiling != 0;

    /// <summary>Opens a window; dispose it (or call <see cref="AllocationWindow.End"/>) to close it.</summary>
    /// <param name="options">How it records; null: <see cref="AllocationCaptureOptions.Sampled"/>.</param>
    /// <exception cref="AllocationCaptureException">The profiler refused: allocation profiling is
    /// off (<see cref="InterceptionStatus.AllocationProfilingOff"/>), or a window is already open
    /// (<see cref="InterceptionStatus.CaptureActive"/>).</exception>
    public AllocationWindow Begin(AllocationCaptureOptions? options = null)
    {
        AllocationCaptureOptions o = options ?? AllocationCaptureOptions.Sampled;
        var window = new AllocationWindow(this, o); // before the window opens: it must not count itself
        AlvkStatus status = Library.CaptureBegin(new AlvkCaptureOptions
        {
            Mode = (AlvkCaptureMode)o.Mode,
            SampleIntervalBytes = o.SampleIntervalBytes,
            MaxSamples = o.MaxSamples,
            MaxFrames = o.MaxFrames,
            Seed = o.Seed,
        });
        if (status != AlvkStatus.Ok)
            throw Refused("alvk_capture_begin", status);
        return window;
    }

    /// <summary>Closes the window and, when `read`, reads its counts and samples.</summary>
    internal AllocationReport? EndCore(bool read)
    {
        AlvkStatus status = Library.CaptureEnd(out AlvkCaptureSummary summary);
        if (status == AlvkStatus.Timeout)
        {
            if (!read)
                return null;
            WaitForResolution(); // the worker is still naming types and frames
        }
        else if (status != AlvkStatus.Ok)
            throw Refused("alvk_capture_end", status);
        return read ? Read(summary) : null;
    }

    private AllocationReport Read(in AlvkCaptureSummary summary)
    {
        var types = new List<TypeAllocation>((int)summary.TypeCount);
        var typePage = new AlvkTypeCount[TypePage];
        for (uint first = 0; ;)
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
        for (uint first = 0; ;)
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
                : $"[function 0x{functionId:x}: {Library.StatusName(status)}]";
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
        new((InterceptionStatus)status, call,
            $"{call} returned {Library.StatusName(status)}: {Library.StatusDescription(status)}" +
            (status == AlvkStatus.AllocationProfilingOff
                ? $" (start the process with {AlvkCapture.ProfilingVariable}=1, or with alvorkit-intercept run --allocations)."
                : "."));
}

/// <summary>
/// One open allocation capture window (<see cref="AllocationCapture.Begin"/>). <see cref="End"/>
/// closes it and returns what it recorded; Dispose closes it too, discarding the results when
/// End was not called.
/// </summary>
public sealed class AllocationWindow : IDisposable
{
    private readonly AllocationCapture _capture;

    internal AllocationWindow(AllocationCapture capture, AllocationCaptureOptions options)
    {
        _capture = capture;
        Options = options;
    }

    /// <summary>How the window records.</summary>
    public AllocationCaptureOptions Options { get; }

    /// <summary>Whether the window is still open.</summary>
    public bool IsOpen { get; private set; } = true;

    /// <summary>What the window recorded, once <see cref="End"/> returned it; null before.</summary>
    public AllocationReport? Report { get; private set; }

    /// <summary>Closes the window and reads what it recorded (every type, every sample, frames
    /// resolved to methods and source lines). A second call returns the same report.</summary>
    /// <exception cref="AllocationCaptureException">The profiler refused the end or a read.</exception>
    /// <exception cref="ObjectDisposedException">The window was disposed before End.</exception>
    public AllocationReport End()
    {
        if (Report is not null)
            return Report;
        ObjectDisposedException.ThrowIf(!IsOpen, this);
        IsOpen = false;
        Report = _capture.EndCore(read: true)!;
        return Report;
    }

    /// <summary>Closes the window if it is still open, without reading it.</summary>
    public void Dispose()
    {
        if (!IsOpen)
            return;
        IsOpen = false;
        _capture.EndCore(read: false);
    }
}
