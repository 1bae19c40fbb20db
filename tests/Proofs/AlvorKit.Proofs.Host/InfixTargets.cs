using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The methods the infix proof (InfixProof) hooks inside: <see cref="Twice"/> calls <see cref="Scale"/> twice and
/// <see cref="Sum"/> calls <see cref="Counter.Add"/> twice, so each result says which call an inner hook changed.
/// The inner hooks live in AlvorKit.Proofs.HookMod.
/// </summary>
public static class InfixTargets
{
    /// <summary>The callee: x * 10.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Scale(int x) => x * 10;

    /// <summary>Scale(x) + Scale(x + 1): 50 for 2.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Twice(int x) => Scale(x) + Scale(x + 1);

    /// <summary>Two calls of an instance method: Add(x) + Add(1) on a Counter of Base 100 (206 for 5).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Sum(int x)
    {
        var counter = new Counter();
        return counter.Add(x) + counter.Add(1);
    }

    /// <summary>The receiver of <see cref="Sum"/>'s calls.</summary>
    public sealed class Counter
    {
        /// <summary>What Add adds to.</summary>
        public int Base { get; } = 100;

        /// <summary>Base + x.</summary>
        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Add(int x) => Base + x;
    }
}
