using System.Reflection;
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

    // Every shape: the original runs, the replacement receives exactly the target's
    // arguments and its result and writes reach the caller, the original returns.
    public static DispatchReport Run()
    {
        var patcher = new Patcher();
        var shapes = new Dictionary<string, DispatchShapeReport>();
        ulong owner = OwnerBase;
        foreach (Shape shape in Shapes())
            shapes[shape.Name] = RunShape(patcher, shape, ++owner);
        return new DispatchReport(shapes);
    }

    private static DispatchShapeReport RunShape(Patcher patcher, Shape shape, ulong owner)
    {
        ProfilerLibrary library = patcher.Library;
        Func<Observation> call = () =>
        {
            DispatchReplacements.Received = null;
            return shape.Call();
        };
        Observation original = call();
        bool originalOk = original == shape.Original && DispatchReplacements.Received is null;

        AlvkInstallRequest request = patcher.Request(shape.Target,
            Patcher.Method(typeof(DispatchReplacements), shape.Replacement), owner);
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
}
