using System.Diagnostics;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime.Loader;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

internal sealed record Shape(string Name, MethodInfo Target, string Replacement, Func<Observation> Call,
    Observation Original, Observation Patched, string ExpectedArgs);

public static class DispatchProof
{
    private const ulong OwnerBase = 0x3000;

    private static MethodInfo T(string name) => Patcher.Method(typeof(DispatchTargets), name);

    private static IReadOnlyList<Shape> Shapes() =>
    [
        new("staticIntInt", T(nameof(DispatchTargets.Add)), nameof(DispatchReplacements.Add),
            () => new($"{DispatchTargets.Add(3, 4)}"), new("7"), new("19"), "3|4"),
        new("classInstance", Patcher.Method(typeof(Widget), nameof(Widget.Offset)), nameof(DispatchReplacements.WidgetOffset),
            () => new($"{DispatchTargets.TheWidget.Offset(2)}"), new("42"), new("4002"), "True|40|2"),
        new("classInstanceStructReturn", Patcher.Method(typeof(Widget), nameof(Widget.Span)), nameof(DispatchReplacements.WidgetSpan),
            () => new($"{DispatchTargets.TheWidget.Span(2.5)}"), new("40,100,42.5,2.5"), new("-1,40,2.5,99"), "True|40|2.5"),
        new("structInstanceMutates", Patcher.Method(typeof(Accum), nameof(Accum.AddTo)), nameof(DispatchReplacements.AccumAddTo),
            () =>
            {
                var accum = new Accum { Total = 5 };
                int r = accum.AddTo(3);
                return new($"{r}", $"{accum.Total}");
            }, new("8", "8"), new("36", "35"), "5|3"),
        new("refInt", T(nameof(DispatchTargets.Bump)), nameof(DispatchReplacements.Bump),
            () =>
            {
                DispatchTargets.RefCell = 7;
                int r = DispatchTargets.Bump(ref DispatchTargets.RefCell, 2);
                return new($"{r}", $"{DispatchTargets.RefCell}");
            }, new("9", "9"), new("-702", "702"), "7|2|True"),
        new("outString", T(nameof(DispatchTargets.TryName)), nameof(DispatchReplacements.TryName),
            () =>
            {
                DispatchTargets.OutCell = "";
                bool r = DispatchTargets.TryName(9, out DispatchTargets.OutCell);
                return new($"{r}", DispatchTargets.OutCell);
            }, new("False", "orig9"), new("True", "patched9"), "9|True"),
        new("inStruct", T(nameof(DispatchTargets.Length)), nameof(DispatchReplacements.Length),
            () => new($"{DispatchTargets.Length(in DispatchTargets.InCell)}"), new("7"), new("34"), "3|4|True"),
        new("bigStructReturn", T(nameof(DispatchTargets.MakeQuad)), nameof(DispatchReplacements.MakeQuad),
            () => new($"{DispatchTargets.MakeQuad(1.5, 4)}"), new("1.5,5.5,6,-1.5"), new("6,4,1.5,42"), "1.5|4"),
        new("referenceReturn", T(nameof(DispatchTargets.Pick)), nameof(DispatchReplacements.Pick),
            () =>
            {
                object r = DispatchTargets.Pick(DispatchTargets.PickA, DispatchTargets.PickB);
                return new(ReferenceEquals(r, DispatchTargets.PickA) ? "a" : ReferenceEquals(r, DispatchTargets.PickB) ? "b" : "other");
            }, new("a"), new("b"), "True|True"),
        new("voidReturn", T(nameof(DispatchTargets.Store)), nameof(DispatchReplacements.Store),
            () =>
            {
                DispatchTargets.Stored = 0;
                DispatchTargets.Store(11);
                return new($"{DispatchTargets.Stored}");
            }, new("11"), new("34"), "11"),
        new("sixteenArgs", T(nameof(DispatchTargets.Sixteen)), nameof(DispatchReplacements.Sixteen),
            () => new($"{DispatchTargets.Sixteen(1, 2_000_000_000_000, 3.5f, 4.25, new Vec2(5.5, -5.5), 6, -7_000_000_000,
                8.125f, 9.0625, new Vec2(10, -10.5), 11, 12, 13.75f, -14.5, new Vec2(15.25, -15), 16)}"),
            new("17"), new("-116"),
            "1|2000000000000|3.5|4.25|(5.5,-5.5)|6|-7000000000|8.125|9.0625|(10,-10.5)|11|12|13.75|-14.5|(15.25,-15)|16"),
        new("mixedFloatDoubleLongStruct", T(nameof(DispatchTargets.Mixed)), nameof(DispatchReplacements.Mixed),
            () => new($"{DispatchTargets.Mixed(1.25f, -2.5, 0x1234_5678_9ABC_DEF0, new Pair { X = -9_000_000_000_000, Y = 0.75f }, 6.5f)}"),
            new("7.75"), new("-5"), "1.25|-2.5|1311768467463790320|-9000000000000/0.75|6.5"),
        new("smallArgs", T(nameof(DispatchTargets.Smalls)), nameof(DispatchReplacements.Smalls),
            () => new($"{DispatchTargets.Smalls(true, 250, 'Z', -12345, -7, 65000)}"), new("250"), new("83"),
            "True|250|Z|-12345|-7|65000"),
        new("smallReturn", T(nameof(DispatchTargets.Narrow)), nameof(DispatchReplacements.Narrow),
            () => new($"{DispatchTargets.Narrow(300, false)}"), new("44"), new("150"), "300|False"),
    ];

    // Every shape on both paths: the original runs, the replacement receives exactly the
    // target's arguments and its result and writes reach the caller, the original returns.
    // Then the direct-call cases.
    public static DispatchReport Run()
    {
        var patcher = new Patcher();
        var direct = new Dictionary<string, DispatchShapeReport>();
        var calli = new Dictionary<string, DispatchShapeReport>();
        ulong owner = OwnerBase;
        foreach (Shape shape in Shapes())
        {
            direct[shape.Name] = RunShape(patcher, shape, ++owner, named: true);
            calli[shape.Name] = RunShape(patcher, shape, ++owner, named: false);
        }
        return new DispatchReport(direct, calli, Cases(patcher, owner), Rejected(patcher, owner + 100));
    }

    private static readonly TimeSpan FailureLimit = TimeSpan.FromSeconds(10);

    // A direct body the JIT rejects is rolled back like any generation: the MemberRef names
    // CrossAssembly.Wide with Add's signature, which the member check cannot refute across
    // modules (the parameter counts agree) and the JIT cannot bind.
    private static DirectRejectedReport Rejected(Patcher patcher, ulong owner)
    {
        ProfilerLibrary library = patcher.Library;
        Type cross = Assembly.Load(new AssemblyName(ReplacementsAssembly))
            .GetType("AlvorKit.Proofs.Replacements.CrossAssembly", throwOnError: true)!;
        MethodInfo add = T(nameof(DispatchTargets.Add));
        AlvkInstallRequest request = patcher.NameReplacement(
            patcher.Request(add, Patcher.Method(cross, "Add"), owner), Patcher.Method(cross, "Wide"));
        Func<string> call = () => Patcher.Outcome(() => DispatchTargets.Add(3, 4));
        CommandOutcome install = patcher.Finish(library.PatchInstall(request, out ulong handle), handle);
        TelemetryReport installed = patcher.ReadTelemetry(handle);
        library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
        ulong generation = t.LatestGeneration;
        var outcomes = new SortedDictionary<string, int>(StringComparer.Ordinal);
        var clock = Stopwatch.StartNew();
        GenerationResultReport result;
        do
        {
            string outcome = call();
            outcomes[outcome] = outcomes.GetValueOrDefault(outcome) + 1;
            result = patcher.ReadGenerationResult(handle, generation);
            if (result.State == nameof(AlvkGenerationState.Failed))
                break;
            Thread.Sleep(5);
        } while (clock.Elapsed < FailureLimit);
        Polled<string> restored = Patcher.PollFor(call, "7", FailureLimit);
        TelemetryReport telemetry = patcher.ReadTelemetry(handle);
        CommandOutcome remove = patcher.Finish(library.PatchRemove(handle, owner), handle);
        return new DirectRejectedReport(install, installed, outcomes, result, restored, telemetry, remove);
    }

    private static DispatchShapeReport RunShape(Patcher patcher, Shape shape, ulong owner, bool named)
    {
        ProfilerLibrary library = patcher.Library;
        Func<Observation> call = () =>
        {
            DispatchReplacements.Received = null;
            return shape.Call();
        };
        Observation original = call();
        bool originalOk = original == shape.Original && DispatchReplacements.Received is null;

        MethodInfo replacement = Patcher.Method(typeof(DispatchReplacements), shape.Replacement);
        AlvkInstallRequest request = patcher.Request(shape.Target, replacement, owner);
        if (named)
            request = patcher.NameReplacement(request, replacement);
        AlvkStatus sync = library.PatchInstall(request, out ulong handle);
        CommandOutcome install = patcher.Finish(sync, handle);
        Polled<Observation> patchedPoll = Patcher.PollFor(call, shape.Patched);
        Observation patched = patchedPoll.Actual;
        string? received = DispatchReplacements.Received;
        bool? writeBackOk = shape.Patched.WriteBack is null ? null : patched.WriteBack == shape.Patched.WriteBack;
        TelemetryReport telemetry = patcher.ReadTelemetry(handle);

        CommandOutcome remove = patcher.Finish(library.PatchRemove(handle, owner), handle);
        Polled<Observation> restoredPoll = Patcher.PollFor(call, shape.Original);
        Observation restored = restoredPoll.Actual;
        bool restoredOk = restored == shape.Original && DispatchReplacements.Received is null;
        return new DispatchShapeReport(original, originalOk, install, patchedPoll, patched, received,
            patched.Result == shape.Patched.Result, received == shape.ExpectedArgs, writeBackOk, telemetry,
            remove, restoredPoll, restored, restoredOk, patcher.ReadTelemetry(handle).State);
    }

    // ---- the direct-call cases -------------------------------------------------------

    private const string ReplacementsAssembly = "AlvorKit.Proofs.Replacements";

    // How long the inlining case may call the target for the JIT to inline the replacement:
    // with tiering on, the patched body compiles at Tier0 first and at Tier1 after its calls
    // are counted and the background compile ran.
    private static readonly TimeSpan InlineLimit = TimeSpan.FromSeconds(15);

    private static DispatchCaseReport Case(Patcher patcher, MethodInfo target, MethodInfo replacement, MethodInfo? probe,
        bool named, Func<string> call, string patched, string original, ulong owner, TimeSpan? limit = null)
    {
        ProfilerLibrary library = patcher.Library;
        AlvkInstallRequest request = patcher.Request(target, replacement, owner);
        if (named)
            request = patcher.NameReplacement(request, replacement, probe);
        library.GetRuntimeStatus(out AlvkRuntimeStatus before);
        CommandOutcome install = patcher.Finish(library.PatchInstall(request, out ulong handle), handle);
        library.GetRuntimeStatus(out AlvkRuntimeStatus after);
        Polled<string> patchedPoll = Patcher.PollFor(call, patched, limit);
        TelemetryReport telemetry = patcher.ReadTelemetry(handle);
        CommandOutcome remove = patcher.Finish(library.PatchRemove(handle, owner), handle);
        Polled<string> restored = Patcher.PollFor(call, original);
        return new DispatchCaseReport($"{replacement.DeclaringType!.FullName}.{replacement.Name}", named,
            References(target.Module.Assembly, ReplacementsAssembly), install, patchedPoll, telemetry,
            after.MetadataTokensEmitted - before.MetadataTokensEmitted, remove, restored);
    }

    // The host names the replacements' assembly only through reflection, so its file has no
    // AssemblyRef to it: the direct call's AssemblyRef is the profiler's.
    private static Dictionary<string, DispatchCaseReport> Cases(Patcher patcher, ulong owner)
    {
        Assembly replacements = Assembly.Load(new AssemblyName(ReplacementsAssembly));
        Type cross = replacements.GetType("AlvorKit.Proofs.Replacements.CrossAssembly", throwOnError: true)!;
        Type nested = replacements.GetType("AlvorKit.Proofs.Replacements.CrossAssembly+Nested", throwOnError: true)!;
        Type hidden = replacements.GetType("AlvorKit.Proofs.Replacements.Hidden", throwOnError: true)!;
        Type generic = replacements.GetType("AlvorKit.Proofs.Replacements.Generic`1", throwOnError: true)!
            .MakeGenericType(typeof(int));
        MethodInfo add = T(nameof(DispatchTargets.Add)), where = T(nameof(DispatchTargets.Where));
        MethodInfo crossAdd = Patcher.Method(cross, "Add");
        Func<string> callAdd = () => $"{DispatchTargets.Add(3, 4)}";
        Func<string> callWhere = DispatchTargets.Where;
        var cases = new Dictionary<string, DispatchCaseReport>
        {
            ["otherAssembly"] = Case(patcher, add, crossAdd, null, true, callAdd, "3004", "7", ++owner),
            ["nestedType"] = Case(patcher, add, Patcher.Method(nested, "Add"), null, true, callAdd, "6004", "7", ++owner),
            ["notPublic"] = Case(patcher, add, Patcher.Method(hidden, "Add"), crossAdd, true, callAdd, "9004", "7", ++owner),
            ["genericType"] = Case(patcher, add, Patcher.Method(generic, "Add"), crossAdd, true, callAdd, "12004", "7",
                ++owner),
        };
        // A mod (references the host, loaded by path into the default context): receivers,
        // an in parameter and a struct return, in the MemberRef's signature as the host's types.
        Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
            Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.GameMod.dll"));
        Type mods = mod.GetType("AlvorKit.Proofs.GameMod.ModReplacements", throwOnError: true)!;
        cases["modClassReceiver"] = Case(patcher, Patcher.Method(typeof(Widget), nameof(Widget.Offset)),
            Patcher.Method(mods, "WidgetOffset"), null, true, () => $"{DispatchTargets.TheWidget.Offset(2)}", "282", "42",
            ++owner);
        cases["modStructReceiver"] = Case(patcher, Patcher.Method(typeof(Accum), nameof(Accum.AddTo)),
            Patcher.Method(mods, "AccumAddTo"), null, true, () =>
            {
                var accum = new Accum { Total = 5 };
                int r = accum.AddTo(3);
                return $"{r}/{accum.Total}";
            }, "3005/3005", "8/8", ++owner);
        cases["modInParameter"] = Case(patcher, T(nameof(DispatchTargets.Length)), Patcher.Method(mods, "Length"), null,
            true, () => $"{DispatchTargets.Length(in DispatchTargets.InCell)}", "304", "7", ++owner);
        cases["modStructReturn"] = Case(patcher, T(nameof(DispatchTargets.MakeQuad)), Patcher.Method(mods, "MakeQuad"),
            null, true, () => $"{DispatchTargets.MakeQuad(1.5, 4)}", "4,1.5,-4,7", "1.5,5.5,6,-1.5", ++owner);
        // Targets whose signature has a modreq no static replacement carries (the in parameter
        // of a virtual method, an init setter): a MemberRef of that signature cannot bind to the
        // replacement, so the direct request falls back to calli; calli alone works as well.
        MethodInfo scaled = Patcher.Method(typeof(ScaledShape), nameof(ScaledShape.Scaled));
        MethodInfo level = typeof(Settings).GetProperty(nameof(Settings.Level))!.SetMethod!;
        Func<string> callScaled = () => $"{new ScaledShape().Scaled(in DispatchTargets.InCell)}";
        Func<string> callLevel = () => $"{new Settings { Level = 5 }.Raw}";
        foreach (bool named in new[] { true, false })
        {
            string path = named ? "" : "Calli";
            cases["modVirtualIn" + path] = Case(patcher, scaled, Patcher.Method(mods, "ShapeScaled"), null, named,
                callScaled, "34", "7", ++owner);
            cases["modInitSetter" + path] = Case(patcher, level, Patcher.Method(mods, "SettingsLevel"), null, named,
                callLevel, "1005", "5", ++owner);
        }
        // Inlined into the patched target, the replacement's frame is the target's.
        MethodInfo inlined = Patcher.Method(cross, "InlinedWhere");
        DispatchCaseReport direct = Case(patcher, where, inlined, null, true, callWhere, nameof(DispatchTargets.Where),
            "original", ++owner, InlineLimit);
        cases["inlinedDirect"] = direct;
        // Through calli it is never inlined: as many calls, and it still runs in its own frame.
        cases["inlinedCalli"] = Case(patcher, where, inlined, null, false,
            CountedUntil(callWhere, Math.Max(direct.Patched.Calls * 2, 1000)), "never inlined", "original", ++owner,
            InlineLimit * 2);
        return cases;
    }

    // `call`, reporting "never inlined" once it was called `calls` times without its frame
    // becoming the target's (a poll that expects that value then ends).
    private static Func<string> CountedUntil(Func<string> call, int calls)
    {
        int made = 0;
        return () =>
        {
            string value = call();
            if (value == nameof(DispatchTargets.Where))
                return value;
            return ++made >= calls && value == "InlinedWhere" ? "never inlined" : value;
        };
    }

    private static bool References(Assembly assembly, string name)
    {
        using var pe = new PEReader(File.OpenRead(assembly.Location));
        MetadataReader md = pe.GetMetadataReader();
        return md.AssemblyReferences.Any(h => md.GetString(md.GetAssemblyReference(h).Name) == name);
    }
}
