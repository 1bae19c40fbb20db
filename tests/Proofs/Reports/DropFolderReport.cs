namespace AlvorKit.Proofs.Reports;

/// <summary>A folder offered to WatchFolder: whether it was refused, and the message.</summary>
public sealed record FolderRefusal(string What, bool Refused, string? Message);

/// <summary>The "dropfolder" mode's report: the folders refused; the mode of a folder the watch
/// created; the real update dropped into a private folder where links were planted at the
/// result's names (its outcome, the probe after it, whether the result file is a regular file,
/// what the links' targets hold after); the FIFO, the link to /dev/zero and the sparse file
/// (each result as "Outcome message", and how much the working set grew); the mutated updates
/// (how many, each outcome, how many result files); the probe after them and after RevertAll;
/// how long Dispose took with a FIFO just dropped; the result a watch whose object was not kept
/// gave after collections (null: none).</summary>
public sealed record DropFolderReport(
    IReadOnlyList<FolderRefusal> Refusals,
    string CreatedMode,
    string AppliedOutcome,
    Polled<string> AfterUpdate,
    bool ResultFileIsRegular,
    string OutsideTarget,
    string OutsideOldTemporary,
    string Fifo,
    bool FifoResultWritten,
    string DevZeroLink,
    string SparseFile,
    long WorkingSetGrowthMiB,
    int Mutations,
    IReadOnlyList<string> MutationOutcomes,
    int MutationResultFiles,
    string AfterMutations,
    Polled<string> AfterRevert,
    long DisposeMilliseconds,
    string? UnkeptWatchResult);
