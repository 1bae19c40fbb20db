namespace AlvorKit.ScaleBenchmark;

/// <summary>In a profiled process: 1,000 targets in one batch.</summary>
internal static class BatchChild
{
    internal static int Run(int rounds)
    {
        _ = rounds;
        Console.WriteLine("batch: not yet");
        return 0;
    }
}
