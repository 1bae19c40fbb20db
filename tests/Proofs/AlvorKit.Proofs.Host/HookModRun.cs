using System.Reflection;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>The start every hook proof mode shares: an interceptor (the report says why not when the profiler is
/// not there or refuses patching) and AlvorKit.Proofs.HookMod loaded by path, as a mod is.</summary>
internal static class HookModRun
{
    public static HookReport Run(Func<Interceptor, Assembly, HookReport> body)
    {
        Interceptor interceptor;
        try
        {
            interceptor = Interceptor.Open();
        }
        catch (InterceptionUnavailableException e)
        {
            return new HookReport(e.Message, [], 0);
        }
        using (interceptor)
        {
            if (!interceptor.IsPatchingEnabled)
                return new HookReport(interceptor.PatchingRefusal ?? "patching is disabled", [], 0);
            Assembly mod = AssemblyLoadContext.Default.LoadFromAssemblyPath(
                Path.Combine(AppContext.BaseDirectory, "AlvorKit.Proofs.HookMod.dll"));
            return body(interceptor, mod);
        }
    }
}
