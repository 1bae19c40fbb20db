using System.Text.Json;

namespace AlvorKit.Interception.Allocations.Exporters;

/// <summary>
/// speedscope's file format (https://www.speedscope.app/file-format-schema.json): the
/// frames once in shared.frames, and two "sampled" profiles over the same stacks, one
/// weighted by the bytes each sample stands for (<see cref="AllocationSample.WeightBytes"/>;
/// the bytes profile's name says when they are estimates of sampled profiling and when stacks
/// were dropped because the sample storage was full), one by
/// sample count. Stacks are written
/// outermost frame first, as the format requires.
/// </summary>
public static class SpeedscopeExporter
{
    /// <summary>The schema the file names in its <c>$schema</c> property.</summary>
    public const string Schema = "https://www.speedscope.app/file-format-schema.json";

    /// <summary>
    /// Writes <paramref name="report"/> to a new file at <paramref name="path"/>;
    /// <paramref name="name"/> titles the profiles.
    /// </summary>
    public static void WriteFile(AllocationReport report, string path, string name = "allocations")
    {
        using FileStream file = File.Create(path);
        Write(report, file, name);
    }

    /// <summary>
    /// Writes <paramref name="report"/> as speedscope JSON to <paramref name="stream"/>;
    /// <paramref name="name"/> titles the profiles.
    /// </summary>
    public static void Write(AllocationReport report, Stream stream, string name = "allocations")
    {
        var frames = new List<AllocationFrame>();
        var indexOf = new Dictionary<string, int>(StringComparer.Ordinal);
        int[][] stacks = report.Samples
            .Select(s => s.Frames.Reverse().Select(f => Index(f, frames, indexOf)).ToArray())
            .ToArray();

        using var json = new Utf8JsonWriter(stream);
        json.WriteStartObject();
        json.WriteString("$schema", Schema);
        json.WriteString("name", name);
        json.WriteString("exporter", "AlvorKit.Interception.Allocations");
        json.WriteNumber("activeProfileIndex", 0);
        json.WriteStartObject("shared");
        json.WriteStartArray("frames");
        foreach (AllocationFrame f in frames)
        {
            json.WriteStartObject();
            json.WriteString("name", f.Method);
            if (f.File is not null)
            {
                json.WriteString("file", f.File);
                json.WriteNumber("line", f.Line ?? 0);
            }
            json.WriteEndObject();
        }
        json.WriteEndArray();
        json.WriteEndObject();
        json.WriteStartArray("profiles");
        string bytes = report.IsEstimate
            ? $"{name}: allocated bytes (estimated from runtime allocation sampling)"
            : $"{name}: allocated bytes (sampled stacks)";
        if (report.DroppedNote is { } dropped)
            bytes += $" ({dropped})";
        Profile(json, bytes, "bytes", stacks, report.Samples.Select(s => s.WeightBytes));
        Profile(json, $"{name}: samples", "none", stacks, report.Samples.Select(_ => 1UL));
        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static void Profile(Utf8JsonWriter json, string name, string unit, int[][] stacks, IEnumerable<ulong> weights)
    {
        ulong[] w = weights.ToArray();
        json.WriteStartObject();
        json.WriteString("type", "sampled");
        json.WriteString("name", name);
        json.WriteString("unit", unit);
        json.WriteNumber("startValue", 0);
        json.WriteNumber("endValue", (ulong)w.Sum(x => (decimal)x));
        json.WriteStartArray("samples");
        foreach (int[] stack in stacks)
        {
            json.WriteStartArray();
            foreach (int frame in stack)
                json.WriteNumberValue(frame);
            json.WriteEndArray();
        }
        json.WriteEndArray();
        json.WriteStartArray("weights");
        foreach (ulong x in w)
            json.WriteNumberValue(x);
        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static int Index(AllocationFrame frame, List<AllocationFrame> frames, Dictionary<string, int> indexOf)
    {
        if (!indexOf.TryGetValue(frame.Key, out int index))
        {
            index = frames.Count;
            frames.Add(frame);
            indexOf[frame.Key] = index;
        }
        return index;
    }
}
