using System.Text;

namespace AlvorKit.Interception.Launcher;

/// <summary>Where the profiler library was found: its absolute path and which place it came from.</summary>
internal sealed record LocatedProfiler(string Path, string Source);

/// <summary>
/// Finds the native library for one RID, in this order (the first existing file wins):
/// <list type="number">
/// <item>--profiler (a file, or a folder holding the RID's file name); when given, nothing else is tried;</item>
/// <item>ALVORKIT_INTERCEPTION_PROFILER_PATH, when that file exists;</item>
/// <item>the app's own output, for `run` (the folder of the .dll after `dotnet`, or of the
///   executable): &lt;app&gt;/&lt;library&gt;, then &lt;app&gt;/runtimes/&lt;rid&gt;/native/&lt;library&gt;, which is where
///   the AlvorKit.Interception.Profiler.Native package puts it; this copy matches the binding the
///   app was built against;</item>
/// <item>the tool's own package layout: runtimes/&lt;rid&gt;/native/ next to the launcher;</item>
/// <item>the AlvorKit.Interception.Profiler.Native package in the NuGet global packages folder
///   (NUGET_PACKAGES, else ~/.nuget/packages): the launcher's own version first, then other
///   versions of its major.minor line (while the major is 0, the minor changes with every break of
///   the managed API or the ABI: docs/Packages.md, "Versions"), newest first;</item>
/// <item>a repository checkout above the launcher or the working directory:
///   build/native-release/native/interception-profiler/, then build/native-&lt;rid&gt;/native/interception-profiler/.</item>
/// </list>
/// </summary>
internal sealed class ProfilerLocator
{
    public const string PackageId = "AlvorKit.Interception.Profiler.Native";
    public const string PathVariable = "ALVORKIT_INTERCEPTION_PROFILER_PATH";

    private readonly List<string> _looked = [];

    public required string Rid { get; init; }
    public string? ExplicitPath { get; init; }
    public string? AppDirectory { get; init; }
    public string ToolDirectory { get; init; } = AppContext.BaseDirectory;
    public string WorkingDirectory { get; init; } = Environment.CurrentDirectory;
    public string ToolVersion { get; init; } = LauncherInfo.Version;
    public Func<string, string?> GetEnvironment { get; init; } = Environment.GetEnvironmentVariable;

    public string FileName => Rids.LibraryFileName(Rid);

    /// <summary>The library, or a LauncherException (exit 2) naming the RID, the file name
    /// and every place looked at.</summary>
    public LocatedProfiler Locate()
    {
        _looked.Clear();
        if (!string.IsNullOrEmpty(ExplicitPath))
        {
            string full = Path.GetFullPath(ExplicitPath, WorkingDirectory);
            if (Directory.Exists(full))
                full = Path.Combine(full, FileName);
            if (File.Exists(full))
                return new LocatedProfiler(full, "--profiler");
            _looked.Add($"--profiler: {full}");
            throw Missing("--profiler names no existing file; nothing else was tried.");
        }

        string? fromVariable = GetEnvironment(PathVariable);
        if (!string.IsNullOrEmpty(fromVariable))
        {
            string full = Path.GetFullPath(fromVariable, WorkingDirectory);
            if (File.Exists(full))
                return new LocatedProfiler(full, PathVariable);
            _looked.Add($"{PathVariable}: {full}");
        }
        else
        {
            _looked.Add($"{PathVariable}: unset");
        }

        if (AppDirectory is not null &&
            (Try("the app's output", Path.Combine(AppDirectory, FileName)) ??
             Try("the app's output", Path.Combine(AppDirectory, "runtimes", Rid, "native", FileName))) is { } app)
            return app;

        if ((Try("next to the launcher", Path.Combine(ToolDirectory, "runtimes", Rid, "native", FileName)) ??
             Try("next to the launcher", Path.Combine(ToolDirectory, FileName))) is { } tool)
            return tool;

        foreach (string candidate in NuGetCacheCandidates())
            if (Try($"the {PackageId} package", candidate) is { } cached)
                return cached;

        foreach (string root in RepositoryRoots())
        {
            if ((Try("a repository build", Path.Combine(root, "build", "native-release", "native", "interception-profiler", FileName)) ??
                 Try("a repository build", Path.Combine(root, "build", $"native-{Rid}", "native", "interception-profiler", FileName))) is { } built)
                return built;
        }
        if (!RepositoryRoots().Any())
            _looked.Add("a repository checkout: none above the launcher or the working directory");

        throw Missing("Give --profiler <path>, reference the AlvorKit.Interception.Profiler.Native package from the app, " +
                      "install the alvorkit-intercept tool from a package built on this RID, or build the library (./build.sh native).");
    }

    private LocatedProfiler? Try(string source, string path)
    {
        string full = Path.GetFullPath(path);
        if (File.Exists(full))
            return new LocatedProfiler(full, source);
        _looked.Add($"{source}: {full}");
        return null;
    }

    private LauncherException Missing(string advice)
    {
        var message = new StringBuilder();
        message.Append($"no AlvorKit Interception Profiler library for RID {Rid}: expected a file named {FileName}. Looked in:");
        foreach (string place in _looked)
            message.Append("\n  ").Append(place);
        message.Append('\n').Append(advice);
        return new LauncherException(ExitCodes.ProfilerUnavailable, message.ToString());
    }

    private IEnumerable<string> NuGetCacheCandidates()
    {
        string? packages = GetEnvironment("NUGET_PACKAGES");
        if (string.IsNullOrEmpty(packages))
        {
            string home = GetEnvironment("HOME") is { Length: > 0 } h ? h
                : Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            packages = Path.Combine(home, ".nuget", "packages");
        }
        string root = Path.Combine(packages, PackageId.ToLowerInvariant());
        var versions = new List<string> { ToolVersion };
        if (Directory.Exists(root))
        {
            string linePrefix = string.Join('.', ToolVersion.Split('.').Take(2)) + ".";
            versions.AddRange(Directory.GetDirectories(root)
                .Select(Path.GetFileName)
                .OfType<string>()
                .Where(v => v.StartsWith(linePrefix, StringComparison.Ordinal) && v != ToolVersion)
                .OrderByDescending(v => v, VersionOrder.Instance));
        }
        else
        {
            _looked.Add($"the {PackageId} package: {root} does not exist");
            yield break;
        }
        foreach (string version in versions)
            yield return Path.Combine(root, version, "runtimes", Rid, "native", FileName);
    }

    /// <summary>Checkouts of this repository (build.sh and the public header) at or above the
    /// launcher's folder and the working directory.</summary>
    private IEnumerable<string> RepositoryRoots()
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string start in new[] { ToolDirectory, WorkingDirectory })
        {
            for (var dir = new DirectoryInfo(Path.GetFullPath(start)); dir is not null; dir = dir.Parent)
            {
                if (File.Exists(Path.Combine(dir.FullName, "build.sh")) &&
                    File.Exists(Path.Combine(dir.FullName, "include", "alvorkit_interception_profiler.h")))
                {
                    if (seen.Add(dir.FullName))
                        yield return dir.FullName;
                    break;
                }
            }
        }
    }

    /// <summary>NuGet-ish version order: numeric parts, then a release above its prereleases.</summary>
    private sealed class VersionOrder : IComparer<string>
    {
        public static readonly VersionOrder Instance = new();

        public int Compare(string? x, string? y)
        {
            (Version vx, string px) = Split(x ?? "");
            (Version vy, string py) = Split(y ?? "");
            int c = vx.CompareTo(vy);
            if (c != 0)
                return c;
            if (px.Length == 0 || py.Length == 0)
                return py.Length.CompareTo(px.Length);
            return string.CompareOrdinal(px, py);
        }

        private static (Version, string) Split(string v)
        {
            int dash = v.IndexOf('-');
            string core = dash < 0 ? v : v[..dash];
            return (Version.TryParse(core, out Version? parsed) ? parsed : new Version(0, 0), dash < 0 ? "" : v[(dash + 1)..]);
        }
    }
}
