namespace AlvorKit.Interception.Internal;

/// <summary>How a process gets the profiler, in the words every "unavailable" message ends with.</summary>
internal static class Setup
{
    public const string PathVariable = "ALVORKIT_INTERCEPTION_PROFILER_PATH";
    public const string ModulesVariable = "ALVORKIT_INTERCEPTION_MODULES";
    public const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";

    public static string Explain(string problem) =>
        problem + Environment.NewLine +
        "Start the game under the profiler with the launcher: alvorkit-intercept run --modules <assemblies> -- <command>" +
        Environment.NewLine +
        "or set these before the process starts: CORECLR_ENABLE_PROFILING=1, " +
        $"CORECLR_PROFILER={Clsid}, CORECLR_PROFILER_PATH=<absolute path of the profiler library>, " +
        $"{PathVariable}=<the same path>, {ModulesVariable}=<assemblies you patch, separated by ';'>.";
}
