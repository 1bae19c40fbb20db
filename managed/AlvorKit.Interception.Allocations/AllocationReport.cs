using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.Allocations;

/// <summary>Every allocation of one type inside the window, counted exactly.</summary>
public sealed record TypeAllocation(string Name, ulong ClassId, ulong Count, ulong Bytes);

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
/// the bytes the sample stands for.</summary>
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

    /// <summary>Per-type counts and bytes, most bytes first.</summary>
    public IReadOnlyList<TypeAllocation> Types { get; }

    /// <summary>Every allocation in the window, overflow included.</summary>
    public ulong TotalObjects { get; }

    /// <summary>The bytes of every allocation in the window, overflow included.</summary>
    public ulong TotalBytes { get; }

    /// <summary>Allocations of types the full type table could not take (in the totals, in no type).</summary>
    public ulong OverflowObjects { get; }

    /// <summary>The bytes of the allocations counted in <see cref="OverflowObjects"/>.</summary>
    public ulong OverflowBytes { get; }

    /// <summary>Samples that were due while the sample storage was full.</summary>
    public ulong DroppedSamples { get; }

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

    /// <summary>The objects all kept samples stand for (each sample: its bytes over its type's
    /// mean object size, at least one).</summary>
    public ulong SampledObjects { get; }

    /// <summary>Samples aggregated by identical stacks, most estimated bytes first.</summary>
    public IReadOnlyList<AllocationStack> Stacks { get; }

    /// <summary>A type by its report name ("System.Int32[]"), or null if the window saw none.</summary>
    public TypeAllocation? Type(string name) => Types.FirstOrDefault(t => t.Name == name);

    /// <summary>The `count` stacks with the most estimated bytes.</summary>
    public IEnumerable<AllocationStack> TopStacks(int count) => Stacks.Take(count);
}
