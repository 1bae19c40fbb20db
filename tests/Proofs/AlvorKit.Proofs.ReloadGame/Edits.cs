using System.Globalization;

namespace ReloadGame;

/// <summary>The methods the reload proofs edit, one kind of edit each (HotReloadProofs).</summary>
public static class Edits
{
    public static int Speed(int frame)
    {
        if (frame < 0)
            return -1;
        return 7;
    }

    public static string Greeting() => "hello";

    public static string Framework() => "fw:none";

    public static string Generic() => Describe<int>(1);

    public static string Guarded()
    {
        try
        {
            return Thrower(0);
        }
        catch (ArgumentOutOfRangeException)
        {
            return "caught-range";
        }
    }

    public static string Lambda()
    {
        Func<int, int> f = x => x + 1;
        return "lambda:" + f(1).ToString(CultureInfo.InvariantCulture);
    }

    public static async Task<string> AsyncBody()
    {
        int n = 1;
        await Task.Yield();
        return "async:" + (n * 3).ToString(CultureInfo.InvariantCulture);
    }

    public static int Helper(int a) => a;

    private static string Describe<T>(T value) => typeof(T).Name + ":" + value;

    private static string Thrower(int k) => k == 0 ? throw new ArgumentOutOfRangeException(nameof(k)) : "none";
}
