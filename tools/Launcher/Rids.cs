using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Launcher;

/// <summary>The runtime identifiers the profiler is built for, and its file name on each.</summary>
internal static class Rids
{
    public static readonly IReadOnlyList<string> Supported = ["linux-x64", "linux-arm64", "osx-arm64", "win-x64"];

    /// <summary>The RID of this process, from RuntimeInformation; a LauncherException
    /// (exit 2) for anything the profiler is not built for.</summary>
    public static string Current() =>
        Resolve(RuntimeInformation.RuntimeIdentifier, CurrentOs(), RuntimeInformation.ProcessArchitecture);

    /// <summary>The portable RID for a runtime reporting `runtimeRid` on `os` ("linux", "osx",
    /// "win" or another name) and `architecture`. The runtime's own RID is taken when it is a
    /// supported one; a distribution-built runtime reports a distro RID (ubuntu.24.04-x64),
    /// so the OS and the process architecture decide then. musl (linux-musl-x64) is refused:
    /// the library is built against glibc.</summary>
    public static string Resolve(string? runtimeRid, string os, Architecture architecture)
    {
        if (runtimeRid is not null && Supported.Contains(runtimeRid))
            return runtimeRid;
        string arch = architecture switch
        {
            Architecture.X64 => "x64",
            Architecture.Arm64 => "arm64",
            _ => architecture.ToString().ToLowerInvariant(),
        };
        string candidate = $"{os}-{arch}";
        bool musl = runtimeRid?.Contains("musl", StringComparison.OrdinalIgnoreCase) == true;
        if (!musl && Supported.Contains(candidate))
            return candidate;
        string reported = runtimeRid is null || runtimeRid == candidate ? candidate : $"{runtimeRid} ({candidate})";
        throw new LauncherException(ExitCodes.ProfilerUnavailable,
            $"unsupported RID {reported}: the AlvorKit Interception Profiler is built for " +
            $"{string.Join(", ", Supported)} only (see docs/Interception.md).");
    }

    /// <summary>The library's file name on `rid`.</summary>
    public static string LibraryFileName(string rid) =>
        rid.StartsWith("win-", StringComparison.Ordinal) ? "alvorkit_interception_profiler.dll"
        : rid.StartsWith("osx-", StringComparison.Ordinal) ? "libalvorkit_interception_profiler.dylib"
        : "libalvorkit_interception_profiler.so";

    public static bool IsArm64(string rid) => rid.EndsWith("-arm64", StringComparison.Ordinal);

    private static string CurrentOs() =>
        OperatingSystem.IsLinux() ? "linux"
        : OperatingSystem.IsMacOS() ? "osx"
        : OperatingSystem.IsWindows() ? "win"
        : OperatingSystem.IsFreeBSD() ? "freebsd"
        : RuntimeInformation.OSDescription.Split(' ')[0].ToLowerInvariant();
}
