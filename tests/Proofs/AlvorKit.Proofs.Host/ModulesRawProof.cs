using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Plugin;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Module copies through the raw ABI (host mode "modules raw"): AlvorKit.Proofs.Plugin in the
/// default context and in a non-collectible plugin context. alvk_module_identify tells the
/// copies apart by a method handle; the MVID alone is ambiguous; module_id names one copy,
/// and a bogus module_id or a stale epoch is refused with nothing changed; a collectible copy
/// is identified but refused, and once it unloads its epoch is stale.
/// </summary>
public static class ModulesRawProof
{
    private const int Input = 5;
    private const int Original = Input + 3;
    private const ulong BogusModuleId = 0xDEAD_0000;
    private static ulong _owner = 0x30_0000;

    public static ModulesRawReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary lib = patcher.Library;
        MethodInfo defaultTarget = Patcher.Method(typeof(PluginTargets), nameof(PluginTargets.Offset));
        Assembly pluginCopy = new AssemblyLoadContext("raw plugin", isCollectible: false)
            .LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location);
        MethodInfo pluginTarget = Offset(pluginCopy);
        Func<int, int> callPlugin = pluginTarget.CreateDelegate<Func<int, int>>();
        Func<int> defaultCall = () => PluginTargets.Offset(Input), pluginCall = () => callPlugin(Input);
        Guid mvid = defaultTarget.Module.ModuleVersionId;
        int token = defaultTarget.MetadataToken;
        var original = new CopyValues(defaultCall(), pluginCall());

        // alvk_module_identify: one answer per copy.
        AlvkStatus rcDefault = lib.ModuleIdentify(mvid, token, defaultTarget.MethodHandle.Value, out AlvkModuleInfo a);
        AlvkStatus rcPlugin = lib.ModuleIdentify(mvid, token, pluginTarget.MethodHandle.Value, out AlvkModuleInfo b);
        var identify = new RawIdentify(
            Info(rcDefault, a),
            Info(rcPlugin, b),
            a.ModuleId != b.ModuleId,
            a.Epoch != b.Epoch,
            lib.ModuleIdentify(mvid, 0, 0, out _).ToString(),
            lib.ModuleIdentify(mvid, token, 0x1234, out _).ToString(),
            lib.ModuleIdentify(mvid, 0x06FFFFFF, defaultTarget.MethodHandle.Value, out _).ToString(),
            lib.ModuleIdentify(mvid, 0x02000001, defaultTarget.MethodHandle.Value, out _).ToString(),
            lib.ModuleIdentify(Guid.NewGuid(), token, defaultTarget.MethodHandle.Value, out _).ToString());

        // Describing: by MVID (ambiguous now), by copy, and refusals.
        AlvkStatus rcA = lib.DescribeModuleMethod(a.ModuleId, a.Epoch, token, out AlvkMethodDescription da);
        AlvkStatus rcB = lib.DescribeModuleMethod(b.ModuleId, 0, token, out AlvkMethodDescription db);
        var describe = new RawDescribe(
            lib.DescribeMethod(mvid, token, out _).ToString(),
            Description(rcA, da),
            Description(rcB, db),
            da.SignatureHashHex == db.SignatureHashHex && da.BodyIdentityHex == db.BodyIdentityHex,
            lib.DescribeModuleMethod(BogusModuleId, 0, token, out _).ToString(),
            lib.DescribeModuleMethod(0, 0, token, out _).ToString(),
            lib.DescribeModuleMethod(a.ModuleId, b.Epoch, token, out _).ToString());

        // Installs that name no copy, or a wrong one: refused, and neither copy changes.
        IntPtr entryA = Patcher.EntryPoint(Patcher.Method(typeof(CopyReplacements), nameof(CopyReplacements.ForDefault)));
        IntPtr entryB = Patcher.EntryPoint(Patcher.Method(typeof(CopyReplacements), nameof(CopyReplacements.ForPlugin)));
        AlvkInstallRequest byMvid = AlvkInstallRequest.For(da, entryA, NextOwner());
        var refused = new SortedDictionary<string, RawRefusal>(StringComparer.Ordinal);
        refused["mvidOnly"] = Refusal(patcher, byMvid, defaultCall, pluginCall);
        refused["bogusModule"] = Refusal(patcher, WithCopy(byMvid, BogusModuleId, 0), defaultCall, pluginCall);
        refused["staleEpoch"] = Refusal(patcher, WithCopy(byMvid, a.ModuleId, b.Epoch), defaultCall, pluginCall);
        refused["otherMvid"] = Refusal(patcher, WithMvid(WithCopy(byMvid, a.ModuleId, a.Epoch), Guid.NewGuid()),
            defaultCall, pluginCall);
        refused["epochWithoutModule"] = Refusal(patcher, WithCopy(byMvid, 0, a.Epoch), defaultCall, pluginCall);

        // Each copy by its module_id: each returns its own replacement, and its patch says which copy.
        ulong ownerA = NextOwner(), ownerB = NextOwner();
        AlvkInstallRequest onA = WithCopy(AlvkInstallRequest.For(da, entryA, ownerA), a.ModuleId, a.Epoch);
        AlvkInstallRequest onB = WithCopy(AlvkInstallRequest.For(db, entryB, ownerB), b.ModuleId, 0);
        AlvkStatus syncA = lib.PatchInstall(onA, out ulong handleA);
        CommandOutcome commandA = patcher.Finish(syncA, handleA);
        Polled<int> resultA = Patcher.PollFor(defaultCall, Input + 1000);
        var installA = new RawInstall(commandA, resultA, Patcher.PollFor(pluginCall, Original));
        AlvkStatus syncB = lib.PatchInstall(onB, out ulong handleB);
        CommandOutcome commandB = patcher.Finish(syncB, handleB);
        Polled<int> resultB = Patcher.PollFor(pluginCall, Input + 2000);
        var installB = new RawInstall(commandB, resultB, Patcher.PollFor(defaultCall, Input + 1000));
        lib.PatchGetTelemetry(handleA, out AlvkPatchTelemetry ta);
        lib.PatchGetTelemetry(handleB, out AlvkPatchTelemetry tb);
        RawRemoval removeDefault = Removed(patcher, handleA, ownerA, defaultCall, pluginCall, Input + 2000);
        var byCopy = new RawByCopy(installA, installB, handleA != handleB, ta.ModuleId == a.ModuleId,
            tb.ModuleId == b.ModuleId, ta.ModuleEpoch == a.Epoch, tb.ModuleEpoch == b.Epoch, removeDefault,
            Removed(patcher, handleB, ownerB, pluginCall, defaultCall, Original));

        return new ModulesRawReport(original, identify, describe, refused, byCopy,
            CollectibleThenUnloaded(patcher, mvid, token, da, entryA));
    }

    // A collectible copy: identified (its flags say so), refused with ALVK_E_MODULE_COLLECTIBLE;
    // once its context unloads, its epoch is stale.
    private static RawCollectible CollectibleThenUnloaded(Patcher patcher, Guid mvid, int token,
        in AlvkMethodDescription sameFile, IntPtr entry)
    {
        ProfilerLibrary lib = patcher.Library;
        (WeakReference context, ulong moduleId, uint epoch, RawCollectible loaded) =
            LoadCollectible(patcher, mvid, token, sameFile, entry);
        var clock = System.Diagnostics.Stopwatch.StartNew();
        AlvkStatus afterUnload;
        int collections = 0;
        do
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            collections++;
            afterUnload = lib.DescribeModuleMethod(moduleId, epoch, token, out _);
        } while (afterUnload != AlvkStatus.ModuleUnloaded && clock.Elapsed < TimeSpan.FromSeconds(10));
        bool contextCollected = !context.IsAlive; // for the record: the runtime may unload first
        AlvkInstallRequest stale = WithCopy(AlvkInstallRequest.For(sameFile, entry, NextOwner()), moduleId, epoch);
        CommandOutcome installAfterUnload = patcher.Finish(lib.PatchInstall(stale, out ulong handle), handle);
        return loaded with
        {
            ContextCollected = contextCollected,
            Collections = collections,
            DescribeAfterUnload = afterUnload.ToString(),
            InstallAfterUnload = installAfterUnload,
            InstallAfterUnloadState = Telemetry(patcher, handle),
        };
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (WeakReference, ulong, uint, RawCollectible) LoadCollectible(Patcher patcher, Guid mvid, int token,
        in AlvkMethodDescription sameFile, IntPtr entry)
    {
        ProfilerLibrary lib = patcher.Library;
        var context = new AssemblyLoadContext("raw collectible", isCollectible: true);
        MethodInfo target = Offset(context.LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location));
        AlvkStatus rc = lib.ModuleIdentify(mvid, token, target.MethodHandle.Value, out AlvkModuleInfo info);
        int before = (int)target.Invoke(null, [Input])!;
        AlvkInstallRequest request = WithCopy(AlvkInstallRequest.For(sameFile, entry, NextOwner()), info.ModuleId,
            info.Epoch);
        CommandOutcome command = patcher.Finish(lib.PatchInstall(request, out ulong handle), handle);
        var install = new RawCollectibleInstall(command, Telemetry(patcher, handle));
        string describe = lib.DescribeModuleMethod(info.ModuleId, info.Epoch, token, out _).ToString();
        int after = (int)target.Invoke(null, [Input])!;
        // The after-unload parts are filled in once the context is gone.
        var json = new RawCollectible(Info(rc, info), describe, install, before, after,
            lib.ModuleIdentify(mvid, 0, 0, out _).ToString(), false, 0, "", new CommandOutcome("", null),
            new ModuleTelemetry("", "", "", 0, 0));
        context.Unload();
        return (new WeakReference(context), info.ModuleId, info.Epoch, json);
    }

    private static MethodInfo Offset(Assembly copy) =>
        copy.GetType(typeof(PluginTargets).FullName!, throwOnError: true)!.GetMethod(nameof(PluginTargets.Offset))!;

    private static ulong NextOwner() => ++_owner;

    private static AlvkInstallRequest WithCopy(AlvkInstallRequest request, ulong moduleId, uint epoch)
    {
        request.ModuleId = moduleId;
        request.ModuleEpoch = epoch;
        return request;
    }

    private static AlvkInstallRequest WithMvid(AlvkInstallRequest request, Guid mvid)
    {
        request.ModuleMvid = AlvkMvid.From(mvid);
        return request;
    }

    // An install that must not change anything: its status at the call and after the wait, its
    // patch's state, and what both copies return afterwards.
    private static RawRefusal Refusal(Patcher patcher, AlvkInstallRequest request, Func<int> defaultCall,
        Func<int> pluginCall)
    {
        AlvkStatus sync = patcher.Library.PatchInstall(request, out ulong handle);
        CommandOutcome command = patcher.Finish(sync, handle);
        ModuleTelemetry? telemetry = sync == AlvkStatus.Ok ? Telemetry(patcher, handle) : null;
        Polled<int> onDefault = Patcher.PollFor(defaultCall, Original);
        return new RawRefusal(command, telemetry, onDefault, Patcher.PollFor(pluginCall, Original));
    }

    private static RawRemoval Removed(Patcher patcher, ulong handle, ulong owner, Func<int> call, Func<int> other,
        int otherExpected)
    {
        CommandOutcome command = patcher.Finish(patcher.Library.PatchRemove(handle, owner), handle);
        Polled<int> result = Patcher.PollFor(call, Original);
        Polled<int> onOther = Patcher.PollFor(other, otherExpected);
        return new RawRemoval(command, result, onOther, Telemetry(patcher, handle).State);
    }

    private static ModuleTelemetry Telemetry(Patcher patcher, ulong handle)
    {
        AlvkStatus rc = patcher.Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
        return new ModuleTelemetry(rc.ToString(), t.State.ToString(), t.LastStatus.ToString(), t.ModuleId, t.ModuleEpoch);
    }

    private static ModuleIdentity Info(AlvkStatus rc, in AlvkModuleInfo info) =>
        new(rc.ToString(), info.ModuleId, info.Epoch, ((AlvkModuleFlags)info.Flags).ToString(), info.Copies);

    private static ModuleDescription Description(AlvkStatus rc, in AlvkMethodDescription d) =>
        new(rc.ToString(), d.ModuleId, d.ModuleEpoch, ((AlvkModuleFlags)d.ModuleFlags).ToString());
}
