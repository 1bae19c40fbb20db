namespace AlvorKit.Proofs.Reports;

/// <summary>The "platform" mode: what the process runs as (RuntimeInformation), which under an
/// emulator is the emulated RID's, the profiler path variables the process was given (null when
/// unset), and the profiler's status seen from there.</summary>
public sealed record PlatformReport(
    string RuntimeIdentifier,
    string ProcessArchitecture,
    string OSPlatform,
    string OSDescription,
    Dictionary<string, string?> ProfilerPathVariables,
    StatusReport Status)
{
    /// <summary>The variables CoreCLR may read the profiler's path from, the generic one first.</summary>
    public static readonly string[] ProfilerPathVariableNames =
        ["CORECLR_PROFILER_PATH", "CORECLR_PROFILER_PATH_32", "CORECLR_PROFILER_PATH_64", "CORECLR_PROFILER_PATH_ARM64"];
}
