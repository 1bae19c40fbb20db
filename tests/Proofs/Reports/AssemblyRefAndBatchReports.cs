namespace AlvorKit.Proofs.Reports;

/// <summary>(a) The AssemblyRef relocation: a host target's generation calls a public static method of the mod
/// (AlvorKit.Proofs.GameMod, which the host does not reference) through an ASSEMBLY_REF
/// relocation parenting the TypeRef of the MemberRef. Whether the host had an AssemblyRef to the
/// mod before; the mod's module_id (alvk_module_identify); the generation applied and removed;
/// a generation naming a module_id no module has, refused on the worker.</summary>
public sealed record ModAssemblyRefReport(
    bool HostReferencedModBefore,
    string Identify,
    bool ModuleIdNonZero,
    int Original,
    GenerationStep<int> Applied,
    RemoveStep<int> Remove,
    GenerationStep<int> UnknownModule);

/// <summary>One alvk_generation_submit_batch call: its result, each generation's status, handle and
/// ID, alvk_last_command right after it, and (when queued) alvk_command_wait's status and the
/// command's result.</summary>
public sealed record GenerationBatchCall(
    string Returned,
    IReadOnlyList<string> Statuses,
    IReadOnlyList<ulong> Handles,
    IReadOnlyList<ulong> Ids,
    ulong LastCommand,
    string? Wait,
    string? CommandResult);

/// <summary>One batch of generations on the three targets: the call, the targets polled for
/// their expected values, and every generation's settled result.</summary>
public sealed record GenerationBatchStep(
    GenerationBatchCall Call,
    IReadOnlyList<Polled<int>> Values,
    IReadOnlyList<GenerationResultReport> Results);

/// <summary>(b) Generation batches: a first batch of three new patches; a second batch of the same owner
/// replacing all three (joins); a third whose second generation names a member the mod lacks
/// (refused on the worker: nothing published); bad input to the export (each refused at the
/// call, with the targets' values and telemetry unchanged); then each removal.</summary>
public sealed record GenerationBatchReport(
    IReadOnlyList<int> Originals,
    GenerationBatchStep First,
    GenerationBatchStep Joined,
    GenerationBatchStep BadMember,
    IReadOnlyList<Polled<int>> SteadyAfterBadMember,
    IReadOnlyDictionary<string, GenerationBatchCall> BadInput,
    IReadOnlyList<Polled<int>> SteadyAfterBadInput,
    IReadOnlyList<TelemetryReport> TelemetryBeforeBadInput,
    IReadOnlyList<TelemetryReport> TelemetryAfterBadInput,
    IReadOnlyList<RemoveStep<int>> Removes);

/// <summary>The "assemblyrefbatches" mode.</summary>
public sealed record AssemblyRefAndBatchReport(ModAssemblyRefReport AssemblyRef, GenerationBatchReport Batch);
