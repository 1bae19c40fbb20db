namespace AlvorKit.Proofs.Reports;

/// <summary>The hook proof (HookProof): what each patched call returned, step by step, or why
/// the interceptor could not run it (Unavailable).</summary>
public sealed record HookReport(string? Unavailable, IReadOnlyList<HookStep> Steps, int PatchesLeft);

/// <summary>One observation: a call's value (or what it threw), or a count the hooks or the
/// target kept; Text where a step records a description (a composition).</summary>
public sealed record HookStep(string Name, long? Value, HookThrown? Threw, string? Text);

/// <summary>An exception a step caught: its type, message and top stack frame, its inner
/// exception's type, and a HookBindingException's fields (null for others).</summary>
public sealed record HookThrown(
    string Type,
    string Message,
    string? TopFrame,
    string? InnerType,
    string? Kind,
    int? ParameterIndex,
    string? Target,
    string? Hook);
