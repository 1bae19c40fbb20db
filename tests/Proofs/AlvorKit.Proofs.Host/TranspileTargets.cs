using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The methods the transpiler proof (TranspileProof) edits with transpilers, alone and composed with prefixes
/// and postfixes; the transpilers live in AlvorKit.Proofs.HookMod. Each body is small and its result says which
/// edits ran, in which order.
/// </summary>
public static class TranspileTargets
{
    /// <summary>A patch class's transpiler turns the 10 into 1000.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Constant(int x) => x + 10;

    /// <summary>Each transpiler appends a digit to the result (result * 10 + digit) before the ret.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Digits(int x) => x;

    /// <summary>A transpiler with a local and a label clamps a negative result to 0.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Clamp(int x) => x - 5;

    /// <summary>Hooked by a postfix, then offered transpilers that fail: the hooked body stays.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Refused(int x) => x * 2;
}

/// <summary>
/// The originals of the reverse-patch proof: a public method that reads a private field and calls a private
/// method, the private method itself, and statics over a private static field. Its stubs live in
/// AlvorKit.Proofs.HookMod (which ignores access checks to this assembly) and AlvorKit.Proofs.Replacements
/// (which does not).
/// </summary>
public sealed class Vault
{
    private readonly int _gold = 7;
    private static readonly int RateFactor = 4;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private int Bonus(int x) => x * 2 + _gold - 7;

    /// <summary>_gold * 100 + Bonus(x): 706 for x = 3.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Worth(int x) => _gold * 100 + Bonus(x);

    /// <summary>RateFactor * x.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Rate(int x) => RateFactor * x;

    /// <summary>The original of a stub in a module that is not patchable (Math.Abs).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Negate(int x) => -x;
}
