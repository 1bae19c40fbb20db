using System.Runtime.CompilerServices;

// Generation targets: the public fields are what the generations' field MemberRefs name.
#pragma warning disable CA1051, CA2211

namespace AlvorKit.Proofs.Host;

// Targets of the method-generation proofs (one per scenario) and the members their
// generation bodies reference through relocations. The bodies here are the originals; the
// generations replace them with IL built in GenerationsProof.

public sealed class GenBox<T>(T v)
{
    public T Value = v;
    public static T? Shared;

    public TOut Map<TOut>(Func<T, TOut> f) => f(Value);

    // A target: VAR in an instance method of a generic class.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public T First(T other) => Value;
}

internal static class GenHelpers
{
    internal static int Triple(int x) => 3 * x;

    public static T Echo<T>(T v) => v;
}

// C# puts modreq(InAttribute) on an `in` parameter only where the signature must match
// another one (virtual and abstract methods, their implementations). The explicit
// implementation of a static abstract member is a private static method of the
// implementing class whose signature carries it.
public interface IGenScaler
{
    static abstract int Scale(in int x);
}

public static class GenCalliTargets
{
    // a: unmanaged calli to libc abs; f: a generation the JIT rejects.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int NativeAbs(int x) => x;

    // i: every refused submission, and one accepted control.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Validated(int x) => x;
}

public sealed class GenKindsTargets : IGenScaler
{
    static int IGenScaler.Scale(in int x) => x * 2;

    // b: MemberRefs (one with a modreq), a TypeSpec parent and a MethodSpec in one body.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Combine(int x) => x;
}

public static class GenFieldTargets
{
    // Field MemberRefs on a TypeSpec parent: stfld, ldfld, stsfld and ldsfld.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int FieldPlay(int x) => x;
}

public static class GenCrossTargets
{
    // c: a MemberRef whose parent is a TypeRef into another assembly.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CrossAbs(int x) => x;
}

public static class GenMvarTargets
{
    public static readonly Func<int, string> Namer = x => "n" + x;

    // d: a generic MemberRef (MVAR) on a TypeSpec, instantiated by a MethodSpec.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string MapName(int x) => "none";
}

public static class GenGenericTargets
{
    // e: MVAR in the target itself.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Pick<T>(T a, T b) => a;
}

public static class GenLocalsTargets
{
    // Locals the module has no signature for, through the header's LocalVarSigTok.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Doubled(int x) => x;
}

public static class GenGuardTargets
{
    // g: a generation built against another body.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int IdentityGuarded(int x) => x + 1;

    // h: generations that name a prior generation that is not the latest.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Chained(int x) => x + 1;

    // h: a first generation that names a prior generation.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Unpatched(int x) => x + 1;
}

public static class GenTypeTargets
{
    public static readonly string Label = "label";

    // The defect's bodies: an int32 returned where a string is, a string where a double is.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Name(int x) => "name";

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Ratio(int x) => 0.5;

    // Unverifiable but correct on 64-bit: a native int returned as an int64.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Widen(nint p) => -1;
}
