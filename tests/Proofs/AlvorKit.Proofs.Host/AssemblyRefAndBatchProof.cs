using System.Buffers.Binary;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Loader;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

// Targets of the AssemblyRef and generation batch proofs.
public static class AssemblyRefBatchTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Hooked(int x) => x + 1;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Unknown(int x) => x + 2;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchA(int x) => x + 10;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchB(int x) => x + 20;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchC(int x) => x + 30;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int BatchD(int x) => x + 40;
}

/// <summary>
/// The AssemblyRef relocation and generation batches, through the raw C ABI in a profiled process.
/// (a) A generation of a host target calls ModReplacements.WidgetOffset of the mod
/// (AlvorKit.Proofs.GameMod, loaded by path; the host has no AssemblyRef to it) through
/// ASSEMBLY_REF (the mod's module_id from alvk_module_identify) -> TYPE_REF -> MEMBER_REF; a
/// generation naming a module_id no module has is refused on the worker. (b)
/// alvk_generation_submit_batch: three new patches at once; the same owner replacing all three
/// bodies (joins; their bodies call the mod); a batch with a member the mod lacks, refused on the
/// worker with nothing published; bad input refused at the call with nothing changed; then removal.
/// </summary>
public static unsafe class AssemblyRefAndBatchProof
{
    private const ulong HookOwner = 0x3602, UnknownOwner = 0x3603;
    private const int Input = 5;
    private const string ModName = "AlvorKit.Proofs.GameMod";
    private const string ModType = "AlvorKit.Proofs.GameMod.ModReplacements";

    public static AssemblyRefAndBatchReport Run()
    {
        var patcher = new Patcher();
        using var metadata = new HostMetadata();
        bool referenced = false;
        foreach (AssemblyReferenceHandle h in metadata.Reader.AssemblyReferences)
            referenced |= metadata.Reader.GetString(metadata.Reader.GetAssemblyReference(h).Name) == ModName;
        Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
            Path.Combine(AppContext.BaseDirectory, ModName + ".dll"));
        MethodInfo offset = Patcher.Method(mod.GetType(ModType, throwOnError: true)!, "WidgetOffset");
        AlvkStatus identify = patcher.Library.ModuleIdentify(offset.Module.ModuleVersionId, offset.MetadataToken,
            offset.MethodHandle.Value, out AlvkModuleInfo module);
        var batch = new BatchProof(patcher, module.ModuleId);
        return new AssemblyRefAndBatchReport(AssemblyRef(patcher, referenced, identify, module.ModuleId), batch.Run());
    }

    // (a) Hooked(x) = ModReplacements.WidgetOffset(DispatchTargets.TheWidget, x) = 40 * 7 + x.
    private static ModAssemblyRefReport AssemblyRef(Patcher patcher, bool referenced, AlvkStatus identify,
        ulong moduleId)
    {
        Func<int> call = () => AssemblyRefBatchTargets.Hooked(Input);
        AlvkMethodDescription target = patcher.Describe(Patcher.Method(typeof(AssemblyRefBatchTargets), nameof(AssemblyRefBatchTargets.Hooked)));
        int original = Patcher.Warm(call);
        GenerationBuilder b = new();
        CallMod(b, moduleId, "WidgetOffset");
        b.IL.OpCode(ILOpCode.Ret);
        GenerationStep<int> applied = GenerationsProof.Submit(patcher, b, target, 0, HookOwner, call, 40 * 7 + Input,
            out ulong handle, out ulong id);
        RemoveStep<int> remove = GenerationsProof.Remove(patcher, handle, HookOwner, id, call, original);

        // A module_id no module has: accepted at the call (the catalog is the worker's), refused there.
        Func<int> unknownCall = () => AssemblyRefBatchTargets.Unknown(Input);
        AlvkMethodDescription unknownTarget =
            patcher.Describe(Patcher.Method(typeof(AssemblyRefBatchTargets), nameof(AssemblyRefBatchTargets.Unknown)));
        int unknownOriginal = Patcher.Warm(unknownCall);
        GenerationBuilder u = new();
        CallMod(u, 0x7FFF_FFFF_FFF0, "WidgetOffset");
        u.IL.OpCode(ILOpCode.Ret);
        GenerationStep<int> unknown = GenerationsProof.Submit(patcher, u, unknownTarget, 0, UnknownOwner, unknownCall,
            unknownOriginal, out _, out _);
        return new ModAssemblyRefReport(referenced, identify.ToString(), moduleId != 0, original, applied, remove,
            unknown);
    }

    // ldsfld DispatchTargets.TheWidget; ldarg.0; call int32 ModReplacements::`member`(class Widget, int32):
    // the MemberRef under the TypeRef under the ASSEMBLY_REF relocation for `moduleId`.
    internal static void CallMod(GenerationBuilder b, ulong moduleId, string member)
    {
        byte[] id = new byte[8];
        BinaryPrimitives.WriteUInt64LittleEndian(id, moduleId);
        uint assembly = b.Reference(AlvkRelocationKind.AssemblyRef, id);
        uint type = b.Reference(AlvkRelocationKind.TypeRef, name: ModType, parentRelocation: assembly);
        b.EmitExisting(ILOpCode.Ldsfld, typeof(DispatchTargets).GetField(nameof(DispatchTargets.TheWidget))!.MetadataToken);
        b.IL.LoadArgument(0);
        byte[] signature = HostMetadata.Blob(e => e.MethodSignature().Parameters(2, r => r.Type().Int32(), p =>
        {
            p.AddParameter().Type().Type(MetadataTokens.EntityHandle(typeof(Widget).MetadataToken), isValueType: false);
            p.AddParameter().Type().Int32();
        }));
        b.Emit(ILOpCode.Call, AlvkRelocationKind.MemberRef, signature, member, parentRelocation: type);
    }

    // ldarg.0; ldc.i4 <add>; add; ret
    internal static GenerationBuilder AddBody(int add)
    {
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI4(add);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        return b;
    }

    // The mod's WidgetOffset(TheWidget, x) + add.
    internal static GenerationBuilder ModBody(ulong moduleId, int add, string member = "WidgetOffset")
    {
        var b = new GenerationBuilder();
        CallMod(b, moduleId, member);
        b.IL.LoadConstantI4(add);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        return b;
    }
}

/// <summary>(b): alvk_generation_submit_batch on AssemblyRefBatchTargets.BatchA..C (and D, for the flags).</summary>
internal sealed unsafe class BatchProof(Patcher patcher, ulong moduleId)
{
    private const ulong Owner = 0x3601;
    private const int Input = 5;
    private const ulong Sentinel = 0xDEAD_BEEF;

    private static readonly string[] Names =
        [nameof(AssemblyRefBatchTargets.BatchA), nameof(AssemblyRefBatchTargets.BatchB), nameof(AssemblyRefBatchTargets.BatchC)];

    private static readonly Func<int>[] Calls =
        [() => AssemblyRefBatchTargets.BatchA(Input), () => AssemblyRefBatchTargets.BatchB(Input), () => AssemblyRefBatchTargets.BatchC(Input)];

    private readonly delegate* unmanaged<AlvkGeneration*, uint, ulong*, ulong*, AlvkStatus*, AlvkStatus> _submitBatch =
        (delegate* unmanaged<AlvkGeneration*, uint, ulong*, ulong*, AlvkStatus*, AlvkStatus>)NativeLibrary.GetExport(
            NativeLibrary.Load(patcher.Library.Path), "alvk_generation_submit_batch");

    private readonly AlvkMethodDescription[] _targets =
        [.. Names.Select(n => patcher.Describe(Patcher.Method(typeof(AssemblyRefBatchTargets), n)))];

    // One generation of a batch: its body, its target, the generation it replaces, its flags.
    private sealed record Item(GenerationBuilder Body, AlvkMethodDescription Target, ulong Prior,
        AlvkInstallFlags Flags = AlvkInstallFlags.None);

    public GenerationBatchReport Run()
    {
        int[] originals = [.. Calls.Select(Patcher.Warm)];
        // 1. Three new patches in one batch.
        int[] firstAdds = [100, 200, 300];
        GenerationBatchStep first = Step([.. Enumerable.Range(0, 3).Select(i =>
            new Item(AssemblyRefAndBatchProof.AddBody(firstAdds[i]), _targets[i], 0))], i => Input + firstAdds[i]);
        ulong[] handles = [.. first.Call.Handles];
        // 2. The same owner replaces all three bodies (joins): bodies that call the mod.
        int[] joinedAdds = [1000, 2000, 3000];
        GenerationBatchStep joined = Step([.. Enumerable.Range(0, 3).Select(i =>
                new Item(AssemblyRefAndBatchProof.ModBody(moduleId, joinedAdds[i]), _targets[i], first.Call.Ids[i]))],
            i => 280 + Input + joinedAdds[i]);
        ulong[] current = [.. joined.Call.Ids];
        int[] values = [.. Enumerable.Range(0, 3).Select(i => 280 + Input + joinedAdds[i])];
        // 3. The second names a member the mod lacks: the member check refuses it on the worker,
        //    before anything is published; the others end BATCH_ABORTED.
        GenerationBatchStep badMember = Step([
            new Item(AssemblyRefAndBatchProof.AddBody(4000), _targets[0], current[0]),
            new Item(AssemblyRefAndBatchProof.ModBody(moduleId, 5000, "NoSuchHook"), _targets[1], current[1]),
            new Item(AssemblyRefAndBatchProof.AddBody(6000), _targets[2], current[2])], i => values[i]);
        Polled<int>[] steadyAfterBadMember = Steady(values);
        // 4. Bad input: each refused at the call; nothing changes.
        TelemetryReport[] before = [.. handles.Select(patcher.ReadTelemetry)];
        Dictionary<string, GenerationBatchCall> bad = BadInput(current);
        Polled<int>[] steadyAfterBadInput = Steady(values);
        TelemetryReport[] after = [.. handles.Select(patcher.ReadTelemetry)];
        RemoveStep<int>[] removes = [.. Enumerable.Range(0, 3).Select(i =>
            GenerationsProof.Remove(patcher, handles[i], Owner, current[i], Calls[i], originals[i]))];
        return new GenerationBatchReport(originals, first, joined, badMember, steadyAfterBadMember, bad, steadyAfterBadInput,
            before, after, removes);
    }

    private static Polled<int>[] Steady(int[] values) =>
        [.. Enumerable.Range(0, 3).Select(i => Patcher.Steady(Calls[i], values[i], TimeSpan.FromMilliseconds(200)))];

    private GenerationBatchStep Step(Item[] items, Func<int, int> expected)
    {
        GenerationBatchCall call = Submit(items);
        Polled<int>[] values = [.. Enumerable.Range(0, items.Length).Select(i => Patcher.PollFor(Calls[i], expected(i)))];
        GenerationResultReport[] results = [.. Enumerable.Range(0, items.Length).Select(i =>
            patcher.SettleGeneration(call.Handles[i], call.Ids[i]))];
        return new GenerationBatchStep(call, values, results);
    }

    private Dictionary<string, GenerationBatchCall> BadInput(ulong[] current)
    {
        Item[] Valid() => [.. Enumerable.Range(0, 3).Select(i =>
            new Item(AssemblyRefAndBatchProof.AddBody(7000 + i), _targets[i], current[i]))];
        AlvkMethodDescription d = patcher.Describe(Patcher.Method(typeof(AssemblyRefBatchTargets), nameof(AssemblyRefBatchTargets.BatchD)));
        GenerationBuilder malformed = AssemblyRefAndBatchProof.AddBody(7100);
        malformed.Reference(AlvkRelocationKind.AssemblyRef, [1, 2, 3]); // a module_id of 3 bytes
        return new Dictionary<string, GenerationBatchCall>
        {
            ["nullGenerations"] = Submit(Valid(), nullGenerations: true),
            ["nullHandles"] = Submit(Valid(), nullHandles: true),
            ["nullIds"] = Submit(Valid(), nullIds: true),
            ["nullStatuses"] = Submit(Valid(), nullStatuses: true),
            ["countZero"] = Submit(Valid(), count: 0),
            ["count4097"] = Submit(Valid(), count: AlvkConstants.MaxBatchRequests + 1),
            ["unequalSizes"] = Submit(Valid(), mutate: (int i, ref AlvkGeneration g) =>
            {
                if (i == 1)
                    g.Size -= 8;
            }),
            ["duplicateTarget"] = Submit([.. Valid(), new Item(AssemblyRefAndBatchProof.AddBody(7003), _targets[0], current[0])]),
            // D has no patch: it takes the request's flag, A, B and C their patches' (none).
            ["flagsMismatch"] = Submit([.. Valid(), new Item(AssemblyRefAndBatchProof.AddBody(7004), d, 0,
                AlvkInstallFlags.InlinerFallback)]),
            ["stalePrior"] = Submit([.. Valid().Take(2),
                new Item(AssemblyRefAndBatchProof.AddBody(7005), _targets[2], current[2] - 1)]),
            ["malformedRelocation"] = Submit([.. Valid().Take(2), new Item(malformed, _targets[2], current[2])]),
        };
    }

    private delegate void Mutate(int index, ref AlvkGeneration generation);

    // alvk_generation_submit_batch over `items` (every buffer pinned), then alvk_last_command and,
    // when queued, alvk_command_wait.
    private GenerationBatchCall Submit(Item[] items, bool nullGenerations = false, bool nullHandles = false,
        bool nullIds = false, bool nullStatuses = false, uint? count = null, Mutate? mutate = null)
    {
        var pins = new List<GCHandle>();
        try
        {
            var generations = new AlvkGeneration[items.Length];
            for (int i = 0; i < items.Length; i++)
            {
                Item item = items[i];
                byte[] body = item.Body.Body(), pool = item.Body.Pool();
                AlvkRelocation[] relocations = [.. item.Body.Relocations];
                for (int k = 0; k < relocations.Length; k++)
                    relocations[k].Size = (uint)sizeof(AlvkRelocation);
                AlvkGeneration g = AlvkGeneration.For(item.Target, item.Prior, Owner, item.Flags);
                g.Body = (byte*)Pin(pins, body);
                g.BodySize = (uint)body.Length;
                g.Blobs = (byte*)Pin(pins, pool);
                g.BlobsSize = (uint)pool.Length;
                g.Relocations = (AlvkRelocation*)Pin(pins, relocations);
                g.RelocationCount = (uint)relocations.Length;
                mutate?.Invoke(i, ref g);
                generations[i] = g;
            }
            ulong[] handles = [.. items.Select(_ => Sentinel)], ids = [.. items.Select(_ => Sentinel)];
            AlvkStatus[] statuses = [.. items.Select(_ => (AlvkStatus)(-1))];
            AlvkStatus returned;
            fixed (AlvkGeneration* g = generations)
            fixed (ulong* h = handles)
            fixed (ulong* d = ids)
            fixed (AlvkStatus* s = statuses)
                returned = _submitBatch(nullGenerations ? null : g, count ?? (uint)items.Length, nullHandles ? null : h,
                    nullIds ? null : d, nullStatuses ? null : s);
            ulong command = patcher.Library.LastCommand();
            string? wait = null, result = null;
            if (returned == AlvkStatus.Ok)
            {
                wait = patcher.Library.CommandWait(command, Patcher.WaitMs, out AlvkStatus commandStatus).ToString();
                result = commandStatus.ToString();
            }
            return new GenerationBatchCall(returned.ToString(), [.. statuses.Select(x => x.ToString())], handles, ids, command,
                wait, result);
        }
        finally
        {
            foreach (GCHandle pin in pins)
                pin.Free();
        }
    }

    private static IntPtr Pin(List<GCHandle> pins, Array array)
    {
        GCHandle pin = GCHandle.Alloc(array, GCHandleType.Pinned);
        pins.Add(pin);
        return pin.AddrOfPinnedObject();
    }
}
