using System.Runtime.InteropServices;

namespace HostedGame;

/// <summary>
/// The entry point the C host (tests/NativeHost/host.c) asks hostfxr for: an unmanaged function
/// taking the host's remaining command-line arguments as the platform's native strings (UTF-8 on
/// Linux and macOS, UTF-16 on Windows) and returning the process's exit code.
/// </summary>
public static class Entry
{
    [UnmanagedCallersOnly]
    public static unsafe int Run(nint* argv, int argc)
    {
        // An exception must not cross back into C (the runtime would end the process): every
        // one is reported here, as a failure of the game.
        try
        {
            var args = new string[argc];
            for (int i = 0; i < argc; i++)
                args[i] = (OperatingSystem.IsWindows() ? Marshal.PtrToStringUni(argv[i]) : Marshal.PtrToStringUTF8(argv[i])) ?? "";
            return Game.Run(args) ? 0 : 1;
        }
#pragma warning disable CA1031 // the boundary with native code: everything is caught and reported
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"hosted | failed={e.GetType().Name}: {e.Message.ReplaceLineEndings(" ")}");
            Console.Error.WriteLine(e);
            return 1;
        }
    }
}
