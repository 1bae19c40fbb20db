using System.Reflection;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Runtime.Loader;
using System.Text;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Relocations that share operand sites, and the bound of a generation's relocations, in a
/// profiled process: (a) AlvorKit.Proofs.HookMod's __args prefix woven into the 33-parameter
/// RelocationTargets.ThirtyThree; (b) a GenerationPlan with 1,000 distinct user strings whose
/// lengths the body sums; a raw generation whose one user-string relocation fills three ldstr
/// operands (il_offset and two sites); (c) a plan refused at the relocation past the bound,
/// and raw generations at and past it. One JSON report; RelocationProofs asserts the values.
/// </summary>
public static class RelocationProof
{
    /// <summary>How many distinct strings (b) loads.</summary>
    public const int Strings = 1000;

    private const ulong SharedOwner = 0x3901, OverOwner = 0x3902;

    /// <summary>String i of (b): '#', its number in four digits and 0 to 12 x's (5 + i % 13
    /// characters; no literal of this module looks like it, so each is a relocation).</summary>
    public static string StringOf(int i) => $"#{i:D4}" + new string('x', i % 13);

    public static RelocationReport Run()
    {
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            return new RelocationReport(e.Message, null, null, null, null, null);
        }
        using (interceptor)
        {
            if (!interceptor.IsPatchingEnabled)
                return new RelocationReport(interceptor.PatchingRefusal ?? "patching is disabled", null, null, null, null, null);
            Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
                Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.HookMod.dll"));
            ManyArgumentsReport many = ManyArguments(interceptor, mod);
            ThousandReport thousand = Thousand(interceptor);
            var patcher = new Patcher();
            (GenerationStep<int> shared, RemoveStep<int>? removed) = SharedSites(patcher);
            return new RelocationReport(null, many, thousand, shared, removed, Bound(interceptor, patcher));
        }
    }

    // (a) The woven __args body of a 33-parameter target.
    private static ManyArgumentsReport ManyArguments(Interceptor interceptor, Assembly mod)
    {
        long before = Patcher.Warm(RelocationTargets.CallThirtyThree);
        var owner = new PatchOwner("many arguments");
        try
        {
            IReadOnlyList<WovenPatch> woven = interceptor.PatchAll(
                mod.GetType("AlvorKit.Proofs.HookMod.ThirtyThreeArgsPatch", throwOnError: true)!, owner);
            Polled<long> hooked = Patcher.PollFor(RelocationTargets.CallThirtyThree, 1_274_120_007L);
            GenerationInfo? g = woven[0].ReadLastGeneration();
            owner.Dispose();
            Polled<long> removed = Patcher.PollFor(RelocationTargets.CallThirtyThree, before);
            return new ManyArgumentsReport(before, hooked, g?.Relocations.Count ?? -1, g?.State.ToString(), removed,
                interceptor.Patches.Count, null);
        }
        catch (Exception e)
        {
            owner.Dispose();
            return new ManyArgumentsReport(before, null, -1, null, null, interceptor.Patches.Count,
                $"{e.GetType().Name}: {e.Message}");
        }
    }

    // (b) ldc.i4.0; then per string: ldstr s; callvirt String::get_Length; add; ret.
    private static ThousandReport Thousand(Interceptor interceptor)
    {
        Func<int> call = RelocationTargets.Thousand;
        int original = Patcher.Warm(call);
        MethodInfo length = typeof(string).GetProperty(nameof(string.Length))!.GetMethod!;
        var plan = new GenerationPlan(typeof(RelocationTargets).GetMethod(nameof(RelocationTargets.Thousand))!);
        plan.LoadConstant(0);
        for (int i = 0; i < Strings; i++)
        {
            plan.Emit(OpCodes.Ldstr, StringOf(i));
            plan.Emit(OpCodes.Callvirt, length);
            plan.Emit(OpCodes.Add);
        }
        plan.Return();
        int expected = Enumerable.Range(0, Strings).Sum(i => StringOf(i).Length);
        var owner = new PatchOwner("a thousand strings");
        try
        {
            int relocations = plan.RelocationCount;
            Patch patch = interceptor.Apply(plan, owner);
            Polled<int> applied = Patcher.PollFor(call, expected);
            GenerationInfo? g = patch.ReadLastGeneration();
            int strings = g?.Relocations.Where(r => r.Kind == RelocationKind.UserString).Select(r => r.Token).Distinct()
                .Count() ?? -1;
            owner.Dispose();
            Polled<int> removed = Patcher.PollFor(call, original);
            return new ThousandReport(original, relocations, applied, g?.State.ToString(), g?.Relocations.Count ?? -1,
                strings, removed, null);
        }
        catch (Exception e)
        {
            owner.Dispose();
            return new ThousandReport(original, -1, null, null, -1, -1, null, $"{e.GetType().Name}: {e.Message}");
        }
    }

    // Through the raw C ABI: Length(ldstr R) + Length(ldstr R) + Length(ldstr R), R one
    // USER_STRING relocation on the first ldstr with the other two as its sites.
    private static (GenerationStep<int>, RemoveStep<int>?) SharedSites(Patcher patcher)
    {
        Func<int> call = RelocationTargets.Shared;
        AlvkMethodDescription target = patcher.Describe(typeof(RelocationTargets).GetMethod(nameof(RelocationTargets.Shared))!);
        int original = Patcher.Warm(call);
        int lengthToken = typeof(RelocationTargets).GetMethod(nameof(RelocationTargets.Length))!.MetadataToken;
        var b = new GenerationBuilder();
        var operands = new List<uint>();
        for (int i = 0; i < 3; i++)
        {
            b.IL.OpCode(ILOpCode.Ldstr);
            operands.Add((uint)b.IL.Offset);
            b.IL.Token(0x7000_0000);
            b.EmitExisting(ILOpCode.Call, lengthToken);
            if (i > 0)
                b.IL.OpCode(ILOpCode.Add);
        }
        b.IL.OpCode(ILOpCode.Ret);
        byte[] sites = new byte[8];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(sites, operands[1]);
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32LittleEndian(sites.AsSpan(4), operands[2]);
        (uint sitesOffset, _) = b.Pooled(sites);
        (uint blobOffset, uint blobLength) = b.Pooled(Encoding.Unicode.GetBytes("shared!"));
        b.Relocations.Add(new AlvkRelocation
        {
            Kind = AlvkRelocationKind.UserString,
            ILOffset = operands[0],
            BlobOffset = blobOffset,
            BlobLength = blobLength,
            SitesOffset = sitesOffset,
            SiteCount = 2,
        });
        GenerationStep<int> applied = GenerationsProof.Submit(patcher, b, target, 0, SharedOwner, call, 3 * 7,
            out ulong handle, out ulong id);
        RemoveStep<int>? removed = applied.Sync == "Ok"
            ? GenerationsProof.Remove(patcher, handle, SharedOwner, id, call, original)
            : null;
        return (applied, removed);
    }

    // (c) A plan one relocation past the bound, and raw generations at and past it.
    private static RelocationBoundReport Bound(Interceptor interceptor, Patcher patcher)
    {
        int max = (int)AlvkConstants.MaxRelocations;
        Func<int> overPlan = RelocationTargets.OverPlan;
        Patcher.Warm(overPlan);
        var plan = new GenerationPlan(typeof(RelocationTargets).GetMethod(nameof(RelocationTargets.OverPlan))!);
        plan.LoadConstant(0);
        string? threw = null, message = null;
        int emitted = 0, countWhenRefused = -1;
        try
        {
            for (; emitted <= max; emitted++)
            {
                countWhenRefused = plan.RelocationCount;
                plan.Emit(OpCodes.Ldstr, $"#over{emitted:x}"); // no literal of this module
                plan.Emit(OpCodes.Pop);
            }
            plan.Return();
            interceptor.Apply(plan, new PatchOwner("over the bound"));
        }
        catch (Exception e)
        {
            threw = e.GetType().Name;
            message = e.Message;
        }

        Func<int> overRaw = RelocationTargets.OverRaw;
        Patcher.Warm(overRaw);
        AlvkMethodDescription target = patcher.Describe(typeof(RelocationTargets).GetMethod(nameof(RelocationTargets.OverRaw))!);
        string atBound = RawStrings(max).Validate(patcher.Library, target, 0, OverOwner, out _).ToString();
        AlvkStatus past = RawStrings(max + 1).Submit(patcher.Library, target, 0, OverOwner, out ulong handle, out _);
        return new RelocationBoundReport(max, threw, message, countWhenRefused, emitted, overPlan(), atBound,
            past.ToString(), handle == 0, overRaw());
    }

    // ldc.i4.0; `count` x (ldstr <a distinct one-unit string>; pop); ret.
    private static GenerationBuilder RawStrings(int count)
    {
        var b = new GenerationBuilder();
        b.IL.LoadConstantI4(0);
        for (int i = 0; i < count; i++)
        {
            b.IL.OpCode(ILOpCode.Ldstr);
            uint operand = (uint)b.IL.Offset;
            b.IL.Token(0x7000_0000);
            b.IL.OpCode(ILOpCode.Pop);
            (uint offset, uint length) = b.Pooled([(byte)i, (byte)(i >> 8)]);
            b.Relocations.Add(new AlvkRelocation
            {
                Kind = AlvkRelocationKind.UserString,
                ILOffset = operand,
                BlobOffset = offset,
                BlobLength = length,
            });
        }
        b.IL.OpCode(ILOpCode.Ret);
        return b;
    }
}
