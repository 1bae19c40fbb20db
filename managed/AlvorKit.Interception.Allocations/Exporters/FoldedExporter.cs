namespace AlvorKit.Interception.Allocations.Exporters;

/// <summary>
/// Folded stacks, the input of flamegraph.pl and inferno: one line per distinct stack,
/// "outermost;...;innermost bytes", the weight being the bytes its samples stand for
/// (<see cref="AllocationStack.EstimatedBytes"/>: in sampled profiling, the sum of the events'
/// unbiased weights). The format has no place to say so: a sampled report's weights are estimates.
/// </summary>
public static class FoldedExporter
{
    /// <summary>Writes the folded stacks of <paramref name="report"/> to a new file at <paramref name="path"/>.</summary>
    public static void WriteFile(AllocationReport report, string path)
    {
        using var writer = new StreamWriter(path);
        Write(report, writer);
    }

    /// <summary>Writes the folded stacks of <paramref name="report"/>, one line each.</summary>
    public static void Write(AllocationReport report, TextWriter writer)
    {
        foreach (AllocationStack stack in report.Stacks)
        {
            IEnumerable<string> names = stack.Frames.Count == 0
                ? ["[no managed frames]"]
                : stack.Frames.Reverse().Select(f => Clean(f.DisplayName));
            writer.Write(string.Join(';', names));
            writer.Write(' ');
            writer.Write(stack.EstimatedBytes);
            writer.Write('\n');
        }
    }

    // ';' separates frames and a line ends the stack: neither may appear in a frame's name.
    private static string Clean(string name) =>
        name.Replace(';', ',').Replace('\n', ' ').Replace('\r', ' ');
}
