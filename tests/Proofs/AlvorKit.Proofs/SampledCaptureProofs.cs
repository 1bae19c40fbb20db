using AlvorKit.Proofs.Reports;
using Xunit;
using Xunit.Abstractions;
using static AlvorKit.Proofs.SampledLaunches;

namespace AlvorKit.Proofs;

/// <summary>
/// Sampled allocation profiling (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled) in profiled
/// processes: per-type estimates of known allocations inside their reported intervals, nothing
/// from outside a window, stacks to the allocating line, 1-in-N stacks, large and pinned
/// objects counted exactly, 2,000 windows without a hang or a stale session, End from another
/// thread while threads allocate; and the exact setting and a malformed one. The timing and
/// memory figures of the same launches are judged in SampledCostProofs.
/// </summary>
[Trait("Feature", "Allocations")]
[Collection(SampledAlone.Name)]
[Trait("Sanitized", "yes")]
public sealed class SampledCaptureProofs(ITestOutputHelper output)
{
    private const string Tiny = "AlvorKit.Proofs.Host.SampledTiny";
    private const string Small = "AlvorKit.Proofs.Host.SampledSmall";
    private const string Cells = "AlvorKit.Proofs.Host.SampledCell[]";
    private const string Wide = "AlvorKit.Proofs.Host.SampledWide";
    private const string Words = "AlvorKit.Proofs.Host.SampledWord[]";
    private const string Outside = "AlvorKit.Proofs.Host.SampledOutside";
    private const string LargeCells = "AlvorKit.Proofs.Host.SampledLargeCell[]";
    private const string PinnedCells = "AlvorKit.Proofs.Host.SampledPinnedCell[]";
    private static readonly string[] WorkloadTypes = [Tiny, Small, Cells, Wide, Words];

    // Object sizes on linux-x64: 16 bytes of header and MethodTable plus the fields; arrays 24
    // plus the elements. All multiples of 8, so the GC's and the event's sizes agree.
    private static readonly Dictionary<string, long> FixedSizes = new()
    {
        [Tiny] = 24,
        [Small] = 16 + 8 * 8,
        [Wide] = 16 + 30 * 8,
        [Words] = 24 + 250 * 8,
        [Outside] = 16 + 2 * 8,
        [LargeCells] = 24 + 6250 * 16,
        [PinnedCells] = 24 + 100 * 8,
    };

    // The runtime samples each allocated byte with probability 1/102,400: an object of s bytes
    // with p(s) = 1 - q^s (dotnet/runtime docs/design/features/RandomizedAllocationSampling.md).
    private static double Weight(long size) => size / (1 - Math.Pow(1 - 1.0 / 102_400, size));

    private static SampledWindowsReport WindowsReport => Get<SampledWindowsReport>(Windows);

    private static IEnumerable<EstimatedWindow> SampledAccuracy => WindowsReport.Accuracy.Where(w => w.Mode == "Sampled");

    [Fact]
    public void WorkloadObjectsHaveTheSizesTheEstimatesAssume()
    {
        IReadOnlyDictionary<string, long> sizes = WindowsReport.ObjectSizes;
        foreach (var (type, size) in FixedSizes)
            Assert.True(sizes[type] == size, $"{type}: the GC counted {sizes[type]} bytes per object, expected {size}");
        Assert.Equal(sizes["cells total by formula"], sizes["cells total (6,400 arrays)"]);
        // Every window's workload allocated exactly its truth, nothing else, on its thread.
        foreach (EstimatedWindow w in WindowsReport.Accuracy.Append(WindowsReport.Stacks).Append(WindowsReport.EveryTenth))
        {
            ulong truth = (ulong)w.Types.Sum(t => (decimal)t.TruthBytes);
            Assert.True(w.AllocatedBytes == (long)truth, $"{w.Label}: allocated {w.AllocatedBytes}, truth {truth}");
        }
    }

    [Trait("Platform", "all")]
    [Fact]
    public void EveryWindowIsASampledEstimateThatWaitedForItsSession()
    {
        SampledWindowsReport r = WindowsReport;
        Assert.Equal(2u, r.AllocationProfiling);
        Assert.Equal("Sampled", r.Profiling);
        Assert.Equal(10, r.Accuracy.Count);
        foreach (EstimatedWindow w in r.Accuracy.Append(r.Stacks).Append(r.EveryTenth).Append(r.Heaps))
        {
            string json = ReportJson.Write(w);
            Assert.True(w.Source == "Sampled" && w.IsEstimate, json);
            // Begin with WaitUntilSampling returned with the window sampling already (phase Open
            // read at once, before any wait of the host's own).
            Assert.True(w.OpenWhenBeginReturned && w.SamplingStartedMs is not null, json);
            Assert.True(!w.ClosedBeforeSampling && !w.SessionRefused && !w.SessionStopPending, json);
            Assert.True(w.SessionHResult == 0, json);
            Assert.True(w.SampledEvents > 0 || w == r.Heaps, json);
            // Each type's estimate rests on its own events: together at most the window's.
            Assert.True(w.TypeSamples <= w.SampledEvents, json);
            Assert.True((ulong)w.Types.Sum(t => (decimal)t.Samples) <= w.SampledEvents, json);
        }
        CaptureStateFigures state = r.StateAfter;
        Assert.True(state.Phase == "Idle" && state.Profiling == "Sampled" && state.StopHangs == 0, $"{state}");
        Assert.True(state.SessionsStarted == state.SessionsStopped, $"{state}");
    }

    /// <summary>
    /// Ten windows, five types each: 50 estimates of the objects and 50 of the bytes, each
    /// from about 250 sampled events. A correct estimator's 95% interval holds the truth with
    /// probability about 0.95 (0.949 for the Poisson-like count of 250 events with the
    /// variance estimated from them); taking 0.94 to be safe, X ~ Binomial(50, 0.94) gives
    /// P(X &lt; 40) = 1.5e-4, so requiring 40 of 50 for the counts and 40 of 50 for the bytes
    /// fails a correct product with probability below 3e-4. Its power is modest: estimates
    /// biased by 1.4 standard deviations (about 9% at 250 events; coverage 0.71, 35.6 of 50
    /// expected) fail it 9 times in 10, by 1.6 (about 10%) 99 times in 100, but a bias of one
    /// standard deviation (about 6%; coverage 0.83) only about 1 time in 5, and a bias of 5% is
    /// not reliably detected. The 5-sigma band and the width check below catch grosser errors.
    /// Each estimate must also lie within its interval widened by 5/1.96: with the variance
    /// estimated from the events, a window that drew few events has a narrow interval, so the
    /// lower tail is heavier than a normal one; at 250 expected events the chance of missing
    /// the 5-sigma band is 3.8e-6 per estimate (1.3e-4 at 4 sigma, which over 60 effectively
    /// independent estimates would fail a correct product 0.8% of the time), 2.3e-4 in all.
    /// So the proof can fail, each interval's half-width must be what the estimator gives for
    /// the truth (1.96 sqrt(sum over the objects of (1-p)/p), computed by the host): the
    /// reported width scales as sqrt(events / expected events), which a correct product keeps
    /// in [0.83, 1.15] at 5 sigma for 250 events (the cell arrays, 536 to 1,032 bytes: [0.85,
    /// 1.14] over 40,000 simulated windows); [0.75, 1.33] fails an interval twice as wide
    /// (which would hold the truth trivially) or half as narrow.
    /// </summary>
    [Fact]
    public void EstimatesHoldTheTruthInTheirIntervalsAsOftenAsA95PercentIntervalShould()
    {
        int counted = 0, countInside = 0, bytesInside = 0;
        var failures = new List<string>();
        var lines = new List<string>();
        foreach (EstimatedWindow w in WindowsReport.Accuracy)
        {
            foreach (string type in WorkloadTypes)
            {
                EstimatedType t = w.Types.Single(x => x.Name == type);
                string what = $"{w.Label} {type}";
                Assert.True(t.Present && t.IsEstimate && t.Samples > 0, $"{what}: {ReportJson.Write(t)}");
                Assert.True(t.ExactCount == 0 && t.ExactBytes == 0, $"{what}: small objects counted exactly: {t}");
                Assert.True(t.ExpectedEvents > 150, $"{what}: the truth expects only {t.ExpectedEvents:F0} events");
                counted++;
                countInside += Check(failures, what, "count", t.TruthCount, t.Count, t.CountLow, t.CountHigh, t.CountSd);
                bytesInside += Check(failures, what, "bytes", t.TruthBytes, t.Bytes, t.BytesLow, t.BytesHigh, t.BytesSd);
                lines.Add($"{what}: count {t.Count} [{t.CountLow}, {t.CountHigh}] truth {t.TruthCount}, " +
                    $"{t.Samples} events (expected {t.ExpectedEvents:F0})");
            }
        }
        Assert.Equal(50, counted);
        Assert.True(failures.Count == 0, string.Join("\n", failures.Concat(lines)));
        string summary = $"count inside its 95% interval {countInside}/50, bytes {bytesInside}/50\n" + string.Join("\n", lines);
        output.WriteLine(summary);
        Assert.True(countInside >= 40 && bytesInside >= 40, summary);
    }

    // One estimate against its truth: within its interval (1) or not (0); out of its 5-sigma
    // band, or with a width the truth does not give, a failure.
    private static int Check(List<string> failures, string what, string quantity, ulong truth, ulong estimate, ulong low,
        ulong high, double truthSd)
    {
        if (!(low <= estimate && estimate <= high))
            failures.Add($"{what}: {quantity} estimate {estimate} outside its own interval [{low}, {high}]");
        double halfWidth = (high - low) / 2.0;
        double ratio = halfWidth / (1.96 * truthSd);
        if (ratio is < 0.75 or > 1.33)
            failures.Add($"{what}: {quantity} interval [{low}, {high}] half-width {halfWidth:F0} is {ratio:F2} x the " +
                $"{1.96 * truthSd:F0} the estimator gives for the truth {truth}");
        double error = Math.Abs((double)estimate - truth);
        if (error > halfWidth * 5 / 1.96)
            failures.Add($"{what}: {quantity} estimate {estimate} is {error / (halfWidth / 1.96):F1} sigma from the truth {truth}");
        return low <= truth && truth <= high ? 1 : 0;
    }

    [Fact]
    public void EstimatesAddUpToTheTruthOverTheWindows()
    {
        // Per type, over the ten windows: sum(estimate - truth) against the sum of the
        // variances (independent windows). Within 5 sigma; a bias of 5% (about 1.3 sigma per
        // window, 4 over ten) or more shows.
        var lines = new List<string>();
        foreach (string type in WorkloadTypes)
        {
            EstimatedType[] ts = [.. WindowsReport.Accuracy.Select(w => w.Types.Single(x => x.Name == type))];
            double error = ts.Sum(t => (double)t.Count - t.TruthCount);
            double sd = Math.Sqrt(ts.Sum(t => Math.Pow((t.CountHigh - t.CountLow) / 2.0 / 1.96, 2)));
            double truth = ts.Sum(t => (double)t.TruthCount);
            lines.Add($"{type}: {error / truth:P2} of {truth} ({error / sd:F2} sigma)");
            Assert.True(Math.Abs(error) < 5 * sd, string.Join("\n", lines));
        }
        output.WriteLine(string.Join("\n", lines));
    }

    [Fact]
    public void FixedSizeTypesBytesAreTheirCountTimesTheirSize()
    {
        // The events' ObjectSize is the object's size: a fixed-size type's byte estimate is its
        // object estimate times its size, up to rounding: the count to a whole object, and each
        // event's weight to a whole byte (so a byte per event).
        foreach (EstimatedWindow w in WindowsReport.Accuracy)
        {
            foreach (string type in new[] { Tiny, Small, Wide, Words })
            {
                EstimatedType t = w.Types.Single(x => x.Name == type);
                double expected = (double)t.Count * FixedSizes[type];
                Assert.True(Math.Abs(t.Bytes - expected) <= FixedSizes[type] + (double)t.Samples,
                    $"{w.Label} {type}: {t.Bytes} bytes for {t.Count} objects of {FixedSizes[type]}");
            }
        }
    }

    [Fact]
    public void NothingAllocatedOutsideTheWindowsIsCounted()
    {
        SampledWindowsReport r = WindowsReport;
        // 10.24 MB of SampledOutside before each window opened and after it ended: about 100
        // sampled events each time, had the windows counted them.
        Assert.Equal(Outside, r.OutsideType);
        Assert.Equal(320_000ul, r.OutsideCountPerSide);
        foreach (EstimatedWindow w in r.Accuracy)
        {
            EstimatedType t = w.Types.Single(x => x.Name == Outside);
            Assert.True(!t.Present && t.Count == 0 && t.Samples == 0, $"{w.Label}: {ReportJson.Write(t)}");
        }
        foreach (EstimatedWindow w in new[] { r.Stacks, r.EveryTenth, r.Heaps })
            Assert.DoesNotContain(w.Types, t => t.Name == Outside);
    }

    [Fact]
    public void CountOnlyWindowsEstimateWithoutStacks()
    {
        EstimatedWindow[] countOnly = [.. WindowsReport.Accuracy.Where(w => w.Mode == "CountOnly")];
        Assert.Equal(5, countOnly.Length);
        foreach (EstimatedWindow w in countOnly)
        {
            Assert.True(w.SampleCount == 0 && w.DroppedSamples == 0 && w.SampleWeightBytes == 0, ReportJson.Write(w));
            Assert.True(w.IsEstimate && w.SampledEvents > 0, ReportJson.Write(w));
            Assert.All(w.Types.Where(t => t.Present), t => Assert.True(t.Stacks == 0 && t.Samples > 0, $"{t}"));
        }
        // The sampled ones kept stacks (the storage's 1,024 of about 1,250 events).
        Assert.All(SampledAccuracy, w => Assert.True(w.SampleCount > 0, ReportJson.Write(w)));
    }

    [Fact]
    public void StacksNameTheAllocatingMethodAndLineThroughThePortablePdb()
    {
        SampledWindowsReport r = WindowsReport;
        EstimatedWindow w = r.Stacks;
        string json = ReportJson.Write(w);
        Assert.True(w.Mode == "Sampled" && w.StackEvery == 1, json);
        // Every event's stack is walked, and the storage (1,024) holds all of about 250.
        Assert.True(w.DroppedSamples == 0 && (ulong)w.SampleCount == w.SampledEvents, json);
        string[] source = File.ReadAllLines(AllocationReports.RepositoryFile("tests/Proofs/AlvorKit.Proofs.Host/SampledWorkload.cs"));
        var statements = new Dictionary<string, string>
        {
            [Tiny] = "new SampledTiny()",
            [Small] = "new SampledSmall()",
            [Cells] = "new SampledCell[",
            [Wide] = "new SampledWide()",
            [Words] = "new SampledWord[",
        };
        IReadOnlyList<Attribution> attributions = r.StackAttributions;
        foreach (WorkloadSite site in r.Sites)
        {
            Assert.True(source[site.Line - 1].Contains(statements[site.Type], StringComparison.Ordinal),
                $"line {site.Line} of SampledWorkload.cs is not {site.Type}'s allocation: {source[site.Line - 1]}");
            Attribution[] ofType = [.. attributions.Where(a => a.Type == site.Type)];
            Assert.True(ofType.Length > 0, $"no stack of {site.Type}: {string.Join("\n", attributions)}");
            foreach (Attribution a in ofType)
            {
                Assert.True(a.Method == site.Method, $"{site.Type}: {a}, expected {site}");
                Assert.True(a.File == "SampledWorkload.cs" && a.Line == site.Line, $"{site.Type}: {a}, expected {site}");
            }
            // Each stack weighs its event's unbiased weight, size / p(size).
            EstimatedType t = w.Types.Single(x => x.Name == site.Type);
            Assert.True(t.Stacks == ofType.Sum(a => a.Samples), $"{t}");
            if (FixedSizes.TryGetValue(site.Type, out long size))
                AssertWeights(t, Weight(size));
        }
    }

    // Each stack stands for its weight over its object's size (AllocationSample.EstimatedObjects,
    // from alvk_sample.object_size): with every event's stack kept, a type's stacks stand for as
    // many objects as its estimated count (each stack rounds to whole objects).
    [Fact]
    public void StacksStandForAsManyObjectsAsTheEstimatedCount()
    {
        EstimatedWindow w = WindowsReport.Stacks;
        string json = ReportJson.Write(w);
        Assert.True(w.StackEvery == 1 && w.DroppedSamples == 0 && (ulong)w.SampleCount == w.SampledEvents, json);
        foreach (string type in WorkloadTypes)
        {
            EstimatedType t = w.Types.Single(x => x.Name == type);
            Assert.True(t.Stacks > 0 && (ulong)t.Stacks == t.Samples, $"{t}");
            double tolerance = t.Stacks + 1e-3 * t.Count;
            output.WriteLine($"{type}: stacks stand for {t.StackObjects} objects, the estimate is {t.Count}");
            Assert.True(Math.Abs((double)t.StackObjects - t.Count) <= tolerance,
                $"{type}: the stacks stand for {t.StackObjects} objects, the estimated count is {t.Count}: {t}");
        }
    }

    [Fact]
    public void EveryTenthStackWeighsTenEvents()
    {
        EstimatedWindow w = WindowsReport.EveryTenth;
        string json = ReportJson.Write(w);
        Assert.True(w.Mode == "Sampled" && w.StackEvery == 10, json);
        // About 2,500 events: a tenth of them walked, whichever tenth (if drawn at random, 250
        // with a standard deviation of 15, so 30% is 5 sigma).
        double tenth = w.SampledEvents / 10.0;
        double stacks = w.SampleCount + (double)w.DroppedSamples;
        Assert.True(w.SampledEvents > 1500 && Math.Abs(stacks - tenth) <= 0.3 * tenth, $"{stacks} stacks: {json}");
        foreach (string type in new[] { Tiny, Small, Wide, Words })
            AssertWeights(w.Types.Single(x => x.Name == type), 10 * Weight(FixedSizes[type]));
        // The stacks' weights add up to the estimate (loosely: they are a tenth of its events).
        ulong stackBytes = (ulong)w.Types.Sum(t => (decimal)t.StackWeightBytes);
        ulong estimated = (ulong)w.Types.Sum(t => (decimal)t.Bytes);
        Assert.True(Math.Abs((double)stackBytes - estimated) <= 0.3 * estimated,
            $"stacks weigh {stackBytes} bytes, the estimate is {estimated}: {json}");
    }

    private static void AssertWeights(EstimatedType t, double weight)
    {
        Assert.True(t.Stacks > 0, $"no stack of {t}");
        Assert.True(Math.Abs(t.MinStackWeight - weight) <= weight * 1e-3 && Math.Abs(t.MaxStackWeight - weight) <= weight * 1e-3,
            $"{t.Name}: stack weights {t.MinStackWeight}..{t.MaxStackWeight}, expected {weight:F0}");
    }

    [Fact]
    public void LargeAndPinnedObjectsAreCountedExactly()
    {
        SampledWindowsReport r = WindowsReport;
        HeapTruth truth = r.HeapTruth;
        EstimatedWindow w = r.Heaps;
        string json = ReportJson.Write(w);
        Assert.True(truth.LargeSize == FixedSizes[LargeCells] && truth.PinnedSize == FixedSizes[PinnedCells], $"{truth}");
        Assert.True(w.AllocatedBytes == (long)(truth.LargeCount * (ulong)truth.LargeSize + truth.PinnedCount * (ulong)truth.PinnedSize),
            json);
        Assert.True(w.LargeObjects == 40 && w.LargeBytes == 40ul * (ulong)FixedSizes[LargeCells], json);
        Assert.True(w.PinnedObjects == 60 && w.PinnedBytes == 60ul * (ulong)FixedSizes[PinnedCells], json);
        foreach ((string type, ulong count) in new[] { (LargeCells, 40ul), (PinnedCells, 60ul) })
        {
            EstimatedType t = w.Types.Single(x => x.Name == type);
            ulong bytes = count * (ulong)FixedSizes[type];
            // Exact, and not counted twice: the AllocationSampled events of these objects (a
            // 100 KB array is sampled with p = 0.62) add nothing to the exact count.
            Assert.True(t.Present && t.Count == count && t.ExactCount == count, ReportJson.Write(t));
            Assert.True(t.Bytes == bytes && t.ExactBytes == bytes, ReportJson.Write(t));
            Assert.True(t.CountLow == count && t.CountHigh == count, ReportJson.Write(t));
            Assert.True(t.BytesLow == bytes && t.BytesHigh == bytes, ReportJson.Write(t));
        }
    }

    [Fact]
    public void TwoThousandWindowsOpenAndCloseWithoutAHangOrAStaleSession()
    {
        SampledCyclesReport r = Get<SampledCyclesReport>(Cycles);
        string json = ReportJson.Write(r);
        Assert.True(r.PlainWindows == 1000 && r.WaitingWindows == 1000, json);
        // No stop outlasted its bound (a window closed before its start returned leaves its stop
        // pending by design and is not counted), and no session was refused.
        Assert.True(r.StopPending == 0 && r.Refused == 0, json);
        // A window that waited for its session cannot have closed before it delivered.
        Assert.True(r.WaitingClosedBeforeSampling == 0, json);
        // 1,000 windows of 192 KB each: about 1,900 events (1,000 is 20 sigma below).
        Assert.True(r.WaitingSampledEvents > 1000, json);
        CaptureStateFigures before = r.StateBefore, after = r.StateAfterCycles, outside = r.StateAfterOutside;
        // A plain window can close before the capture-control thread has started its session
        // (its report says ClosedBeforeSampling; the session is then started late and stopped, or
        // never started): every other window had exactly one session, and none had two.
        ulong closedBefore = (ulong)(r.WarmupClosedBeforeSampling + r.PlainClosedBeforeSampling +
            r.WaitingClosedBeforeSampling);
        Assert.True(before.SessionsStarted <= before.WindowsOpened, json);
        Assert.True(before.SessionsStarted >= before.WindowsOpened - (ulong)r.WarmupClosedBeforeSampling, json);
        Assert.True(after.SessionsStarted <= after.WindowsOpened && after.SessionsStarted >= after.WindowsOpened - closedBefore,
            json);
        // The 1,000 windows that waited: one session each.
        Assert.True(after.SessionsStarted - before.SessionsStarted >= 1000, json);
        foreach (CaptureStateFigures s in new[] { before, after, outside })
        {
            Assert.True(s.Phase == "Idle" && s.StopHangs == 0 && s.CurrentWindowEvents == 0, json);
            Assert.True(s.SessionsStarted == s.SessionsStopped, json);
        }
        Assert.True(after.WindowsOpened - before.WindowsOpened == 2000, json);
        Assert.True(after.EventsInWindows - before.EventsInWindows == r.PlainSampledEvents + r.WaitingSampledEvents, json);
        // 102 MB allocated with no window open (about 1,000 events had a session or its
        // keyword been left on): nothing delivered, nothing started.
        Assert.True(r.OutsideAllocatedBytes >= 100_000_000, json);
        Assert.True(outside.EventsOutsideWindows == after.EventsOutsideWindows, json);
        Assert.True(outside.EventsInWindows == after.EventsInWindows && outside.SessionsStarted == after.SessionsStarted,
            json);
        // During the cycles a few events may arrive between windows, by design: a plain window
        // that closed before its session's start returned leaves that session delivering until
        // the capture-control thread stops it; those count as outside a window (ignored). Each
        // one needs such a window.
        Assert.True(after.EventsOutsideWindows <= (ulong)r.PlainClosedBeforeSampling * 10, json);
    }

    [Fact]
    public void EndFromAnotherThreadWhileThreadsAllocateReturnsInBoundedTime()
    {
        SampledThreadsReport r = Get<SampledThreadsReport>(Threads);
        string json = ReportJson.Write(r);
        Assert.True(r.FirstWaited, json);
        Assert.True(r.Ends.Count == 12, json);
        foreach (CrossThreadEnd end in r.Ends)
        {
            Assert.True(end.Error is null, json);
            // The stop's bound (ALVK_CAPTURE_STOP_BOUND_MS, 2 s) and the resolution after it.
            // A window closed before its session's start returned leaves the stop pending by
            // design (End does not wait for the start); any other stop returned in time.
            Assert.True(end.EndMs < 5000 && (!end.SessionStopPending || end.ClosedBeforeSampling), json);
        }
        // The windows left open 30 ms after their session delivered, while four threads
        // allocate at about a GB/s between them, saw events.
        Assert.True(r.Ends.Where((_, i) => i % 3 != 0).All(e => e.SampledEvents > 0), json);
        Assert.True(r.AllocatedBytes > 0, json);
        CaptureStateFigures s = r.StateAfter;
        Assert.True(s.Phase == "Idle" && s.StopHangs == 0 && s.SessionsStarted == s.SessionsStopped, json);
        Assert.True(s.WindowsOpened == 13, json);
    }

    [Fact]
    public void ExactSettingCountsEveryObjectExactly()
    {
        ExactProfilingReport r = Get<ExactProfilingReport>(Exact);
        string json = ReportJson.Write(r);
        Assert.True(r.AllocationProfiling == 1 && r.Profiling == "Exact" && r.IsEnabled && r.StateProfiling == "Exact", json);
        // Nothing to wait for: a window counts from the moment Begin returns (no session to
        // open), and waiting for it returns true at once (its time is printed, not asserted:
        // a shared machine may deschedule the thread for longer than the call takes).
        Assert.True(r.PhaseAtBegin == "Open" && r.WaitedAtOnce, json);
        output.WriteLine($"exact: waiting for an open window took {r.WaitMs:F2} ms");
        foreach (EstimatedWindow w in new[] { r.CountOnly, r.Sampled })
        {
            string window = ReportJson.Write(w);
            Assert.True(w.Source == "Exact" && !w.IsEstimate && w.SampledEvents == 0, window);
            ulong truthBytes = (ulong)w.Types.Sum(t => (decimal)t.TruthBytes);
            Assert.True(w.AllocatedBytes == (long)truthBytes && w.TotalBytes >= truthBytes, window);
            foreach (EstimatedType t in w.Types)
            {
                string type = ReportJson.Write(t);
                if (t.Name == Outside)
                {
                    Assert.False(t.Present, type);
                    continue;
                }
                Assert.True(t.Present && !t.IsEstimate && t.Count == t.TruthCount && t.Bytes == t.TruthBytes, type);
                Assert.True(t.CountLow == t.Count && t.CountHigh == t.Count, type);
                Assert.True(t.BytesLow == t.Bytes && t.BytesHigh == t.Bytes, type);
                Assert.True(t.Samples == 0 && t.ExactCount == t.Count && t.ExactBytes == t.Bytes, type);
            }
        }
        Assert.True(r.CountOnly.Mode == "CountOnly" && r.CountOnly.SampleCount == 0, json);
        // 1.28 MB at the default 100 KB mean interval: about 12 stacks.
        Assert.True(r.Sampled.Mode == "Sampled" && r.Sampled.SampleCount > 0, json);
    }

    [Fact]
    public void ExactProfilingSaysItsCostOnceOnStderr()
    {
        string[] exact = ProfilingLines(Run(Exact).Stderr);
        Assert.True(exact.Length == 1, $"expected one line about exact allocation profiling:\n{Run(Exact).Stderr}");
        Assert.Contains("exact", exact[0], StringComparison.OrdinalIgnoreCase);
        // Sampled profiling costs nothing outside a window: nothing to warn about.
        Assert.Empty(ProfilingLines(Run(Windows).Stderr));
    }

    private static string[] ProfilingLines(string stderr) =>
    [
        .. stderr.Split('\n').Where(l =>
            l.Contains("[alvorkit-interception]", StringComparison.Ordinal) &&
            l.Contains("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING", StringComparison.Ordinal)),
    ];

    [Fact]
    public void MalformedSettingIsAConfigurationErrorAndCaptureIsRefused()
    {
        ProfilingFlagReport r = Get<ProfilingFlagReport>(Flag);
        string json = ReportJson.Write(r);
        Assert.True(r.Attached == 1 && r.StartupStatus == "AllocationFlagMalformed", json);
        Assert.True(r.AllocationProfiling == 0 && r.Profiling == "Off" && !r.IsEnabled, json);
        Assert.True(r.BeginRefusal == "AllocationProfilingOff" && r.BeginCall == "alvk_capture_begin", json);
        Assert.True(r.StateCall == "phase Idle", json);
        Assert.Contains($"\"{MalformedValue}\"", Run(Flag).Stderr);
    }
}
