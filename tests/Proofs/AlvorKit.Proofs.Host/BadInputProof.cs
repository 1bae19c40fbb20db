using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

// Patch targets: the public P/Invoke stub and field are the shapes the refused inputs name.
#pragma warning disable CA1051, CA1401

namespace AlvorKit.Proofs.Host;

public abstract class BadInputTargets
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Guarded(int x) => x + 1;

    public static int GuardedReplacement(int x) => x + 100;

    /// <summary>What the refused replace_with calls name: a method of its own, so that one wrongly
    /// accepted would change what Guarded returns.</summary>
    public static int GuardedOther(int x) => x + 200;

    public abstract int Abstract();

    [DllImport("libc", EntryPoint = "getpid")]
    public static extern int Extern();

    public static T Generic<T>(T value) => value;
}

public class BadInputGeneric<T>
{
    public T? Stored;
    public T? Get() => Stored;
}

public static unsafe class BadInputProof
{
    private const ulong Owner = 0x5001, Stranger = 0x5002;
    private const ulong UnknownHandle = 0x7FFF_0000_0000_0001;
    private const int Input = 5;

    private delegate void Mutate(ref AlvkInstallRequest request);

    // Each bad input gets its own status, at the call or from the worker (then the patch
    // ends Rejected), and the running target keeps returning what it returned before.
    public static BadInputReport Run()
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        var guarded = Patcher.Method(typeof(BadInputTargets), nameof(BadInputTargets.Guarded));
        var replacementMethod = Patcher.Method(typeof(BadInputTargets), nameof(BadInputTargets.GuardedReplacement));
        IntPtr replacement = Patcher.EntryPoint(replacementMethod);
        AlvkInstallRequest valid = patcher.Request(guarded, replacementMethod, Owner);
        int original = BadInputTargets.Guarded(Input);

        var installs = new SortedDictionary<string, BadInstall>(StringComparer.Ordinal);
        void Install(string name, AlvkInstallRequest request, Mutate? mutate = null)
        {
            mutate?.Invoke(ref request);
            installs[name] = Observe(patcher, library.PatchInstall(request, out ulong handle), handle);
        }
        Install("unknownMvid", valid, (ref r) => r.ModuleMvid = AlvkMvid.From(Guid.NewGuid()));
        Install("moduleNotAllowed", Patcher.RequestFromFile(typeof(object).GetMethod(nameof(ToString))!, replacement, Owner));
        Install("typeDefToken", valid, (ref r) => r.MethodToken = (uint)typeof(BadInputTargets).MetadataToken);
        Install("tokenPastTable", valid, (ref r) => r.MethodToken = 0x06FFFFFF);
        Install("signatureHashMismatch", valid, (ref r) => r.SignatureHash[0] ^= 0xFF);
        Install("bodyIdentityMismatch", valid, (ref r) => r.BodyIdentity[31] ^= 0x01);
        Install("abstractMethod", Patcher.RequestFromFile(typeof(BadInputTargets).GetMethod(nameof(BadInputTargets.Abstract))!, replacement, Owner));
        Install("externMethod", Patcher.RequestFromFile(typeof(BadInputTargets).GetMethod(nameof(BadInputTargets.Extern))!, replacement, Owner));
        Install("genericMethod", Patcher.RequestFromFile(typeof(BadInputTargets).GetMethod(nameof(BadInputTargets.Generic))!, replacement, Owner));
        Install("genericClassMethod", Patcher.RequestFromFile(typeof(BadInputGeneric<>).GetMethod("Get")!, replacement, Owner));
        Install("smallStruct", valid, (ref r) => r.Size = 8);
        Install("ownerZero", valid, (ref r) => r.Owner = 0);
        Install("replacementZero", valid, (ref r) => r.Replacement = 0);
        Install("unknownFlag", valid, (ref r) => r.Flags = 0x80);
        Install("reservedNonZero", valid, (ref r) => r.Reserved = 1);
        // ABI 3.4: the replacement named as a method, both halves or neither, a MethodDef.
        AlvkInstallRequest named = patcher.NameReplacement(valid, replacementMethod);
        Install("reserved2NonZero", named, (ref r) => r.Reserved2 = 1);
        Install("replacementModuleWithoutToken", named, (ref r) => r.ReplacementToken = 0);
        Install("replacementTokenWithoutModule", named, (ref r) => r.ReplacementModuleId = 0);
        Install("replacementTokenNotMethodDef", named,
            (ref r) => r.ReplacementToken = (uint)typeof(BadInputTargets).MetadataToken);
        Install("replacementTokenNilMethodDef", named, (ref r) => r.ReplacementToken = 0x06000000);
        // The target named as its own replacement: every call would call itself.
        Install("replacementIsTarget", patcher.NameReplacement(valid, guarded),
            (ref r) => r.Replacement = (ulong)Patcher.EntryPoint(guarded));
        installs["nullRequest"] = Observe(patcher, library.PatchInstallWithNulls(valid, nullRequest: true, nullHandle: false), 0);
        installs["nullHandle"] = Observe(patcher, library.PatchInstallWithNulls(valid, nullRequest: false, nullHandle: true), 0);

        var handles = new SortedDictionary<string, HandleRefusals>(StringComparer.Ordinal);
        foreach ((string name, ulong handle) in new[] { ("unknown", UnknownHandle), ("zero", 0ul) })
        {
            handles[name] = new HandleRefusals(
                library.PatchReplace(handle, Owner, replacement).ToString(),
                library.PatchRemove(handle, Owner).ToString(),
                library.PatchWait(handle, 100).ToString(),
                library.PatchGetTelemetry(handle, out _).ToString());
        }
        LiveRefusals live = LiveRefusals(patcher, valid, replacement);
        int final = BadInputTargets.Guarded(Input);
        (string selfInstall, string selfReplace) = ManagedSelf(guarded, replacementMethod);
        return new BadInputReport(original, installs, handles, live, final, selfInstall, selfReplace,
                                  BadInputTargets.Guarded(Input));
    }

    // Interceptor.Install(m, m), and a live patch of m replaced with m: each refused with its
    // status before anything reaches the profiler (before the check, the next call of m
    // overflowed the stack and killed the process).
    private static (string Install, string Replace) ManagedSelf(MethodInfo guarded, MethodInfo replacement)
    {
        using var interceptor = AlvorKit.Interception.Interceptor.Open();
        string install = Threw(() => interceptor.Install(guarded, guarded).Remove());
        string replace;
        AlvorKit.Interception.Patch patch = interceptor.Install(guarded, replacement);
        try
        {
            replace = Threw(() => patch.Replace(guarded));
        }
        finally
        {
            patch.Remove();
        }
        return (install, replace);
    }

    private static string Threw(Action action)
    {
        try
        {
            action();
            return "none";
        }
        catch (AlvorKit.Interception.InterceptionException e)
        {
            return e.Status?.ToString() ?? "no status";
        }
    }

    // Refusals against a live patch: nothing they do may change it.
    private static LiveRefusals LiveRefusals(Patcher patcher, AlvkInstallRequest valid, IntPtr replacement)
    {
        ProfilerLibrary library = patcher.Library;
        Func<int> call = () => BadInputTargets.Guarded(Input);
        AlvkStatus sync = library.PatchInstall(valid, out ulong handle);
        CommandOutcome command = patcher.Finish(sync, handle);
        Polled<int> patched = Patcher.PollFor(call, Input + 100);
        string removeByStranger = library.PatchRemove(handle, Stranger).ToString();
        string replaceByStranger = library.PatchReplace(handle, Stranger, replacement).ToString();
        string replaceOwnerZero = library.PatchReplace(handle, 0, replacement).ToString();
        string replaceWithZero = library.PatchReplace(handle, Owner, 0).ToString();
        var replaceWith = new SortedDictionary<string, string>(StringComparer.Ordinal);
        {
            MethodInfo other = Patcher.Method(typeof(BadInputTargets), nameof(BadInputTargets.GuardedOther));
            AlvkInstallRequest named = patcher.NameReplacement(valid, other);
            var good = new AlvkReplacement
            {
                Size = (uint)sizeof(AlvkReplacement), MethodToken = named.ReplacementToken,
                EntryPoint = (ulong)Patcher.EntryPoint(other), ModuleId = named.ReplacementModuleId,
            };
            replaceWith["null"] = library.PatchReplaceWithNull(handle, Owner).ToString();
            replaceWith["smallStruct"] = library.PatchReplaceWith(handle, Owner, good with { Size = 8 }).ToString();
            replaceWith["tokenWithoutModule"] = library.PatchReplaceWith(handle, Owner, good with { ModuleId = 0 }).ToString();
            replaceWith["moduleWithoutToken"] = library.PatchReplaceWith(handle, Owner, good with { MethodToken = 0 }).ToString();
            replaceWith["typeDefToken"] = library.PatchReplaceWith(handle, Owner,
                good with { MethodToken = (uint)typeof(BadInputTargets).MetadataToken }).ToString();
            replaceWith["entryPointZero"] = library.PatchReplaceWith(handle, Owner, good with { EntryPoint = 0 }).ToString();
            replaceWith["stranger"] = library.PatchReplaceWith(handle, Stranger, good).ToString();
            MethodInfo target = Patcher.Method(typeof(BadInputTargets), nameof(BadInputTargets.Guarded));
            replaceWith["target"] = library.PatchReplaceWith(handle, Owner, good with
            {
                MethodToken = patcher.NameReplacement(valid, target).ReplacementToken,
                EntryPoint = (ulong)Patcher.EntryPoint(target),
            }).ToString();
        }
        string telemetryNullOut = library.PatchGetTelemetryWithNull(handle).ToString();
        string telemetrySmallStruct = library.PatchGetTelemetry(handle, out _, size: 8).ToString();
        AlvkInstallRequest badJoin = valid;
        badJoin.Owner = Stranger;
        badJoin.SignatureHash[0] ^= 0xFF;
        BadInstall join = Observe(patcher, library.PatchInstall(badJoin, out ulong joined), joined, Input + 100);
        bool sameHandle = joined == handle;
        int stillPatched = call();
        TelemetryReport telemetry = patcher.ReadTelemetry(handle);
        CommandOutcome remove = patcher.Finish(library.PatchRemove(handle, Owner), handle);
        var removed = new CommandStep(remove, Patcher.PollFor(call, Input + 1));
        return new LiveRefusals(command, patched, removeByStranger, replaceByStranger, replaceOwnerZero, replaceWithZero,
            telemetryNullOut, telemetrySmallStruct, join, sameHandle, stillPatched, telemetry, removed, replaceWith);
    }

    private static BadInstall Observe(Patcher patcher, AlvkStatus sync, ulong handle, int expected = Input + 1)
    {
        string status = sync.ToString();
        WorkerVerdict? worker = null;
        if (sync == AlvkStatus.Ok)
        {
            status = patcher.Library.PatchWait(handle, Patcher.WaitMs).ToString();
            TelemetryReport telemetry = patcher.ReadTelemetry(handle);
            // Whatever method the request named: a rejected patch never reached the runtime.
            worker = new WorkerVerdict(status, telemetry.State, telemetry.LastStatus, telemetry.GetReJITParameters,
                telemetry.RejitStarted);
        }
        // Called several times: a wrongly applied patch would show within these calls.
        int result = 0;
        for (int i = 0; i < 3; i++)
            result = BadInputTargets.Guarded(Input);
        return new BadInstall(sync.ToString(), worker, status, result, result == expected);
    }
}
