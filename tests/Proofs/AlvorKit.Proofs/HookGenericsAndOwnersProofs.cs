using System.Collections.Concurrent;
using System.Text.Json.Nodes;
using AlvorKit.Tests.Support;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// Hooks over generic types and hook ownership in a profiled process (HookGenericsAndOwnersProof), under
/// both tiering modes: a generic struct's own type as an object __instance and a generic class's own type
/// through __args compile and run (TypeSpecs outside ldtoken: a TypeDef of a generic type there is refused
/// by the JIT); hooks added through two interceptors on one target compose (both run, by priority) and each
/// interceptor's Dispose takes out only its own default owner's; an owner disposed while hooks are added to
/// it on another thread never keeps them running.
/// </summary>
[Trait("Feature", "Hooks")]
public sealed class HookGenericsAndOwnersProofs
{
    private static readonly ConcurrentDictionary<string, Lazy<JsonObject>> Reports = new();

    private static JsonObject Report(string tiering, string part) => Reports.GetOrAdd($"{tiering} {part}", _ => new Lazy<JsonObject>(() =>
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment("AlvorKit.Proofs.Host"),
            PatchReports.Tiering(tiering), TimeSpan.FromSeconds(120), "hookgenericsowners", part);
        Assert.True(run.ExitCode == 0, run.ToString());
        return run.Report;
    })).Value;

    private static string? Text(JsonObject report, string key) => report[key]?.GetValue<string>();

    private static int Number(JsonObject report, string key) => report[key]!.GetValue<int>();

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AGenericTypesOwnValuesAreBoxedAndUnboxedThroughTypeSpecs(string tiering)
    {
        JsonObject report = Report(tiering, "generic");
        Assert.True(Text(report, "genericThrew") is null, Text(report, "genericThrew"));
        Assert.Equal("pair 4;pair s;True;False", Text(report, "genericResults"));
        // Each prefix ran once per call, with the boxed receiver / the argument (other) of the target's own type.
        Assert.Equal("instance AlvorKit.Proofs.Host.FixPair`1[System.Int32],instance AlvorKit.Proofs.Host.FixPair`1[System.String]," +
                     "arg 3,arg b", Text(report, "genericSeen"));
        Assert.Equal("Active;Active", Text(report, "genericStates"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void HooksOfTwoInterceptorsComposeAndEachDisposeTakesOutItsOwn(string tiering)
    {
        JsonObject report = Report(tiering, "interceptors");
        Assert.True(Text(report, "twoThrew") is null, Text(report, "twoThrew"));
        // Priority High (second) before Low (first), one body for both.
        Assert.Equal("2 second mod,first mod", Text(report, "twoBoth"));
        Assert.Equal("3 second mod", Text(report, "twoAfterFirstDisposed"));
        Assert.Equal("4 ", Text(report, "twoAfterBothDisposed"));
        // Distinct default owner names: Before/After can tell the two mods apart.
        string[] owners = Text(report, "defaultOwners")!.Split(';');
        Assert.NotEqual(owners[0], owners[1]);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnOwnerDisposedDuringHookNeverKeepsTheHooks(string tiering)
    {
        JsonObject report = Report(tiering, "race");
        int rounds = Number(report, "raceRounds");
        Assert.Equal(0, Number(report, "raceLeaked"));
        Assert.Equal(0, Number(report, "raceOwnerKept"));
        Assert.Equal("", Text(report, "raceFailures"));
        // Every round ended one of the two ways: refused, or added and then removed.
        Assert.Equal(rounds, Number(report, "raceRefused") + Number(report, "raceRemoved"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void HooksAreStillRemovedAfterEveryInterceptorIsDisposed(string tiering)
    {
        JsonObject report = Report(tiering, "removal");
        Assert.Equal("501 2 first mod,second mod", Text(report, "removalBefore")); // same priority: install order
        // The only interceptor was disposed: the owner's removal still reweaves the shared target without its
        // hook (the other owner's stays) and removes its whole-body patch, with nothing thrown.
        Assert.Equal("nothing", Text(report, "removalThrew"));
        Assert.Equal("11 patches 0 hooks kept False 2 second mod", Text(report, "removalAfter"));
        // The last set's removal gives the original back: no hook runs.
        Assert.Equal("2 '' False", Text(report, "removalLast"));
    }
}
