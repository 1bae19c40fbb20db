namespace AlvorKit.Proofs.Reports;

/// <summary>
/// The inline-site mode (InlineSiteProof): a hot caller of a method the JIT inlines, through five
/// phases (nothing hooked; the target hooked; the hook removed; the target replaced whole; the
/// replacement removed). Each phase's values and the caller's final listing from the JIT
/// (DOTNET_JitDisasm into DOTNET_JitStdOutFile).
/// </summary>
public sealed record InlineSiteReport(
    bool TieringOn,
    string? Refused,
    int Expected,
    InlineSitePhase[] Phases);

/// <param name="Name">before, hooked, hookRemoved, replaced, replaceRemoved.</param>
/// <param name="Value">The caller's result over 100 calls of the target.</param>
/// <param name="PrefixRuns">How many times the counting prefix ran during that one call of the caller.</param>
/// <param name="Listing">The caller's last optimized listing (Tier1 or FullOpts) compiled in this phase;
/// null when none came within the wait.</param>
/// <param name="Listings">How many listings of the caller the JIT wrote in this phase.</param>
/// <param name="NullReceiverThrew">For the class and final kinds: whether a call of the target on a null
/// receiver, from a caller compiled (and, tiering off, inlining the target) before the hook, threw
/// NullReferenceException; null for the other kinds.</param>
/// <param name="NullReceiverPrefixRuns">How many times the prefix ran during that call: a callvirt
/// checks the receiver before the callee's first instruction, so 0.</param>
/// <param name="Carrier">While the target is patched: the patch's carrier telemetry, read once the
/// caller's code is final; null in the other phases.</param>
/// <param name="InterfaceValue">For the final kind: what a caller of the target through its interface
/// returned over 100 calls; null for the other kinds.</param>
/// <param name="InterfacePrefixRuns">How many times the prefix ran during that call.</param>
public sealed record InlineSitePhase(
    string Name,
    int Value,
    int PrefixRuns,
    string? Listing,
    int Listings,
    bool? NullReceiverThrew = null,
    int NullReceiverPrefixRuns = 0,
    InlineSiteCarrier? Carrier = null,
    int? InterfaceValue = null,
    int InterfacePrefixRuns = 0);

/// <summary>The carrier fields of a patch's telemetry (PatchTelemetry, ABI 3.10).</summary>
/// <param name="State">CarrierState's name: Active while callers may be redirected to the carrier.</param>
/// <param name="Token">The carrier's MethodDef token, 0 when none.</param>
/// <param name="Redirected">Caller bodies redirected to the carrier so far.</param>
/// <param name="Discovered">Of those, callers found as they compiled while the target was patched.</param>
/// <param name="Kept">Callers that kept the real call.</param>
public sealed record InlineSiteCarrier(string State, int Token, int Redirected, int Discovered, int Kept);
