using System.Diagnostics;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.Allocations;

/// <summary>How a window records (0 means the profiler's default).</summary>
/// <param name="Mode">Counts only, or counts and sampled stacks.</param>
/// <param name="SampleIntervalBytes">Exact profiling: the mean bytes between two stack samples.
/// Sampled profiling: 0 or 102400 only (the runtime's own sampling distance).</param>
/// <param name="MaxSamples">At most this many samples (up to the storage fixed at startup).</param>
/// <param name="MaxFrames">At most this many frames per sample.</param>
/// <param name="Seed">Exact profiling: the stack sampling's random seed (0: one of the
/// profiler's choosing); sampled profiling uses the runtime's.</param>
/// <param name="StackEvery">Sampled profiling, <see cref="AllocationCaptureMode.Sampled"/>
/// windows: walk the stack of one sampled event in this many (1 to 1,000,000; 0 means 1);
/// each stack then stands for that many events' bytes. Must be 0 or 1 in exact profiling.</param>
/// <param name="WaitUntilSampling">Sampled profiling: <see cref="AllocationCapture.Begin"/>
/// returns only once the runtime delivers samples (the first session of a process can take a
/// few hundred milliseconds to start; without this the window counts from then on). For tools
/// and tests; a game thread should rather call <see cref="AllocationWindow.WaitUntilSampling"/>
/// or not wait. Begin waits at most 10 s, then closes the window again (at once: the close
/// does not wait for a start still running) and throws. Ignored in exact profiling.</param>
public readonly record struct AllocationCaptureOptions(
    AllocationCaptureMode Mode = AllocationCaptureMode.Sampled,
    uint SampleIntervalBytes = 0,
    uint MaxSamples = 0,
    uint MaxFrames = 0,
    ulong Seed = 0,
    uint StackEvery = 0,
    bool WaitUntilSampling = false)
{
    /// <summary>A count-only window.</summary>
    public static AllocationCaptureOptions CountOnly => new(AllocationCaptureMode.CountOnly);

    /// <summary>A window with sampled stacks, with the profiler's defaults.</summary>
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
/// Allocation capture windows, from <c>interceptor.Allocations</c>. In sampled profiling
/// (<c>alvorkit-intercept run --allocations</c>, or ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled):
/// <code>
/// using (var window = interceptor.Allocations.Begin(AllocationCaptureOptions.Sampled))
/// {
///     window.WaitUntilSampling(TimeSpan.FromSeconds(1)); // optional: the first window of a process starts late
///     RunTheFrame();
///     AllocationReport report = window.End();
///     foreach (TypeAllocation t in report.Types.Take(5))
///         Console.WriteLine($"{t.Name}: ~{t.Bytes} bytes [{t.BytesLow}, {t.BytesHigh}], {t.Samples} samples");
/// }
/// </code>
/// <see cref="Begin"/> opens a window; <see cref="AllocationWindow.End"/> closes it and reads
/// everything the profiler recorded (all types, all samples) into an <see cref="AllocationReport"/>,
/// with each frame resolved to its method name and, through the module's Portable PDB, its
/// source line. One window is open at a time in the process. Between Begin and End nothing
/// here allocates: what the window counts is the program's.
/// <para>What each profiling mode (<see cref="Profiling"/>, chosen at startup) costs:
/// <see cref="AllocationProfiling.Sampled"/> keeps the runtime's fast allocation path; an open
/// window receives the runtime's own allocation sampling, about one event per 100 KiB allocated,
/// and reports per-type estimates with approximate 95% intervals (objects on the large and pinned object
/// heaps counted exactly). <see cref="AllocationProfiling.Exact"/> counts every object exactly,
/// but makes every allocation of the process slower for its whole life, window open or not
/// (several times slower; docs/Benchmarks.md has the figures): choose it only when exact counts
/// matter.</para>
/// </summary>
public sealed class AllocationCapture
{
    private const int TypePage = 256;
    private const int SamplePage = 32;

    internal AllocationCapture(ProfilerLibrary library)
    {
        Library = library;
        // Compile End's and WaitUntilSampling's paths now, so it does not happen inside a window.
        RuntimeHelpers.PrepareMethod(typeof(AllocationWindow).GetMethod(nameof(AllocationWindow.End))!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(AllocationWindow).GetMethod(nameof(AllocationWindow.WaitUntilSampling))!
            .MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(AllocationCapture).GetMethod(nameof(EndCore),
            System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic)!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(AllocationCapture).GetMethod(nameof(WaitCore),
            System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic)!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(ProfilerLibrary).GetMethod(nameof(ProfilerLibrary.CaptureEnd),
            [typeof(AlvkCaptureSummary).MakeByRefType()])!.MethodHandle);
        RuntimeHelpers.PrepareMethod(typeof(ProfilerLibrary).GetMethod(nameof(ProfilerLibrary.CaptureGetState),
            [typeof(AlvkCaptureState).MakeByRefType()])!.MethodHandle);
    }

    internal ProfilerLibrary Library { get; }

    /// <summary>What ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING chose at startup ("sampled",
    /// "exact" or "1"); <see cref="AllocationProfiling.Off"/> when unset, or when no profiler is
    /// attached.</summary>
    public AllocationProfiling Profiling =>
        Library.GetRuntimeStatus(out AlvkRuntimeStatus status) == AlvkStatus.Ok
            ? (AllocationProfiling)status.AllocationProfiling
            : AllocationProfiling.Off;

    /// <summary>Whether the process started with allocation profiling (<see cref="Profiling"/> is
    /// not <see cref="AllocationProfiling.Off"/>); without it, <see cref="Begin"/> throws with
    /// <see cref="InterceptionStatus.AllocationProfilingOff"/>.</summary>
    public bool IsEnabled => Profiling != AllocationProfiling.Off;

    /// <summary>The capture machinery's phase and counters now, for tools and tests. Without
    /// allocation profiling (or without an attached profiler) the state is returned with
    /// <see cref="AllocationCaptureState.Profiling"/> Off, phase Idle and every counter 0.</summary>
    public AllocationCaptureState GetState()
    {
        AlvkStatus status = Library.CaptureGetState(out AlvkCaptureState s);
        if (status is not (AlvkStatus.Ok or AlvkStatus.AllocationProfilingOff))
            throw Refused("alvk_capture_get_state", status);
        return new AllocationCaptureState((AllocationCapturePhase)s.Phase, (AllocationProfiling)s.Profiling,
            s.SessionHResult, s.SessionsStarted, s.SessionsStopped, s.StopHangs, s.EventsInWindows,
            s.EventsOutsideWindows, s.WindowsOpened, s.CurrentWindowEvents);
    }

    /// <summary>Opens a window; dispose it (or call <see cref="AllocationWindow.End"/>) to close it.
    /// In sampled profiling it returns without waiting for the runtime's sampling session to start
    /// (the profiler's own thread starts it), unless <see cref="AllocationCaptureOptions.WaitUntilSampling"/>.</summary>
    /// <param name="options">How it records; null: <see cref="AllocationCaptureOptions.Sampled"/>.</param>
    /// <exception cref="AllocationCaptureException">The profiler refused, and no window is open:
    /// allocation profiling is off (<see cref="InterceptionStatus.AllocationProfilingOff"/>), a
    /// window is already open (<see cref="InterceptionStatus.CaptureActive"/>), the previous
    /// window's session has not stopped yet (<see cref="InterceptionStatus.CaptureStopping"/>),
    /// an option is out of bounds (<see cref="InterceptionStatus.LimitExceeded"/>); with
    /// WaitUntilSampling, the runtime refused the session
    /// (<see cref="InterceptionStatus.CaptureSessionFailed"/>) or it did not start within 10 s
    /// (<see cref="InterceptionStatus.Timeout"/>; the window is closed again at once, its session
    /// stopped by the profiler when the start returns); the runtime has no
    /// allocation sampling (<see cref="InterceptionStatus.SamplingUnsupported"/>: .NET 9 or
    /// older).</exception>
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
            Flags = o.WaitUntilSampling ? AlvkConstants.CaptureWaitUntilSampling : 0,
            Seed = o.Seed,
            StackEvery = o.StackEvery,
        });
        switch (status)
        {
            case AlvkStatus.Ok:
                return window;
            case AlvkStatus.Timeout:
                // The window stays open and would sample once the session starts; the caller
                // asked for a sampling window now, so close it rather than hand back another one.
                string closed = "the window was closed again";
                try
                {
                    window.Dispose(); // returns at once: the start still running is the profiler's to stop
                }
                catch (AllocationCaptureException e)
                {
                    closed = $"closing the window again failed too ({e.Message})";
                }
                throw Refused("alvk_capture_begin", status, advice:
                    $"The runtime's sampling session did not start within {AlvkConstants.CaptureStartBoundMs} ms; " +
                    $"{closed}. Try again, or open the window without WaitUntilSampling.");
            case AlvkStatus.CaptureSessionFailed:
                Library.CaptureGetState(out AlvkCaptureState state);
                throw Refused("alvk_capture_begin", status, state.SessionHResult,
                    "No window is open (the profiler closed it again).");
            default:
                throw Refused("alvk_capture_begin", status);
        }
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

    /// <summary>Polls alvk_capture_get_state until the window samples; allocates nothing
    /// unless it throws.</summary>
    internal bool WaitCore(TimeSpan timeout)
    {
        long deadline = timeout == Timeout.InfiniteTimeSpan
            ? long.MaxValue
            : Stopwatch.GetTimestamp() + (long)Math.Min(timeout.TotalSeconds * Stopwatch.Frequency, long.MaxValue / 2);
        for (; ; )
        {
            AlvkStatus status = Library.CaptureGetState(out AlvkCaptureState state);
            if (status != AlvkStatus.Ok)
                throw Refused("alvk_capture_get_state", status);
            if (state.Profiling == AlvkAllocationProfiling.Exact || state.Phase == AlvkCapturePhase.Open)
                return true;
            if (state.Phase != AlvkCapturePhase.Opening)
                throw Refused("alvk_capture_get_state", AlvkStatus.CaptureNotActive,
                    advice: "No window is open in the profiler.", observed: true);
            // Still opening with a failed start (session_hresult is this window's: the profiler
            // clears it when a window asks for its session): the runtime refused it for good.
            if (state.SessionHResult < 0)
                throw Refused("alvk_capture_get_state", AlvkStatus.CaptureSessionFailed, state.SessionHResult,
                    "The window stays open and counts only large and pinned objects.", observed: true);
            if (Stopwatch.GetTimestamp() >= deadline)
                return false;
            Thread.Sleep(1);
        }
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
                    t.Bytes)
                {
                    CountLow = t.CountLow,
                    CountHigh = t.CountHigh,
                    BytesLow = t.BytesLow,
                    BytesHigh = t.BytesHigh,
                    Samples = t.Samples,
                    ExactCount = t.ExactCount,
                    ExactBytes = t.ExactBytes,
                    IsEstimate = summary.Source == AlvkAllocationProfiling.Sampled && t.Samples > 0,
                });
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
        // The objects a sample stands for: its bytes over the size of the object that took it
        // (ABI 3.5); a library that does not say (0) falls back to the type's mean size.
        ulong objects = 1;
        if (sample.ObjectSize > 0)
            objects = Math.Max(1, (ulong)Math.Round(sample.WeightBytes / (double)sample.ObjectSize));
        else if (type is { Count: > 0, Bytes: > 0 })
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

    // `observed`: the status is what `call` showed of the window, not what it returned.
    private AllocationCaptureException Refused(string call, AlvkStatus status, int sessionHResult = 0,
        string? advice = null, bool observed = false) =>
        new((InterceptionStatus)status, call,
            string.Join(' ', new[]
            {
                $"{call} {(observed ? "shows" : "returned")} {Library.StatusName(status)}: " +
                $"{Library.StatusDescription(status)}.",
                status == AlvkStatus.CaptureSessionFailed ? SessionAdvice(sessionHResult) : "",
                advice ?? Advice(status),
            }.Where(part => part.Length > 0)));

    private static string SessionAdvice(int sessionHResult) =>
        $"The runtime refused the EventPipe session allocation sampling needs (HRESULT 0x{sessionHResult:x8}; " +
        "GetState().SessionHResult keeps it). Check that the runtime is .NET 10 or later and that EventPipe is " +
        $"not disabled (DOTNET_EnableEventPipe=0), or start the process with {AlvkCapture.ProfilingVariable}=exact.";

    // What happened and what to do, for the statuses a caller can act on.
    private static string Advice(AlvkStatus status) => status switch
    {
        AlvkStatus.AllocationProfilingOff =>
            $"Start the process with {AlvkCapture.ProfilingVariable}=sampled (the runtime's own allocation " +
            "sampling: the fast allocation path stays, windows report estimates) or =exact (exact counts, " +
            "every allocation of the process slower), or with alvorkit-intercept run --allocations[=exact].",
        AlvkStatus.CaptureActive => "End or dispose the open window first; one window is open at a time.",
        AlvkStatus.CaptureStopping =>
            "The previous window closed, but the runtime has not yet returned from stopping its sampling session " +
            $"(it took longer than {AlvkConstants.CaptureStopBoundMs} ms); no window was opened. Try again later: " +
            "GetState().Phase is Stopping until the runtime returns.",
        AlvkStatus.LimitExceeded =>
            $"An option is out of its bounds: MaxFrames up to {AlvkConstants.MaxSampleFrames}, MaxSamples up to the " +
            $"sample storage; sampled profiling: SampleIntervalBytes 0 or {AlvkConstants.RuntimeSamplingMeanBytes} " +
            $"(the runtime's), StackEvery up to {AlvkConstants.MaxStackEvery}; exact profiling: SampleIntervalBytes 0 " +
            $"or at least {AlvkConstants.MinSampleIntervalBytes}, StackEvery 0 or 1.",
        AlvkStatus.SamplingUnsupported =>
            "Sampled allocation profiling needs .NET 10 or later (the runtime's AllocationSampled event); this " +
            $"runtime is older. Use exact profiling on it: start the process with {AlvkCapture.ProfilingVariable}=exact " +
            "or alvorkit-intercept run --allocations=exact.",
        AlvkStatus.CaptureControlUnavailable =>
            "The profiler's capture-control thread, which starts and stops sampling sessions, is not running " +
            "(it failed to start or stopped); sampled windows cannot open in this process.",
        _ => "",
    };
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

    /// <summary>Waits until the window samples: in sampled profiling, until the runtime's sampling
    /// session has started and delivers (the first session of a process can take a few hundred
    /// milliseconds; allocations before it are not counted, except large and pinned objects); in
    /// exact profiling it returns true at once. It polls the profiler's state about once a
    /// millisecond and allocates nothing on the managed heap unless it throws, so the open window
    /// does not count it.</summary>
    /// <param name="timeout">How long to wait at most (<see cref="Timeout.InfiniteTimeSpan"/>: until
    /// the session delivers or is refused).</param>
    /// <returns>True once the window samples; false when <paramref name="timeout"/> passed first
    /// (the window stays open and samples once the session starts).</returns>
    /// <exception cref="AllocationCaptureException">The runtime refused the sampling session
    /// (<see cref="InterceptionStatus.CaptureSessionFailed"/>; the window stays open and counts only
    /// large and pinned objects), or the profiler's state could not be read.</exception>
    /// <exception cref="ObjectDisposedException">The window is closed.</exception>
    /// <exception cref="ArgumentOutOfRangeException">A negative timeout other than infinite.</exception>
    public bool WaitUntilSampling(TimeSpan timeout)
    {
        ObjectDisposedException.ThrowIf(!IsOpen, this);
        if (timeout < TimeSpan.Zero && timeout != Timeout.InfiniteTimeSpan)
            throw new ArgumentOutOfRangeException(nameof(timeout), timeout,
                "Give a timeout of zero or more, or Timeout.InfiniteTimeSpan.");
        return _capture.WaitCore(timeout);
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
