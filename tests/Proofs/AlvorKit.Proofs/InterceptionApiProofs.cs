using AlvorKit.Proofs.Reports;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// The managed API (AlvorKit.Interception) in a profiled process (host mode "api"): Interceptor.Open
/// explains what to set when the profiler is missing or refuses; Install / Replace / Remove change
/// what targets return (class and struct receivers included); an owner scope removes all its
/// patches at once; two owners share a target until the last leaves; mismatched replacements are
/// refused before any native call; a symbolic GenerationPlan (unmanaged calli, MethodSpec,
/// TypeSpec, constructor and field MemberRefs, locals) runs inside the patched method and is
/// removed cleanly.
/// </summary>
[Trait("Feature", "Managed API")]
[Trait("Sanitized", "yes")]
public sealed class InterceptionApiProofs
{
    public const uint StandAloneSig = 0x11, TypeSpec = 0x1B, MemberRef = 0x0A, MethodSpec = 0x2B, TypeRef = 0x01;

    private static readonly string[] SetupVariables =
    [
        "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH", "ALVORKIT_INTERCEPTION_PROFILER_PATH",
        "ALVORKIT_INTERCEPTION_MODULES",
    ];

    private static ApiScenarios Report(string tiering) =>
        PatchReports.Get<ApiReport>(tiering, "api").Scenarios
        ?? throw new Xunit.Sdk.XunitException("the api mode ran no scenario: patching was refused");

    // What an exception report must be: present (the call threw).
    private static ThrownReport Threw(ThrownReport? thrown, string what) =>
        thrown ?? throw new Xunit.Sdk.XunitException($"{what} threw nothing");

    [Fact]
    public void OpenWithoutTheProfilerNamesTheVariablesAndTheLauncher()
    {
        ProcessResult run = ProfiledProcess.Run(new Dictionary<string, string?>(), "api");
        Assert.True(run.ExitCode == 0, run.ToString());
        ThrownReport open = Threw(run.Report<ApiReport>().OpenFailure, "Interceptor.Open");
        Assert.Equal("InterceptionUnavailableException", open.Threw);
        Assert.Equal("ProfilerNotLoaded", open.Reason);
        string message = open.Message;
        foreach (string variable in SetupVariables)
            Assert.Contains(variable, message);
        Assert.Contains("alvorkit-intercept run --modules <assemblies> -- <command>", message);
    }

    [Fact]
    public void OpenWhenCoreClrDidNotLoadTheLibraryIsUnavailableToo()
    {
        // The binding's variable names the real library, but CoreCLR was never told to load it.
        ProcessResult run = ProfiledProcess.Run(new Dictionary<string, string?>
        {
            ["ALVORKIT_INTERCEPTION_PROFILER_PATH"] = ProfiledProcess.NativeLibrary,
            ["ALVORKIT_INTERCEPTION_MODULES"] = "AlvorKit.Proofs.Host",
        }, "api");
        ThrownReport open = Threw(run.Report<ApiReport>().OpenFailure, "Interceptor.Open");
        Assert.Equal("ProfilerNotLoaded", open.Reason);
        Assert.Contains("CoreCLR did not load it", open.Message);
        foreach (string variable in SetupVariables)
            Assert.Contains(variable, open.Message);
    }

    [Fact]
    public void InstallQuotesTheStartupStatusWhenPatchingIsRefused()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules: null), "api");
        Assert.True(run.ExitCode == 0, run.ToString());
        ApiReport r = run.Report<ApiReport>();
        Assert.False(Assert.IsType<ApiOpen>(r.Open).PatchingEnabled);
        ThrownReport refused = Threw(r.Refused, "Install with patching refused");
        Assert.Equal("InterceptionUnavailableException", refused.Threw);
        Assert.Equal("PatchingRefused", refused.Reason);
        Assert.Contains("ALVK_E_NO_PATCHABLE_MODULES: ALVORKIT_INTERCEPTION_MODULES is empty or unset; patch commands are refused",
            refused.Message);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void DescribeReportsTheMethodAsTheProfilerSeesIt(string tiering)
    {
        ApiDescribe d = Report(tiering).Describe;
        Assert.Equal(d.ReflectionToken, d.Token);
        Assert.True(d.MvidMatches);
        Assert.Equal("None", d.Traits);
        Assert.Equal("Instance, ValueTypeReceiver", d.StructTraits);
        Assert.Equal(1, d.ParameterCount);
        Assert.Matches("^[0-9A-F]{64}$", d.SignatureHash);
        Assert.Matches("^[0-9A-F]{64}$", d.BodyIdentity);
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void InstallReplaceAndRemoveChangeWhatTheTargetReturns(string tiering)
    {
        ApiLifecycle r = Report(tiering).Lifecycle;
        Assert.Equal(6, r.Original);
        AssertStep(r.Install, 105, "Active");
        Assert.Equal("default owner", r.Install.Owner);
        Assert.True(r.Install.Listed);
        AssertStep(r.Replace, 1005, "Active");
        Assert.Equal("ComputeB", r.Replace.Replacement);
        Assert.Equal(2, r.Replace.Telemetry.CommandsCompleted);
        AssertStep(r.Remove, 6, "Removed");
        Assert.False(r.Remove.IsInstalled);
        Assert.False(r.Remove.Listed);
        Assert.False(r.Remove.Telemetry.ReplacementNonZero);
        Assert.Equal("Removed", r.RemoveAgainState);
        Assert.Equal("InvalidOperationException", Threw(r.ReplaceAfterRemove, "Replace after Remove").Threw);
        Assert.Equal(6, r.AfterAll);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ClassAndStructReceiversArriveFirst(string tiering)
    {
        InstanceTargetsReport r = Report(tiering).InstanceTargets;
        Assert.Equal(3, r.ClassOriginal);
        Assert.Equal(12, r.StructOriginal);
        AssertStep(r.Class, 6, "Active");
        AssertStep(r.Struct, -12, "Active");
        PatchReports.AssertVisibleAtOnce(r.ClassRemoved, 3);
        PatchReports.AssertVisibleAtOnce(r.StructRemoved, 12);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void DisposingAnOwnerRemovesAllItsPatchesAtOnce(string tiering)
    {
        OwnerScopeReport r = Report(tiering).OwnerScope;
        OwnerScopeInstalled installed = r.Installed;
        OwnerScopeDisposed disposed = r.Disposed;
        PatchReports.AssertVisibleAtOnce(installed.Alpha, 15);
        PatchReports.AssertVisibleAtOnce(installed.Beta, 25);
        Assert.Equal(2, installed.OwnerPatches);

        PatchReports.AssertVisibleAtOnce(disposed.Alpha, 6);
        PatchReports.AssertVisibleAtOnce(disposed.Beta, 7);
        Assert.Equal(0, disposed.OwnerPatches);
        Assert.True(disposed.OwnerDisposed);
        Assert.Equal("Removed", disposed.AlphaState);
        Assert.Equal("Removed", disposed.BetaState);
        foreach (ApiTelemetry t in new[] { disposed.AlphaTelemetry, disposed.BetaTelemetry })
        {
            Assert.Equal("Removed", t.State);
            Assert.Equal(0, t.OwnerCount);
        }
        Assert.Equal("ObjectDisposedException", Threw(r.InstallWithDisposedOwner, "Install with a disposed owner").Threw);
        Assert.Equal(6, r.AlphaAfter);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TwoOwnersShareATargetUntilTheLastLeaves(string tiering)
    {
        TwoOwnersReport r = Report(tiering).TwoOwners;
        Assert.Equal(6, r.Original);
        AssertStep(r.First, 105, "Active");
        Assert.Equal(1, r.First.Telemetry.OwnerCount);
        AssertStep(r.Second, 205, "Active");
        Assert.Equal(2, r.Second.Telemetry.OwnerCount);
        Assert.True(r.SecondIsAnotherPatchObject);
        Assert.Equal("InvalidOperationException", Threw(r.SameOwnerAgain, "Install by the same owner again").Threw);

        ApiStep firstGone = r.FirstDisposed, secondGone = r.SecondDisposed;
        Assert.Equal(205, firstGone.Result.Actual);
        Assert.Equal("Active", firstGone.State);
        Assert.Equal("Removed", firstGone.FirstPatchState);
        Assert.Equal(1, firstGone.Telemetry.OwnerCount);
        AssertStep(secondGone, 6, "Removed");
        Assert.Equal(0, secondGone.Telemetry.OwnerCount);
    }

    public static TheoryData<string, string> MismatchCases => PatchReports.WithTierings(
    [
        "wrongParameter|ParameterType|0|System.Int32|System.Int64",
        "tooMany|ParameterCount|-1||",
        "wrongReturn|ReturnType|-1|System.Int32|System.Int64",
        "notStatic|NotStatic|-1||",
        "openGeneric|OpenGeneric|-1||",
        "replaceWithWrongParameter|ParameterType|0|System.Int32|System.Int64",
        "byValueForRef|ParameterType|1|System.Int32&|System.Int32",
        "refOfWrongType|ParameterType|1|System.Int32&|System.Int64&",
        "classReceiverAsObject|ParameterType|0|AlvorKit.Proofs.Host.ApiCounter|System.Object",
        "structReceiverByValue|ParameterType|0|AlvorKit.Proofs.Host.ApiVector&|AlvorKit.Proofs.Host.ApiVector",
    ]);

    [Theory]
    [MemberData(nameof(MismatchCases))]
    public void AMismatchedReplacementIsRefusedNamingThePosition(string @case, string tiering)
    {
        string[] f = @case.Split('|');
        ThrownReport c = Threw(Report(tiering).Mismatch.Cases[f[0]], f[0]);
        string json = $"{c}";
        Assert.True(c.Threw == "SignatureMismatchException", json);
        Assert.True(c.Kind == f[1], json);
        Assert.True(c.ParameterIndex == int.Parse(f[2]), json);
        Assert.Equal(f[3] == "" ? null : f[3], c.Expected);
        Assert.Equal(f[4] == "" ? null : f[4], c.Actual);
        Assert.Contains("Expected: static ", c.Message);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void MismatchesReachNothingNative(string tiering)
    {
        MismatchReport r = Report(tiering).Mismatch;
        PatchReports.AssertVisibleAtOnce(r.GuardedPatched, 55);
        // Guarded's live patch: any join or replace that reached the profiler would be a finished
        // command, a changed owner count or replacement; the whole telemetry record is equal.
        Assert.True(r.TelemetryUnchanged, $"before {r.TelemetryBefore} after {r.TelemetryAfter}");
        Assert.Equal(1, r.TelemetryAfter.OwnerCount);
        Assert.Equal(1, r.TelemetryAfter.CommandsCompleted);
        Assert.Equal(55, r.GuardedAfter);
        Assert.Equal(7, r.UntouchedOriginal);
        Assert.Equal(7, r.UntouchedAfter);
        Assert.Equal(0, r.IntruderPatches);
        Assert.True(r.LivePatchesUnchanged);
    }

    [Trait("Platform", "all")]
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ASymbolicPlanRunsInsideThePatchedMethod(string tiering)
    {
        SymbolicPlanReport r = Report(tiering).Plan;
        Assert.Equal(-7, r.Original);
        ApiStep first = r.First;
        AssertStep(first, 71, "Active"); // new ApiBox<int>(Echo(abs(-7))).Value * 10 + 1
        Assert.Equal(12345, first.Zero);
        ApiGeneration g = Generated(first);
        Assert.Equal("Active", g.State);
        Assert.Equal(0ul, g.PriorId);
        AssertRelocations(g,
        [
            ("StandAloneSignature", StandAloneSig, "calli"),
            ("MethodSpec", MethodSpec, "call ApiHelpers.Echo<int>(int)"),
            ("TypeSpec", TypeSpec, "TypeSpec ApiBox<int> (parent)"),
            ("MemberRef", MemberRef, "newobj new ApiBox<int>(int)"),
            ("MemberRef", MemberRef, "ldfld ApiBox<int>.Value"),
            ("StandAloneSignature", StandAloneSig, "locals"),
        ]);
        Assert.Contains("calli StandAloneSig cdecl int(int)", r.Listing);

        ApiStep second = r.Second;
        AssertStep(second, 701, "Active");
        Assert.True(second.SamePatch);
        Assert.Equal(first.GenerationId, Generated(second).PriorId);
        Assert.All(Generated(second).Relocations, x => Assert.True(x.Reused));

        PlanRemoval removed = r.Remove;
        PatchReports.AssertVisibleAtOnce(removed.Result, -7);
        Assert.Equal(0, removed.Zero);
        Assert.Equal("Removed", removed.State);
        Assert.Equal("Removed", removed.Telemetry.State);
        Assert.Equal("Superseded", removed.LastGeneration?.State);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanReachesAnotherAssemblyThroughTypeRefsAndTypeSpecs(string tiering)
    {
        PlanApplied r = Report(tiering).CrossModulePlan;
        Assert.Equal(5, r.Original);
        AssertStep(r.Applied, 100, "Active"); // Math.Max(new List<int> { 5 }.Count * 100, 5)
        Assert.Equal(500, r.Applied.Big);
        AssertRelocations(Generated(r.Applied),
        [
            ("TypeSpec", TypeSpec, "TypeSpec List<int> (parent)"),
            ("MemberRef", MemberRef, "new List<int>()"),
            ("MemberRef", MemberRef, "List<int>.Add(int)"),
            ("MemberRef", MemberRef, "List<int>.get_Count()"),
            ("TypeRef", TypeRef, "TypeRef Math (parent)"),
            ("MemberRef", MemberRef, "Math.Max(int, int)"),
        ]);
        PatchReports.AssertVisibleAtOnce(r.Removed, 5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TypeOperandsBecomeTypeRefsAndTypeSpecs(string tiering)
    {
        PlanApplied r = Report(tiering).TypeOperands;
        Assert.Equal(5, r.Original);
        AssertStep(r.Applied, 14, "Active"); // 5 + new ApiBox<int>[3].Length + "List`1".Length
        AssertRelocations(Generated(r.Applied),
        [
            // One TypeRef for int, filling all three operands (box, then its sites isinst and unbox.any).
            ("TypeRef", TypeRef, "box int at IL_0001: TypeRef int; isinst int at IL_0006: TypeRef int; unbox.any int"),
            ("TypeSpec", TypeSpec, "newarr ApiBox<int>"),
            ("TypeSpec", TypeSpec, "ldtoken List<int>"),
            ("TypeRef", TypeRef, "TypeRef Type (parent)"),
            ("MemberRef", MemberRef, "Type.GetTypeFromHandle(RuntimeTypeHandle)"),
            ("TypeRef", TypeRef, "TypeRef MemberInfo (parent)"),
            ("MemberRef", MemberRef, "MemberInfo.get_Name()"),
            ("TypeRef", TypeRef, "TypeRef string (parent)"),
            ("MemberRef", MemberRef, "string.get_Length()"),
        ]);
        PatchReports.AssertVisibleAtOnce(r.Removed, 5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanWithACatchRegionHandlesTheException(string tiering)
    {
        ExceptionRegionReport r = Report(tiering).ExceptionRegion;
        Assert.Equal(0, r.ZeroOriginal);
        Assert.Equal(4, r.FourOriginal);
        AssertStep(r.Zero, -1, "Active");
        PatchReports.AssertVisibleAtOnce(r.Four, 25);
        Assert.Contains(".try L1..L2 catch Exception L2..L3", r.Listing);
        PatchReports.AssertVisibleAtOnce(r.ZeroRemoved, 0);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansServeEveryInstantiationOfGenericTargets(string tiering)
    {
        ApiGenericTargets r = Report(tiering).GenericTargets;
        string json = ReportJson.Write(r);
        Assert.Equal("1|a", r.PickOriginal);
        Assert.Equal("2|b", r.PeekOriginal);
        ThrownReport refused = Threw(r.InstallRefused, "Install on a generic target");
        Assert.Equal("NotSupportedException", refused.Threw);
        Assert.Contains("GenerationPlan", refused.Message);
        Assert.Equal("2|b", r.Pick.Actual);
        Assert.True(r.Pick.Ok, json);
        Assert.Equal("1|a", r.Peek.Actual);
        Assert.True(r.Peek.Ok, json);
        AssertRelocations(r.PeekGeneration ?? throw new Xunit.Sdk.XunitException($"no generation: {json}"),
        [
            ("TypeSpec", TypeSpec, "TypeSpec ApiBox<T> (parent)"),
            ("MemberRef", MemberRef, "MemberRef ApiBox<T>.Value"),
        ]);
        Assert.True(r.PickRemoved.Ok && r.PeekRemoved.Ok, json);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansChainAfterExactDispatchInstallsAndReplaces(string tiering)
    {
        MixedReport r = Report(tiering).Mixed;
        Assert.Equal(5, r.Original);
        PatchReports.AssertVisibleAtOnce(r.Install, 105);
        AssertStep(r.Plan, 15, "Active");
        Assert.True(r.Plan.SamePatch);
        Assert.True(Generated(r.Plan).PriorId > 0, "the install's generation is the prior");
        PatchReports.AssertVisibleAtOnce(r.Replace, 205);
        AssertStep(r.PlanAgain, 20, "Active");
        PatchReports.AssertVisibleAtOnce(r.Removed, 5);
        Assert.Equal("Removed", r.State);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansTheModuleCannotExpressAreRefusedAtTheEmitCall(string tiering)
    {
        IReadOnlyDictionary<string, PlanAttempt> r = Report(tiering).PlanRefusals;
        foreach ((string name, string contains) in new[]
                 {
                     ("wrongOperand", "call was given a type"),
                     ("shortOperandTooBig", "300 does not fit"),
                     ("missingArgument", "argument 3 does not exist"),
                     ("openGenericMethod", "MakeGenericMethod"),
                 })
        {
            ThrownReport thrown = Threw(r[name].Thrown, name);
            Assert.True(thrown.Threw == "PlanException", $"{thrown}");
            Assert.Contains(contains, thrown.Message);
        }
        Assert.Null(r["existingLiteral"].Thrown);
        Assert.Contains("ldstr \"none\"", r["existingLiteral"].Listing);
        // A type the module does not reference inside a blob, and a literal it does not
        // have, are relocations (LiteralAndTypeRelocationProofs applies such plans).
        Assert.Null(r["unreferencedTypeInBlob"].Thrown);
        Assert.Null(r["missingLiteral"].Thrown);
        Assert.Contains("UserString relocation", r["missingLiteral"].Listing);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanTheJitRejectsIsRolledBack(string tiering)
    {
        RejectedPlanReport r = Report(tiering).RejectedPlan;
        Assert.Equal("5", r.Original);
        Assert.True(r.Unverifiable, "both stack-type checks would refuse it before the JIT could");
        Assert.Equal("Requested", r.Applied);
        Assert.Equal("5", r.Restored);
        Assert.Equal("Failed", r.LastGeneration?.State);
        Assert.Equal("ALVK_E_COMPILATION_FAILED", r.LastGeneration?.Status);
        Assert.Equal("5", r.Removed);
        Assert.Equal(0, Report(tiering).LivePatchesAtEnd);
    }

    // Plans that are not type-safe, each refused by Apply with the instruction, its offset and the
    // types: (plan, offset, instruction, found, expected, exact type found, exact type expected).
    private static readonly (string Plan, int Offset, string Instruction, string Found, string Expected, string? FoundType,
        string? ExpectedType)[] RefusedPlans =
    [
        ("intForString", 1, "ret", "Int32", "ObjectReference", null, "System.String"),
        ("stringForDouble", 5, "ret", "ObjectReference", "Float", "System.String", "System.Double"),
        ("callArgument", 1, "call", "ObjectReference", "Int32", null, "System.Int32"),
        ("mergeDepth", 7, "ldc.i4.2", "Int32", "Nothing", null, null),
        ("widenRefused", 1, "ret", "NativeInt", "Int64", null, "System.Int64"),
        ("floatBitsRefused", 2, "call", "ManagedPointer", "ManagedPointer", "System.Single&", "System.Int32&"),
    ];

    public static TheoryData<string, string> RefusedPlanCases => PatchReports.WithTierings(RefusedPlans.Select(p => p.Plan));

    [Theory]
    [MemberData(nameof(RefusedPlanCases))]
    public void APlanThatIsNotTypeSafeIsRefusedBeforeTheProfilerNamingTheOffsetAndTypes(string plan, string tiering)
    {
        (_, int offset, string instruction, string found, string expected, string? foundType, string? expectedType) =
            RefusedPlans.Single(p => p.Plan == plan);
        ApiTypeSafety report = Report(tiering).TypeSafety;
        (ThrownReport? thrown, string original, string targetResult, string json) = plan switch
        {
            "intForString" => View(report.IntForString),
            "stringForDouble" => View(report.StringForDouble),
            "callArgument" => View(report.CallArgument),
            "mergeDepth" => View(report.MergeDepth),
            "widenRefused" => View(report.WidenRefused),
            "floatBitsRefused" => View(report.FloatBitsRefused),
            _ => throw new ArgumentOutOfRangeException(nameof(plan), plan, "not a refused plan"),
        };
        ThrownReport t = thrown ?? throw new Xunit.Sdk.XunitException($"{plan} was applied: {json}");
        Assert.True(t.Threw == "StackTypeMismatchException", json);
        Assert.True(t.IlOffset == offset && t.Instruction == instruction, json);
        Assert.True(t.Found == found && t.Expected == expected, json);
        Assert.True(t.FoundType == foundType, $"found type {foundType}: {json}");
        Assert.True(t.ExpectedType == expectedType, $"expected type {expectedType}: {json}");
        Assert.True(t.DetectedByProfiler == false, json);
        Assert.Contains($"IL_{offset:X4} {instruction}", t.Message);
        Assert.Contains("AllowUnverifiable", t.Message);
        Assert.True(targetResult == original, $"the target keeps its body: {json}");
        Assert.True(report.PatchesUnchanged, "a refused plan reached the profiler");
    }

    // A type-check plan's exception, its target's value before and after (as JSON), and the whole.
    private static (ThrownReport? Thrown, string Original, string TargetResult, string Json) View<T>(TypePlanReport<T> r) =>
        (r.Thrown, ReportJson.Write(r.Original), ReportJson.Write(r.TargetResult), ReportJson.Write(r));

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheProfilersStackTypeRefusalIsTheSameException(string tiering)
    {
        TypePlanReport<string> r = Report(tiering).TypeSafety.ByProfiler;
        string json = ReportJson.Write(r);
        ThrownReport t = r.Thrown ?? throw new Xunit.Sdk.XunitException($"applied: {json}");
        Assert.True(t.Threw == "StackTypeMismatchException" && t.DetectedByProfiler == true, json);
        Assert.True(t.IlOffset == 1 && t.Instruction == "ret", json);
        Assert.True(t.Found == "Int32" && t.Expected == "ObjectReference", json);
        Assert.True(t.GenerationState == "Rejected" && t.GenerationStatus == "ALVK_E_STACK_TYPE_MISMATCH", json);
        Assert.True(r.TargetResult == "profiled", json);
    }

    // Merges of different types that are still type-safe: no false refusal.
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TypeSafeMergesOfDifferentTypesAreApplied(string tiering)
    {
        ApiTypeSafety report = Report(tiering).TypeSafety;
        AssertAllowed(report.UnrelatedClassesMerge, "0", "-11", "-11");
        AssertAllowed(report.NullMeetsClassT, "\"kept,null\"", "\"kept,dropped\"", "\"kept,dropped\"");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUnverifiablePlanIsAppliedWhenAllowed(string tiering)
    {
        ApiTypeSafety report = Report(tiering).TypeSafety;
        foreach ((ApiGeneration? generation, bool? isUnverifiable, string json) in new[]
                 {
                     AssertAllowed(report.Widen, "1234", null, "-1"),
                     AssertAllowed(report.FloatBits,
                         BitConverter.SingleToInt32Bits(1.5f).ToString(System.Globalization.CultureInfo.InvariantCulture), null, "-1"),
                 })
        {
            Assert.True(isUnverifiable == true, json);
            Assert.True(generation?.State == "Active", json);
        }
    }

    // An allowed plan: it threw nothing, the target gave `value` (JSON) on the first call, and
    // `removed` once the plan was removed; `original` (when given) is what it gave before.
    private static (ApiGeneration? Generation, bool? IsUnverifiable, string Json) AssertAllowed<T>(AllowedPlanReport<T> r,
        string value, string? original, string removed)
    {
        string json = ReportJson.Write(r);
        Assert.True(r.Thrown is null, json);
        AppliedPlan<T> applied = r.Applied ?? throw new Xunit.Sdk.XunitException($"not applied: {json}");
        if (original is not null)
            Assert.True(ReportJson.Write(r.Original) == original, json);
        Assert.True(ReportJson.Write(applied.Result.Actual) == value && applied.Result.Calls == 1, json);
        Assert.True(ReportJson.Write(applied.Removed) == removed, json);
        return (applied.Generation, r.IsUnverifiable, json);
    }

    // A step: the value on the first call after the API returned, the Patch's state, and
    // telemetry that shows the ReJIT ran cleanly.
    private static void AssertStep(ApiStep step, int expected, string state)
    {
        string json = ReportJson.Write(step);
        PatchReports.AssertVisibleAtOnce(step.Result, expected);
        Assert.True(step.State == state, $"state {state}: {json}");
        ApiTelemetry t = step.Telemetry;
        Assert.True(t.State == state, $"telemetry state {state}: {json}");
        Assert.True(t.LastStatus == "Ok", json);
        Assert.True(t.PendingCommands == 0, json);
        Assert.True(t.RejitFinished >= 1 && t.RejitErrors == 0, json);
        foreach ((string name, int hr) in new[]
                 {
                     ("requestHResult", t.RequestHResult), ("compilationHResult", t.CompilationHResult),
                     ("metadataHResult", t.MetadataHResult),
                 })
            Assert.True(hr == 0, $"{name}: {json}");
        Assert.True(t.CommandElapsedMs > 0, json);
    }

    // The generation a plan step applied.
    private static ApiGeneration Generated(ApiStep step) =>
        step.Generation ?? throw new Xunit.Sdk.XunitException($"no generation: {ReportJson.Write(step)}");

    private static void AssertRelocations(ApiGeneration generation, (string Kind, uint Table, string Description)[] expected)
    {
        IReadOnlyList<ApiRelocation> list = generation.Relocations;
        string json = ReportJson.Write(list);
        Assert.True(list.Count == expected.Length, $"relocations: {json}");
        for (int i = 0; i < expected.Length; i++)
        {
            Assert.True(list[i].Kind == expected[i].Kind, $"#{i}: {json}");
            Assert.True(list[i].Table == expected[i].Table, $"#{i} token table: {json}");
            Assert.True(list[i].HResult >= 0, $"#{i} hresult: {json}");
            Assert.Contains(expected[i].Description, list[i].Description);
        }
    }
}
