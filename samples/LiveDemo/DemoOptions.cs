namespace LiveDemo;

/// <summary>What the demo runs.</summary>
internal enum DemoMode
{
    /// <summary>The scripted dev console patches the running loop, then removes its patches.</summary>
    Scripted,

    /// <summary>The loop runs and applies the updates of its source dropped into a folder (hot reload from source).</summary>
    Reload,

    /// <summary>The loop alone: no profiler, no interceptor (what `dotnet watch` runs in Debug).</summary>
    LoopOnly,
}

/// <summary>The command line, parsed.</summary>
/// <param name="Mode">What runs.</param>
/// <param name="Frames">How many frames; null: until stdin closes or Ctrl+C (the loop modes only).</param>
/// <param name="TickMs">Milliseconds per frame.</param>
/// <param name="Json">Scripted mode: a last line for machines.</param>
/// <param name="DropFolder">Reload mode: the folder updates are dropped into.</param>
internal sealed record DemoOptions(DemoMode Mode, int? Frames, int TickMs, bool Json, string? DropFolder)
{
    public const string Usage =
        "usage: LiveDemo [--frames N (at least 16)] [--tick-ms M] [--json]\n" +
        "       LiveDemo --reload <dropFolder> [--frames N] [--tick-ms M]\n" +
        "       LiveDemo --loop-only [--frames N] [--tick-ms M]";

    /// <summary>The scripted demo's length when --frames is not given.</summary>
    public const int ScriptedFrames = 200;

    /// <summary>The options, or null when the command line is not one of <see cref="Usage"/>.</summary>
    public static DemoOptions? Parse(string[] args)
    {
        int? frames = null;
        int tickMs = 50;
        bool json = false, loopOnly = false;
        string? drop = null;
        for (int i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--frames" when i + 1 < args.Length && int.TryParse(args[i + 1], out int f) && f >= 1:
                    frames = f;
                    i++;
                    break;
                case "--tick-ms" when i + 1 < args.Length && int.TryParse(args[i + 1], out int t) && t >= 1:
                    tickMs = t;
                    i++;
                    break;
                case "--json":
                    json = true;
                    break;
                case "--reload" when i + 1 < args.Length && drop is null && args[i + 1].Length > 0:
                    drop = args[i + 1];
                    i++;
                    break;
                case "--loop-only":
                    loopOnly = true;
                    break;
                default:
                    return null;
            }
        }
        if (drop is not null && loopOnly)
            return null; // one mode at a time
        if (drop is not null || loopOnly)
            return json ? null : new DemoOptions(loopOnly ? DemoMode.LoopOnly : DemoMode.Reload, frames, tickMs, false, drop);
        // The script has eight stages of frames / 8 frames each, at least two.
        return frames is null or >= 16 ? new DemoOptions(DemoMode.Scripted, frames ?? ScriptedFrames, tickMs, json, null) : null;
    }
}
