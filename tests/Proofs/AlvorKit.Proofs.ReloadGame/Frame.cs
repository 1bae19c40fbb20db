namespace ReloadGame;

/// <summary>One frame's line: every editable method's output, key=value.</summary>
internal static class Frame
{
    public static string Line(long frame) =>
        $"frame {frame} | speed={Edits.Speed((int)frame)} | greet={Edits.Greeting()} | fw={Edits.Framework()} " +
        $"| generic={Edits.Generic()} | guarded={Edits.Guarded()} | lambda={Edits.Lambda()} " +
        $"| async={Edits.AsyncBody().GetAwaiter().GetResult()} | hot={Hot.Run()} | helper={Edits.Helper(5)} " +
        $"| lib={ReloadLib.Library.Tag()}";
}
