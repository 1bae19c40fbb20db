#if ALVORKIT_INTERCEPTION_API
using System.Reflection;
using AlvorKit.Interception;

namespace PackageConsumer;

/// <summary>The patch through the game-facing API: Interceptor, Patch.</summary>
internal static class Patching
{
    public static PatchRun? Run(MethodInfo target, MethodInfo replacement, int original, int expected)
    {
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            Console.Error.WriteLine($"PackageConsumer: the profiler is not available ({e.Reason}): {e.Message}");
            return null;
        }
        using (interceptor)
        {
            Console.WriteLine($"profiler: {interceptor.ProfilerPath} (ABI {interceptor.AbiVersion}, via the API)");
            if (!interceptor.IsPatchingEnabled)
            {
                Console.Error.WriteLine($"PackageConsumer: the profiler is not available (PatchingRefused): {interceptor.PatchingRefusal}");
                return null;
            }
            string install = "Ok";
            Patch? patch = null;
            try
            {
                patch = interceptor.Install(target, replacement);
            }
            catch (InterceptionException e)
            {
                // e.Status: the profiler's answer as InterceptionStatus (null when the library
                // refused before asking it), e.g. `when (e.Status == InterceptionStatus.QueueFull)`.
                install = $"{e.GetType().Name} ({e.Status?.ToString() ?? "no profiler status"}): {e.Message}";
            }
            int patched = Program.PollUntil(expected);

            string remove = patch is null ? "not installed" : "Ok";
            try
            {
                patch?.Remove();
            }
            catch (InterceptionException e)
            {
                remove = $"{e.GetType().Name} ({e.Status?.ToString() ?? "no profiler status"}): {e.Message}";
            }
            int restored = Program.PollUntil(original);
            return new PatchRun("api", interceptor.ProfilerPath, interceptor.AbiVersion.Major, install, remove,
                patched, restored, typeof(Interceptor).Assembly.Location);
        }
    }
}
#endif
