using System.Reflection;

namespace AlvorKit.Interception;

/// <summary>Why interception cannot be used from this process.</summary>
public enum UnavailableReason
{
    /// <summary>The process was not started under the profiler: CoreCLR did not load it, or
    /// ALVORKIT_INTERCEPTION_PROFILER_PATH does not lead to it.</summary>
    ProfilerNotLoaded,

    /// <summary>The loaded profiler implements another ABI major version than this library.</summary>
    AbiMismatch,

    /// <summary>The profiler is loaded, but its startup configuration refuses patch commands
    /// (for example ALVORKIT_INTERCEPTION_MODULES is unset); the message quotes the profiler.</summary>
    PatchingRefused,
}

/// <summary>
/// The profiler is not there, or will not patch. The message names the environment variables
/// to set and the launcher (<c>alvorkit-intercept run --modules &lt;assemblies&gt; -- &lt;command&gt;</c>) that sets them.
/// </summary>
public sealed class InterceptionUnavailableException : InterceptionException
{
    internal InterceptionUnavailableException(UnavailableReason reason, InterceptionStatus? status, string message,
        Exception? inner = null)
        : base(message, status, inner)
    {
        Reason = reason;
    }

    /// <summary>What is missing.</summary>
    public UnavailableReason Reason { get; }
}

/// <summary>What about a replacement's signature does not fit its target.</summary>
public enum SignatureMismatchKind
{
    /// <summary>The replacement is not a static method.</summary>
    NotStatic,

    /// <summary>The replacement is generic, or declared on an open generic type, so it has no
    /// single entry point.</summary>
    OpenGeneric,

    /// <summary>The replacement has more or fewer parameters than the target needs.</summary>
    ParameterCount,

    /// <summary>A parameter's type differs (see <see cref="SignatureMismatchException.ParameterIndex"/>).</summary>
    ParameterType,

    /// <summary>The return type differs.</summary>
    ReturnType,
}

/// <summary>
/// A replacement whose signature cannot stand in for its target, found before anything reached
/// the profiler. A replacement is static; its parameters are the target's receiver first (the
/// declaring class for a class's instance method, <c>ref TStruct</c> for a struct's), then
/// exactly the target's parameters (ref/out/in as by-reference types); it returns the target's
/// return type.
/// </summary>
public sealed class SignatureMismatchException : InterceptionException
{
    internal SignatureMismatchException(MethodBase target, MethodInfo replacement, SignatureMismatchKind kind,
        int parameterIndex, Type? expected, Type? actual, string message) : base(message)
    {
        Target = target;
        Replacement = replacement;
        Kind = kind;
        ParameterIndex = parameterIndex;
        Expected = expected;
        Actual = actual;
    }

    /// <summary>The method that was to be patched.</summary>
    public MethodBase Target { get; }

    /// <summary>The replacement that does not fit.</summary>
    public MethodInfo Replacement { get; }

    /// <summary>What does not fit.</summary>
    public SignatureMismatchKind Kind { get; }

    /// <summary>For <see cref="SignatureMismatchKind.ParameterType"/>: the replacement's parameter
    /// position (0-based; for an instance target, 0 is the receiver). -1 otherwise.</summary>
    public int ParameterIndex { get; }

    /// <summary>The type expected at that position (the return type for ReturnType), if one is.</summary>
    public Type? Expected { get; }

    /// <summary>The replacement's type at that position, if it has one.</summary>
    public Type? Actual { get; }
}

/// <summary>
/// The profiler refused or failed a patch command. <see cref="Status"/> is the ABI's status
/// (for example <see cref="InterceptionStatus.BodyIdentityMismatch"/>), <see cref="StatusName"/>
/// its name (<c>ALVK_E_BODY_IDENTITY_MISMATCH</c>); the message says what it means for this target.
/// </summary>
public sealed class PatchException : InterceptionException
{
    internal PatchException(MethodBase target, InterceptionStatus status, string statusName, string statusDescription,
        string message, PatchTelemetry? telemetry = null, GenerationInfo? generation = null)
        : base(message, status)
    {
        Target = target;
        StatusName = statusName;
        StatusDescription = statusDescription;
        Telemetry = telemetry;
        Generation = generation;
    }

    /// <summary>The method the command was about.</summary>
    public MethodBase Target { get; }

    /// <summary>The profiler's status (never null for this exception).</summary>
    public new InterceptionStatus Status => base.Status!.Value;

    /// <summary>The ABI status name (alvk_status_name), such as <c>ALVK_E_TIMEOUT</c>.</summary>
    public string StatusName { get; }

    /// <summary>The profiler's own description of the status.</summary>
    public string StatusDescription { get; }

    /// <summary>The patch's telemetry when the command failed, if the patch exists.</summary>
    public PatchTelemetry? Telemetry { get; }

    /// <summary>For a generation: its result (state, failing relocation, HResults), if the
    /// profiler has one.</summary>
    public GenerationInfo? Generation { get; }
}

/// <summary>
/// A <see cref="GenerationPlan"/> that cannot be lowered into a generation for its target:
/// an operand of the wrong kind, a symbol the target module cannot reach, a limit of the ABI.
/// Thrown by the Emit call that introduced the problem whenever possible, before anything
/// reaches the profiler.
/// </summary>
public sealed class PlanException : InterceptionException
{
    internal PlanException(MethodBase target, string message) : base(message)
    {
        Target = target;
    }

    /// <summary>The plan's target.</summary>
    public MethodBase Target { get; }
}

/// <summary>
/// A generation body that is not type-safe (ECMA-335 III.1.8): an instruction finds a value on
/// the evaluation stack that it cannot take (an int where the method returns a reference, a
/// reference where a double is expected, too few arguments for a call), or two paths meet with
/// different stacks. The JIT does not verify IL, so such a body would compile and corrupt the
/// process; it is refused before it runs. A <see cref="GenerationPlan"/> is checked before
/// anything reaches the profiler, with reflection's exact types; the profiler checks every
/// generation again (so raw submissions are covered too) and its refusal, status
/// <c>ALVK_E_STACK_TYPE_MISMATCH</c>, is thrown as this exception as well.
/// <see cref="GenerationPlan.AllowUnverifiable"/> opts a deliberately unverifiable body out.
/// </summary>
public sealed class StackTypeMismatchException : InterceptionException
{
    internal StackTypeMismatchException(MethodBase target, int ilOffset, string instruction, StackType found,
        StackType expected, Type? foundType, Type? expectedType, string message, bool detectedByProfiler = false,
        GenerationInfo? generation = null)
        : base(message, detectedByProfiler ? InterceptionStatus.StackTypeMismatch : null)
    {
        Target = target;
        ILOffset = ilOffset;
        Instruction = instruction;
        Found = found;
        Expected = expected;
        FoundType = foundType;
        ExpectedType = expectedType;
        DetectedByProfiler = detectedByProfiler;
        Generation = generation;
    }

    /// <summary>The method whose new body was refused.</summary>
    public MethodBase Target { get; }

    /// <summary>The IL offset of the instruction (or of the point where two paths meet).</summary>
    public int ILOffset { get; }

    /// <summary>The instruction's name, such as <c>ret</c> or <c>call</c>.</summary>
    public string Instruction { get; }

    /// <summary>What the instruction found on the stack (<see cref="StackType.Nothing"/>: too
    /// few values).</summary>
    public StackType Found { get; }

    /// <summary>What the instruction needs there (<see cref="StackType.Nothing"/>: no value,
    /// as after ret or where a try block starts).</summary>
    public StackType Expected { get; }

    /// <summary>The exact type found, when the plan's check knows it (null for null, for
    /// numbers computed on the stack, and for the profiler's refusals).</summary>
    public Type? FoundType { get; }

    /// <summary>The exact type expected, when it is one (a parameter's, a local's, the return type).</summary>
    public Type? ExpectedType { get; }

    /// <summary>True when the profiler refused the body (a submission the plan's own check did
    /// not see); false when the plan refused it before anything reached the profiler.</summary>
    public bool DetectedByProfiler { get; }

    /// <summary>For a profiler refusal: the generation's result (state Rejected).</summary>
    public GenerationInfo? Generation { get; }
}
