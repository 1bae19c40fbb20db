using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;
using Xunit;
using static AlvorKit.Proofs.AllocationReports;

namespace AlvorKit.Proofs;

/// <summary>
/// Allocation capture windows in a profiled process: exact per-type counts of what the
/// window allocated (and nothing of what the process allocated before or after it), sampled
/// stacks attributed to methods and source lines, and the fixed-size sample storage.
/// </summary>
[Trait("Feature", "Allocations")]
public class AllocationCaptureProofs
{
    // Object sizes on linux-x64, as the runtime reports them (GetObjectSize2, unaligned).
    private static readonly Dictionary<string, ulong> ObjectSizes = new()
    {
        ["AlvorKit.Proofs.Host.AllocA"] = 24,          // header + MethodTable + int, padded
        ["System.Int32[]"] = 88,                        // 24 + 16 * 4
        ["System.String"] = 62,                         // 22 + 20 * 2
        ["AlvorKit.Proofs.Host.AllocS"] = 32,           // 16 + two longs
        ["System.Collections.Generic.List<AlvorKit.Proofs.Host.AllocB>"] = 32,
    };

    [Fact]
    public void BindingStructsHaveTheSizesOfTheHeader()
    {
        BindingSizes sizes = Get(Sampled).Sizes;
        Assert.Equal(40, sizes.Options);                // ABI 3.5: stack_every, reserved2
        Assert.Equal(144, sizes.Summary);               // ABI 3.5: source ... stack_every
        Assert.Equal(32 + 512 + 7 * 8, sizes.TypeCount); // ABI 3.5: intervals, samples, exact part
        Assert.Equal(40, sizes.Frame);
        Assert.Equal(24 + 64 * 40 + 8, sizes.Sample);  // ABI 3.5: object_size
        Assert.Equal(24 + 256, sizes.MethodInfo);
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(CapturingVariants), MemberType = typeof(AllocationReports))]
    public void WindowCountsEachTypeExactlyAndNothingAllocatedOutsideIt(string variant)
    {
        CapturedWindows report = Captured(variant);
        IReadOnlyDictionary<string, TypeTotals> counted = report.WorkloadTypes;
        IReadOnlyDictionary<string, OutsideCounts> outside = report.Outside;
        foreach (var (type, expected) in report.Expected)
        {
            ulong count = expected.Count;
            TypeTotals got = counted[type];
            // The process allocated the same type just before the window and just after it.
            Assert.True(outside[type].Before > 0 && outside[type].After > 0, type);
            Assert.True(got.Count == count,
                $"{variant}: {type} counted {got.Count}, expected exactly {count} " +
                $"(outside the window: {outside[type]}): {ReportJson.Write(counted)}");
            Assert.True(got.Bytes == count * ObjectSizes[type],
                $"{variant}: {type} bytes {got.Bytes}, expected {count} x {ObjectSizes[type]}");
        }
        WindowSummary summary = report.Summary;
        Assert.True(summary.OverflowObjects == 0 && summary.OverflowBytes == 0, $"{summary}");
        Assert.True(summary.TypeObjects == summary.TotalObjects, $"{summary}");
        Assert.True(summary.TypeBytes == summary.TotalBytes, $"{summary}");
        ulong workload = report.Expected.Values.Aggregate(0UL, (sum, e) => sum + e.Count);
        Assert.True(summary.TotalObjects >= workload, $"{summary}");
    }

    [Fact]
    public void CountOnlyWindowHasTheSampledWindowsExactCountsAndNoSamples()
    {
        CapturedWindows countOnly = Captured(CountOnly), sampled = Captured(Sampled);
        Assert.Equal(ReportJson.Write(sampled.WorkloadTypes), ReportJson.Write(countOnly.WorkloadTypes));
        WindowSummary summary = countOnly.Summary;
        Assert.True(summary.Mode == "CountOnly", $"{summary}");
        Assert.True(summary.TotalObjects == sampled.Summary.TotalObjects, $"{summary}");
        Assert.True(summary.TotalBytes == sampled.Summary.TotalBytes, $"{summary}");
        Assert.True(summary.SampleCount == 0, $"{summary}");
        Assert.True(summary.DroppedSamples == 0, $"{summary}");
        Assert.True(summary.SampledBytes == 0, $"{summary}");
        Assert.Empty(countOnly.Attributions);
    }

    [Fact]
    public void SampledStacksAttributeEachTypeToItsMethodAndSourceLine()
    {
        CapturedWindows report = Captured(Sampled);
        WindowSummary summary = report.Summary;
        Assert.True(summary.Mode == "Sampled", $"{summary}");
        Assert.True(summary.SampleCount > 0, $"{summary}");
        Assert.True(summary.SamplesWithFrames == summary.SampleCount, $"{summary}");
        string[] source = File.ReadAllLines(RepositoryFile("tests/Proofs/AlvorKit.Proofs.Host/AllocationWorkload.cs"));
        var allocations = new Dictionary<string, string>
        {
            ["AlvorKit.Proofs.Host.AllocA"] = "new AllocA()",
            ["System.Int32[]"] = "new int[16]",
            ["System.String"] = "new string('x', 20)",
            ["AlvorKit.Proofs.Host.AllocS"] = "Site(value,",
            ["System.Collections.Generic.List<AlvorKit.Proofs.Host.AllocB>"] = "new List<AllocB>()",
        };
        IReadOnlyList<Attribution> attributions = report.Attributions;
        foreach (var (type, expected) in report.Expected)
        {
            int line = expected.Line;
            // The host's line (CallerLineNumber) is the allocation statement of the real file.
            Assert.True(source[line - 1].Contains(allocations[type], StringComparison.Ordinal),
                $"line {line} of AllocationWorkload.cs is not {type}'s allocation: {source[line - 1]}");
            Attribution[] ofType = attributions.Where(a => a.Type == type).ToArray();
            Assert.True(ofType.Length > 0, $"no sample of {type}: {string.Join("\n", attributions)}");
            foreach (Attribution a in ofType)
            {
                Assert.True(a.Method == expected.Method, $"{type}: method {a}, expected {expected}");
                Assert.True(a.File == "AllocationWorkload.cs", $"{type}: file {a}");
                Assert.True(a.Line == line, $"{type}: line {line} expected: {a}");
                Assert.True(a.EstimatedBytes > 0, $"{a}");
            }
        }
        // No sample belongs to anything but the workload.
        Assert.All(attributions, a => Assert.Contains(a.Type, allocations.Keys));
        // The samples' bytes estimate the window's bytes (376 samples expected: 4.8 sigma at 25%).
        double estimate = summary.SampledBytes, total = summary.TotalBytes;
        Assert.True(Math.Abs(estimate - total) < 0.25 * total, $"sampled {estimate} bytes of {total}");
    }

    [Fact]
    public void FullStorageKeepsItsSlotsCountsTheDropsAndTheCountsStayExact()
    {
        CapturedWindows report = Captured(FullStorage);
        WindowSummary summary = report.Summary;
        Assert.True(summary.SampleCount == FullStorageSlots, $"{summary}");
        Assert.True(summary.SampleSlots == FullStorageSlots, $"{summary}");
        Assert.True(summary.DroppedSamples > 0, $"{summary}");
        // 384,800 bytes at a 64-byte mean interval: thousands of samples were due.
        Assert.True(summary.DroppedSamples + (ulong)FullStorageSlots > 1000, $"{summary}");
        Assert.Equal(4, report.Scale);
        // The exact counts: WindowCountsEachTypeExactly... runs on this variant too.
        Assert.Equal(Captured(Sampled).Summary.TotalBytes * 4, summary.TotalBytes);
    }

    [Theory]
    [InlineData(Sampled, DefaultSampleSlots)]
    [InlineData(CountOnly, DefaultSampleSlots)]
    [InlineData(FullStorage, FullStorageSlots)]
    public void StorageStaysItsStartupSizeAcrossWindows(string variant, int slots)
    {
        CapturedWindows report = Captured(variant);
        foreach ((string window, WindowSummary summary) in new[]
                 {
                     ("warmupSummary", report.WarmupSummary), ("summary", report.Summary), ("lastSummary", report.LastSummary),
                 })
        {
            string json = $"{window}: {summary}";
            Assert.True(summary.SampleSlots == slots, json);
            Assert.True(summary.TypeSlots == DefaultTypeSlots, json);
            Assert.True(summary.SampleCount <= slots, json);
        }
        // The window after the measured one starts from empty storage: it keeps samples again
        // (about 4.6 KB allocated: 18 samples expected at 256 bytes, 72 due at 64).
        WindowSummary last = report.LastSummary;
        int expectedLast = variant switch { CountOnly => 0, FullStorage => FullStorageSlots, _ => -1 };
        if (expectedLast >= 0)
            Assert.True(last.SampleCount == expectedLast, $"{last}");
        else
            Assert.True(last.SampleCount > 0, $"{last}");
    }

    [Fact]
    public void SecondBeginAndIdleEndAreRefused()
    {
        CaptureRefusals refusals = Captured(Sampled).Refusals;
        Assert.Equal("CaptureActive", refusals.BeginWhileActive);
        Assert.Equal("CaptureNotActive", refusals.EndWhenIdle);
    }

    [Fact]
    public void WithoutAllocationProfilingEveryCaptureCallIsRefused()
    {
        AllocationsReport report = Get(Off);
        Assert.Equal(0u, report.AllocationProfiling);
        OffCalls calls = report.Calls ?? throw new Xunit.Sdk.XunitException($"no calls in {report}");
        foreach ((string call, string status) in new[]
                 {
                     ("begin", calls.Begin), ("end", calls.End), ("readTypes", calls.ReadTypes),
                     ("readSamples", calls.ReadSamples), ("describeFunction", calls.DescribeFunction),
                 })
            Assert.True(status == "AllocationProfilingOff", $"{call}: {calls}");
        Assert.Equal(0u, calls.ReadTypesWritten);
        // The exception says how to turn it on, in both modes.
        Assert.Contains("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled", calls.CaptureException);
        Assert.Contains("=exact", calls.CaptureException);
        // interceptor.Allocations.Begin: the typed exception, caught by its status.
        Assert.Equal(nameof(InterceptionStatus.AllocationProfilingOff), calls.CaptureExceptionStatus);
        Assert.False(calls.CaptureEnabled);
    }

    [Fact]
    public void AllocationsBeginWindowsEndOnceRefuseASecondWindowAndCloseWhenDisposed()
    {
        WindowApi w = Captured(Sampled).WindowApi;
        string json = $"{w}";
        // A second Begin while a window is open: AllocationCaptureException, an InterceptionException
        // whose Status is CaptureActive, naming the call that refused.
        Assert.True(w.SecondBegin == nameof(InterceptionStatus.CaptureActive), json);
        Assert.True(w.SecondBeginCall == "alvk_capture_begin", json);
        Assert.True(w.SecondBeginIsInterceptionException == true, json);
        Assert.Contains("ALVK_E_CAPTURE_ACTIVE", w.SecondBeginMessage);
        Assert.True(w.OpenWhileOpen, json);
        // Disposed without End: closed, nothing read, End refused.
        Assert.False(w.DisposedIsOpen, json);
        Assert.True(w.DisposedReport == "null", json);
        Assert.True(w.EndAfterDispose == nameof(ObjectDisposedException), json);
        // End closes once and returns the same report; the measured window counted the workload
        // exactly (WindowCountsEachTypeExactlyAndNothingAllocatedOutsideIt).
        Assert.True(w.EndTwiceSameReport && w.ReportIsEnds, json);
        Assert.False(w.OpenAfterEnd, json);
        Assert.True(w.Mode == "Sampled", json);
    }
}
