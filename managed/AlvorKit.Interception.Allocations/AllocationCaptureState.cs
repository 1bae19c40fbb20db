namespace AlvorKit.Interception.Allocations;

/// <summary>The capture machinery now (<see cref="AllocationCapture.GetState"/>), for tools and tests.</summary>
/// <param name="Phase">Where the machinery is.</param>
/// <param name="Profiling">The allocation profiling chosen at startup.</param>
/// <param name="SessionHResult">The HRESULT of the open or last window's EventPipe session start
/// (0 until that start returned; negative when the runtime refused it).</param>
/// <param name="SessionsStarted">Sampling sessions started in this process.</param>
/// <param name="SessionsStopped">Sampling sessions stopped (the runtime returned).</param>
/// <param name="StopHangs">Session stops that outlasted the profiler's bound (2 s).</param>
/// <param name="EventsInWindows">AllocationSampled events counted, all windows.</param>
/// <param name="EventsOutsideWindows">AllocationSampled events delivered while no window counted (ignored).</param>
/// <param name="WindowsOpened">Windows opened in this process.</param>
/// <param name="CurrentWindowEvents">AllocationSampled events the open window counted so far.</param>
public sealed record AllocationCaptureState(
    AllocationCapturePhase Phase,
    AllocationProfiling Profiling,
    int SessionHResult,
    ulong SessionsStarted,
    ulong SessionsStopped,
    ulong StopHangs,
    ulong EventsInWindows,
    ulong EventsOutsideWindows,
    ulong WindowsOpened,
    ulong CurrentWindowEvents);
