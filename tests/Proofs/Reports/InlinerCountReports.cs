namespace AlvorKit.Proofs.Reports;

/// <summary>What CallerA, CallerB and CallerAB returned.</summary>
public sealed record InlinerCountCalls(int CallerA, int CallerB, int CallerAB);

/// <summary>The callers polled for what they must return after a step.</summary>
public sealed record InlinerCountPolls(Polled<int> CallerA, Polled<int> CallerB, Polled<int> CallerAB);

/// <summary>One patch's PatchTelemetry.InlinersReJITted and its PatchTelemetry.ToString().</summary>
public sealed record InlinerCount(int Inliners, string Line);

/// <summary>Both patches' inliner counts at one point.</summary>
public sealed record InlinerCountTelemetry(InlinerCount A, InlinerCount B);

/// <summary>The "inlinercount" mode (managed API): SmallA and SmallB installed one after the other,
/// each inlined by its own hot caller and both by CallerAB; the callers run after both installs,
/// then A is removed. The counts right after each Install returned (before any caller ran
/// again), the callers' values, and both patches' counts after the callers ran and after the
/// removal.</summary>
public sealed record InlinerCountReport(
    long WarmSum,
    InlinerCountCalls Original,
    int AAtInstall,
    int BAtInstall,
    InlinerCountPolls Patched,
    InlinerCountTelemetry AfterRun,
    InlinerCountPolls Removed,
    InlinerCountTelemetry AfterRemove);
