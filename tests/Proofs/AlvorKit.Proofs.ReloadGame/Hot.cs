using System.Runtime.CompilerServices;

namespace ReloadGame;

/// <summary>A hot loop whose callee is inlined into it: editing Tiny must reach Run.</summary>
internal static class Hot
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Tiny() => 1;

    public static long Run()
    {
        long sum = 0;
        for (int i = 0; i < 100_000; i++)
            sum += Tiny();
        return sum;
    }
}
