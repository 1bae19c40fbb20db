using System.Diagnostics;
using System.Globalization;

namespace LiveDemo;

/// <summary>
/// The game loop with nothing scripted (--reload and --loop-only): one line per frame at a fixed
/// tick, until --frames, or without it until stdin closes or Ctrl+C. Whatever changes the game's
/// methods meanwhile (a reload from source, `dotnet watch`'s Hot Reload) shows in the next frame.
/// </summary>
internal static class FreeLoop
{
    public static int Run(DemoOptions options, Action<string> print)
    {
        using var stop = new CancellationTokenSource();
        void OnCancel(object? sender, ConsoleCancelEventArgs e)
        {
            e.Cancel = true; // end the loop, then leave through the normal path (watchers disposed)
            stop.Cancel();
        }
        Console.CancelKeyPress += OnCancel;
        try
        {
            if (options.Frames is null)
                WatchStdin(stop);
            var game = new Game(new World());
            var clock = Stopwatch.StartNew();
            int frame = 0;
            while (!stop.IsCancellationRequested && (options.Frames is null || frame < options.Frames))
            {
                frame++;
                print(Game.Line(frame, game.World, game.Tick()));
                long due = (long)frame * options.TickMs - clock.ElapsedMilliseconds;
                if (due > 0)
                    stop.Token.WaitHandle.WaitOne((int)due);
            }
            print(string.Create(CultureInfo.InvariantCulture,
                $"LiveDemo: {frame} frames in {clock.Elapsed.TotalSeconds:0.0} s; stopped by " +
                $"{(stop.IsCancellationRequested ? "Ctrl+C or the end of stdin" : "--frames")}"));
            return 0;
        }
        finally
        {
            Console.CancelKeyPress -= OnCancel;
        }
    }

    // Stdin is read only to notice its end: a harness (or a pipe) stops the game by closing it.
    private static void WatchStdin(CancellationTokenSource stop)
    {
        var reader = new Thread(() =>
        {
            try
            {
                while (Console.In.ReadLine() is not null)
                {
                }
            }
            catch (IOException)
            {
                // an unreadable stdin ends the game as its end does
            }
            try
            {
                stop.Cancel();
            }
            catch (ObjectDisposedException)
            {
                // the loop already ended
            }
        })
        { IsBackground = true, Name = "LiveDemo stdin" };
        reader.Start();
    }
}
