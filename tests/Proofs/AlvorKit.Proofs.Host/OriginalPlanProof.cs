using System.Globalization;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// GenerationPlan.FromOriginal in a profiled process: each target's original IL, edited (or
/// not: a round trip), applied as a generation, called, and removed. The edits: a counter
/// inserted at the start, every return redirected through a common epilogue that changes the
/// result, a call swapped for another method (the transpiler case), a static field load
/// replaced by a call; the targets: try/catch/finally with a loop back to offset 0, a generic
/// method, a method of a generic type, a struct instance method, ref and out parameters, and
/// a call swapped for a public static method of a mod the host does not reference (an
/// ASSEMBLY_REF relocation); a closed generic target (read as its definition) and a recursive
/// generic method. Then ApplyMany: three plans in one batch, and two batches refused
/// whole (by a plan's own check, and by the profiler's worker).
/// </summary>
public static class OriginalPlanProof
{
    private static readonly Type T = typeof(OriginalTargets);

    public static OriginalPlanReport Run()
    {
        using Interceptor interceptor = Interceptor.Open();
        var steps = new Dictionary<string, OriginalPlanStep>();

        steps["roundTrip"] = Step(interceptor, GenerationPlan.FromOriginal(Method("Score")),
            () => Calls(OriginalTargets.Score, 1, 4));

        // The transpiler form: x * 3 + 1 becomes x * 5 + 1.
        GenerationPlan five = GenerationPlan.FromOriginal(Method("Score"));
        int times = five.Replace(i => i.OpCode == OpCodes.Ldc_I4_3, i => [new BodyInstruction(OpCodes.Ldc_I4_5)]);
        steps["replace"] = Step(interceptor, five, () => $"{Calls(OriginalTargets.Score, 1, 4)} replaced {times}");

        GenerationPlan counted = GenerationPlan.FromOriginal(Method("Counted"));
        counted.InsertAtStart(Increment(nameof(OriginalTargets.Counter)));
        steps["insertAtStart"] = Step(interceptor, counted, () =>
        {
            int before = OriginalTargets.Counter;
            string results = Calls(OriginalTargets.Counted, 1, 2, 3);
            return $"{results} counter+{OriginalTargets.Counter - before}";
        });

        GenerationPlan redirected = GenerationPlan.FromOriginal(Method("Redirected"));
        Epilogue(redirected, OpCodes.Add, 1000);
        steps["redirectReturns"] = Step(interceptor, redirected, () => Calls(OriginalTargets.Redirected, 3, 12));

        GenerationPlan points = GenerationPlan.FromOriginal(Method("Points"));
        int swapped = points.ReplaceCalls(Method("PointsFor"), Method("TriplePoints"));
        steps["replaceCalls"] = Step(interceptor, points, () => $"{Calls(OriginalTargets.Points, 1, 4)} replaced {swapped}");

        GenerationPlan bonus = GenerationPlan.FromOriginal(Method("WithBonus"));
        int loads = bonus.ReplaceFieldLoads(T.GetField(nameof(OriginalTargets.Bonus))!, Method("BigBonus"));
        steps["replaceFieldLoads"] = Step(interceptor, bonus, () => $"{Calls(OriginalTargets.WithBonus, 1)} replaced {loads}");

        GenerationPlan guarded = GenerationPlan.FromOriginal(Method("Guarded"));
        bool loopsToStart = guarded.Instructions[0].Labels.Count > 0 &&
                            guarded.Instructions.Any(i => i.Operand is PlanLabel l && guarded.Instructions[0].Labels.Contains(l));
        int originalInstructions = guarded.Instructions.Count;
        guarded.InsertAtStart(Increment(nameof(OriginalTargets.GuardCounter)));
        Epilogue(guarded, OpCodes.Add, 1000);
        // The IL map: every original instruction's offset to its new one.
        IReadOnlyList<string> ilMap = [.. guarded.Lower().ILMap.Select(e => $"{e.OldOffset}->{e.NewOffset}")];
        steps["exceptionRegions"] = Step(interceptor, guarded, () =>
        {
            int counter = OriginalTargets.GuardCounter, finallies = OriginalTargets.FinallyCount;
            string results = Calls(OriginalTargets.Guarded, 13, 1, 5);
            return $"{results} counter+{OriginalTargets.GuardCounter - counter} finally+{OriginalTargets.FinallyCount - finallies}";
        });

        // A catch region added inside the original's try block: added last, listed first.
        GenerationPlan nested = GenerationPlan.FromOriginal(Method("Nested"));
        IList<BodyInstruction> code = nested.Instructions;
        int call = code.IndexOf(code.First(i => i.Operand is MethodInfo { Name: "Twice" }));
        BodyInstruction load = code[call - 1], store = code[call + 1], leave = code[call + 2];
        PlanLabel tryStart = nested.DefineLabel(), handler = nested.DefineLabel(), after = nested.DefineLabel();
        load.Labels.Add(tryStart);
        leave.Labels.Add(after);
        var pop = new BodyInstruction(OpCodes.Pop);
        pop.Labels.Add(handler);
        int at = code.IndexOf(leave);
        foreach (BodyInstruction i in new[]
                 {
                     new BodyInstruction(OpCodes.Leave, after), pop, new BodyInstruction(OpCodes.Ldc_I4, -7),
                     new BodyInstruction(store.OpCode, store.Operand), new BodyInstruction(OpCodes.Leave, after),
                 }.Reverse())
            code.Insert(at, i);
        nested.AddCatchRegion(tryStart, handler, handler, after, typeof(InvalidOperationException));
        IReadOnlyList<string> clauseOrder = [.. AlvorKit.Interception.IL.MethodBodyFormat.Clauses(nested.Lower().Body).Select(c => c.Flags == 0 ? "catch" : c.Flags == 2 ? "finally" : c.Flags.ToString(CultureInfo.InvariantCulture))];
        steps["regionAddedInside"] = Step(interceptor, nested, () =>
        {
            int finallies = OriginalTargets.FinallyCount;
            string results;
            try
            {
                results = $"{OriginalTargets.Nested(3)},{OriginalTargets.Nested(-1)}";
            }
            catch (InvalidOperationException e)
            {
                results = $"{OriginalTargets.Nested(3)},{e.Message} thrown";
            }
            return $"{results} finally+{OriginalTargets.FinallyCount - finallies} clauses {string.Join("+", clauseOrder)}";
        });

        GenerationPlan filtered = GenerationPlan.FromOriginal(Method("Filtered"));
        Epilogue(filtered, OpCodes.Add, 1000);
        steps["filter"] = Step(interceptor, filtered, () =>
        {
            string results = Calls(OriginalTargets.Filtered, 5, -1);
            try
            {
                OriginalTargets.Filtered(-20);
                return results + " far returned";
            }
            catch (ArgumentException e)
            {
                return $"{results} {e.Message} thrown";
            }
        });

        GenerationPlan tag = GenerationPlan.FromOriginal(Method("Tag"));
        AppendBang(tag);
        steps["genericMethod"] = Step(interceptor, tag, () =>
            $"{OriginalTargets.Tag(5)} {OriginalTargets.Tag("s")} {OriginalTargets.Tag(2.5)}");

        // Given through an instantiation: the plan is for the definition, so for every instantiation.
        GenerationPlan show = GenerationPlan.FromOriginal(typeof(Holder<int>).GetMethod("Show")!);
        AppendBang(show);
        steps["genericType"] = Step(interceptor, show, () =>
            $"{new Holder<int>(7).Show()} {new Holder<string>("x").Show()}");

        // A CLOSED target (Holder<int>.Show) stands for its definition: the generation changes
        // every instantiation, and the plan was checked against the definition.
        GenerationPlan closed = GenerationPlan.FromOriginal(typeof(Holder<int>).GetMethod("Show")!);
        AppendBang(closed);
        bool definition = closed.Target.DeclaringType!.IsGenericTypeDefinition;
        steps["closedGenericTarget"] = Step(interceptor, closed, () =>
            $"{new Holder<int>(7).Show()} {new Holder<string>("x").Show()} definition {definition}");

        // A recursive generic method (Depth<T> calls Depth<!!0>): unedited, a round trip; edited,
        // every level of the recursion runs the new body.
        steps["recursiveGenericRoundTrip"] = Step(interceptor, GenerationPlan.FromOriginal(Method("Depth")),
            () => $"{OriginalTargets.Depth(5, 2)} {OriginalTargets.Depth("s", 0)}");
        GenerationPlan depth = GenerationPlan.FromOriginal(Method("Depth").MakeGenericMethod(typeof(int)));
        AppendBang(depth);
        steps["recursiveGeneric"] = Step(interceptor, depth,
            () => $"{OriginalTargets.Depth(5, 2)} {OriginalTargets.Depth("s", 0)}");

        GenerationPlan add = GenerationPlan.FromOriginal(typeof(Tally).GetMethod(nameof(Tally.Add))!);
        Epilogue(add, OpCodes.Add, 1000);
        steps["structInstance"] = Step(interceptor, add, () =>
        {
            var tally = new Tally();
            int first = tally.Add(3), second = tally.Add(4);
            return $"{first},{second} value {tally.Value}";
        });

        // ref int calls: calls += 100 before the original's own calls++.
        GenerationPlan half = GenerationPlan.FromOriginal(Method("TryHalf"));
        half.InsertAtStart([
            new BodyInstruction(OpCodes.Ldarg_2), new BodyInstruction(OpCodes.Ldarg_2), new BodyInstruction(OpCodes.Ldind_I4),
            new BodyInstruction(OpCodes.Ldc_I4, 100), new BodyInstruction(OpCodes.Add), new BodyInstruction(OpCodes.Stind_I4),
        ]);
        steps["refOut"] = Step(interceptor, half, () =>
        {
            int calls = 0;
            bool even = OriginalTargets.TryHalf(8, out int h, ref calls);
            bool odd = OriginalTargets.TryHalf(7, out int h2, ref calls);
            return $"{even},{h} {odd},{h2} calls {calls}";
        });

        // A mod loaded by path into the default context, as a game loads its mods; the host's
        // metadata has no AssemblyRef to it until the generation adds one.
        bool referencedBefore = ReferencesMod();
        Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
            Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.GameMod.dll"));
        MethodInfo widgetOffset = mod.GetType("AlvorKit.Proofs.GameMod.ModReplacements", throwOnError: true)!
            .GetMethod("WidgetOffset")!;
        GenerationPlan widget = GenerationPlan.FromOriginal(Method("WidgetScore"));
        int viaMod = widget.ReplaceCalls(typeof(Widget).GetMethod(nameof(Widget.Offset))!, widgetOffset);
        steps["assemblyRef"] = Step(interceptor, widget, () =>
            $"{OriginalTargets.WidgetScore(new Widget { Base = 2 }, 3)} replaced {viaMod}");
        bool referencedAfter = ReferencesMod();

        return new OriginalPlanReport(steps, loopsToStart, originalInstructions, ilMap, referencedBefore, referencedAfter,
            CollectibleRefusal(), Refusals(), Batch(interceptor));
    }

    // What FromOriginal and its edits refuse, each as "ExceptionType: message".
    private static Dictionary<string, string> Refusals()
    {
        var refusals = new Dictionary<string, string>();
        void Try(string name, Action action)
        {
            try
            {
                action();
                refusals[name] = "accepted";
            }
            catch (Exception e) when (e is InterceptionException or NotSupportedException or InvalidOperationException)
            {
                refusals[name] = $"{e.GetType().Name}: {e.Message}";
            }
        }
        Try("abstract", () => GenerationPlan.FromOriginal(typeof(Stream).GetMethod(nameof(Stream.Flush))!));
        Try("noBody", () => GenerationPlan.FromOriginal(typeof(Math).GetMethod(nameof(Math.Sqrt))!));
        Try("resultMissing", () => GenerationPlan.FromOriginal(Method("Score")).RedirectReturns(null));
        Try("callMismatch", () => GenerationPlan.FromOriginal(Method("Points"))
            .ReplaceCalls(Method("PointsFor"), Method("BigBonus")));
        Try("fieldMismatch", () => GenerationPlan.FromOriginal(Method("WithBonus"))
            .ReplaceFieldLoads(T.GetField(nameof(OriginalTargets.Bonus))!, Method("PointsFor")));
        Try("notFromOriginal", () => _ = new GenerationPlan(Method("Score")).Instructions);
        Try("mapByHand", () => GenerationPlan.FromOriginal(Method("Score")).MapOriginalOffset(0));
        return refusals;
    }

    private static bool ReferencesMod() =>
        typeof(OriginalTargets).Assembly.GetReferencedAssemblies().Any(a => a.Name == "AlvorKit.Proofs.GameMod");

    // The same mod in a collectible context: the host's module cannot reference it.
    private static string CollectibleRefusal()
    {
        var context = new AssemblyLoadContext("collectible mod", isCollectible: true);
        try
        {
            Assembly copy = context.LoadFromAssemblyPath(Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.GameMod.dll"));
            MethodInfo offset = copy.GetType("AlvorKit.Proofs.GameMod.ModReplacements", throwOnError: true)!.GetMethod("WidgetOffset")!;
            GenerationPlan plan = GenerationPlan.FromOriginal(Method("WidgetScore"));
            plan.ReplaceCalls(typeof(Widget).GetMethod(nameof(Widget.Offset))!, offset);
            plan.Lower();
            return "lowered";
        }
        catch (PlanException e)
        {
            return $"{nameof(PlanException)}: {e.Message}";
        }
        finally
        {
            context.Unload();
        }
    }

    private static OriginalBatchReport Batch(Interceptor interceptor)
    {
        string[] names = ["BatchA", "BatchB", "BatchC"];
        string Values() => $"{OriginalTargets.BatchA()},{OriginalTargets.BatchB()},{OriginalTargets.BatchC()}";
        GenerationPlan Plus(string name, int amount)
        {
            GenerationPlan plan = GenerationPlan.FromOriginal(Method(name));
            Epilogue(plan, OpCodes.Add, amount);
            return plan;
        }

        string before = Values();
        IReadOnlyList<Patch> patches = [];
        string applied;
        try
        {
            patches = interceptor.ApplyMany(names.Select(n => Plus(n, 100)));
            applied = Values();
        }
        catch (BatchInstallException e)
        {
            applied = $"{nameof(BatchInstallException)}: {e.Message}";
        }

        // The third plan adds a string to a number: its own stack-type check refuses it.
        GenerationPlan bad = Plus("BatchC", 200);
        bad.InsertAtStart([new BodyInstruction(OpCodes.Ldstr, "x"), new BodyInstruction(OpCodes.Ldc_I4_1),
            new BodyInstruction(OpCodes.Add), new BodyInstruction(OpCodes.Pop)]);
        (string planRefusal, List<string> planRefusals) = Refused(() =>
            interceptor.ApplyMany([Plus("BatchA", 200), Plus("BatchB", 200), bad]));
        string afterPlanRefusal = Values();

        // The same, with the plan's own check skipped: the profiler's worker refuses it, and the
        // batch with it.
        GenerationPlan skipped = Plus("BatchC", 300);
        skipped.InsertAtStart([new BodyInstruction(OpCodes.Ldstr, "x"), new BodyInstruction(OpCodes.Ldc_I4_1),
            new BodyInstruction(OpCodes.Add), new BodyInstruction(OpCodes.Pop)]);
        skipped.SkipPlanStackCheck = true;
        (string workerRefusal, List<string> workerRefusals) = Refused(() =>
            interceptor.ApplyMany([Plus("BatchA", 300), Plus("BatchB", 300), skipped]));
        string afterWorkerRefusal = Values();

        foreach (Patch patch in patches)
            patch.Remove();
        string removed = Values();

        // Refused at the call: the third plan's locals relocation names a parent (none may), so
        // the profiler's validation of that entry refuses the batch before anything is queued.
        GenerationPlan malformed = Plus("BatchC", 400);
        malformed.AfterLowering = lowered => lowered with
        {
            Relocations = [.. lowered.Relocations.Select((r, i) => i == 0 ? r with { ParentRelocation = 1 } : r)],
        };
        string callReason = "";
        (string callRefusal, List<string> callRefusals) = Refused(() =>
        {
            try
            {
                interceptor.ApplyMany([Plus("BatchA", 400), Plus("BatchB", 400), malformed]);
            }
            catch (BatchInstallException e)
            {
                callReason = e.Refusals.FirstOrDefault(r => r.Index == 2)?.Reason.Message ?? "";
                throw;
            }
        });
        return new OriginalBatchReport(before, applied, planRefusal, planRefusals, afterPlanRefusal, workerRefusal,
            workerRefusals, afterWorkerRefusal, removed, callRefusal, callRefusals, callReason);
    }

    private static (string, List<string>) Refused(Action apply)
    {
        try
        {
            apply();
            return ("applied", []);
        }
        catch (BatchInstallException e)
        {
            return ($"{nameof(BatchInstallException)} status {e.Status?.ToString() ?? "none"}",
                [.. e.Refusals.Select(r => $"{r.Index} {r.Reason.GetType().Name} {(r.Reason as InterceptionException)?.Status}")]);
        }
    }

    // ------------------------------------------------------------------ helpers

    private static OriginalPlanStep Step(Interceptor interceptor, GenerationPlan plan, Func<string> calls)
    {
        string before = calls();
        string listing = plan.ToString();
        Patch patch;
        try
        {
            patch = interceptor.Apply(plan);
        }
        catch (Exception e) when (e is InterceptionException or NotSupportedException)
        {
            return new OriginalPlanStep(before, "", "", "", [], listing, $"{e.GetType().Name}: {e.Message}");
        }
        string after = calls();
        GenerationInfo? generation = patch.ReadLastGeneration();
        patch.Remove();
        string removed = calls();
        return new OriginalPlanStep(before, after, removed, generation?.State.ToString() ?? "none",
            [.. generation?.Relocations.Select(r => r.Kind.ToString()) ?? []], listing, null);
    }

    // ldsfld counter; ldc.i4.1; add; stsfld counter
    private static BodyInstruction[] Increment(string counter)
    {
        FieldInfo field = T.GetField(counter)!;
        return [new BodyInstruction(OpCodes.Ldsfld, field), new BodyInstruction(OpCodes.Ldc_I4_1),
            new BodyInstruction(OpCodes.Add), new BodyInstruction(OpCodes.Stsfld, field)];
    }

    // Every return through one exit: result <op> amount.
    private static void Epilogue(GenerationPlan plan, OpCode op, int amount)
    {
        PlanLocal result = plan.DeclareLocal(((MethodInfo)plan.Target).ReturnType);
        PlanLabel exit = plan.RedirectReturns(result);
        plan.MarkLabel(exit);
        plan.LoadLocal(result);
        plan.LoadConstant(amount);
        plan.Emit(op);
        plan.Return();
    }

    // Every return through one exit: result + "!".
    private static void AppendBang(GenerationPlan plan)
    {
        PlanLocal result = plan.DeclareLocal(typeof(string));
        PlanLabel exit = plan.RedirectReturns(result);
        plan.MarkLabel(exit);
        plan.LoadLocal(result);
        plan.Emit(OpCodes.Ldstr, "!");
        plan.Call(typeof(string).GetMethod(nameof(string.Concat), [typeof(string), typeof(string)])!);
        plan.Return();
    }

    private static MethodInfo Method(string name) =>
        T.GetMethod(name, BindingFlags.Public | BindingFlags.Static) ?? throw new MissingMethodException(T.Name, name);

    private static string Calls(Func<int, int> target, params int[] inputs) =>
        string.Join(",", inputs.Select(i => target(i).ToString(CultureInfo.InvariantCulture)));
}
