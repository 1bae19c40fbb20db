using System.Reflection;

namespace AlvorKit.Interception.Launcher;

/// <summary>The launcher's version (the package version it was packed as).</summary>
internal static class LauncherInfo
{
    public static string Version { get; } = ReadVersion();

    private static string ReadVersion()
    {
        string? informational = typeof(LauncherInfo).Assembly
            .GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
        if (string.IsNullOrEmpty(informational))
            return "0.0.0";
        int plus = informational.IndexOf('+');
        return plus < 0 ? informational : informational[..plus];
    }
}

/// <summary>One variable: a value to set, or null for a variable that must be absent.</summary>
internal readonly record struct Variable(string Name, string? Value);

/// <summary>What the profiler is started with (docs/Guide.md, "Environment variables").</summary>
internal sealed record ProfilerSettings(LocatedProfiler Profiler, string Rid, string? Modules,
    AllocationProfiling Allocations)
{
    public const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";
    public const string ModulesVariable = "ALVORKIT_INTERCEPTION_MODULES";
    public const string AllocationsVariable = "ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING";

    /// <summary>The variables in the order they are printed. MODULES without --modules and
    /// ALLOCATION_PROFILING without --allocations are listed as absent: `run` removes an
    /// inherited value, `env` prints an unset for shells.</summary>
    public IReadOnlyList<Variable> Variables()
    {
        string path = Profiler.Path;
        var list = new List<Variable>
        {
            new("CORECLR_ENABLE_PROFILING", "1"),
            new("CORECLR_PROFILER", Clsid),
            new("CORECLR_PROFILER_PATH", path),
            new("CORECLR_PROFILER_PATH_64", path),
        };
        if (Rids.IsArm64(Rid))
            list.Add(new("CORECLR_PROFILER_PATH_ARM64", path));
        list.Add(new(ProfilerLocator.PathVariable, path));
        list.Add(new(ModulesVariable, Modules));
        list.Add(new(AllocationsVariable, Allocations switch
        {
            AllocationProfiling.Sampled => "sampled",
            AllocationProfiling.Exact => "exact",
            _ => null,
        }));
        return list;
    }
}
