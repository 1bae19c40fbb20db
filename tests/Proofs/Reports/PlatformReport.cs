namespace AlvorKit.Proofs.Reports;

/// <summary>The "platform" mode: what the process runs as (RuntimeInformation), which under an
/// emulator is the emulated RID's, and the profiler's status seen from there.</summary>
public sealed record PlatformReport(
    string RuntimeIdentifier,
    string ProcessArchitecture,
    string OSPlatform,
    string OSDescription,
    StatusReport Status);
