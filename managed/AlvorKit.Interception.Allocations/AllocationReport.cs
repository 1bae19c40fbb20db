using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.Allocations;

/// <summary>The allocations of one type inside the window: exact counts in exact profiling;
/// in sampled profiling <see cref="Count"/> and <see cref="Bytes"/> are unbiased estimates
/// (<see cref="IsEstimate"/>), with an approximate 95% interval each (the normal approximation,
/// widened to exact Poisson bounds below 30 sampled events; the count of a type whose object
/// sizes vary widely, arrays and strings, is covered somewhat less), resting on <see cref="Samples"/>
/// sampled events, and include the type's objects on the large and pinned object heaps, which
/// are counted exactly (<see cref="ExactCount"/>, <see cref="ExactBytes"/>).</summary>
/// <param name="Name">The type's name ("System.Collections.Generic.List&lt;System.Int32&gt;").</param>
/// <param name="ClassId">The runtime's ClassID of the type.</param>
/// <param name="Count">The objects allocated (exact, or the estimate).</param>
/// <param name="Bytes">Their bytes (exact, or the estimate).</param>
public sealed record TypeAllocation(string Name, ulong ClassId, ulong Count, ulong Bytes)
{
    /// <summary>The low end of <see cref="Count"/>'s approximate 95% interval (never below <see cref="ExactCount"/>);
    /// equal to Count when exact.</summary>
    public ulong CountLow { get; init; }

    /// <summary>The high end of <see cref="Count"/>'s approximate 95% interval; equal to Count when exact.</summary>
    public ulong CountHigh { get; init; }

    /// <summary>The low end of <see cref="Bytes"/>'s approximate 95% interval (never below <see cref="ExactBytes"/>);
    /// equal to Bytes when exact.</summary>
    public ulong BytesLow { get; init; }

    /// <summary>The high end of <see cref="Bytes"/>'s approximate 95% interval; equal to Bytes when exact.</summary>
    public ulong BytesHigh { get; init; }

    /// <summary>The sampled events the estimate rests on (0 in exact profiling, and for a type
    /// only seen on the large and pinned heaps).</summary>
    public ulong Samples { get; init; }

    /// <summary>The objects of the type counted exactly (sampled profiling: on the large and
    /// pinned object heaps; exact profiling: all of them). Included in <see cref="Count"/>.</summary>
    public ulong ExactCount { get; init; }

    /// <summary>The bytes of the objects counted in <see cref="ExactCount"/>. Included in <see cref="Bytes"/>.</summary>
    public ulong ExactBytes { get; init; }

    /// <summary>Whether <see cref="Count"/> and <see cref="Bytes"/> are estimates from sampled
    /// events (sampled profiling, <see cref="Samples"/> above 0) rather than exact counts.</summary>
    public bool IsEstimate { get; init; }
}

/// <summary>One frame of a sampled stack: the method, and its source line when the frame's
/// module has a Portable PDB and the runtime mapped the frame to an IL offset.</summary>
public sealed record AllocationFrame(string Method, string? File, int? Line, Guid ModuleMvid, uint MethodToken,
    int ILOffset)
{
    /// <summary>What identifies the frame in stacks and exports: method and source line
    /// (two IL offsets on one line are one frame).</summary>
    public string Key => File is null ? Method : $"{Method} ({File}:{Line})";

    /// <summary>The method, with the source file's name and line when known.</summary>
    public string DisplayName => File is null ? Method : $"{Method} ({Path.GetFileName(File)}:{Line})";
}

/// <summary>One sampled allocation: the stack that allocated (innermost frame first) and
/// the bytes the sample stands for (exact profiling: the sampling interval; sampled
/// profiling: the event's weight, its object's size over its sampling probability, times the
/// window's stack_every; each event becomes a stack with probability 1/stack_every, so the
/// weights are unbiased while no stack is dropped). EstimatedObjects:
/// those bytes over the size of the object that took the sample (the type's mean object size
/// when the library does not report it), at least one.</summary>
public sealed record AllocationSample(string TypeName, ulong ClassId, ulong WeightBytes, ulong EstimatedObjects,
    IReadOnlyList<AllocationFrame> Frames);

/// <summary>Samples with identical stacks, added up.</summary>
public sealed record AllocationStack(IReadOnlyList<AllocationFrame> Frames, int Samples, ulong EstimatedBytes,
    ulong EstimatedObjects);

/// <summary>What one capture window recorded.</summary>
public sealed class AllocationReport
{
    internal AllocationReport(in AlvkCaptureSummary summary, IEnumerable<TypeAllocation> types,
        IReadOnlyList<AllocationSample> samples)
    {
        Mode = (AllocationCaptureMode)summary.Mode;
        TotalObjects = summary.TotalObjects;
        TotalBytes = summary.TotalBytes;
        OverflowObjects = summary.OverflowObjects;
        OverflowBytes = summary.OverflowBytes;
        DroppedSamples = summary.DroppedSamples;
        Elapsed = TimeSpan.FromTicks((long)(summary.ElapsedNs / 100));
        ElapsedNs = summary.ElapsedNs;
        TypeSlots = summary.TypeSlots;
        SampleSlots = summary.SampleSlots;
        Source = (AllocationProfiling)summary.Source;
        SampledEvents = summary.SampledEvents;
        LargeObjects = summary.LargeObjects;
        LargeBytes = summary.LargeBytes;
        PinnedObjects = summary.PinnedObjects;
        PinnedBytes = summary.PinnedBytes;
        SamplingStarted = summary.SamplingStartedNs == 0
            ? null
            : TimeSpan.FromTicks((long)(summary.SamplingStartedNs / 100));
        SessionStopPending = (summary.Flags & AlvkConstants.CaptureStopPending) != 0;
        SessionRefused = (summary.Flags & AlvkConstants.CaptureSessionRefused) != 0;
        ClosedBeforeSampling = (summary.Flags & AlvkConstants.CaptureClosedBeforeSampling) != 0;
        SessionHResult = summary.SessionHResult;
        StackEvery = summary.StackEvery;
        Types = types.OrderByDescending(t => t.Bytes).ThenBy(t => t.Name, StringComparer.Ordinal).ToArray();
        Samples = samples;
        SampledBytes = (ulong)samples.Sum(s => (decimal)s.WeightBytes);
        SampledObjects = (ulong)samples.Sum(s => (decimal)s.EstimatedObjects);
        Stacks = samples
            .GroupBy(s => string.Join('\n', s.Frames.Select(f => f.Key)), StringComparer.Ordinal)
            .Select(g => new AllocationStack(g.First().Frames, g.Count(),
                (ulong)g.Sum(s => (decimal)s.WeightBytes), (ulong)g.Sum(s => (decimal)s.EstimatedObjects)))
            .OrderByDescending(s => s.EstimatedBytes)
            .ToArray();
    }

    /// <summary>What the window recorded.</summary>
    public AllocationCaptureMode Mode { get; }

    /// <summary>The profiling that produced the report: <see cref="AllocationProfiling.Exact"/>
    /// (exact counts) or <see cref="AllocationProfiling.Sampled"/> (estimates).</summary>
    public AllocationProfiling Source { get; }

    /// <summary>Whether the counts are estimates (<see cref="Source"/> is
    /// <see cref="AllocationProfiling.Sampled"/>): each type's interval says how far off it may be.</summary>
    public bool IsEstimate => Source == AllocationProfiling.Sampled;

    /// <summary>Sampled profiling: the runtime's AllocationSampled events the window counted (what
    /// the estimates rest on). 0 in exact profiling.</summary>
    public ulong SampledEvents { get; }

    /// <summary>Sampled profiling: objects allocated on the large object heap, counted exactly
    /// (in the totals and in their types).</summary>
    public ulong LargeObjects { get; }

    /// <summary>The bytes of <see cref="LargeObjects"/>.</summary>
    public ulong LargeBytes { get; }

    /// <summary>Sampled profiling: objects allocated on the pinned object heap, counted exactly.</summary>
    public ulong PinnedObjects { get; }

    /// <summary>The bytes of <see cref="PinnedObjects"/>.</summary>
    public ulong PinnedBytes { get; }

    /// <summary>Sampled profiling: how long after the window opened the runtime's sampling
    /// session started (allocations before are not in the estimates); null when it never
    /// started (see <see cref="SessionRefused"/>, <see cref="ClosedBeforeSampling"/>), and in
    /// exact profiling.</summary>
    public TimeSpan? SamplingStarted { get; }

    /// <summary>The sampling session had not stopped within 2 s of the window's close. The report
    /// is complete (nothing after the close is counted); the next window is refused with
    /// <see cref="InterceptionStatus.CaptureStopping"/> until the runtime returns.</summary>
    public bool SessionStopPending { get; }

    /// <summary>The runtime refused the sampling session (<see cref="SessionHResult"/> says why):
    /// the window counted only large and pinned objects.</summary>
    public bool SessionRefused { get; }

    /// <summary>The window closed before its sampling session started: no sampled event was counted.</summary>
    public bool ClosedBeforeSampling { get; }

    /// <summary>Sampled profiling: the HRESULT of the window's EventPipe session start.</summary>
    public int SessionHResult { get; }

    /// <summary>Sampled profiling: one sampled event in this many had its stack walked (each
    /// stack's weight covers as many events).</summary>
    public uint StackEvery { get; }

    /// <summary>Per-type counts and bytes (estimates with intervals when <see cref="IsEstimate"/>),
    /// most bytes first.</summary>
    public IReadOnlyList<TypeAllocation> Types { get; }

    /// <summary>Every allocation in the window, overflow included (an estimate when <see cref="IsEstimate"/>).</summary>
    public ulong TotalObjects { get; }

    /// <summary>The bytes of every allocation in the window, overflow included.</summary>
    public ulong TotalBytes { get; }

    /// <summary>Allocations of types the full type table could not take (in the totals, in no type).</summary>
    public ulong OverflowObjects { get; }

    /// <summary>The bytes of the allocations counted in <see cref="OverflowObjects"/>.</summary>
    public ulong OverflowBytes { get; }

    /// <summary>Samples that were due while the sample storage was full.</summary>
    public ulong DroppedSamples { get; }

    /// <summary>What exports say when stacks were dropped (null when none were): the stacks'
    /// weights then add up to less than was allocated.</summary>
    internal string? DroppedNote => DroppedSamples == 0
        ? null
        : $"{DroppedSamples} stacks dropped: storage full; weights undercount";

    /// <summary>How long the window was open.</summary>
    public TimeSpan Elapsed { get; }

    /// <summary><see cref="Elapsed"/> in nanoseconds, as the profiler measured it.</summary>
    public ulong ElapsedNs { get; }

    /// <summary>The storage sizes fixed at startup.</summary>
    public uint TypeSlots { get; }

    /// <summary>How many samples the sample storage holds (fixed at startup).</summary>
    public uint SampleSlots { get; }

    /// <summary>The kept samples, innermost frame first in each.</summary>
    public IReadOnlyList<AllocationSample> Samples { get; }

    /// <summary>The bytes all kept samples stand for.</summary>
    public ulong SampledBytes { get; }

    /// <summary>The objects all kept samples stand for (each sample: its bytes over the size of
    /// the object that took it, at least one).</summary>
    public ulong SampledObjects { get; }

    /// <summary>Samples aggregated by identical stacks, most estimated bytes first.</summary>
    public IReadOnlyList<AllocationStack> Stacks { get; }

    /// <summary>A type by its report name ("System.Int32[]"), or null if the window saw none.</summary>
    public TypeAllocation? Type(string name) => Types.FirstOrDefault(t => t.Name == name);

    /// <summary>The `count` stacks with the most estimated bytes.</summary>
    public IEnumerable<AllocationStack> TopStacks(int count) => Stacks.Take(count);
}
