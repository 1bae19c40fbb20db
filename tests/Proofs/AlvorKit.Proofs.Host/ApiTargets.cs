using System.Runtime.CompilerServices;

// Patch targets and replacements: the public fields are what plans reach with ldfld, ldsfld and
// ref arguments, and NotStatic is an instance method on purpose (the mismatch it proves).
#pragma warning disable CA1051, CA1822, CA2211

namespace AlvorKit.Proofs.Host;

// Targets of the managed-API proofs (mode "api"), their replacements, and replacements whose
// signatures do not fit. The bodies here are the originals.

public static class ApiTargets
{
    // install / replace / remove
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Compute(int x) => x + 1;

    public static int ComputeA(int x) => x + 100;

    public static int ComputeB(int x) => x + 1000;

    // one owner scope, two targets
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Alpha(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Beta(int x) => x + 2;

    public static int AlphaPatched(int x) => x + 10;

    public static int BetaPatched(int x) => x + 20;

    // two owners on one target
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Shared(int x) => x + 1;

    public static int SharedFirst(int x) => x + 100;

    public static int SharedSecond(int x) => x + 200;

    // signature mismatches: one target with a live patch, one without
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Guarded(int x) => x + 1;

    public static int GuardedPatched(int x) => x + 50;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Untouched(int x, ref int y) => x + y;
}

/// <summary>Replacements that do not fit ApiTargets.Guarded(int) / Untouched(int, ref int).</summary>
public sealed class ApiMismatches
{
    public static int WrongParameter(long x) => (int)x;

    public static int TooMany(int x, int y) => x + y;

    public static long WrongReturn(int x) => x;

    public int NotStatic(int x) => x;

    public static int OpenGeneric<T>(int x) => x;

    // Untouched takes (int, ref int): the second must be a by-reference int.
    public static int ByValue(int x, int y) => x + y;

    public static int ByRefLong(int x, ref long y) => x;
}

/// <summary>A class instance target: the replacement's receiver is the class.</summary>
public sealed class ApiCounter
{
    public int Count;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public int Add(int n) => Count += n;

    public static int AddTwice(ApiCounter self, int n) => self.Count += 2 * n;

    public static int AddToObject(object self, int n) => n;
}

/// <summary>A struct instance target: the replacement's receiver is <c>ref ApiVector</c>.</summary>
public struct ApiVector
{
    public int X;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public readonly int Scale(int k) => X * k;

    public static int ScaleNegated(ref ApiVector self, int k) => -self.X * k;

    public static int ScaleByValue(ApiVector self, int k) => self.X * k;
}

/// <summary>The generic type whose constructor and field a plan references (TypeSpec parent).</summary>
public sealed class ApiBox<T>(T value)
{
    public T Value = value;

    // A target in a generic type: a plan's body reads Value through ApiBox<!0> (VAR 0).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public T Peek(T other) => other;
}

public static class ApiHelpers
{
    // Instantiated by a plan: a MethodSpec whose parent is this MethodDef.
    public static T Echo<T>(T value) => value;
}

public static class ApiPlanTargets
{
    /// <summary>libc abs, for the plan's unmanaged calli (set by the proof).</summary>
    public static nint AbsPointer;

    // the symbolic plan: calli, MethodSpec, TypeSpec, field MemberRef, constructor, locals, a branch
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Compute(int x) => x;

    // a plan reaching another assembly: TypeRef (System.Math), TypeSpec List<int> (blob names the
    // host's own TypeRef for List`1) and MemberRefs on both
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CrossModule(int x) => x;

    // exact dispatch and plans on one target: the chain is found after installs and replaces
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Mixed(int x) => x;

    public static int MixedDispatchA(int x) => x + 100;

    public static int MixedDispatchB(int x) => x + 200;

    // type operands: box / isinst / unbox.any int (TypeRef), newarr ApiBox<int> (TypeSpec),
    // ldtoken List<int> (TypeSpec) with Type.GetTypeFromHandle (MemberRef on a TypeRef)
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int TypeOperands(int x) => x;

    // a try/catch region in a plan
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int SafeDivide(int x) => x;

    // a generic method target: one body serves every instantiation
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Pick<T>(T first, T second) => first;

    // a plan the JIT rejects: the profiler restores the original
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Rejected(int x) => x;
}

/// <summary>Targets of the stack-type check: plans of the wrong types, refused before they run,
/// and deliberately unverifiable ones applied with AllowUnverifiable.</summary>
public static class ApiTypeTargets
{
    public static readonly string Label = "label";

    // an int returned where a string is
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Name(int x) => "name";

    // a string returned where a double is
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double Ratio(int x) => 0.5;

    // null passed for an int parameter
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CallArgument(int x) => x;

    // two paths meeting with different stack depths
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int MergeDepth(int x) => x;

    // the same body as Name, refused by the profiler when the plan's own check is off
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static string Profiled(int x) => "profiled";

    // unverifiable but correct on 64-bit: a native int returned as an int64
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Widen(nint p) => -1;

    // unverifiable but correct: a float's bits read through a ref int (Unsafe.As style)
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int FloatBits(float x) => -1;

    public static int ReadInt(ref int value) => value;

    // type-safe merges the check must accept: two unrelated classes meeting at a label and used
    // through an interface both implement
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CountOf(int x) => -1;

    // ... and null meeting a class-constrained T (`flag ? t : null`)
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T? OrNull<T>(T t, bool flag) where T : class => t;
}
