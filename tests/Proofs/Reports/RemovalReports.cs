namespace AlvorKit.Proofs.Reports;

/// <summary>What the two nested patches' callers returned after one step, and whether each patch
/// still says it is installed.</summary>
public sealed record NestedStep(string Step, Polled<int> Tiny, Polled<int> Level1, bool OuterInstalled,
    bool InnerInstalled);

/// <summary>The "removal nested-inner|nested-outer" mode: Tiny patched to TinyLevel1 (the outer
/// patch, a direct call the JIT inlines), then TinyLevel1 patched to TinyLevel2 (the inner patch),
/// then the two removed in the order named. Each step's values, and both patches' telemetry lines
/// at the end.</summary>
public sealed record NestedRemovalReport(
    string Order,
    NestedStep Original,
    IReadOnlyList<NestedStep> Steps,
    string OuterTelemetry,
    string InnerTelemetry);

/// <summary>The "removal caller" mode: a caller that inlines Tiny, before the patch, while Tiny is
/// patched and after the patch was removed: its values. JitStdOutFile is the file the JIT writes
/// its listings to (null: not set); the proof reads it once the process ended.</summary>
public sealed record RestoredCallerReport(
    string? JitStdOutFile,
    Polled<int> Before,
    Polled<int> During,
    Polled<int> After,
    string Telemetry);
