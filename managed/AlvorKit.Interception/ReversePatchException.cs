using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>Why a reverse patch cannot be made (<see cref="ReversePatchException.Kind"/>).</summary>
public enum ReversePatchRefusal
{
    /// <summary>The stub's assembly is not one ALVORKIT_INTERCEPTION_MODULES allows: the stub is the method
    /// whose body a reverse patch replaces, so its module must be patchable (the original's need not be).</summary>
    StubModuleNotPatchable,

    /// <summary>The original is generic, or a method of a generic type: its body is written over its generic
    /// parameters, which a non-generic stub does not have.</summary>
    GenericOriginal,

    /// <summary>The original has no IL to copy (abstract, extern, runtime-implemented), or the stub has no body to
    /// replace.</summary>
    NoBody,

    /// <summary>The stub is the original itself.</summary>
    StubIsOriginal,

    /// <summary>The original's body (as the transpiler left it) uses a type or member the stub's assembly may not
    /// access (<see cref="ReversePatchException.Member"/>): the JIT would make the stub throw
    /// MethodAccessException or FieldAccessException.</summary>
    InaccessibleMember,
}

/// <summary>
/// A reverse patch (<see cref="Interceptor.ReversePatch"/>) that cannot be made, found before anything reached
/// the profiler: the stub keeps its own body. The message says what does not fit, what was expected and what
/// would work.
/// </summary>
public sealed class ReversePatchException : InterceptionException
{
    internal ReversePatchException(ReversePatchRefusal kind, MethodBase original, MethodInfo stub, MemberInfo? member,
        string message) : base(message)
    {
        Kind = kind;
        Original = original;
        Stub = stub;
        Member = member;
    }

    /// <summary>What does not fit.</summary>
    public ReversePatchRefusal Kind { get; }

    /// <summary>The method whose original body was to be copied.</summary>
    public MethodBase Original { get; }

    /// <summary>The stub that was to receive it.</summary>
    public MethodInfo Stub { get; }

    /// <summary>For <see cref="ReversePatchRefusal.InaccessibleMember"/>: the type or member the stub may not
    /// access; otherwise null.</summary>
    public MemberInfo? Member { get; }
}
