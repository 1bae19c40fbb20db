namespace AlvorKit.Proofs.Reports;

/// <summary>One copy of the plugin assembly patched and restored (host mode "modules
/// loadorder"): how it was loaded, what the patch made its method return (polled), and what it
/// returned after removal (polled); Error names what threw, if anything.</summary>
public sealed record LoadedCopyStep(
    bool LoadedBeforeFirstCommand,
    bool LoadedFromBytes,
    string? LoadContext,
    Polled<int>? Patched,
    Polled<int>? Restored,
    int? OtherCopyWhilePatched,
    string? Error);

/// <summary>The plugin assembly's default copy, loaded before the process's first command,
/// and a copy loaded from bytes (flat layout) into another context after it.</summary>
public sealed record ModuleLoadOrderReport(
    int OriginalBeforeOpen,
    LoadedCopyStep Early,
    LoadedCopyStep FromBytes);
