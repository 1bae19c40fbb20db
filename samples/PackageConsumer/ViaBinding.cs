#if !ALVORKIT_INTERCEPTION_API
using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace PackageConsumer;

/// <summary>The patch through the binding's low-level calls (a package without the API).</summary>
internal static class Patching
{
    private const ulong Owner = 0xC0FFEE;
    private const uint WaitMs = 10_000;

    public static PatchRun? Run(MethodInfo target, MethodInfo replacement, int original, int expected)
    {
        ProfilerLibrary profiler;
        try
        {
            profiler = ProfilerLibrary.Open();
        }
        catch (ProfilerUnavailableException e)
        {
            Console.Error.WriteLine($"PackageConsumer: the profiler is not available ({e.Reason}): {e.Message}");
            return null;
        }
        profiler.GetRuntimeStatus(out AlvkRuntimeStatus status);
        uint abi = profiler.VersionNumber;
        Console.WriteLine($"profiler: {profiler.Path} (ABI {ProfilerLibrary.MajorOf(abi)}.{ProfilerLibrary.MinorOf(abi)}." +
                          $"{ProfilerLibrary.PatchOf(abi)}, via the binding)");
        if (status.StartupStatus != AlvkStatus.Ok)
        {
            Console.Error.WriteLine($"PackageConsumer: the profiler is not available ({status.StartupStatus}): " +
                                    profiler.StatusString(status.StartupStatus));
            return null;
        }

        AlvkStatus describe = profiler.DescribeMethod(target.Module.ModuleVersionId, target.MetadataToken,
            out AlvkMethodDescription description);
        string install = "Ok";
        ulong handle = 0;
        if (describe != AlvkStatus.Ok)
        {
            install = $"describe {describe}";
        }
        else
        {
            RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
            AlvkInstallRequest request = AlvkInstallRequest.For(description,
                replacement.MethodHandle.GetFunctionPointer(), Owner);
            AlvkStatus sync = profiler.PatchInstall(request, out handle);
            AlvkStatus wait = sync == AlvkStatus.Ok ? profiler.PatchWait(handle, WaitMs) : sync;
            if (sync != AlvkStatus.Ok || wait != AlvkStatus.Ok)
                install = $"{sync}, wait {wait}";
        }
        int patched = Program.PollUntil(expected);

        string remove = "not installed";
        if (handle != 0)
        {
            AlvkStatus sync = profiler.PatchRemove(handle, Owner);
            AlvkStatus wait = sync == AlvkStatus.Ok ? profiler.PatchWait(handle, WaitMs) : sync;
            remove = sync == AlvkStatus.Ok && wait == AlvkStatus.Ok ? "Ok" : $"{sync}, wait {wait}";
        }
        int restored = Program.PollUntil(original);
        return new PatchRun("binding", profiler.Path, (int)ProfilerLibrary.MajorOf(abi), install, remove,
            patched, restored, ApiAssembly: null);
    }
}
#endif
