namespace AlvorKit.Proofs.Reports;

/// <summary>One relocation's result in alvk_generation_get_result.</summary>
public sealed record RelocationResultReport(uint Size, string Kind, uint Token, uint Table, uint Reused, int HResult);

/// <summary>alvk_generation_get_result: the call's status, and (all zero, with no relocations,
/// when the call failed) the generation's record with every relocation result.</summary>
public sealed record GenerationResultReport(
    string Call,
    string State,
    string Status,
    uint RelocationCount,
    ulong Generation,
    ulong PriorGeneration,
    uint FailingIndex,
    int MetadataHResult,
    int ILMapHResult,
    int CompilationHResult,
    ulong ElapsedNs,
    uint TypeErrorOffset,
    string TypeFound,
    string TypeExpected,
    IReadOnlyList<RelocationResultReport> Relocations);
