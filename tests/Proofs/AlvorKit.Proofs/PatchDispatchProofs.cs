using System.Text.Json.Nodes;
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

    private static JsonObject Shape(string name, string tiering) =>
        PatchReports.Get(tiering, "dispatch")["shapes"]![name]?.AsObject()
        ?? throw new Xunit.Sdk.XunitException($"the host did not run shape {name}");

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheMatrixCoversEveryShape(string tiering)
    {
        JsonObject shapes = PatchReports.Get(tiering, "dispatch")["shapes"]!.AsObject();
        Assert.Equal(ShapeNames.Order(), shapes.Select(s => s.Key).Order());
        Assert.True(shapes.Count >= 12);
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void ReplacementGetsExactlyWhatTheCallerPassed(string shape, string tiering)
    {
        JsonObject s = Shape(shape, tiering);
        string json = s.ToJsonString();
        Assert.True(s.Value<bool>("originalOk"), $"original: {json}");
        PatchReports.AssertCommand(s["install"]!);
        Assert.True(s.Value<bool>("patchedOk"), $"patched result: {json}");
        Assert.True(s["patchedPoll"]!.Value<int>("calls") == 1, $"visible only after several calls: {json}");
        Assert.True(s.Value<bool>("argumentsExact"), $"arguments: {json}");
        if (WritingShapes.Contains(shape))
            Assert.True(s.Value<bool>("writeBackOk"), $"write-back: {json}");
        else
            Assert.Null(s["writeBackOk"]);
        PatchReports.AssertHealthyTelemetry(s["telemetry"]!, "Active");
    }

    [Theory]
    [MemberData(nameof(Shapes))]
    public void RemovalRestoresTheOriginal(string shape, string tiering)
    {
        JsonObject s = Shape(shape, tiering);
        string json = s.ToJsonString();
        PatchReports.AssertCommand(s["remove"]!);
        Assert.True(s.Value<bool>("restoredOk"), $"restored: {json}");
        Assert.True(s["restoredPoll"]!.Value<int>("calls") == 1, $"restored only after several calls: {json}");
        Assert.Equal("Removed", s.Text("finalState"));
    }
}
