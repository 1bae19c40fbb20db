using System.IO.Compression;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using AlvorKit.Proofs.Reports;
using Json.Schema;
using Xunit;
using static AlvorKit.Proofs.AllocationReports;

namespace AlvorKit.Proofs;

/// <summary>
/// The sampled window's exports, read back from the files the host wrote: speedscope JSON
/// (validated against speedscope's schema), folded stacks and gzipped pprof, each with the
/// report's sample count and sampled bytes.
/// </summary>
[Trait("Feature", "Allocations")]
public class AllocationExportProofs
{
    private const string AllocateALeaf = "AlvorKit.Proofs.Host.AllocationWorkload.AllocateA";

    private static ExportedFiles Files => Captured(Sampled).Files;

    private static WindowSummary Summary => Captured(Sampled).Summary;

    [Fact]
    public void SpeedscopeExportValidatesAgainstTheSchemaAndHasTheReportTotals()
    {
        string text = File.ReadAllText(Files.Speedscope);
        var schema = JsonSchema.FromText(File.ReadAllText(SpeedscopeSchema()));
        using (JsonDocument document = JsonDocument.Parse(text))
        {
            EvaluationResults result = schema.Evaluate(document.RootElement,
                new EvaluationOptions { OutputFormat = OutputFormat.List });
            Assert.True(result.IsValid, "schema errors: " + string.Join("; ", (result.Details ?? [])
                .Where(d => d.Errors is not null)
                .SelectMany(d => d.Errors!.Select(e => $"{d.InstanceLocation}: {e.Key} {e.Value}"))));
        }

        // What the schema cannot say: indices in range, one weight per sample, the totals.
        JsonNode file = JsonNode.Parse(text)!;
        Assert.Equal("https://www.speedscope.app/file-format-schema.json", file.Text("$schema"));
        JsonArray frames = file["shared"]!["frames"]!.AsArray();
        Assert.All(frames, f => Assert.False(string.IsNullOrEmpty(f!.Text("name"))));
        JsonArray profiles = file["profiles"]!.AsArray();
        Assert.Equal(2, profiles.Count);
        Assert.Equal(["bytes", "none"], profiles.Select(p => p!.Text("unit")));
        int sampleCount = Summary.SampleCount;
        foreach (JsonNode profile in profiles.Select(p => p!))
        {
            Assert.Equal("sampled", profile.Text("type"));
            JsonArray samples = profile["samples"]!.AsArray(), weights = profile["weights"]!.AsArray();
            Assert.Equal(sampleCount, samples.Count);
            Assert.Equal(samples.Count, weights.Count);
            Assert.All(samples, s => Assert.All(s!.AsArray(), i => Assert.InRange(i!.GetValue<int>(), 0, frames.Count - 1)));
            ulong total = weights.Aggregate(0UL, (sum, w) => sum + w!.GetValue<ulong>());
            Assert.Equal(total, profile.Value<ulong>("endValue"));
            Assert.Equal(profile.Text("unit") == "bytes" ? Summary.SampledBytes : (ulong)sampleCount, total);
        }
        // Outermost first: every stack ends at a workload frame and starts at the host's entry.
        JsonArray first = profiles[0]!["samples"]!.AsArray();
        Assert.Contains(first, s => frames[s!.AsArray()[^1]!.GetValue<int>()]!.Text("name") == AllocateALeaf);
        JsonNode leaf = frames.First(f => f!.Text("name") == AllocateALeaf)!;
        Assert.EndsWith("AllocationWorkload.cs", leaf.Text("file"));
        Assert.Equal(Captured(Sampled).Expected["AlvorKit.Proofs.Host.AllocA"].Line, leaf.Value<int>("line"));
    }

    [Fact]
    public void FoldedExportLinesAreStackAndWeightWithTheReportTotal()
    {
        string[] lines = File.ReadAllLines(Files.Folded);
        Assert.NotEmpty(lines);
        var shape = new Regex(@"^(?<stack>[^;\n]+(;[^;\n]+)*) (?<weight>\d+)$");
        ulong total = 0;
        var innermost = new HashSet<string>();
        foreach (string line in lines)
        {
            Match m = shape.Match(line);
            Assert.True(m.Success, $"not 'stack weight': {line}");
            string[] frames = m.Groups["stack"].Value.Split(';');
            Assert.All(frames, f => Assert.False(string.IsNullOrWhiteSpace(f), line));
            innermost.Add(frames[^1]);
            total += ulong.Parse(m.Groups["weight"].Value);
        }
        Assert.Equal(Summary.SampledBytes, total);
        Assert.Equal(lines.Length, lines.Distinct().Count());
        int allocA = Captured(Sampled).Expected["AlvorKit.Proofs.Host.AllocA"].Line;
        Assert.Contains($"{AllocateALeaf} (AllocationWorkload.cs:{allocA})", innermost);
    }

    [Fact]
    public void PprofExportDecodesWithTheReportTotals()
    {
        byte[] gz = File.ReadAllBytes(Files.Pprof);
        Assert.True(gz.Length > 2 && gz[0] == 0x1F && gz[1] == 0x8B, "not gzip");
        using var unzip = new GZipStream(new MemoryStream(gz), CompressionMode.Decompress);
        using var raw = new MemoryStream();
        unzip.CopyTo(raw);
        Profile profile = Profile.Decode(raw.ToArray());

        Assert.Equal("", profile.Strings[0]);
        Assert.Equal(["alloc_space/bytes", "alloc_objects/count"],
            profile.SampleTypes.Select(t => $"{profile.Strings[(int)t.Type]}/{profile.Strings[(int)t.Unit]}"));
        Assert.Equal(Summary.SampleCount, profile.Samples.Count);
        Assert.All(profile.Samples, s => Assert.Equal(2, s.Values.Count));
        Assert.Equal(Summary.SampledBytes, profile.Samples.Aggregate(0UL, (t, s) => t + s.Values[0]));
        Assert.Equal(Summary.SampledObjects, profile.Samples.Aggregate(0UL, (t, s) => t + s.Values[1]));
        Assert.Equal(profile.Locations.Count, profile.Locations.Select(l => l.Id).Distinct().Count());
        var locations = profile.Locations.ToDictionary(l => l.Id);
        var functions = profile.Functions.ToDictionary(f => f.Id);
        Assert.All(profile.Samples, s => Assert.All(s.LocationIds, id => Assert.True(locations.ContainsKey(id), $"location {id}")));
        Assert.All(profile.Locations, l => Assert.True(functions.ContainsKey(l.FunctionId), $"function {l.FunctionId}"));

        // The AllocA samples' leaf is AllocateA at its line in AllocationWorkload.cs.
        int line = Captured(Sampled).Expected["AlvorKit.Proofs.Host.AllocA"].Line;
        Location leaf = locations[profile.Samples.First(s =>
            profile.Strings[(int)functions[locations[s.LocationIds[0]].FunctionId].Name] == AllocateALeaf).LocationIds[0]];
        Assert.Equal(line, leaf.Line);
        Assert.EndsWith("AllocationWorkload.cs", profile.Strings[(int)functions[leaf.FunctionId].Filename]);
    }

    // A window whose sample storage filled (the full-storage launch: 16 slots) says in its
    // exports that stacks were dropped and the weights undercount; one that dropped none does not.
    [Fact]
    public void ExportsSayWhenStacksWereDropped()
    {
        CapturedWindows full = Captured(FullStorage);
        ulong dropped = full.Summary.DroppedSamples;
        Assert.True(dropped > 0, $"the full-storage window dropped no stack: {full.Summary}");
        string note = $"{dropped} stacks dropped: storage full; weights undercount";
        Assert.Contains(note, PprofStrings(full.Files.Pprof));
        Assert.Contains(SpeedscopeProfileNames(full.Files.Speedscope), name => name.Contains(note, StringComparison.Ordinal));

        Assert.Equal(0UL, Summary.DroppedSamples);
        Assert.DoesNotContain(PprofStrings(Files.Pprof), s => s.Contains("stacks dropped", StringComparison.Ordinal));
        Assert.DoesNotContain(SpeedscopeProfileNames(Files.Speedscope),
            name => name.Contains("stacks dropped", StringComparison.Ordinal));
    }

    private static List<string> PprofStrings(string path)
    {
        using var unzip = new GZipStream(File.OpenRead(path), CompressionMode.Decompress);
        using var raw = new MemoryStream();
        unzip.CopyTo(raw);
        return Profile.Decode(raw.ToArray()).Strings;
    }

    private static List<string> SpeedscopeProfileNames(string path)
    {
        JsonNode root = JsonNode.Parse(File.ReadAllText(path))!;
        return [.. root["profiles"]!.AsArray().Select(p => (string)p!["name"]!)];
    }

    // profile.proto, as far as the proof reads it.
    private sealed record ValueType(ulong Type, ulong Unit);
    private sealed record Sample(List<ulong> LocationIds, List<ulong> Values);
    private sealed record Location(ulong Id, ulong FunctionId, long Line);
    private sealed record Function(ulong Id, ulong Name, ulong Filename);

    private sealed class Profile
    {
        public List<ValueType> SampleTypes { get; } = [];
        public List<Sample> Samples { get; } = [];
        public List<Location> Locations { get; } = [];
        public List<Function> Functions { get; } = [];
        public List<string> Strings { get; } = [];

        public static Profile Decode(byte[] bytes)
        {
            var p = new Profile();
            foreach (var (field, _, data) in Fields(bytes))
            {
                switch (field)
                {
                    case 1:
                        var vt = Fields(data!).ToList();
                        p.SampleTypes.Add(new ValueType(Varint(vt, 1), Varint(vt, 2)));
                        break;
                    case 2:
                        var s = Fields(data!).ToList();
                        p.Samples.Add(new Sample(Repeated(s, 1), Repeated(s, 2)));
                        break;
                    case 4:
                        var l = Fields(data!).ToList();
                        var line = Fields(l.Single(f => f.Field == 4).Data!).ToList();
                        p.Locations.Add(new Location(Varint(l, 1), Varint(line, 1), (long)Varint(line, 2)));
                        break;
                    case 5:
                        var f = Fields(data!).ToList();
                        p.Functions.Add(new Function(Varint(f, 1), Varint(f, 2), Varint(f, 4)));
                        break;
                    case 6:
                        p.Strings.Add(Encoding.UTF8.GetString(data!));
                        break;
                }
            }
            return p;
        }

        private static ulong Varint(List<(int Field, ulong Value, byte[]? Data)> fields, int field) =>
            fields.LastOrDefault(f => f.Field == field).Value;

        // A repeated varint field, packed (length-delimited) or not.
        private static List<ulong> Repeated(List<(int Field, ulong Value, byte[]? Data)> fields, int field)
        {
            var values = new List<ulong>();
            foreach (var f in fields.Where(f => f.Field == field))
            {
                if (f.Data is null)
                {
                    values.Add(f.Value);
                    continue;
                }
                for (int at = 0; at < f.Data.Length;)
                    values.Add(ReadVarint(f.Data, ref at));
            }
            return values;
        }

        private static IEnumerable<(int Field, ulong Value, byte[]? Data)> Fields(byte[] bytes)
        {
            for (int at = 0; at < bytes.Length;)
            {
                ulong key = ReadVarint(bytes, ref at);
                int field = (int)(key >> 3), wire = (int)(key & 7);
                switch (wire)
                {
                    case 0:
                        yield return (field, ReadVarint(bytes, ref at), null);
                        break;
                    case 2:
                        int length = checked((int)ReadVarint(bytes, ref at));
                        yield return (field, 0, bytes.AsSpan(at, length).ToArray());
                        at += length;
                        break;
                    default:
                        throw new InvalidDataException($"wire type {wire} of field {field}: profile.proto uses 0 and 2 only");
                }
            }
        }

        private static ulong ReadVarint(byte[] bytes, ref int at)
        {
            ulong value = 0;
            for (int shift = 0; ; shift += 7)
            {
                byte b = bytes[at++];
                value |= (ulong)(b & 0x7F) << shift;
                if (b < 0x80)
                    return value;
                if (shift > 63)
                    throw new InvalidDataException("varint longer than 10 bytes");
            }
        }
    }

    // speedscope's own schema, from the npm package `speedscope` that ./build.sh installs
    // into build/npm (ALVK_SPEEDSCOPE_SCHEMA overrides the path).
    private static string SpeedscopeSchema()
    {
        string path = Environment.GetEnvironmentVariable("ALVK_SPEEDSCOPE_SCHEMA") is { Length: > 0 } set
            ? set
            : Checkout.File("build", "npm", "node_modules", "speedscope", "dist", "release", "file-format-schema.json");
        Assert.True(File.Exists(path),
            $"speedscope's schema is missing at {path}: run ./build.sh test, which installs it with npm");
        return path;
    }
}
