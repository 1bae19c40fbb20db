namespace AlvorKit.Tests.Support;

/// <summary>The checkout the tests run in: found once, above the test's own output folder.</summary>
public static class Checkout
{
    /// <summary>The repository root: the first folder above the test binary that holds build.sh
    /// and the public header.</summary>
    public static string Root { get; } = FindRoot();

    /// <summary>The configuration the test assembly was built in, which is the one the tests
    /// expect of the projects they launch.</summary>
#if DEBUG
    public const string Configuration = "Debug";
#else
    public const string Configuration = "Release";
#endif

    /// <summary>An absolute path inside the checkout.</summary>
    public static string File(params string[] relative) => Path.Combine([Root, .. relative]);

    /// <summary>The path a variable names (made absolute) or, when it is unset, the checkout's
    /// file; either way the file must exist, and the message says what builds it.</summary>
    public static string Required(string? variable, string hint, params string[] relative)
    {
        string? explicitPath = variable is null ? null : Environment.GetEnvironmentVariable(variable);
        string path = string.IsNullOrEmpty(explicitPath) ? File(relative) : Path.GetFullPath(explicitPath);
        if (System.IO.File.Exists(path))
            return path;
        string orSet = variable is null ? "" : $" (or set {variable})";
        throw new FileNotFoundException($"{path} is missing: {hint}{orSet}");
    }

    private static string FindRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (System.IO.File.Exists(Path.Combine(dir.FullName, "build.sh")) &&
                System.IO.File.Exists(Path.Combine(dir.FullName, "include", "alvorkit_interception_profiler.h")))
                return dir.FullName;
        }
        throw new DirectoryNotFoundException($"no checkout above {AppContext.BaseDirectory}");
    }
}
