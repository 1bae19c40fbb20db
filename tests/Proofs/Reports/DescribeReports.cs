namespace AlvorKit.Proofs.Reports;

/// <summary>The facts of a method that both the profiler and the assembly file give: its
/// signature, and its IL body (null when the method has none in the file).</summary>
public sealed record MethodFacts(
    uint SignatureLength,
    string SignatureHash,
    uint? BodySize,
    uint? CodeSize,
    uint? MaxStack,
    uint? EhClauses,
    uint? LocalSignature,
    string? BodyIdentity);

/// <summary>alvk_describe_method's description: what only the profiler knows, and the facts.</summary>
public sealed record NativeDescription(uint Token, uint Epoch, string Flags, uint ParamCount, MethodFacts Facts);

/// <summary>One method of the "describe" mode: the status, the profiler's description when it
/// gave one, and the facts System.Reflection.Metadata reads from the file.</summary>
public sealed record DescribedMethod(string Status, bool? MvidMatches, NativeDescription? Native, MethodFacts Expected);

/// <summary>The "describe" mode: each method by name, each refusal by input, and the worker's
/// state afterwards.</summary>
public sealed record DescribeReport(
    IReadOnlyDictionary<string, DescribedMethod> Methods,
    IReadOnlyDictionary<string, string> Refusals,
    int AddStillWorks,
    ulong CommandsCompleted,
    uint QueueDepth);
