using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Replacements;

/// <summary>Replacements of the proof host's DispatchTargets from another assembly.</summary>
public static class CrossAssembly
{
    /// <summary>For <c>int Add(int, int)</c>: a direct call through an emitted MemberRef.</summary>
    public static int Add(int a, int b) => a * 1000 + b;

    /// <summary>For <c>string Where()</c>: the name of the method whose frame runs this code. Called,
    /// that is this method; inlined into the patched target, it is the target.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string InlinedWhere() => new StackFrame(0).GetMethod()?.Name ?? "?";

    /// <summary>Named (by its token) for <c>int Add(int, int)</c>, it is no such method: its
    /// parameters are an enum, a type token the profiler does not resolve across modules (it
    /// refuses only what differs whatever the tokens name), so the JIT finds the MemberRef
    /// missing when it compiles the patched body.</summary>
    public static int Wide(Digit a, Digit b) => (int)a * (int)b;

    /// <summary>A public type nested in a public one: the MemberRef's parent is a TypeRef whose
    /// scope is the enclosing TypeRef.</summary>
    public static class Nested
    {
        /// <summary>For <c>int Add(int, int)</c>.</summary>
        public static int Add(int a, int b) => a * 2000 + b;
    }
}

/// <summary>An enum: in a signature, a type token where <c>int</c> is a primitive.</summary>
public enum Digit
{
    /// <summary>Zero.</summary>
    Zero,
}

/// <summary>Not public: the target's module cannot call it directly (calli serves it).</summary>
internal static class Hidden
{
    public static int Add(int a, int b) => a * 3000 + b;
}

// The case is exactly a static method of a generic type.
#pragma warning disable CA1000
/// <summary>A generic type: no direct call to its methods (calli serves a closed one).</summary>
/// <typeparam name="T">Unused; it makes the type generic.</typeparam>
public static class Generic<T>
{
    /// <summary>For <c>int Add(int, int)</c>.</summary>
    public static int Add(int a, int b) => a * 4000 + b + (typeof(T) == typeof(int) ? 0 : 1);
}
#pragma warning restore CA1000
