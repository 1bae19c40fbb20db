namespace AlvorKit.Proofs.Reports;

/// <summary>The "allocations" mode: the binding structs' sizes, and either every capture call
/// refused (variant "off": Calls) or the capture windows around the workload (Captured).</summary>
public sealed record AllocationsReport(
    string Variant,
    uint AllocationProfiling,
    BindingSizes Sizes,
    OffCalls? Calls,
    CapturedWindows? Captured);

/// <summary>Unsafe.SizeOf of each capture binding struct.</summary>
public sealed record BindingSizes(int Options, int Summary, int TypeCount, int Frame, int Sample, int MethodInfo);

/// <summary>Every capture call without allocation profiling, and Allocations.Begin's exception.</summary>
public sealed record OffCalls(
    string Begin,
    string End,
    string ReadTypes,
    uint ReadTypesWritten,
    string ReadSamples,
    uint ReadSamplesWritten,
    string DescribeFunction,
    string? CaptureException,
    string? CaptureExceptionStatus,
    bool CaptureEnabled);

/// <summary>The windows of a capturing variant: the workload's expected counts (by type), what
/// the measured window counted, what the process allocated just outside it, and the exports.</summary>
public sealed record CapturedWindows(
    WindowApi WindowApi,
    CaptureRefusals Refusals,
    int Scale,
    IReadOnlyDictionary<string, ExpectedAllocation> Expected,
    IReadOnlyDictionary<string, OutsideCounts> Outside,
    WindowSummary WarmupSummary,
    WindowSummary Summary,
    WindowSummary LastSummary,
    IReadOnlyDictionary<string, TypeTotals> WorkloadTypes,
    IReadOnlyList<NamedTypeTotals> Types,
    IReadOnlyList<Attribution> Attributions,
    IReadOnlyList<StackTotals> TopStacks,
    ExportedFiles Files);

/// <summary>How AllocationWindow behaved: a second Begin, Dispose without End, End twice.</summary>
public sealed record WindowApi(
    string SecondBegin,
    string? SecondBeginCall,
    bool? SecondBeginIsInterceptionException,
    string? SecondBeginMessage,
    bool OpenWhileOpen,
    bool DisposedIsOpen,
    string DisposedReport,
    string EndAfterDispose,
    bool EndTwiceSameReport,
    bool ReportIsEnds,
    bool OpenAfterEnd,
    string Mode);

/// <summary>The raw calls refused around an open window.</summary>
public sealed record CaptureRefusals(string BeginWhileActive, string EndWhenIdle);

/// <summary>What the workload allocates of a type inside the window, and where.</summary>
public sealed record ExpectedAllocation(ulong Count, string Method, string File, int Line);

/// <summary>How many of a type the process allocated just before and just after the window.</summary>
public sealed record OutsideCounts(int Before, int After);

/// <summary>A window's AllocationReport in figures.</summary>
public sealed record WindowSummary(
    string Mode,
    int TypeCount,
    int SampleCount,
    ulong TotalObjects,
    ulong TotalBytes,
    ulong TypeObjects,
    ulong TypeBytes,
    ulong OverflowObjects,
    ulong OverflowBytes,
    ulong DroppedSamples,
    ulong ElapsedNs,
    uint TypeSlots,
    uint SampleSlots,
    ulong SampledBytes,
    ulong SampledObjects,
    int SamplesWithFrames,
    int FramesWithLines,
    int Frames);

/// <summary>A type's count and bytes in a window.</summary>
public sealed record TypeTotals(ulong Count, ulong Bytes);

/// <summary>A type's name, count and bytes in a window.</summary>
public sealed record NamedTypeTotals(string Name, ulong Count, ulong Bytes);

/// <summary>Samples of one type attributed to one workload method and line.</summary>
public sealed record Attribution(
    string Type,
    string Method,
    string File,
    int Line,
    int IlOffset,
    int Samples,
    ulong EstimatedBytes,
    string? Innermost);

/// <summary>One of the top stacks.</summary>
public sealed record StackTotals(int Samples, ulong EstimatedBytes, IReadOnlyList<string> Frames);

/// <summary>The measured window's exported files.</summary>
public sealed record ExportedFiles(string Speedscope, string Folded, string Pprof);
