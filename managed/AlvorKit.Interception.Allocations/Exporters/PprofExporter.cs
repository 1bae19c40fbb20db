using System.IO.Compression;

namespace AlvorKit.Interception.Allocations.Exporters;

/// <summary>
/// pprof's profile.proto (github.com/google/pprof/blob/main/proto/profile.proto), gzipped:
/// sample types alloc_space/bytes and alloc_objects/count, one sample per kept sample
/// (leaf location first, labelled with the allocated type), a location per distinct frame
/// (method and line), a function per distinct method and file. Each sample's values are the
/// bytes it stands for (<see cref="AllocationSample.WeightBytes"/>: in sampled profiling the
/// event's unbiased weight) and the objects (<see cref="AllocationSample.EstimatedObjects"/>);
/// the profile's comments say which profiling produced it, that its values are estimates, and
/// how many stacks were dropped when the sample storage was full.
/// </summary>
public static class PprofExporter
{
    // Field numbers of profile.proto.
    private const int ProfileSampleType = 1, ProfileSample = 2, ProfileLocation = 4, ProfileFunction = 5,
        ProfileStringTable = 6, ProfileDurationNanos = 10, ProfileComment = 13, ProfileDefaultSampleType = 14;
    private const int ValueTypeType = 1, ValueTypeUnit = 2;
    private const int SampleLocationId = 1, SampleValue = 2, SampleLabel = 3;
    private const int LabelKey = 1, LabelStr = 2;
    private const int LocationId = 1, LocationLine = 4;
    private const int LineFunctionId = 1, LineLine = 2;
    private const int FunctionId = 1, FunctionName = 2, FunctionSystemName = 3, FunctionFilename = 4;

    /// <summary>Writes the gzipped profile of <paramref name="report"/> to a new file at <paramref name="path"/>.</summary>
    public static void WriteFile(AllocationReport report, string path)
    {
        using FileStream file = File.Create(path);
        Write(report, file);
    }

    /// <summary>Writes the gzipped profile.</summary>
    public static void Write(AllocationReport report, Stream stream)
    {
        byte[] profile = Encode(report);
        using var gzip = new GZipStream(stream, CompressionLevel.Optimal, leaveOpen: true);
        gzip.Write(profile);
    }

    /// <summary>The profile message, not compressed.</summary>
    public static byte[] Encode(AllocationReport report)
    {
        var strings = new List<string> { "" };
        var stringIndex = new Dictionary<string, long>(StringComparer.Ordinal) { [""] = 0 };
        long S(string s)
        {
            if (!stringIndex.TryGetValue(s, out long i))
            {
                stringIndex[s] = i = strings.Count;
                strings.Add(s);
            }
            return i;
        }

        var functions = new Dictionary<(string Method, string File), ulong>();
        var locations = new Dictionary<string, (ulong Id, ulong Function, long Line)>(StringComparer.Ordinal);
        ulong LocationOf(AllocationFrame f)
        {
            if (!locations.TryGetValue(f.Key, out var location))
            {
                var key = (f.Method, f.File ?? "");
                if (!functions.TryGetValue(key, out ulong function))
                    functions[key] = function = (ulong)functions.Count + 1;
                locations[f.Key] = location = ((ulong)locations.Count + 1, function, f.Line ?? 0);
            }
            return location.Id;
        }

        var w = new ProtoWriter();
        w.Message(ProfileSampleType, m => { m.Int64(ValueTypeType, S("alloc_space")); m.Int64(ValueTypeUnit, S("bytes")); });
        w.Message(ProfileSampleType, m => { m.Int64(ValueTypeType, S("alloc_objects")); m.Int64(ValueTypeUnit, S("count")); });
        foreach (AllocationSample sample in report.Samples)
        {
            ulong[] ids = sample.Frames.Select(LocationOf).ToArray(); // innermost (the leaf) first
            w.Message(ProfileSample, m =>
            {
                m.Packed(SampleLocationId, ids);
                m.Packed(SampleValue, [sample.WeightBytes, sample.EstimatedObjects]);
                m.Message(SampleLabel, l => { l.Int64(LabelKey, S("type")); l.Int64(LabelStr, S(sample.TypeName)); });
            });
        }
        foreach (var (id, function, line) in locations.Values)
            w.Message(ProfileLocation, m =>
            {
                m.UInt64(LocationId, id);
                m.Message(LocationLine, l => { l.UInt64(LineFunctionId, function); l.Int64(LineLine, line); });
            });
        foreach (var ((method, file), id) in functions)
            w.Message(ProfileFunction, m =>
            {
                m.UInt64(FunctionId, id);
                m.Int64(FunctionName, S(method));
                m.Int64(FunctionSystemName, S(method));
                m.Int64(FunctionFilename, S(file));
            });
        w.Int64(ProfileDurationNanos, (long)report.ElapsedNs);
        foreach (string comment in Comments(report))
            w.Int64(ProfileComment, S(comment));
        w.Int64(ProfileDefaultSampleType, S("alloc_space"));
        foreach (string s in strings) // last: every string above is in the table by now
            w.String(ProfileStringTable, s);
        return w.ToArray();
    }

    /// <summary>What the profile's values are, for pprof's comment lines.</summary>
    internal static IEnumerable<string> Comments(AllocationReport report)
    {
        if (report.IsEstimate)
        {
            yield return "AlvorKit sampled allocation profiling: values are estimates from the runtime's " +
                         $"AllocationSampled events ({report.SampledEvents} in the window; each weighs its object's " +
                         $"size over its sampling probability; each event a stack with probability 1/" +
                         $"{Math.Max(1u, report.StackEvery)}, its weight times as many: unbiased)";
            if (report.SessionRefused || report.ClosedBeforeSampling)
                yield return "the runtime's sampling session never delivered in this window: only large and " +
                             "pinned objects were counted";
        }
        else
            yield return "AlvorKit exact allocation profiling: stacks sampled about once per sampling interval " +
                         "of allocated bytes; each sample weighs the bytes it stands for";
        if (report.DroppedNote is { } dropped)
            yield return dropped;
    }
}
