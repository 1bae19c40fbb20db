using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Plugin;

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

    public static JsonObject Run()
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
        var report = new JsonObject
        {
            ["original"] = new JsonObject { ["default"] = defaultCall(), ["plugin"] = pluginCall() },
        };

        // alvk_module_identify: one answer per copy.
        AlvkStatus rcDefault = lib.ModuleIdentify(mvid, token, defaultTarget.MethodHandle.Value, out AlvkModuleInfo a);
        AlvkStatus rcPlugin = lib.ModuleIdentify(mvid, token, pluginTarget.MethodHandle.Value, out AlvkModuleInfo b);
        report["identify"] = new JsonObject
        {
            ["default"] = Info(rcDefault, a),
            ["plugin"] = Info(rcPlugin, b),
            ["distinctIds"] = a.ModuleId != b.ModuleId,
            ["distinctEpochs"] = a.Epoch != b.Epoch,
            ["mvidOnly"] = lib.ModuleIdentify(mvid, 0, 0, out _).ToString(),
            ["bogusHandle"] = lib.ModuleIdentify(mvid, token, 0x1234, out _).ToString(),
            ["bogusToken"] = lib.ModuleIdentify(mvid, 0x06FFFFFF, defaultTarget.MethodHandle.Value, out _).ToString(),
            ["typeToken"] = lib.ModuleIdentify(mvid, 0x02000001, defaultTarget.MethodHandle.Value, out _).ToString(),
            ["otherMvid"] = lib.ModuleIdentify(Guid.NewGuid(), token, defaultTarget.MethodHandle.Value, out _).ToString(),
        };

        // Describing: by MVID (ambiguous now), by copy, and refusals.
        AlvkStatus rcA = lib.DescribeModuleMethod(a.ModuleId, a.Epoch, token, out AlvkMethodDescription da);
        AlvkStatus rcB = lib.DescribeModuleMethod(b.ModuleId, 0, token, out AlvkMethodDescription db);
        report["describe"] = new JsonObject
        {
            ["byMvid"] = lib.DescribeMethod(mvid, token, out _).ToString(),
            ["default"] = Description(rcA, da),
            ["pluginLiveEpoch"] = Description(rcB, db),
            ["sameHashes"] = da.SignatureHashHex == db.SignatureHashHex && da.BodyIdentityHex == db.BodyIdentityHex,
            ["bogusModule"] = lib.DescribeModuleMethod(BogusModuleId, 0, token, out _).ToString(),
            ["zeroModule"] = lib.DescribeModuleMethod(0, 0, token, out _).ToString(),
            ["staleEpoch"] = lib.DescribeModuleMethod(a.ModuleId, b.Epoch, token, out _).ToString(),
        };

        // Installs that name no copy, or a wrong one: refused, and neither copy changes.
        IntPtr entryA = Patcher.EntryPoint(Patcher.Method(typeof(CopyReplacements), nameof(CopyReplacements.ForDefault)));
        IntPtr entryB = Patcher.EntryPoint(Patcher.Method(typeof(CopyReplacements), nameof(CopyReplacements.ForPlugin)));
        AlvkInstallRequest byMvid = AlvkInstallRequest.For(da, entryA, NextOwner());
        var refused = new JsonObject
        {
            ["mvidOnly"] = Refusal(patcher, byMvid, defaultCall, pluginCall),
            ["bogusModule"] = Refusal(patcher, WithCopy(byMvid, BogusModuleId, 0), defaultCall, pluginCall),
            ["staleEpoch"] = Refusal(patcher, WithCopy(byMvid, a.ModuleId, b.Epoch), defaultCall, pluginCall),
            ["otherMvid"] = Refusal(patcher, WithMvid(WithCopy(byMvid, a.ModuleId, a.Epoch), Guid.NewGuid()),
                defaultCall, pluginCall),
            ["epochWithoutModule"] = Refusal(patcher, WithCopy(byMvid, 0, a.Epoch), defaultCall, pluginCall),
        };
        report["refused"] = refused;

        // Each copy by its module_id: each returns its own replacement, and its patch says which copy.
        ulong ownerA = NextOwner(), ownerB = NextOwner();
        AlvkInstallRequest onA = WithCopy(AlvkInstallRequest.For(da, entryA, ownerA), a.ModuleId, a.Epoch);
        AlvkInstallRequest onB = WithCopy(AlvkInstallRequest.For(db, entryB, ownerB), b.ModuleId, 0);
        AlvkStatus syncA = lib.PatchInstall(onA, out ulong handleA);
        JsonObject installA = patcher.Command(syncA, handleA);
        installA["result"] = Patcher.Poll(defaultCall, Input + 1000);
        installA["plugin"] = Patcher.Poll(pluginCall, Original);
        AlvkStatus syncB = lib.PatchInstall(onB, out ulong handleB);
        JsonObject installB = patcher.Command(syncB, handleB);
        installB["result"] = Patcher.Poll(pluginCall, Input + 2000);
        installB["default"] = Patcher.Poll(defaultCall, Input + 1000);
        lib.PatchGetTelemetry(handleA, out AlvkPatchTelemetry ta);
        lib.PatchGetTelemetry(handleB, out AlvkPatchTelemetry tb);
        report["byCopy"] = new JsonObject
        {
            ["installDefault"] = installA,
            ["installPlugin"] = installB,
            ["distinctHandles"] = handleA != handleB,
            ["defaultTelemetryModule"] = ta.ModuleId == a.ModuleId,
            ["pluginTelemetryModule"] = tb.ModuleId == b.ModuleId,
            ["defaultTelemetryEpoch"] = ta.ModuleEpoch == a.Epoch,
            ["pluginTelemetryEpoch"] = tb.ModuleEpoch == b.Epoch,
            ["removeDefault"] = Removed(patcher, handleA, ownerA, defaultCall, pluginCall, Input + 2000),
            ["removePlugin"] = Removed(patcher, handleB, ownerB, pluginCall, defaultCall, Original),
        };

        report["collectible"] = CollectibleThenUnloaded(patcher, mvid, token, da, entryA);
        return report;
    }

    // A collectible copy: identified (its flags say so), refused with ALVK_E_MODULE_COLLECTIBLE;
    // once its context unloads, its epoch is stale.
    private static JsonObject CollectibleThenUnloaded(Patcher patcher, Guid mvid, int token,
        in AlvkMethodDescription sameFile, IntPtr entry)
    {
        ProfilerLibrary lib = patcher.Library;
        (WeakReference context, ulong moduleId, uint epoch, JsonObject loaded) =
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
        loaded["contextCollected"] = !context.IsAlive; // for the record: the runtime may unload first
        loaded["collections"] = collections;
        loaded["describeAfterUnload"] = afterUnload.ToString();
        AlvkInstallRequest stale = WithCopy(AlvkInstallRequest.For(sameFile, entry, NextOwner()), moduleId, epoch);
        loaded["installAfterUnload"] = patcher.Command(lib.PatchInstall(stale, out ulong handle), handle);
        loaded["installAfterUnloadState"] = Telemetry(patcher, handle);
        return loaded;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static (WeakReference, ulong, uint, JsonObject) LoadCollectible(Patcher patcher, Guid mvid, int token,
        in AlvkMethodDescription sameFile, IntPtr entry)
    {
        ProfilerLibrary lib = patcher.Library;
        var context = new AssemblyLoadContext("raw collectible", isCollectible: true);
        MethodInfo target = Offset(context.LoadFromAssemblyPath(typeof(PluginTargets).Assembly.Location));
        AlvkStatus rc = lib.ModuleIdentify(mvid, token, target.MethodHandle.Value, out AlvkModuleInfo info);
        int before = (int)target.Invoke(null, [Input])!;
        AlvkInstallRequest request = WithCopy(AlvkInstallRequest.For(sameFile, entry, NextOwner()), info.ModuleId,
            info.Epoch);
        JsonObject install = patcher.Command(lib.PatchInstall(request, out ulong handle), handle);
        install["state"] = Telemetry(patcher, handle);
        var json = new JsonObject
        {
            ["identify"] = Info(rc, info),
            ["describe"] = lib.DescribeModuleMethod(info.ModuleId, info.Epoch, token, out _).ToString(),
            ["install"] = install,
            ["before"] = before,
            ["after"] = (int)target.Invoke(null, [Input])!,
            ["mvidOnly"] = lib.ModuleIdentify(mvid, 0, 0, out _).ToString(),
        };
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
    private static JsonObject Refusal(Patcher patcher, AlvkInstallRequest request, Func<int> defaultCall,
        Func<int> pluginCall)
    {
        AlvkStatus sync = patcher.Library.PatchInstall(request, out ulong handle);
        JsonObject json = patcher.Command(sync, handle);
        if (sync == AlvkStatus.Ok)
            json["telemetry"] = Telemetry(patcher, handle);
        json["default"] = Patcher.Poll(defaultCall, Original);
        json["plugin"] = Patcher.Poll(pluginCall, Original);
        return json;
    }

    private static JsonObject Removed(Patcher patcher, ulong handle, ulong owner, Func<int> call, Func<int> other,
        int otherExpected)
    {
        JsonObject json = patcher.Command(patcher.Library.PatchRemove(handle, owner), handle);
        json["result"] = Patcher.Poll(call, Original);
        json["other"] = Patcher.Poll(other, otherExpected);
        json["state"] = Telemetry(patcher, handle)["state"]?.GetValue<string>();
        return json;
    }

    private static JsonObject Telemetry(Patcher patcher, ulong handle)
    {
        AlvkStatus rc = patcher.Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t);
        return new JsonObject
        {
            ["call"] = rc.ToString(),
            ["state"] = t.State.ToString(),
            ["lastStatus"] = t.LastStatus.ToString(),
            ["moduleId"] = t.ModuleId,
            ["moduleEpoch"] = t.ModuleEpoch,
        };
    }

    private static JsonObject Info(AlvkStatus rc, in AlvkModuleInfo info) => new()
    {
        ["status"] = rc.ToString(),
        ["moduleId"] = info.ModuleId,
        ["epoch"] = info.Epoch,
        ["flags"] = ((AlvkModuleFlags)info.Flags).ToString(),
        ["copies"] = info.Copies,
    };

    private static JsonObject Description(AlvkStatus rc, in AlvkMethodDescription d) => new()
    {
        ["status"] = rc.ToString(),
        ["moduleId"] = d.ModuleId,
        ["epoch"] = d.ModuleEpoch,
        ["flags"] = ((AlvkModuleFlags)d.ModuleFlags).ToString(),
    };
}
