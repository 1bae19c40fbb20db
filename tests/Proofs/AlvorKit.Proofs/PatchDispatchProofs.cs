using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The exact-dispatch matrix: for each signature shape the replacement receives exactly
/// the caller's receiver, arguments and ref/out/in locations, the caller gets exactly the
/// replacement's result and writes, and the original comes back after removal.
/// </summary>
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

    public static TheoryData<string, string> Shapes => PatchReports.WithTierings(ShapeNames);

    private static DispatchShapeReport Shape(string name, string tiering) =>
        PatchReports.Get<DispatchReport>(tiering, "dispatch").Shapes.GetValueOrDefault(name)
        ?? throw new Xunit.Sdk.XunitException($"the host did not run shape {name}");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheMatrixCoversEveryShape(string tiering)
    {
        IReadOnlyDictionary<string, DispatchShapeReport> shapes = PatchReports.Get<DispatchReport>(tiering, "dispatch").Shapes;
        Assert.Equal(ShapeNames.Order(), shapes.Keys.Order());
        Assert.True(shapes.Count >= 12);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ReplacementGetsExactlyWhatTheCallerPassed(string shape, string tiering)
    {
        DispatchShapeReport s = Shape(shape, tiering);
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
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void RemovalRestoresTheOriginal(string shape, string tiering)
    {
        DispatchShapeReport s = Shape(shape, tiering);
        PatchReports.AssertCommand(s.Remove);
        Assert.True(s.RestoredOk, $"restored: {s}");
        Assert.True(s.RestoredPoll.Calls == 1, $"restored only after several calls: {s}");
        Assert.Equal("Removed", s.FinalState);
    }
}
