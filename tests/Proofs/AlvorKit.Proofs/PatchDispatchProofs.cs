using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The exact-dispatch matrix, on both dispatch paths: for each signature shape the replacement
/// receives exactly the caller's receiver, arguments and ref/out/in locations, the caller gets
/// exactly the replacement's result and writes, and the original comes back after removal. On
/// the direct path (the replacement named as a method of the targets' own module) the body calls
/// its MethodDef; on the calli path (the same request without it) the entry point. Then the
/// direct-call cases: replacements of another assembly (AssemblyRef, TypeRef chain, MemberRef
/// emitted), the refusals that fall back to calli, and a replacement the JIT inlines.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class PatchDispatchProofs
{
    // Every shape the host's DispatchProof runs.
    public static readonly string[] ShapeNames =
    [
        "staticIntInt", "classInstance", "classInstanceStructReturn", "structInstanceMutates", "refInt",
        "outString", "inStruct", "bigStructReturn", "referenceReturn", "voidReturn", "sixteenArgs",
        "mixedFloatDoubleLongStruct", "smallArgs", "smallReturn",
    ];

    // Shapes whose replacement writes through a ref/out location or the receiver.
    private static readonly HashSet<string> WritingShapes = ["structInstanceMutates", "refInt", "outString"];

    public const string Direct = "direct", Calli = "calli";

    /// <summary>Theory data: each shape on each path under each tiering mode.</summary>
    public static TheoryData<string, string, string> Shapes
    {
        get
        {
            var data = new TheoryData<string, string, string>();
            foreach (string shape in ShapeNames)
                foreach (string path in new[] { Direct, Calli })
                    foreach (string tiering in PatchReports.Tierings)
                        data.Add(shape, path, tiering);
            return data;
        }
    }

    private static DispatchReport Report(string tiering) => PatchReports.Get<DispatchReport>(tiering, "dispatch");

    private static DispatchShapeReport Shape(string name, string path, string tiering) =>
        (path == Direct ? Report(tiering).Shapes : Report(tiering).CalliShapes).GetValueOrDefault(name)
        ?? throw new Xunit.Sdk.XunitException($"the host did not run shape {name} on the {path} path");

    private static DispatchCaseReport Case(string name, string tiering) =>
        Report(tiering).Cases.GetValueOrDefault(name)
        ?? throw new Xunit.Sdk.XunitException($"the host did not run case {name}");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheMatrixCoversEveryShape(string tiering)
    {
        DispatchReport report = Report(tiering);
        Assert.Equal(ShapeNames.Order(), report.Shapes.Keys.Order());
        Assert.Equal(ShapeNames.Order(), report.CalliShapes.Keys.Order());
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ReplacementGetsExactlyWhatTheCallerPassed(string shape, string path, string tiering)
    {
        DispatchShapeReport s = Shape(shape, path, tiering);
        Assert.True(s.OriginalOk, $"original: {s}");
        PatchReports.AssertCommand(s.Install);
        Assert.True(s.PatchedOk, $"patched result: {s}");
        Assert.True(s.PatchedPoll.Calls == 1, $"visible only after several calls: {s}");
        Assert.True(s.ArgumentsExact, $"arguments: {s}");
        if (WritingShapes.Contains(shape))
            Assert.True(s.WriteBackOk == true, $"write-back: {s}");
        else
            Assert.Null(s.WriteBackOk);
        PatchReports.AssertHealthyTelemetry(s.Telemetry, "Active");
        Assert.True(s.Telemetry.DispatchFallback == "Ok", $"fallback: {s.Telemetry}");
        if (path == Direct)
        {
            // The replacement is in the targets' module: the body calls its MethodDef.
            Assert.True(s.Telemetry.DispatchPath == "DirectCall", $"path: {s.Telemetry}");
            Assert.True(s.Telemetry.CallToken >> 24 == 0x06, $"callToken: {s.Telemetry}");
        }
        else
        {
            Assert.True(s.Telemetry.DispatchPath == "Calli", $"path: {s.Telemetry}");
            Assert.True(s.Telemetry.CallToken == 0, $"callToken: {s.Telemetry}");
        }
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void RemovalRestoresTheOriginal(string shape, string path, string tiering)
    {
        DispatchShapeReport s = Shape(shape, path, tiering);
        PatchReports.AssertCommand(s.Remove);
        Assert.True(s.RestoredOk, $"restored: {s}");
        Assert.True(s.RestoredPoll.Calls == 1, $"restored only after several calls: {s}");
        Assert.Equal("Removed", s.FinalState);
    }

    private static void AssertPatchedAndRestored(DispatchCaseReport c)
    {
        PatchReports.AssertCommand(c.Install);
        Assert.True(c.Patched.Ok, $"patched: {c}");
        PatchReports.AssertHealthyTelemetry(c.Telemetry, "Active");
        PatchReports.AssertCommand(c.Remove);
        Assert.True(c.Restored.Ok, $"restored: {c}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AReplacementOfAnotherAssemblyIsCalledThroughAnEmittedMemberRef(string tiering)
    {
        foreach (string name in new[] { "otherAssembly", "nestedType" })
        {
            DispatchCaseReport c = Case(name, tiering);
            AssertPatchedAndRestored(c);
            PatchReports.AssertVisibleAtOnce(c.Patched, c.Patched.Expected);
            Assert.True(c.Telemetry.DispatchPath == "DirectCall", $"{name}: {c}");
            Assert.True(c.Telemetry.DispatchFallback == "Ok", $"{name}: {c}");
            Assert.True(c.Telemetry.CallToken >> 24 == 0x0A, $"{name}: callToken is no MemberRef: {c}");
            // The host's file does not reference the replacements' assembly: the AssemblyRef is ours.
            Assert.False(c.AssemblyRefInFile, $"{name}: {c}");
        }
        // The first install emitted the AssemblyRef, the TypeRef and the MemberRef (the
        // calli signature of the same target was emitted by the matrix before); the nested
        // type's TypeRef chain reuses the AssemblyRef and the enclosing TypeRef.
        Assert.True(Case("otherAssembly", tiering).TokensEmitted >= 3, $"{Case("otherAssembly", tiering)}");
        DispatchCaseReport nested = Case("nestedType", tiering);
        Assert.True(nested.TokensEmitted is >= 2 and < 4, $"{nested}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AModReplacementTakesTheHostsOwnTypesThroughTheMemberRef(string tiering)
    {
        // A mod references the host and is loaded by path: class and struct receivers, an in
        // parameter (of a static target: no modreq) and a struct return, named by a MemberRef in
        // the host's module.
        foreach (string name in new[] { "modClassReceiver", "modStructReceiver", "modInParameter", "modStructReturn" })
        {
            DispatchCaseReport c = Case(name, tiering);
            AssertPatchedAndRestored(c);
            PatchReports.AssertVisibleAtOnce(c.Patched, c.Patched.Expected);
            Assert.True(c.Telemetry.DispatchPath == "DirectCall", $"{name}: {c}");
            Assert.True(c.Telemetry.CallToken >> 24 == 0x0A, $"{name}: {c}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ATargetWhoseSignatureHasAModreqNoReplacementCarriesFallsBackToCalli(string tiering)
    {
        // A virtual method's in parameter (modreq(InAttribute)) and an init setter
        // (modreq(IsExternalInit) on its return): the MemberRef of the target's signature could
        // not bind to the static replacement, so the direct request takes calli, which works;
        // the same install without the method named takes calli with nothing to report.
        foreach (string name in new[] { "modVirtualIn", "modInitSetter" })
        {
            DispatchCaseReport direct = Case(name, tiering);
            AssertPatchedAndRestored(direct);
            PatchReports.AssertVisibleAtOnce(direct.Patched, direct.Patched.Expected);
            Assert.True(direct.Telemetry.DispatchPath == "Calli", $"{name}: {direct}");
            Assert.True(direct.Telemetry.DispatchFallback == "ReplacementUnsupported", $"{name}: {direct}");
            Assert.True(direct.Telemetry.CallToken == 0, $"{name}: {direct}");
            DispatchCaseReport calli = Case(name + "Calli", tiering);
            AssertPatchedAndRestored(calli);
            PatchReports.AssertVisibleAtOnce(calli.Patched, calli.Patched.Expected);
            Assert.True(calli.Telemetry.DispatchPath == "Calli", $"{name}Calli: {calli}");
            Assert.True(calli.Telemetry.DispatchFallback == "Ok", $"{name}Calli: {calli}");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ANonPublicReplacementFallsBackToCalli(string tiering)
    {
        DispatchCaseReport c = Case("notPublic", tiering);
        AssertPatchedAndRestored(c);
        Assert.True(c.Telemetry.DispatchPath == "Calli", $"{c}");
        Assert.True(c.Telemetry.DispatchFallback == "ReplacementNotAccessible", $"{c}");
        Assert.True(c.Telemetry.CallToken == 0, $"{c}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AReplacementOfAGenericTypeFallsBackToCalli(string tiering)
    {
        DispatchCaseReport c = Case("genericType", tiering);
        AssertPatchedAndRestored(c);
        Assert.True(c.Telemetry.DispatchPath == "Calli", $"{c}");
        Assert.True(c.Telemetry.DispatchFallback == "ReplacementUnsupported", $"{c}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheJitInlinesTheReplacementOnTheDirectPathOnly(string tiering)
    {
        // Inlined, the replacement's own frame is the target's: it reports the target's name.
        DispatchCaseReport direct = Case("inlinedDirect", tiering);
        AssertPatchedAndRestored(direct);
        Assert.True(direct.Telemetry.DispatchPath == "DirectCall", $"{direct}");
        // Through calli, as many calls (twice as many, at least 1,000) leave it in its own frame.
        DispatchCaseReport calli = Case("inlinedCalli", tiering);
        AssertPatchedAndRestored(calli);
        Assert.True(calli.Telemetry.DispatchPath == "Calli", $"{calli}");
        Assert.True(calli.Telemetry.DispatchFallback == "Ok", $"{calli}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ADirectBodyTheJitRejectsIsRolledBackToTheOriginal(string tiering)
    {
        // Its MemberRef names a method of another signature (enum parameters for int ones): the
        // install succeeds (across modules the profiler compares signatures by shape, tokens
        // unresolved, and an enum is a token), the JIT cannot bind it, the calls
        // that triggered the compilation see the runtime's exception, and the profiler
        // restores the last body that compiled (the original), whose telemetry has no path.
        DirectRejectedReport r = Report(tiering).Rejected;
        PatchReports.AssertCommand(r.Install);
        Assert.True(r.InstalledTelemetry.DispatchPath == "DirectCall", $"{r.InstalledTelemetry}");
        Assert.True(r.Generation.State == "Failed" && r.Generation.Status == "CompilationFailed", $"{r.Generation}");
        Assert.True(r.Outcomes.Keys.All(k => k is "MissingMethodException" or "7"), $"{string.Join(", ", r.Outcomes)}");
        Assert.True(r.Outcomes.ContainsKey("MissingMethodException"), $"{string.Join(", ", r.Outcomes)}");
        Assert.True(r.Restored.Ok, $"{r.Restored}");
        Assert.True(r.Telemetry.DispatchPath == "None" && r.Telemetry.CallToken == 0 && r.Telemetry.Replacement == 0,
            $"{r.Telemetry}");
        PatchReports.AssertCommand(r.Remove);
    }
}
