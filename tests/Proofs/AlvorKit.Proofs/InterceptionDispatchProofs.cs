using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The managed API's dispatch paths (host mode "dispatchapi"): Interceptor.Install and
/// Patch.Replace take the direct call when the target's module can reference the replacement
/// (its MethodDef in the same module, a MemberRef for another assembly), fall back to calli
/// with the profiler's reason (not public), keep calli themselves for a copy of the assembly
/// in another load context, for a target whose context overrides Load, under PreferCalli, and for a target whose signature has a modreq the
/// replacement cannot carry (a virtual method's in parameter, an init setter), and say so in
/// the telemetry and ToString;
/// an owner leaving restores the other owner's body with the path it took.
/// </summary>
[Trait("Feature", "Managed API")]
[Trait("Sanitized", "yes")]
public sealed class InterceptionDispatchProofs
{
    private static DispatchApiStep Step(string tiering, string name) =>
        PatchReports.Get<DispatchApiReport>(tiering, "dispatchapi").Steps.SingleOrDefault(s => s.Name == name)
        ?? throw new Xunit.Sdk.XunitException($"the host did not run step {name}");

    // step, path, fallback, call token table (0: none), text ToString ends with.
    private static readonly (string Step, string Path, string Fallback, uint Table, string Text)[] Expected =
    [
        ("installSameModule", "DirectCall", "Ok", 0x06, ", direct call]"),
        ("replaceOtherAssembly", "DirectCall", "Ok", 0x0A, ", direct call]"),
        ("replaceNotPublic", "Calli", "ReplacementNotAccessible", 0, ", calli (direct call refused: ReplacementNotAccessible)]"),
        ("replacePluginCopy", "Calli", "Ok", 0, ", calli]"),
        ("replaceOtherAssemblyAgain", "DirectCall", "Ok", 0x0A, ", direct call]"),
        ("joinPreferCalli", "Calli", "Ok", 0, ", calli]"),
        ("afterSecondLeft", "DirectCall", "Ok", 0x0A, ", direct call]"),
        ("installVirtualIn", "Calli", "Ok", 0, ", calli]"),
        ("installInitSetter", "Calli", "Ok", 0, ", calli]"),
        ("otherContextPlain", "DirectCall", "Ok", 0x0A, ", direct call]"),
        ("otherContextOverridesLoad", "Calli", "Ok", 0, ", calli]"),
    ];

    public static TheoryData<string, string> Steps => PatchReports.WithTierings(Expected.Select(e => e.Step));

    [Theory]
    [MemberData(nameof(Steps))]
    public void EachStepTakesTheExpectedPathAndSaysSo(string step, string tiering)
    {
        (_, string path, string fallback, uint table, string text) = Expected.Single(e => e.Step == step);
        DispatchApiStep s = Step(tiering, step);
        Assert.True(s.Result.Ok, $"result: {s}");
        Assert.True(s.DispatchPath == path, $"path: {s}");
        Assert.True(s.DispatchFallback == fallback, $"fallback: {s}");
        Assert.True(s.CallToken >> 24 == table && (table == 0) == (s.CallToken == 0), $"call token: {s}");
        Assert.True(s.Description.EndsWith(text, StringComparison.Ordinal), $"description: {s}");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheReferenceToAnotherAssemblyIsEmittedOnceAndReused(string tiering)
    {
        // The same replacement named again gets the same MemberRef (the token cache).
        Assert.Equal(Step(tiering, "replaceOtherAssembly").CallToken, Step(tiering, "replaceOtherAssemblyAgain").CallToken);
        Assert.Equal(Step(tiering, "replaceOtherAssembly").CallToken, Step(tiering, "afterSecondLeft").CallToken);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void RemovedThePatchHasNoPath(string tiering)
    {
        DispatchApiStep s = Step(tiering, "removed");
        Assert.True(s.Result.Ok, $"{s}");
        Assert.True(s.Description.EndsWith("[removed, first]", StringComparison.Ordinal), $"{s}");
    }
}
