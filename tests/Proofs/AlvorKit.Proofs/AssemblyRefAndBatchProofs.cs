using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The AssemblyRef relocation and generation batches, through the raw C ABI in a profiled process.
/// A host target's generation calls a public static method of the mod (AlvorKit.Proofs.GameMod),
/// which the host's metadata does not reference, through an ASSEMBLY_REF relocation (the mod's
/// module_id) parenting the TypeRef of the MemberRef; the result reports the AssemblyRef token; a
/// module_id no module has is refused on the worker (UnknownModule, failing index 0).
/// alvk_generation_submit_batch creates three patches at once, replaces all three bodies in one
/// batch (joins), refuses a whole batch on the worker when one generation names a member the mod
/// lacks (nothing published, the others BatchAborted), and refuses bad input at the call with each
/// generation's status and nothing changed.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
[Trait("Platform", "all")]
public sealed class AssemblyRefAndBatchProofs
{
    private const uint AssemblyRefTable = 0x23;
    private const int WidgetOffset = 40 * 7; // ModReplacements.WidgetOffset(TheWidget, x) - x

    private static AssemblyRefAndBatchReport Report(string tiering) => PatchReports.Get<AssemblyRefAndBatchReport>(tiering, "assemblyrefbatches");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenerationCallsTheModThroughAnAssemblyRefItAdds(string tiering)
    {
        ModAssemblyRefReport r = Report(tiering).AssemblyRef;
        string json = ReportJson.Write(r);
        Assert.False(r.HostReferencedModBefore, $"the host must not reference the mod: {json}");
        Assert.True(r.Identify == "Ok" && r.ModuleIdNonZero, json);
        Assert.Equal(6, r.Original);
        GenerationResultReport g = GenerationProofs.AssertApplied(r.Applied, WidgetOffset + 5, prior: 0);
        json = ReportJson.Write(g);
        Assert.True(g.Relocations.Count == 3, json);
        RelocationResultReport assembly = g.Relocations[0], type = g.Relocations[1], member = g.Relocations[2];
        Assert.True(assembly.Kind == "AssemblyRef" && assembly.Table == AssemblyRefTable && assembly.HResult >= 0, json);
        Assert.True(type.Kind == "TypeRef" && type.Table == GenerationProofs.TypeRef, json);
        Assert.True(member.Kind == "MemberRef" && member.Table == GenerationProofs.MemberRef, json);
        GenerationProofs.AssertRemoved(r.Remove, 6);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUnknownModuleIdIsRefusedOnTheWorker(string tiering)
    {
        GenerationStep<int> r = Report(tiering).AssemblyRef.UnknownModule;
        string json = ReportJson.Write(r);
        Assert.True(r.Sync == "Ok" && r.HandleNonZero, json);
        Assert.True(r.Result is { Ok: true, Actual: 7 }, $"the target keeps its original: {json}");
        GenerationResultReport g = r.GenerationResult!;
        Assert.True(g.State == "Rejected" && g.Status == "UnknownModule" && g.FailingIndex == 0, json);
        RelocationResultReport assembly = Assert.Single(g.Relocations);
        Assert.True(assembly.Kind == "AssemblyRef", json);
        Assert.True(r.Telemetry is { State: "Rejected" }, $"the patch it made ends as a refused install: {json}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABatchAppliesEveryGenerationAtOnceThenReplacesThemAll(string tiering)
    {
        GenerationBatchReport r = Report(tiering).Batch;
        Assert.Equal([15, 25, 35], r.Originals);
        AssertApplied(r.First, [105, 205, 305], priors: [0, 0, 0]);
        AssertApplied(r.Joined, [WidgetOffset + 1005, WidgetOffset + 2005, WidgetOffset + 3005], r.First.Call.Ids);
        string json = ReportJson.Write(r);
        Assert.True(r.Joined.Call.Handles.SequenceEqual(r.First.Call.Handles), $"the same patches: {json}");
        for (int i = 0; i < 3; i++)
        {
            // The mod's AssemblyRef, cached per module epoch: reused by the later generations.
            RelocationResultReport assembly = r.Joined.Results[i].Relocations[0];
            Assert.True(assembly.Kind == "AssemblyRef" && assembly.Table == AssemblyRefTable, json);
            Assert.True(assembly.Token == r.Joined.Results[0].Relocations[0].Token, json);
            GenerationProofs.AssertRemoved(r.Removes[i], r.Originals[i]);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABatchWithAMissingMemberPublishesNothing(string tiering)
    {
        GenerationBatchReport r = Report(tiering).Batch;
        GenerationBatchStep s = r.BadMember;
        string json = ReportJson.Write(s);
        Assert.True(s.Call.Returned == "Ok" && s.Call.Statuses.All(x => x == "Ok"), $"queued: {json}");
        Assert.True(s.Call.LastCommand != 0 && s.Call.Wait == "Ok", json);
        Assert.True(s.Call.CommandResult == "MemberNotFound", $"the command's result is the refusal: {json}");
        for (int i = 0; i < 3; i++)
        {
            GenerationResultReport g = s.Results[i];
            Assert.True(g.State == "Rejected", json);
            Assert.True(g.Status == (i == 1 ? "MemberNotFound" : "BatchAborted"), json);
            Assert.True(g.PriorGeneration == r.Joined.Call.Ids[i], json);
        }
        Assert.True(s.Results[1].FailingIndex == 2, $"the MemberRef relocation: {json}");
        foreach (Polled<int> steady in r.SteadyAfterBadMember)
            Assert.True(steady.Ok, $"every target keeps the body it had: {ReportJson.Write(r.SteadyAfterBadMember)}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void BadInputIsRefusedAtTheCallAndChangesNothing(string tiering)
    {
        GenerationBatchReport r = Report(tiering).Batch;
        string json = ReportJson.Write(r.BadInput);
        const string untouched = "-1"; // the sentinel the proof filled statuses with
        foreach (string name in new[] { "nullGenerations", "nullHandles", "nullIds", "nullStatuses" })
            Assert.True(r.BadInput[name] is { Returned: "NullArgument" } c && c.Statuses.All(x => x == untouched), $"{name}: {json}");
        foreach (string name in new[] { "countZero", "count4097" })
            Assert.True(r.BadInput[name] is { Returned: "LimitExceeded" } c && c.Statuses.All(x => x == untouched), $"{name}: {json}");
        AssertRefused(r.BadInput["unequalSizes"], "StructSize", 1, json);
        AssertRefused(r.BadInput["duplicateTarget"], "DuplicateTarget", 3, json);
        AssertRefused(r.BadInput["flagsMismatch"], "InvalidFlags", 3, json);
        AssertRefused(r.BadInput["stalePrior"], "StaleGeneration", 2, json);
        AssertRefused(r.BadInput["malformedRelocation"], "RelocationMalformed", 2, json);
        foreach (Polled<int> steady in r.SteadyAfterBadInput)
            Assert.True(steady.Ok, $"every target keeps its body: {ReportJson.Write(r.SteadyAfterBadInput)}");
        for (int i = 0; i < 3; i++)
        {
            TelemetryReport before = r.TelemetryBeforeBadInput[i], after = r.TelemetryAfterBadInput[i];
            // No command ran and no ReJIT was requested (each request asks GetReJITParameters;
            // a tiering recompile of the ReJIT'd body may still start a compilation).
            Assert.True(before.State == after.State && before.CommandsCompleted == after.CommandsCompleted &&
                        before.GetReJITParameters == after.GetReJITParameters && before.OwnerCount == after.OwnerCount &&
                        after.PendingCommands == 0,
                $"nothing was queued: {ReportJson.Write(before)} {ReportJson.Write(after)}");
        }
    }

    private static void AssertApplied(GenerationBatchStep s, int[] values, IReadOnlyList<ulong> priors)
    {
        string json = ReportJson.Write(s);
        Assert.True(s.Call.Returned == "Ok" && s.Call.Statuses.All(x => x == "Ok"), json);
        Assert.True(s.Call.LastCommand != 0 && s.Call.Wait == "Ok" && s.Call.CommandResult == "Ok", json);
        Assert.True(s.Call.Handles.Distinct().Count() == 3 && s.Call.Ids.Distinct().Count() == 3, json);
        for (int i = 0; i < 3; i++)
        {
            PatchReports.AssertVisibleAtOnce(s.Values[i], values[i]);
            GenerationResultReport g = s.Results[i];
            Assert.True(g.State == "Active" && g.Status == "Ok" && g.Generation == s.Call.Ids[i], json);
            Assert.True(g.PriorGeneration == priors[i], $"generation {i} chains on {priors[i]}: {json}");
        }
    }

    private static void AssertRefused(GenerationBatchCall c, string status, int at, string json)
    {
        Assert.True(c.Returned == status, $"{status}: {json}");
        for (int i = 0; i < c.Statuses.Count; i++)
        {
            Assert.True(c.Statuses[i] == (i == at ? status : "BatchAborted"), $"{status} at {at}: {json}");
            Assert.True(c.Handles[i] == 0 && c.Ids[i] == 0, $"{status}: no handle or ID: {json}");
        }
        Assert.True(c.LastCommand == 0 && c.Wait is null, $"{status}: nothing queued: {json}");
    }
}
