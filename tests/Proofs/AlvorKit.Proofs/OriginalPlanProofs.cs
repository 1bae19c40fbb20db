using System.Globalization;
using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// GenerationPlan.FromOriginal in a profiled process, tiering on and off: a target's original
/// IL read into an instruction list, edited, applied as a generation (the target's next call
/// runs it), and removed (the original again). Unedited, the plan is a round trip; each edit
/// changes exactly what it should: a counter at the start (once per call, even in a method whose
/// loop branches back to offset 0), every return through a common epilogue, a call swapped for
/// another method, a field load replaced by a call, across exception regions, generic methods
/// and types, a struct receiver, ref and out parameters, and a mod's method the host does not
/// reference (ASSEMBLY_REF); a closed generic target applies to its definition; a recursive
/// generic method round-trips. ApplyMany applies three plans at once, or none.
/// </summary>
[Trait("Feature", "Generations")]
[Trait("Sanitized", "yes")]
public sealed class OriginalPlanProofs
{
    private static OriginalPlanReport Report(string tiering) => PatchReports.Get<OriginalPlanReport>(tiering, "originalplans");

    private static OriginalPlanStep Step(string tiering, string name) => Report(tiering).Steps[name];

    // Applied without a refusal, Active after the calls, and the original back after Remove.
    private static void AssertApplied(OriginalPlanStep step, string before, string after, params string[] relocations)
    {
        Assert.True(step.Threw is null, $"Apply threw: {step.Threw}\n{step.Listing}");
        Assert.True(step.Before == before, $"before: {step.Before}\n{step.Listing}");
        Assert.True(step.After == after, $"after: {step.After}\n{step.Listing}");
        Assert.True(step.State == "Active", $"state: {step.State}");
        Assert.Equal(relocations, step.Relocations);
        Assert.True(step.Removed == before, $"after Remove: {step.Removed}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheUneditedOriginalIsARoundTrip(string tiering)
    {
        OriginalPlanStep step = Step(tiering, "roundTrip");
        // Every token of the original is re-emitted as it is: no relocation at all.
        AssertApplied(step, "4,13", "4,13");
        Assert.Contains("mul", step.Listing);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheTranspilerFormReplacesMatchedInstructions(string tiering) =>
        AssertApplied(Step(tiering, "replace"), "4,13 replaced 1", "6,21 replaced 1");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CodeInsertedAtTheStartRunsOncePerCall(string tiering) =>
        AssertApplied(Step(tiering, "insertAtStart"), "2,3,4 counter+0", "2,3,4 counter+3");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void EveryReturnGoesThroughTheCommonEpilogue(string tiering) =>
        // Both returns (x > 10 and the other) reach the epilogue; the result local is appended to
        // the original's locals: one locals signature.
        AssertApplied(Step(tiering, "redirectReturns"), "10,24", "1010,1024", "StandAloneSignature");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ACallInsideTheOriginalIsSwappedForAnother(string tiering) =>
        AssertApplied(Step(tiering, "replaceCalls"), "3,9 replaced 1", "31,121 replaced 1");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AFieldLoadIsReplacedByACall(string tiering) =>
        AssertApplied(Step(tiering, "replaceFieldLoads"), "6 replaced 1", "501 replaced 1");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ExceptionRegionsAndALoopBackToOffsetZeroAreCarried(string tiering)
    {
        OriginalPlanReport report = Report(tiering);
        Assert.True(report.GuardedLoopsToStart, "the original Guarded has no branch back to its first instruction");
        OriginalPlanStep step = report.Steps["exceptionRegions"];
        // 13 loops three times back to offset 0 and divides; 1 divides by zero (caught); the
        // finally runs every call; the counter inserted at the start runs once per call.
        AssertApplied(step, "10,-1,25 counter+0 finally+3", "1010,999,1025 counter+3 finally+3", "StandAloneSignature");
        Assert.Contains(".try", step.Listing);
        Assert.Contains("catch DivideByZeroException", step.Listing);
        Assert.Contains("finally", step.Listing);
        Assert.Contains("stsfld", step.Listing);
        // The IL map: one entry per original instruction, in original order; the original's first
        // instruction now follows the inserted counter (ldsfld 5 bytes, ldc.i4.1, add, stsfld 5 bytes).
        Assert.Equal(report.GuardedInstructions, report.GuardedILMap.Count);
        Assert.Equal("0->12", report.GuardedILMap[0]);
        int[] old = [.. report.GuardedILMap.Select(e => int.Parse(e.Split("->")[0], CultureInfo.InvariantCulture))];
        Assert.True(old.Zip(old.Skip(1)).All(p => p.First < p.Second), string.Join(" ", report.GuardedILMap));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARegionAddedInsideAnOriginalOneIsListedFirst(string tiering) =>
        // The catch added inside the original try/finally's try block turns the exception into
        // -7; the finally still runs; the EH section lists the nested catch before the finally
        // (ECMA-335 II.19) though it was added after.
        AssertApplied(Step(tiering, "regionAddedInside"),
            "6,negative thrown finally+3 clauses catch+finally", "6,-7 finally+2 clauses catch+finally");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AFilterRegionIsCarried(string tiering)
    {
        OriginalPlanStep step = Step(tiering, "filter");
        // The filter still tells "near" (caught: -100) from "far" (not caught: thrown on).
        AssertApplied(step, "5,-100 far thrown", "1005,900 far thrown", "StandAloneSignature");
        Assert.Contains("filter", step.Listing);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void WhatCannotBeReadOrEditedIsRefusedWithTheReason(string tiering)
    {
        IReadOnlyDictionary<string, string> r = Report(tiering).Refusals;
        Assert.StartsWith("NotSupportedException: Stream.Flush() is abstract", r["abstract"]);
        Assert.StartsWith("NotSupportedException: Math.Sqrt(double) has no IL body", r["noBody"]);
        Assert.StartsWith("PlanException: ", r["resultMissing"]);
        Assert.Contains("RedirectReturns needs a local of type int", r["resultMissing"]);
        Assert.StartsWith("SignatureMismatchException: ", r["callMismatch"]);
        Assert.Contains("Expected: static int PointsFor(int x)", r["callMismatch"]);
        Assert.StartsWith("SignatureMismatchException: ", r["fieldMismatch"]);
        Assert.Contains("a load of OriginalTargets.Bonus gives it 0", r["fieldMismatch"]);
        Assert.StartsWith("InvalidOperationException: ", r["notFromOriginal"]);
        Assert.StartsWith("PlanException: ", r["mapByHand"]);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenericMethodChangesForEveryInstantiation(string tiering) =>
        // string.Concat(string, string) is new to the host's module: a TypeRef and a MemberRef.
        AssertApplied(Step(tiering, "genericMethod"), "t:5 t:s t:2.5", "t:5! t:s! t:2.5!", "TypeRef", "MemberRef",
            "StandAloneSignature");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AMethodOfAGenericTypeChangesForEveryInstantiation(string tiering) =>
        AssertApplied(Step(tiering, "genericType"), "h:7 h:x", "h:7! h:x!", "TypeRef", "MemberRef", "StandAloneSignature");

    // Applied, Active, the original back after Remove; the relocations are not the point here.
    private static void AssertRan(OriginalPlanStep step, string before, string after)
    {
        Assert.True(step.Threw is null, $"Apply threw: {step.Threw}\n{step.Listing}");
        Assert.True(step.Before == before, $"before: {step.Before}\n{step.Listing}");
        Assert.True(step.After == after, $"after: {step.After}\n{step.Listing}");
        Assert.True(step.State == "Active", $"state: {step.State}");
        Assert.True(step.Removed == before, $"after Remove: {step.Removed}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AClosedGenericTargetIsItsDefinitionAndChangesEveryInstantiation(string tiering) =>
        // FromOriginal(Holder<int>.Show): the plan's target is Holder<T>.Show, and Holder<string> changes too.
        AssertRan(Step(tiering, "closedGenericTarget"), "h:7 h:x definition True", "h:7! h:x! definition True");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ARecursiveGenericMethodRoundTripsAndEveryLevelRunsTheEdit(string tiering)
    {
        // Depth<T> calls Depth<!!0> (a MethodSpec of the module): replayed as it is, no relocation.
        AssertApplied(Step(tiering, "recursiveGenericRoundTrip"), "d:5 d:s", "d:5 d:s");
        // Depth(5, 2) runs three levels, each appending "!"; the plan (made from Depth<int>) covers Depth<string>.
        AssertRan(Step(tiering, "recursiveGeneric"), "d:5 d:s", "d:5!!! d:s!");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AStructInstanceMethodStillChangesItsReceiver(string tiering) =>
        AssertApplied(Step(tiering, "structInstance"), "6,14 value 7", "1006,1014 value 7", "StandAloneSignature");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RefAndOutParametersAreCarried(string tiering) =>
        AssertApplied(Step(tiering, "refOut"), "True,4 False,3 calls 2", "True,4 False,3 calls 202");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AModsPublicStaticMethodIsCalledThroughANewAssemblyRef(string tiering)
    {
        OriginalPlanReport report = Report(tiering);
        Assert.False(report.ModReferencedBefore, "the host already references AlvorKit.Proofs.GameMod");
        // widget.Offset(x) = Base + x swapped for the mod's WidgetOffset = Base * 7 + x.
        AssertApplied(report.Steps["assemblyRef"], "5 replaced 1", "17 replaced 1", "AssemblyRef", "TypeRef", "MemberRef");
        Assert.True(report.ModReferencedAfter, "the generation's AssemblyRef is not in the host's metadata");
        Assert.StartsWith("PlanException: ", report.CollectibleRefusal);
        Assert.Contains("AlvorKit.Proofs.GameMod is collectible", report.CollectibleRefusal);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ApplyManyAppliesEveryPlanOrNone(string tiering)
    {
        OriginalBatchReport batch = Report(tiering).Batch;
        Assert.Equal("1,2,3", batch.Before);
        Assert.True(batch.Applied == "101,102,103", batch.Applied);
        // Refused by the third plan's own stack-type check: nothing reached the profiler.
        Assert.Equal("BatchInstallException status none", batch.PlanRefusal);
        Assert.Equal(["2 StackTypeMismatchException "], batch.PlanRefusals);
        Assert.Equal("101,102,103", batch.AfterPlanRefusal);
        // Refused by the profiler's worker: the third with its own status, the others aborted with it.
        Assert.Equal("BatchInstallException status StackTypeMismatch", batch.WorkerRefusal);
        Assert.Equal(["0 PatchException BatchAborted", "1 PatchException BatchAborted", "2 StackTypeMismatchException StackTypeMismatch"],
            batch.WorkerRefusals);
        Assert.Equal("101,102,103", batch.AfterWorkerRefusal);
        Assert.Equal("1,2,3", batch.Removed);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ABatchRefusedAtTheCallNamesTheFailingRelocationAsApplyDoes(string tiering)
    {
        OriginalBatchReport batch = Report(tiering).Batch;
        Assert.Equal("BatchInstallException status RelocationMalformed", batch.CallRefusal);
        Assert.Equal(["0 PatchException BatchAborted", "1 PatchException BatchAborted", "2 PatchException RelocationMalformed"],
            batch.CallRefusals);
        Assert.Contains("The failing relocation is #0: locals: StandAloneSig", batch.CallRefusalReason);
    }
}
