using System.Text.Json.Nodes;
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
public sealed class InterceptionApiProofs
{
    public const uint StandAloneSig = 0x11, TypeSpec = 0x1B, MemberRef = 0x0A, MethodSpec = 0x2B, TypeRef = 0x01;

    private static readonly string[] SetupVariables =
    [
        "CORECLR_ENABLE_PROFILING", "CORECLR_PROFILER", "CORECLR_PROFILER_PATH", "ALVORKIT_INTERCEPTION_PROFILER_PATH",
        "ALVORKIT_INTERCEPTION_MODULES",
    ];

    private static JsonObject Report(string tiering) => PatchReports.Get(tiering, "api");

    [Fact]
    public void OpenWithoutTheProfilerNamesTheVariablesAndTheLauncher()
    {
        ProcessResult run = ProfiledProcess.Run(new Dictionary<string, string?>(), "api");
        Assert.True(run.ExitCode == 0, run.ToString());
        JsonNode open = run.Report["open"]!;
        Assert.Equal("InterceptionUnavailableException", open.Text("threw"));
        Assert.Equal("ProfilerNotLoaded", open.Text("reason"));
        string message = open.Text("message");
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
        JsonNode open = run.Report["open"]!;
        Assert.Equal("ProfilerNotLoaded", open.Text("reason"));
        Assert.Contains("CoreCLR did not load it", open.Text("message"));
        foreach (string variable in SetupVariables)
            Assert.Contains(variable, open.Text("message"));
    }

    [Fact]
    public void InstallQuotesTheStartupStatusWhenPatchingIsRefused()
    {
        ProcessResult run = ProfiledProcess.Run(ProfiledProcess.ProfiledEnvironment(modules: null), "api");
        Assert.True(run.ExitCode == 0, run.ToString());
        JsonObject r = run.Report;
        Assert.False(r["open"]!.Value<bool>("patchingEnabled"));
        JsonNode refused = r["refused"]!;
        Assert.Equal("InterceptionUnavailableException", refused.Text("threw"));
        Assert.Equal("PatchingRefused", refused.Text("reason"));
        Assert.Contains("ALVK_E_NO_PATCHABLE_MODULES: ALVORKIT_INTERCEPTION_MODULES is empty or unset; patch commands are refused",
            refused.Text("message"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void DescribeReportsTheMethodAsTheProfilerSeesIt(string tiering)
    {
        JsonNode d = Report(tiering)["describe"]!;
        Assert.Equal(d.Value<int>("reflectionToken"), d.Value<int>("token"));
        Assert.True(d.Value<bool>("mvidMatches"));
        Assert.Equal("None", d.Text("traits"));
        Assert.Equal("Instance, ValueTypeReceiver", d.Text("structTraits"));
        Assert.Equal(1, d.Value<int>("parameterCount"));
        Assert.Matches("^[0-9A-F]{64}$", d.Text("signatureHash"));
        Assert.Matches("^[0-9A-F]{64}$", d.Text("bodyIdentity"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void InstallReplaceAndRemoveChangeWhatTheTargetReturns(string tiering)
    {
        JsonNode r = Report(tiering)["lifecycle"]!;
        Assert.Equal(6, r.Value<int>("original"));
        AssertStep(r["install"]!, 105, "Active");
        Assert.Equal("default owner", r["install"]!.Text("owner"));
        Assert.True(r["install"]!.Value<bool>("listed"));
        AssertStep(r["replace"]!, 1005, "Active");
        Assert.Equal("ComputeB", r["replace"]!.Text("replacement"));
        Assert.Equal(2, r["replace"]!["telemetry"]!.Value<int>("commandsCompleted"));
        AssertStep(r["remove"]!, 6, "Removed");
        Assert.False(r["remove"]!.Value<bool>("isInstalled"));
        Assert.False(r["remove"]!.Value<bool>("listed"));
        Assert.False(r["remove"]!["telemetry"]!.Value<bool>("replacementNonZero"));
        Assert.Equal("Removed", r.Text("removeAgainState"));
        Assert.Equal("InvalidOperationException", r["replaceAfterRemove"]!.Text("threw"));
        Assert.Equal(6, r.Value<int>("afterAll"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ClassAndStructReceiversArriveFirst(string tiering)
    {
        JsonNode r = Report(tiering)["instanceTargets"]!;
        Assert.Equal(3, r.Value<int>("classOriginal"));
        Assert.Equal(12, r.Value<int>("structOriginal"));
        AssertStep(r["class"]!, 6, "Active");
        AssertStep(r["struct"]!, -12, "Active");
        PatchReports.AssertVisibleAtOnce(r["classRemoved"]!, 3);
        PatchReports.AssertVisibleAtOnce(r["structRemoved"]!, 12);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void DisposingAnOwnerRemovesAllItsPatchesAtOnce(string tiering)
    {
        JsonNode r = Report(tiering)["ownerScope"]!;
        JsonNode installed = r["installed"]!, disposed = r["disposed"]!;
        PatchReports.AssertVisibleAtOnce(installed["alpha"]!, 15);
        PatchReports.AssertVisibleAtOnce(installed["beta"]!, 25);
        Assert.Equal(2, installed.Value<int>("ownerPatches"));

        PatchReports.AssertVisibleAtOnce(disposed["alpha"]!, 6);
        PatchReports.AssertVisibleAtOnce(disposed["beta"]!, 7);
        Assert.Equal(0, disposed.Value<int>("ownerPatches"));
        Assert.True(disposed.Value<bool>("ownerDisposed"));
        Assert.Equal("Removed", disposed.Text("alphaState"));
        Assert.Equal("Removed", disposed.Text("betaState"));
        foreach (string t in new[] { "alphaTelemetry", "betaTelemetry" })
        {
            Assert.Equal("Removed", disposed[t]!.Text("state"));
            Assert.Equal(0, disposed[t]!.Value<int>("ownerCount"));
        }
        Assert.Equal("ObjectDisposedException", r["installWithDisposedOwner"]!.Text("threw"));
        Assert.Equal(6, r.Value<int>("alphaAfter"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TwoOwnersShareATargetUntilTheLastLeaves(string tiering)
    {
        JsonNode r = Report(tiering)["twoOwners"]!;
        Assert.Equal(6, r.Value<int>("original"));
        AssertStep(r["first"]!, 105, "Active");
        Assert.Equal(1, r["first"]!["telemetry"]!.Value<int>("ownerCount"));
        AssertStep(r["second"]!, 205, "Active");
        Assert.Equal(2, r["second"]!["telemetry"]!.Value<int>("ownerCount"));
        Assert.True(r.Value<bool>("secondIsAnotherPatchObject"));
        Assert.Equal("InvalidOperationException", r["sameOwnerAgain"]!.Text("threw"));

        JsonNode firstGone = r["firstDisposed"]!, secondGone = r["secondDisposed"]!;
        Assert.Equal(205, firstGone["result"]!.Value<int>("value"));
        Assert.Equal("Active", firstGone.Text("state"));
        Assert.Equal("Removed", firstGone.Text("firstPatchState"));
        Assert.Equal(1, firstGone["telemetry"]!.Value<int>("ownerCount"));
        AssertStep(secondGone, 6, "Removed");
        Assert.Equal(0, secondGone["telemetry"]!.Value<int>("ownerCount"));
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
        JsonNode c = Report(tiering)["mismatch"]!["cases"]![f[0]]!;
        string json = c.ToJsonString();
        Assert.True(c.Text("threw") == "SignatureMismatchException", json);
        Assert.True(c.Text("kind") == f[1], json);
        Assert.True(c.Value<int>("parameterIndex") == int.Parse(f[2]), json);
        Assert.Equal(f[3] == "" ? null : f[3], c["expected"]?.GetValue<string>());
        Assert.Equal(f[4] == "" ? null : f[4], c["actual"]?.GetValue<string>());
        Assert.Contains("Expected: static ", c.Text("message"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void MismatchesReachNothingNative(string tiering)
    {
        JsonNode r = Report(tiering)["mismatch"]!;
        PatchReports.AssertVisibleAtOnce(r["guardedPatched"]!, 55);
        // Guarded's live patch: any join or replace that reached the profiler would be a finished
        // command, a changed owner count or replacement; the whole telemetry record is equal.
        Assert.True(r.Value<bool>("telemetryUnchanged"),
            $"before {r["telemetryBefore"]!.ToJsonString()} after {r["telemetryAfter"]!.ToJsonString()}");
        Assert.Equal(1, r["telemetryAfter"]!.Value<int>("ownerCount"));
        Assert.Equal(1, r["telemetryAfter"]!.Value<int>("commandsCompleted"));
        Assert.Equal(55, r.Value<int>("guardedAfter"));
        Assert.Equal(7, r.Value<int>("untouchedOriginal"));
        Assert.Equal(7, r.Value<int>("untouchedAfter"));
        Assert.Equal(0, r.Value<int>("intruderPatches"));
        Assert.True(r.Value<bool>("livePatchesUnchanged"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ASymbolicPlanRunsInsideThePatchedMethod(string tiering)
    {
        JsonNode r = Report(tiering)["plan"]!;
        Assert.Equal(-7, r.Value<int>("original"));
        JsonNode first = r["first"]!;
        AssertStep(first, 71, "Active"); // new ApiBox<int>(Echo(abs(-7))).Value * 10 + 1
        Assert.Equal(12345, first.Value<int>("zero"));
        JsonNode g = first["generation"]!;
        Assert.Equal("Active", g.Text("state"));
        Assert.Equal(0ul, g.Value<ulong>("priorId"));
        AssertRelocations(g,
        [
            ("StandAloneSignature", StandAloneSig, "calli"),
            ("MethodSpec", MethodSpec, "call ApiHelpers.Echo<int>(int)"),
            ("TypeSpec", TypeSpec, "TypeSpec ApiBox<int> (parent)"),
            ("MemberRef", MemberRef, "newobj new ApiBox<int>(int)"),
            ("MemberRef", MemberRef, "ldfld ApiBox<int>.Value"),
            ("StandAloneSignature", StandAloneSig, "locals"),
        ]);
        Assert.Contains("calli StandAloneSig cdecl int(int)", r.Text("listing"));

        JsonNode second = r["second"]!;
        AssertStep(second, 701, "Active");
        Assert.True(second.Value<bool>("samePatch"));
        Assert.Equal(first.Value<ulong>("generationId"), second["generation"]!.Value<ulong>("priorId"));
        Assert.All(second["generation"]!["relocations"]!.AsArray(), x => Assert.True(x!.Value<bool>("reused")));

        JsonNode removed = r["remove"]!;
        PatchReports.AssertVisibleAtOnce(removed["result"]!, -7);
        Assert.Equal(0, removed.Value<int>("zero"));
        Assert.Equal("Removed", removed.Text("state"));
        Assert.Equal("Removed", removed["telemetry"]!.Text("state"));
        Assert.Equal("Superseded", removed["lastGeneration"]!.Text("state"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanReachesAnotherAssemblyThroughTypeRefsAndTypeSpecs(string tiering)
    {
        JsonNode r = Report(tiering)["crossModulePlan"]!;
        Assert.Equal(5, r.Value<int>("original"));
        AssertStep(r["applied"]!, 100, "Active"); // Math.Max(new List<int> { 5 }.Count * 100, 5)
        Assert.Equal(500, r["applied"]!.Value<int>("big"));
        AssertRelocations(r["applied"]!["generation"]!,
        [
            ("TypeSpec", TypeSpec, "TypeSpec List<int> (parent)"),
            ("MemberRef", MemberRef, "new List<int>()"),
            ("MemberRef", MemberRef, "List<int>.Add(int)"),
            ("MemberRef", MemberRef, "List<int>.get_Count()"),
            ("TypeRef", TypeRef, "TypeRef Math (parent)"),
            ("MemberRef", MemberRef, "Math.Max(int, int)"),
        ]);
        PatchReports.AssertVisibleAtOnce(r["removed"]!, 5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TypeOperandsBecomeTypeRefsAndTypeSpecs(string tiering)
    {
        JsonNode r = Report(tiering)["typeOperands"]!;
        Assert.Equal(5, r.Value<int>("original"));
        AssertStep(r["applied"]!, 14, "Active"); // 5 + new ApiBox<int>[3].Length + "List`1".Length
        AssertRelocations(r["applied"]!["generation"]!,
        [
            ("TypeRef", TypeRef, "box int"),
            ("TypeRef", TypeRef, "isinst int"),
            ("TypeRef", TypeRef, "unbox.any int"),
            ("TypeSpec", TypeSpec, "newarr ApiBox<int>"),
            ("TypeSpec", TypeSpec, "ldtoken List<int>"),
            ("TypeRef", TypeRef, "TypeRef Type (parent)"),
            ("MemberRef", MemberRef, "Type.GetTypeFromHandle(RuntimeTypeHandle)"),
            ("TypeRef", TypeRef, "TypeRef MemberInfo (parent)"),
            ("MemberRef", MemberRef, "MemberInfo.get_Name()"),
            ("TypeRef", TypeRef, "TypeRef string (parent)"),
            ("MemberRef", MemberRef, "string.get_Length()"),
        ]);
        PatchReports.AssertVisibleAtOnce(r["removed"]!, 5);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanWithACatchRegionHandlesTheException(string tiering)
    {
        JsonNode r = Report(tiering)["exceptionRegion"]!;
        Assert.Equal(0, r.Value<int>("zeroOriginal"));
        Assert.Equal(4, r.Value<int>("fourOriginal"));
        AssertStep(r["zero"]!, -1, "Active");
        PatchReports.AssertVisibleAtOnce(r["four"]!, 25);
        Assert.Contains(".try L1..L2 catch Exception L2..L3", r.Text("listing"));
        PatchReports.AssertVisibleAtOnce(r["zeroRemoved"]!, 0);
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansServeEveryInstantiationOfGenericTargets(string tiering)
    {
        JsonNode r = Report(tiering)["genericTargets"]!;
        Assert.Equal("1|a", r.Text("pickOriginal"));
        Assert.Equal("2|b", r.Text("peekOriginal"));
        Assert.Equal("NotSupportedException", r["installRefused"]!.Text("threw"));
        Assert.Contains("GenerationPlan", r["installRefused"]!.Text("message"));
        Assert.Equal("2|b", r["pick"]!.Text("value"));
        Assert.True(r["pick"]!.Value<bool>("ok"), r.ToJsonString());
        Assert.Equal("1|a", r["peek"]!.Text("value"));
        Assert.True(r["peek"]!.Value<bool>("ok"), r.ToJsonString());
        AssertRelocations(r["peekGeneration"]!,
        [
            ("TypeSpec", TypeSpec, "TypeSpec ApiBox<T> (parent)"),
            ("MemberRef", MemberRef, "MemberRef ApiBox<T>.Value"),
        ]);
        Assert.True(r["pickRemoved"]!.Value<bool>("ok") && r["peekRemoved"]!.Value<bool>("ok"), r.ToJsonString());
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansChainAfterExactDispatchInstallsAndReplaces(string tiering)
    {
        JsonNode r = Report(tiering)["mixed"]!;
        Assert.Equal(5, r.Value<int>("original"));
        PatchReports.AssertVisibleAtOnce(r["install"]!, 105);
        AssertStep(r["plan"]!, 15, "Active");
        Assert.True(r["plan"]!.Value<bool>("samePatch"));
        Assert.True(r["plan"]!["generation"]!.Value<ulong>("priorId") > 0, "the install's generation is the prior");
        PatchReports.AssertVisibleAtOnce(r["replace"]!, 205);
        AssertStep(r["planAgain"]!, 20, "Active");
        PatchReports.AssertVisibleAtOnce(r["removed"]!, 5);
        Assert.Equal("Removed", r.Text("state"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void PlansTheModuleCannotExpressAreRefusedAtTheEmitCall(string tiering)
    {
        JsonNode r = Report(tiering)["planRefusals"]!;
        foreach ((string name, string contains) in new[]
                 {
                     ("unreferencedTypeInBlob", "has no TypeRef for it"),
                     ("missingLiteral", "no relocation for user"),
                     ("wrongOperand", "call was given a type"),
                     ("shortOperandTooBig", "300 does not fit"),
                     ("missingArgument", "argument 3 does not exist"),
                     ("openGenericMethod", "MakeGenericMethod"),
                 })
        {
            Assert.True(r[name]!.Text("threw") == "PlanException", r[name]!.ToJsonString());
            Assert.Contains(contains, r[name]!.Text("message"));
        }
        Assert.Null(r["existingLiteral"]!["threw"]);
        Assert.Contains("ldstr \"none\"", r["existingLiteral"]!.Text("listing"));
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void APlanTheJitRejectsIsRolledBack(string tiering)
    {
        JsonNode r = Report(tiering)["rejectedPlan"]!;
        Assert.Equal("5", r.Text("original"));
        Assert.True(r.Value<bool>("unverifiable"), "both stack-type checks would refuse it before the JIT could");
        Assert.Equal("Requested", r.Text("applied"));
        Assert.Equal("5", r.Text("restored"));
        Assert.Equal("Failed", r["lastGeneration"]!.Text("state"));
        Assert.Equal("ALVK_E_COMPILATION_FAILED", r["lastGeneration"]!.Text("status"));
        Assert.Equal("5", r.Text("removed"));
        Assert.Equal(0, Report(tiering).Value<int>("livePatchesAtEnd"));
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
        JsonNode report = Report(tiering)["typeSafety"]!, r = report[plan]!;
        string json = r.ToJsonString();
        JsonNode t = r["thrown"] ?? throw new Xunit.Sdk.XunitException($"{plan} was applied: {json}");
        Assert.True(t.Text("threw") == "StackTypeMismatchException", json);
        Assert.True(t.Value<int>("ilOffset") == offset && t.Text("instruction") == instruction, json);
        Assert.True(t.Text("found") == found && t.Text("expected") == expected, json);
        Assert.True(t["foundType"]?.GetValue<string>() == foundType, $"found type {foundType}: {json}");
        Assert.True(t["expectedType"]?.GetValue<string>() == expectedType, $"expected type {expectedType}: {json}");
        Assert.False(t.Value<bool>("detectedByProfiler"), json);
        Assert.Contains($"IL_{offset:X4} {instruction}", t.Text("message"));
        Assert.Contains("AllowUnverifiable", t.Text("message"));
        Assert.True(r["targetResult"]!.ToJsonString() == r["original"]!.ToJsonString(), $"the target keeps its body: {json}");
        Assert.True(report.Value<bool>("patchesUnchanged"), "a refused plan reached the profiler");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TheProfilersStackTypeRefusalIsTheSameException(string tiering)
    {
        JsonNode r = Report(tiering)["typeSafety"]!["byProfiler"]!;
        string json = r.ToJsonString();
        JsonNode t = r["thrown"] ?? throw new Xunit.Sdk.XunitException($"applied: {json}");
        Assert.True(t.Text("threw") == "StackTypeMismatchException" && t.Value<bool>("detectedByProfiler"), json);
        Assert.True(t.Value<int>("ilOffset") == 1 && t.Text("instruction") == "ret", json);
        Assert.True(t.Text("found") == "Int32" && t.Text("expected") == "ObjectReference", json);
        Assert.True(t.Text("generationState") == "Rejected" && t.Text("generationStatus") == "ALVK_E_STACK_TYPE_MISMATCH", json);
        Assert.True(r.Text("targetResult") == "profiled", json);
    }

    // Merges of different types that are still type-safe: no false refusal.
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void TypeSafeMergesOfDifferentTypesAreApplied(string tiering)
    {
        JsonNode report = Report(tiering)["typeSafety"]!;
        foreach ((string name, string value, string original) in new[]
                 {
                     ("unrelatedClassesMerge", "0", "-11"),
                     ("nullMeetsClassT", "\"kept,null\"", "\"kept,dropped\""),
                 })
        {
            JsonNode r = report[name]!;
            string json = r.ToJsonString();
            Assert.True(r["thrown"] is null, json);
            Assert.True(r["original"]!.ToJsonString() == original, json);
            Assert.True(r["result"]!["value"]!.ToJsonString() == value && r["result"]!.Value<int>("calls") == 1, json);
            Assert.True(r["removed"]!.ToJsonString() == original, json);
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void AnUnverifiablePlanIsAppliedWhenAllowed(string tiering)
    {
        JsonNode report = Report(tiering)["typeSafety"]!;
        foreach ((string name, string value, string removed) in new[]
                 {
                     ("widen", "1234", "-1"),
                     ("floatBits", BitConverter.SingleToInt32Bits(1.5f).ToString(System.Globalization.CultureInfo.InvariantCulture), "-1"),
                 })
        {
            JsonNode r = report[name]!;
            string json = r.ToJsonString();
            Assert.True(r["thrown"] is null && r.Value<bool>("isUnverifiable"), json);
            Assert.True(r["result"]!["value"]!.ToJsonString() == value && r["result"]!.Value<int>("calls") == 1, json);
            Assert.True(r["generation"]!.Text("state") == "Active", json);
            Assert.True(r["removed"]!.ToJsonString() == removed, json);
        }
    }

    // A step: the value on the first call after the API returned, the Patch's state, and
    // telemetry that shows the ReJIT ran cleanly.
    private static void AssertStep(JsonNode step, int expected, string state)
    {
        string json = step.ToJsonString();
        PatchReports.AssertVisibleAtOnce(step["result"]!, expected);
        Assert.True(step.Text("state") == state, $"state {state}: {json}");
        JsonNode t = step["telemetry"]!;
        Assert.True(t.Text("state") == state, $"telemetry state {state}: {json}");
        Assert.True(t.Text("lastStatus") == "Ok", json);
        Assert.True(t.Value<int>("pendingCommands") == 0, json);
        Assert.True(t.Value<int>("rejitFinished") >= 1 && t.Value<int>("rejitErrors") == 0, json);
        foreach (string hr in new[] { "requestHResult", "compilationHResult", "metadataHResult" })
            Assert.True(t.Value<int>(hr) == 0, $"{hr}: {json}");
        Assert.True(t.Value<double>("commandElapsedMs") > 0, json);
    }

    private static void AssertRelocations(JsonNode generation, (string Kind, uint Table, string Description)[] expected)
    {
        JsonArray list = generation["relocations"]!.AsArray();
        string json = list.ToJsonString();
        Assert.True(list.Count == expected.Length, $"relocations: {json}");
        for (int i = 0; i < expected.Length; i++)
        {
            Assert.True(list[i]!.Text("kind") == expected[i].Kind, $"#{i}: {json}");
            Assert.True(list[i]!.Value<uint>("table") == expected[i].Table, $"#{i} token table: {json}");
            Assert.True(list[i]!.Value<int>("hresult") >= 0, $"#{i} hresult: {json}");
            Assert.Contains(expected[i].Description, list[i]!.Text("description"));
        }
    }
}
