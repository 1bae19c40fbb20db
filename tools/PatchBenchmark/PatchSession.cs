using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.PatchBenchmark;

/// <summary>Installs and removes exact-dispatch patches through the binding.</summary>
public sealed class PatchSession(ProfilerLibrary library)
{
    public ProfilerLibrary Library { get; } = library;

    public static PatchSession Open() => new(ProfilerLibrary.Open());

    public ulong Install(MethodInfo target, MethodInfo replacement, ulong owner)
    {
        AlvkStatus status = Library.DescribeMethod(target.Module.ModuleVersionId, target.MetadataToken,
            out AlvkMethodDescription description);
        Check(status, "describe");
        RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
        var request = AlvkInstallRequest.For(description, replacement.MethodHandle.GetFunctionPointer(),
            owner, AlvkInstallFlags.None);
        Check(Library.PatchInstall(request, out ulong handle), "install");
        return handle;
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
