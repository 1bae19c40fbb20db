using System.Diagnostics;

namespace AlvorKit.Tests.Support;

/// <summary>
/// How a test starts a program published for another RID on this linux-x64 machine: linux-arm64
/// under qemu-user (`qemu-aarch64-static -L /usr/aarch64-linux-gnu`, the arm64 cross sysroot),
/// win-x64 under Wine (`wine64`, in the checkout's own prefix build/wine-prefix). The program is a
/// self-contained app published for that RID (its apphost), so no .NET install is needed inside.
/// The arm64 cross sysroot has no OpenSSL, which .NET's SHA-256 needs on Linux: Debian's arm64
/// libssl3, unpacked into build/arm64-openssl by ./build.sh test, is on the program's
/// LD_LIBRARY_PATH (read by the emulated dynamic loader, not by qemu, which is static).
/// </summary>
public sealed class Emulator
{
    private Emulator(string rid, string file, string[] prefix, Dictionary<string, string?> environment,
        string profilerPathVariable)
    {
        Rid = rid;
        File = file;
        Prefix = prefix;
        Environment = environment;
        ProfilerPathVariable = profilerPathVariable;
    }

    /// <summary>The RID the emulated programs are published for.</summary>
    public string Rid { get; }

    /// <summary>The emulator's executable.</summary>
    public string File { get; }

    /// <summary>The emulator's arguments before the program's path.</summary>
    public IReadOnlyList<string> Prefix { get; }

    /// <summary>What the emulator itself needs in the child's environment.</summary>
    public IReadOnlyDictionary<string, string?> Environment { get; }

    /// <summary>The variable CoreCLR reads the profiler's path from on that RID (the
    /// architecture-specific one: CORECLR_PROFILER_PATH_ARM64, CORECLR_PROFILER_PATH_64).</summary>
    public string ProfilerPathVariable { get; }

    /// <summary>The emulator for `rid`, or null when this machine does not have it.</summary>
    public static Emulator? For(string rid) => rid switch
    {
        "linux-arm64" when OnPath("qemu-aarch64-static") is { } qemu && Directory.Exists("/usr/aarch64-linux-gnu/lib") =>
            new Emulator(rid, qemu, ["-L", "/usr/aarch64-linux-gnu"], new Dictionary<string, string?>
            {
                // The sysroot's own libraries first: -L redirects a path only when it exists under
                // the prefix, so without this the guest's ld.so reads the host's ld.so.cache, and a
                // multiarch libc6:arm64 installed beside libc6-arm64-cross then mixes two glibc
                // builds (every .NET process spun at startup, seen 2026-12-01). Then OpenSSL.
                // QEMU_SET_ENV sets it in the guest only: a host program on the way (the
                // launcher, say) keeps its own library path.
                ["QEMU_SET_ENV"] = "LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:" + Arm64OpenSsl,
            }, "CORECLR_PROFILER_PATH_ARM64"),
        "win-x64" when FirstExisting("/usr/lib/wine/wine64", OnPath("wine64")) is { } wine =>
            new Emulator(rid, wine, [], new Dictionary<string, string?>
            {
                ["WINEPREFIX"] = Checkout.File("build", "wine-prefix"),
                ["WINEDEBUG"] = "-all",
            }, "CORECLR_PROFILER_PATH_64"),
        _ => null,
    };

    /// <summary>Where Debian's arm64 libssl3 is unpacked (libssl.so.3, libcrypto.so.3).</summary>
    public static string Arm64OpenSsl { get; } =
        Checkout.File("build", "arm64-openssl", "root", "usr", "lib", "aarch64-linux-gnu");

    /// <summary>Readies the emulator for the runs of this process, once, before any: under Wine,
    /// the prefix's server (kept 60 s past its last program) and its services are started here
    /// with their output on /dev/null. Started by the first program instead, they would inherit
    /// its output pipes and hold them open after it exits. Returns this emulator.</summary>
    public Emulator Start()
    {
        if (!Rid.StartsWith("win-", StringComparison.Ordinal))
            return this;
        string prefix = Environment["WINEPREFIX"]!;
        // drive_c, not system.reg: the server writes the registry files only some seconds after
        // wineboot -i returns.
        if (!Directory.Exists(Path.Combine(prefix, "drive_c")))
            throw new InvalidOperationException(
                $"no Wine prefix at {prefix}: ./build.sh platform (or test) makes it (wineboot -i, once)");
        var start = new ProcessStartInfo("/bin/sh") { UseShellExecute = false };
        start.ArgumentList.Add("-c");
        // A server still up for the prefix (wineboot -i's, for its last 3 s) is ended first:
        // the prefix is this checkout's own.
        start.ArgumentList.Add("\"$0\" -k >/dev/null 2>&1; \"$0\" -p60 >/dev/null 2>&1 </dev/null && " +
            "\"$1\" wineboot >/dev/null 2>&1 </dev/null");
        start.ArgumentList.Add(Path.Combine(Path.GetDirectoryName(File)!, "wineserver"));
        start.ArgumentList.Add(File);
        foreach (var (key, value) in Environment)
            start.Environment[key] = value;
        using var process = Process.Start(start) ?? throw new InvalidOperationException("/bin/sh did not start");
        if (!process.WaitForExit(TimeSpan.FromSeconds(120)))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{File} wineboot did not finish within 120 s");
        }
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"the Wine server or wineboot failed (exit {process.ExitCode})");
        return this;
    }

    /// <summary>What a run under this emulator needs beyond the environment a test gives, the
    /// emulator's own limits (not the profiler's): under Wine 8 a .NET process with an
    /// in-process EventPipe session or EventListener dies in a DynamicResolver finalizer
    /// ("Internal CLR error", an access violation in coreclr on the finalizer thread) while
    /// W^X is on. Reproduced with no profiler loaded (an EventListener alone, any keyword), and
    /// gone with DOTNET_EnableWriteXorExecute=0; sampled allocation profiling opens such
    /// sessions, so those runs, and only those, get W^X off. Applied last.</summary>
    public void ApplyLimits(IDictionary<string, string?> environment)
    {
        if (Rid == "win-x64" && environment.TryGetValue("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING", out string? mode) &&
            mode is "sampled")
            environment["DOTNET_EnableWriteXorExecute"] = "0";
    }

    /// <summary>A path of this machine as the emulated program sees it: unchanged under qemu-user;
    /// under Wine, on drive Z: (Wine maps Z: to /).</summary>
    public string TargetPath(string hostPath) =>
        Rid.StartsWith("win-", StringComparison.Ordinal)
            ? "Z:" + Path.GetFullPath(hostPath).Replace('/', '\\')
            : Path.GetFullPath(hostPath);

    /// <summary>The command line that runs `program` (a host path) with `args` under the emulator.</summary>
    public (string File, string[] Args) Command(string program, IEnumerable<string> args) =>
        (File, [.. Prefix, program, .. args]);

    private static string? OnPath(string name) =>
        (System.Environment.GetEnvironmentVariable("PATH") ?? "").Split(':', StringSplitOptions.RemoveEmptyEntries)
            .Select(dir => Path.Combine(dir, name)).FirstOrDefault(System.IO.File.Exists);

    private static string? FirstExisting(params string?[] paths) => paths.FirstOrDefault(System.IO.File.Exists);
}
