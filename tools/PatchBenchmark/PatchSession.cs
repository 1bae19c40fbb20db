using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.PatchBenchmark;

/// <summary>Installs and removes exact-dispatch patches through the binding.</summary>
public sealed class PatchSession(ProfilerLibrary library)
{
    public ProfilerLibrary Library { get; } = library;

    public static PatchSession Open() => new(ProfilerLibrary.Open());

    /// <summary>Installs `replacement` on `target`; with `direct`, names the replacement as a method
    /// (its module copy and MethodDef token) so the profiler can take the direct call.</summary>
    public ulong Install(MethodInfo target, MethodInfo replacement, ulong owner, bool direct = false)
    {
        AlvkStatus status = Library.DescribeMethod(target.Module.ModuleVersionId, target.MetadataToken,
            out AlvkMethodDescription description);
        Check(status, "describe");
        RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
        var request = AlvkInstallRequest.For(description, replacement.MethodHandle.GetFunctionPointer(),
            owner, AlvkInstallFlags.None);
        if (direct)
        {
            Check(Library.ModuleIdentify(replacement.Module.ModuleVersionId, replacement.MetadataToken,
                replacement.MethodHandle.Value, out AlvkModuleInfo module), "identify");
            request.ReplacementModuleId = module.ModuleId;
            request.ReplacementToken = unchecked((uint)replacement.MetadataToken);
        }
        Check(Library.PatchInstall(request, out ulong handle), "install");
        return handle;
    }

    /// <summary>Targets.PatchedDirect and Targets.PatchedCalli patched with Targets.Replacement, each
    /// checked in force on its path.</summary>
    public (ulong Direct, ulong Calli) InstallBothPaths()
    {
        MethodInfo replacement = Method(nameof(Targets.Replacement));
        ulong direct = Install(Method(nameof(Targets.PatchedDirect)), replacement, owner: 1, direct: true);
        ulong calli = Install(Method(nameof(Targets.PatchedCalli)), replacement, owner: 1);
        Wait(direct);
        Wait(calli);
        ExpectPath(direct, AlvkDispatchPath.DirectCall);
        ExpectPath(calli, AlvkDispatchPath.Calli);
        if (Targets.PatchedDirect(1) != Targets.Replacement(1) || Targets.PatchedCalli(1) != Targets.Replacement(1))
            throw new InvalidOperationException("the patches are not in force");
        return (direct, calli);
    }

    public void RemoveBothPaths(ulong direct, ulong calli)
    {
        Check(Library.PatchRemove(direct, 1), "remove");
        Check(Library.PatchRemove(calli, 1), "remove");
        Wait(direct);
        Wait(calli);
    }

    /// <summary>Throws unless the patch's telemetry says it took `path`.</summary>
    public void ExpectPath(ulong handle, AlvkDispatchPath path)
    {
        Check(Library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t), "telemetry");
        if (t.DispatchPath != path)
            throw new InvalidOperationException($"expected the {path} path, the patch took {t.DispatchPath} " +
                                                $"(fallback {t.DispatchFallback})");
    }

    public void Wait(ulong handle) => Check(Library.PatchWait(handle, 10_000), "wait");

    public static void Check(AlvkStatus status, string what)
    {
        if (status != AlvkStatus.Ok)
            throw new InvalidOperationException($"{what}: {status}");
    }

    public static MethodInfo Method(string name) =>
        typeof(Targets).GetMethod(name) ?? throw new MissingMethodException(nameof(Targets), name);
}
