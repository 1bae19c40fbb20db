using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// What hook parameters bind, in a real profiled process: the original method of a generic target as
/// the running instantiation, fields of the receiver, its base class and a struct (by value and by
/// reference), renamed arguments, and a __state of compatible types. The patch classes are
/// AlvorKit.Proofs.HookMod's BindingPatches (loaded by path); every call is observed before, while
/// hooked and after the owner left. One HookReport; BindingProofs asserts the values.
/// </summary>
public static class BindingProof
{
    private static readonly string[] Classes =
    [
        "OriginalInstantiationPatch", "OriginalGenericMethodPatch", "FieldPatch", "StructFieldPatch", "StaticFieldPatch",
        "GenericFieldPatch", "RenamedArgumentPatch", "CompatibleStatePatch", "BoxedStatePatch", "RefObjectInstancePatch",
        "RefObjectValuesPatch", "IntInstantiationPatch", "StringInstantiationPatch", "AnyInstantiationPatch",
        "GenericMethodInstantiationPatch", "ResultRefPatch", "GivenInstantiationPatch",
    ];

    private static readonly string[] Refused = ["MissingFieldPatch", "PrivateBaseFieldPatch"];

    public static HookReport Run() => HookModRun.Run((interceptor, mod) =>
    {
        var steps = new List<HookStep>();
        Type ModType(string name) => mod.GetType($"AlvorKit.Proofs.HookMod.{name}", throwOnError: true)!;

        var knight = new BindingKnight();
        var calls = new (string Name, Func<long> Call)[]
        {
            ("original.bagInt", () => new BindingBag<int>().Add(5)),
            ("original.bagString", () => new BindingBag<string>().Add("five")),
            ("original.pickInt", () => BindingPicker.Pick(5)),
            ("original.pickString", () => BindingPicker.Pick("five")),
            ("field.class", () =>
            {
                knight.Hp = 50;
                BindingCreature.Headcount = 0;
                int returned = knight.Hit(10);
                return returned * 100L + BindingCreature.Headcount;
            }),
            ("field.struct", () =>
            {
                var tally = new BindingTally(5);
                int returned = tally.Next(1);
                return returned * 100_000L + tally.Value;
            }),
            ("field.static", () =>
            {
                BindingCreature.Headcount = 10;
                return BindingKnight.Census(1);
            }),
            ("rename", () =>
            {
                knight.Hp = 0;
                return knight.Heal(2, 3);
            }),
            ("state.compatible", () => BindingKnight.Sum(4)),
            ("state.boxed", () => BindingKnight.Boxed(4)),
            ("refObject.instance", () =>
            {
                var tally = new BindingTally(5);
                int returned = tally.Grow();
                return returned * 100_000L + tally.Value;
            }),
            ("instantiation.int", () => new BindingBag<int>().Put(7)),
            ("instantiation.string", () =>
            {
                var bag = new BindingBag<string>();
                int returned = bag.Put("abc");
                return returned * 10L + bag.Last!.Length;
            }),
            ("instantiation.long", () => new BindingBag<long>().Put(5)),
            ("instantiation.object", () =>
            {
                var bag = new BindingBag<object>();
                int returned = bag.Put("xy");
                return returned * 10L + ((string)bag.Last!).Length;
            }),
            ("given.int", () => new BindingBag<int>().Tag(1)),
            ("given.string", () => new BindingBag<string>().Tag("a")),
            ("given.long", () => new BindingBag<long>().Tag(1)),
            ("given.object", () => new BindingBag<object>().Tag("a")),
            ("instantiation.measureString", () => BindingPicker.Measure("abcd")),
            ("instantiation.measureObject", () => BindingPicker.Measure<object>("abcd")),
            ("instantiation.measureInt", () => BindingPicker.Measure(4)),
            ("resultRef.skip", () =>
            {
                BindingCells.Spare[0] = 77;
                BindingCells.All[3] = 3;
                return BindingCells.Cell(9);
            }),
            ("resultRef.redirect", () =>
            {
                BindingCells.All[1] = 1;
                BindingCells.All[2] = 2;
                ref int cell = ref BindingCells.Cell(1);
                cell = 500;
                return BindingCells.All[2] * 1_000L + BindingCells.All[1];
            }),
            ("refObject.values", () =>
            {
                int total = 2;
                int returned = BindingKnight.Scale(3, ref total);
                return returned * 1_000L + total;
            }),
        };
        foreach ((_, Func<long> call) in calls)
        {
            for (int i = 0; i < 4; i++)
                call();
        }
        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.before", call);

        var owner = new PatchOwner("binding mod");
        int woven = 0;
        foreach (string name in Classes)
        {
            try
            {
                woven += interceptor.PatchAll(ModType(name), owner).Count;
            }
            catch (Exception e)
            {
                steps.Add(Threw($"patchAll.{name}", e));
            }
        }
        try
        {
            interceptor.Hook(typeof(BindingBag<string>).GetMethod(nameof(BindingBag<string>.Tag))!,
                postfix: ModType("GivenInstantiationHooks").GetMethod("PlusThousand")!, owner: owner);
            woven++;
        }
        catch (Exception e)
        {
            steps.Add(Threw("hook.GivenInstantiationHooks", e));
        }
        steps.Add(new HookStep("binding.woven", woven, null, null));
        foreach (string name in Refused)
        {
            try
            {
                steps.Add(new HookStep($"refused.{name}", interceptor.PatchAll(ModType(name), owner).Count, null, null));
            }
            catch (Exception e)
            {
                steps.Add(Threw($"refused.{name}", e));
            }
        }

        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.hooked", call);
        foreach (string patch in (string[])["OriginalInstantiationPatch", "OriginalGenericMethodPatch"])
            steps.Add(new HookStep($"{patch}.last", null, null,
                ModType(patch).GetProperty("Last")!.GetValue(null) as string));

        owner.Dispose();
        steps.Add(new HookStep("binding.patchesAfterRemoval", interceptor.Patches.Count, null, null));
        foreach ((string name, Func<long> call) in calls)
            Call(steps, $"{name}.removed", call);
        return new HookReport(null, steps, interceptor.Patches.Count);
    });

    private static void Call(List<HookStep> steps, string name, Func<long> call)
    {
        try
        {
            steps.Add(new HookStep(name, call(), null, null));
        }
        catch (Exception e)
        {
            steps.Add(Threw(name, e));
        }
    }

    private static HookStep Threw(string name, Exception e)
    {
        string? top = e.StackTrace?.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .FirstOrDefault();
        var binding = e as HookBindingException;
        return new HookStep(name, null, new HookThrown(e.GetType().Name, e.Message, top, e.InnerException?.GetType().Name,
            binding?.Kind.ToString(), binding?.ParameterIndex, binding?.Target?.Name, binding?.Hook?.Name), null);
    }
}
