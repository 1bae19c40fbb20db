using System.Text.Json.Nodes;
using AlvorKit.Interception;
using Xunit;
using static AlvorKit.Proofs.AllocationReports;

namespace AlvorKit.Proofs;

/// <summary>
/// Allocation capture windows in a profiled process: exact per-type counts of what the
/// window allocated (and nothing of what the process allocated before or after it), sampled
/// stacks attributed to methods and source lines, and the fixed-size sample storage.
/// </summary>
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
    public void Binding_structs_have_the_sizes_of_the_header()
    {
        JsonNode sizes = Get(Sampled)["sizes"]!;
        Assert.Equal(32, sizes.Value<int>("options"));
        Assert.Equal(72, sizes.Value<int>("summary"));
        Assert.Equal(32 + 512, sizes.Value<int>("typeCount"));
        Assert.Equal(40, sizes.Value<int>("frame"));
        Assert.Equal(24 + 64 * 40, sizes.Value<int>("sample"));
        Assert.Equal(24 + 256, sizes.Value<int>("methodInfo"));
    }

    [Theory]
    [MemberData(nameof(CapturingVariants), MemberType = typeof(AllocationReports))]
    public void Window_counts_each_type_exactly_and_nothing_allocated_outside_it(string variant)
    {
        JsonObject report = Get(variant);
        JsonNode expected = report["expected"]!, counted = report["workloadTypes"]!, outside = report["outside"]!;
        foreach (var (type, node) in expected.AsObject())
        {
            ulong count = node!.Value<ulong>("count");
            JsonNode got = counted[type]!;
            // The process allocated the same type just before the window and just after it.
            Assert.True(outside[type]!.Value<int>("before") > 0 && outside[type]!.Value<int>("after") > 0, type);
            Assert.True(got.Value<ulong>("count") == count,
                $"{variant}: {type} counted {got.Value<ulong>("count")}, expected exactly {count} " +
                $"(outside the window: {outside[type]!.ToJsonString()}): {counted.ToJsonString()}");
            Assert.True(got.Value<ulong>("bytes") == count * ObjectSizes[type],
                $"{variant}: {type} bytes {got.Value<ulong>("bytes")}, expected {count} x {ObjectSizes[type]}");
        }
        JsonNode summary = report["summary"]!;
        string json = summary.ToJsonString();
        Assert.True(summary.Value<ulong>("overflowObjects") == 0 && summary.Value<ulong>("overflowBytes") == 0, json);
        Assert.True(summary.Value<ulong>("typeObjects") == summary.Value<ulong>("totalObjects"), json);
        Assert.True(summary.Value<ulong>("typeBytes") == summary.Value<ulong>("totalBytes"), json);
        ulong workload = expected.AsObject().Aggregate(0UL, (sum, e) => sum + e.Value!.Value<ulong>("count"));
        Assert.True(summary.Value<ulong>("totalObjects") >= workload, json);
    }

    [Fact]
    public void Count_only_window_has_the_sampled_windows_exact_counts_and_no_samples()
    {
        JsonObject countOnly = Get(CountOnly), sampled = Get(Sampled);
        Assert.Equal(sampled["workloadTypes"]!.ToJsonString(), countOnly["workloadTypes"]!.ToJsonString());
        JsonNode summary = countOnly["summary"]!;
        string json = summary.ToJsonString();
        Assert.True(summary.Text("mode") == "CountOnly", json);
        Assert.True(summary.Value<ulong>("totalObjects") == sampled["summary"]!.Value<ulong>("totalObjects"), json);
        Assert.True(summary.Value<ulong>("totalBytes") == sampled["summary"]!.Value<ulong>("totalBytes"), json);
        Assert.True(summary.Value<int>("sampleCount") == 0, json);
        Assert.True(summary.Value<ulong>("droppedSamples") == 0, json);
        Assert.True(summary.Value<ulong>("sampledBytes") == 0, json);
        Assert.Empty(countOnly["attributions"]!.AsArray());
    }

    [Fact]
    public void Sampled_stacks_attribute_each_type_to_its_method_and_source_line()
    {
        JsonObject report = Get(Sampled);
        JsonNode summary = report["summary"]!;
        Assert.True(summary.Text("mode") == "Sampled", summary.ToJsonString());
        Assert.True(summary.Value<int>("sampleCount") > 0, summary.ToJsonString());
        Assert.True(summary.Value<int>("samplesWithFrames") == summary.Value<int>("sampleCount"), summary.ToJsonString());
        string[] source = File.ReadAllLines(RepositoryFile("tests/Proofs/AlvorKit.Proofs.Host/AllocationWorkload.cs"));
        var allocations = new Dictionary<string, string>
        {
            ["AlvorKit.Proofs.Host.AllocA"] = "new AllocA()",
            ["System.Int32[]"] = "new int[16]",
            ["System.String"] = "new string('x', 20)",
            ["AlvorKit.Proofs.Host.AllocS"] = "Site(value,",
            ["System.Collections.Generic.List<AlvorKit.Proofs.Host.AllocB>"] = "new List<AllocB>()",
        };
        JsonArray attributions = report["attributions"]!.AsArray();
        foreach (var (type, node) in report["expected"]!.AsObject())
        {
            int line = node!.Value<int>("line");
            // The host's line (CallerLineNumber) is the allocation statement of the real file.
            Assert.True(source[line - 1].Contains(allocations[type], StringComparison.Ordinal),
                $"line {line} of AllocationWorkload.cs is not {type}'s allocation: {source[line - 1]}");
            JsonNode[] ofType = attributions.Where(a => a!.Text("type") == type).Select(a => a!).ToArray();
            Assert.True(ofType.Length > 0, $"no sample of {type}: {attributions.ToJsonString()}");
            foreach (JsonNode a in ofType)
            {
                string json = a.ToJsonString();
                Assert.True(a.Text("method") == node!.Text("method"), $"{type}: method {json}");
                Assert.True(a.Text("file") == "AllocationWorkload.cs", $"{type}: file {json}");
                Assert.True(a.Value<int>("line") == line, $"{type}: line {line} expected: {json}");
                Assert.True(a.Value<ulong>("estimatedBytes") > 0, json);
            }
        }
        // No sample belongs to anything but the workload.
        Assert.All(attributions, a => Assert.Contains(a!.Text("type"), allocations.Keys));
        // The samples' bytes estimate the window's bytes (376 samples expected: 4.8 sigma at 25%).
        double estimate = summary.Value<ulong>("sampledBytes"), total = summary.Value<ulong>("totalBytes");
        Assert.True(Math.Abs(estimate - total) < 0.25 * total, $"sampled {estimate} bytes of {total}");
    }

    [Fact]
    public void Full_storage_keeps_its_slots_counts_the_drops_and_the_counts_stay_exact()
    {
        JsonObject report = Get(FullStorage);
        JsonNode summary = report["summary"]!;
        string json = summary.ToJsonString();
        Assert.True(summary.Value<int>("sampleCount") == FullStorageSlots, json);
        Assert.True(summary.Value<int>("sampleSlots") == FullStorageSlots, json);
        Assert.True(summary.Value<ulong>("droppedSamples") > 0, json);
        // 384,800 bytes at a 64-byte mean interval: thousands of samples were due.
        Assert.True(summary.Value<ulong>("droppedSamples") + (ulong)FullStorageSlots > 1000, json);
        Assert.Equal(4, report.Value<int>("scale"));
        // The exact counts: Window_counts_each_type_exactly... runs on this variant too.
        Assert.Equal(Get(Sampled)["summary"]!.Value<ulong>("totalBytes") * 4, summary.Value<ulong>("totalBytes"));
    }

    [Theory]
    [InlineData(Sampled, DefaultSampleSlots)]
    [InlineData(CountOnly, DefaultSampleSlots)]
    [InlineData(FullStorage, FullStorageSlots)]
    public void Storage_stays_its_startup_size_across_windows(string variant, int slots)
    {
        JsonObject report = Get(variant);
        foreach (string window in new[] { "warmupSummary", "summary", "lastSummary" })
        {
            JsonNode summary = report[window]!;
            string json = $"{window}: {summary.ToJsonString()}";
            Assert.True(summary.Value<int>("sampleSlots") == slots, json);
            Assert.True(summary.Value<int>("typeSlots") == DefaultTypeSlots, json);
            Assert.True(summary.Value<int>("sampleCount") <= slots, json);
        }
        // The window after the measured one starts from empty storage: it keeps samples again
        // (about 4.6 KB allocated: 18 samples expected at 256 bytes, 72 due at 64).
        JsonNode last = report["lastSummary"]!;
        int expectedLast = variant switch { CountOnly => 0, FullStorage => FullStorageSlots, _ => -1 };
        if (expectedLast >= 0)
            Assert.True(last.Value<int>("sampleCount") == expectedLast, last.ToJsonString());
        else
            Assert.True(last.Value<int>("sampleCount") > 0, last.ToJsonString());
    }

    [Fact]
    public void Second_begin_and_idle_end_are_refused()
    {
        JsonNode refusals = Get(Sampled)["refusals"]!;
        Assert.Equal("CaptureActive", refusals.Text("beginWhileActive"));
        Assert.Equal("CaptureNotActive", refusals.Text("endWhenIdle"));
    }

    [Fact]
    public void Without_allocation_profiling_every_capture_call_is_refused()
    {
        JsonObject report = Get(Off);
        Assert.Equal(0, report.Value<int>("allocationProfiling"));
        JsonNode calls = report["calls"]!;
        foreach (string call in new[] { "begin", "end", "readTypes", "readSamples", "describeFunction" })
            Assert.True(calls.Text(call) == "AllocationProfilingOff", $"{call}: {calls.ToJsonString()}");
        Assert.Equal(0, calls.Value<int>("readTypesWritten"));
        Assert.Contains("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1", calls.Text("captureException"));
        // interceptor.Allocations.Begin: the typed exception, caught by its status.
        Assert.Equal(nameof(InterceptionStatus.AllocationProfilingOff), calls.Text("captureExceptionStatus"));
        Assert.False(calls.Value<bool>("captureEnabled"));
    }

    [Fact]
    public void Allocations_Begin_windows_end_once_refuse_a_second_window_and_close_when_disposed()
    {
        JsonNode w = Get(Sampled)["windowApi"]!;
        string json = w.ToJsonString();
        // A second Begin while a window is open: AllocationCaptureException, an InterceptionException
        // whose Status is CaptureActive, naming the call that refused.
        Assert.True(w.Text("secondBegin") == nameof(InterceptionStatus.CaptureActive), json);
        Assert.True(w.Text("secondBeginCall") == "alvk_capture_begin", json);
        Assert.True(w.Value<bool>("secondBeginIsInterceptionException"), json);
        Assert.Contains("ALVK_E_CAPTURE_ACTIVE", w.Text("secondBeginMessage"));
        Assert.True(w.Value<bool>("openWhileOpen"), json);
        // Disposed without End: closed, nothing read, End refused.
        Assert.False(w.Value<bool>("disposedIsOpen"), json);
        Assert.True(w.Text("disposedReport") == "null", json);
        Assert.True(w.Text("endAfterDispose") == nameof(ObjectDisposedException), json);
        // End closes once and returns the same report; the measured window counted the workload
        // exactly (Window_counts_each_type_exactly_and_nothing_allocated_outside_it).
        Assert.True(w.Value<bool>("endTwiceSameReport") && w.Value<bool>("reportIsEnds"), json);
        Assert.False(w.Value<bool>("openAfterEnd"), json);
        Assert.True(w.Text("mode") == "Sampled", json);
    }
}
