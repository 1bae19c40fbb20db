using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept run`: what the child sees (EnvProbe reports its variables and
/// what the profiler loaded into it says), exit codes, signals.</summary>
public partial class RunCommandTests
{
    [Fact]
    public void TheChildGetsTheVariablesAndTheProfilerAttachesWithThem()
    {
        var inherited = new Dictionary<string, string?>
        {
            // stale settings in the launcher's own environment must not reach the child
            ["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"] = "1",
            ["CORECLR_PROFILER"] = "{00000000-0000-0000-0000-000000000000}",
        };
        ProcessResult r = Processes.Launcher(
            ["run", "--modules", "EnvProbe;Game.Logic", "--", "dotnet", Repo.EnvProbe, "env"], inherited);
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject report = r.Report;
        var env = report["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        EnvCommandTests.AssertVariables(env, "EnvProbe;Game.Logic", allocations: null);
        Assert.Equal(Repo.NativeLibrary, env["CORECLR_PROFILER_PATH"]);

        JsonObject profiler = report["profiler"]!.AsObject();
        Assert.True((bool)profiler["opened"]!, profiler.ToJsonString());
        Assert.Equal(1u, (uint)profiler["attached"]!);
        Assert.Equal(3u, (uint)profiler["abiMajor"]!);
        Assert.Equal("Ok", (string?)profiler["startupStatus"]);
        Assert.Equal("Named", (string?)profiler["allowlistKind"]);
        Assert.Equal(2u, (uint)profiler["allowlistCount"]!);
        Assert.Equal(0u, (uint)profiler["allocationProfiling"]!);
        Assert.Contains("(from a repository build)", r.Stderr);
    }

    [Fact]
    public void AllocationsAloneLeavesModulesUnsetInTheChild()
    {
        ProcessResult r = Processes.Launcher(["run", "--allocations", "--", "dotnet", Repo.EnvProbe, "env"],
            new Dictionary<string, string?> { ["ALVORKIT_INTERCEPTION_MODULES"] = "Stale.Module" });
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject report = r.Report;
        var env = report["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        EnvCommandTests.AssertVariables(env, modules: null, allocations: "sampled");
        JsonObject profiler = report["profiler"]!.AsObject();
        Assert.Equal("NoPatchableModules", (string?)profiler["startupStatus"]);
        Assert.Equal(2u, (uint)profiler["allocationProfiling"]!); // ALVK_ALLOCATION_PROFILING_SAMPLED
        Assert.Contains("patching is off", r.Stderr);
        Assert.Contains("allocations sampled", r.Stderr);
        // The launcher's one notice; sampled profiling costs nothing to warn about.
        Assert.DoesNotContain("[alvorkit-interception]", r.Stderr);
    }

    [Fact]
    public void AllocationsExactReachesTheProfilerAsExact()
    {
        ProcessResult r = Processes.Launcher(["run", "--allocations=exact", "--", "dotnet", Repo.EnvProbe, "env"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject report = r.Report;
        var env = report["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        EnvCommandTests.AssertVariables(env, modules: null, allocations: "exact");
        JsonObject profiler = report["profiler"]!.AsObject();
        Assert.Equal("NoPatchableModules", (string?)profiler["startupStatus"]);
        Assert.Equal(1u, (uint)profiler["allocationProfiling"]!); // ALVK_ALLOCATION_PROFILING_EXACT
        Assert.Contains("allocations exact", r.Stderr);
        // Exact profiling's cost is said once, by the profiler, at startup.
        Assert.Single(r.Stderr.Split('\n'), l => l.StartsWith("[alvorkit-interception]", StringComparison.Ordinal) &&
                                                  l.Contains("allocation profiling is exact", StringComparison.Ordinal));
    }

    [Fact]
    public void AStartupHookInTheLaunchersEnvironmentRunsInTheGameAloneAndReloadAddsItsOwnAfterIt()
    {
        // EnvProbe's hook, as a user sets one for the game: it throws in any process but EnvProbe.
        using var dir = new TempDir("startup-hooks");
        string log = Path.Combine(dir.Path, "hook.log");
        var env = new Dictionary<string, string?> { ["DOTNET_STARTUP_HOOKS"] = Repo.EnvProbe, ["ALVK_PROBE_HOOK_LOG"] = log };
        ProcessResult r = Processes.Launcher(["run", "--modules", "EnvProbe", "--", "dotnet", Repo.EnvProbe, "env"], env);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Equal(["EnvProbe"], File.ReadAllLines(log)); // the game ran it; the launcher did not
        Assert.Equal(Repo.EnvProbe, (string?)r.Report["environment"]!["DOTNET_STARTUP_HOOKS"]);

        // --reload: the launcher's hook after the user's (the platform's separator between them), and
        // a missing folder made private. The hook opens the interceptor in a game that has only the
        // binding (its other AlvorKit assemblies come from beside the hook), and takes the folder's
        // variable out of the game's environment, for processes the game starts.
        File.Delete(log);
        string drop = Path.Combine(dir.Path, "drop");
        string hook = Path.Combine(Path.GetDirectoryName(Repo.Launcher)!, "AlvorKit.Interception.StartupHook.dll");
        ProcessResult reload = Processes.Launcher(
            ["run", "--reload", drop, "--modules", "EnvProbe", "--", "dotnet", Repo.EnvProbe, "env"], env);
        Assert.True(reload.ExitCode == 0, reload.ToString());
        Assert.Equal(["EnvProbe"], File.ReadAllLines(log));
        JsonObject seen = reload.Report["environment"]!.AsObject();
        Assert.Equal(Repo.EnvProbe + Path.PathSeparator + hook, (string?)seen["DOTNET_STARTUP_HOOKS"]);
        Assert.False(seen.ContainsKey("ALVORKIT_INTERCEPTION_RELOAD_FOLDER"), seen.ToJsonString());
        Assert.Contains($"alvorkit-reload: watching {drop} for updates (patchable: EnvProbe)", reload.Stderr);
        // run allowlists the modules given and nothing else (watch adds AlvorKit's rehearsal assembly).
        Assert.Equal("EnvProbe", (string?)seen["ALVORKIT_INTERCEPTION_MODULES"]);
        if (!OperatingSystem.IsWindows())
            Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(drop));
    }

    [Fact]
    public void ReloadNeedsModules()
    {
        ProcessResult r = Processes.Launcher(["run", "--reload", "drop", "--allocations", "--", "dotnet", Repo.EnvProbe, "env"]);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains("--reload needs --modules naming the game's assemblies", r.Stderr);
        Assert.Empty(r.Stdout);
    }

    [Fact]
    public void TheCommandsExitCodeIsTheLaunchers()
    {
        ProcessResult r = Processes.Launcher(["run", "--quiet", "--modules", "EnvProbe", "--", "dotnet", Repo.EnvProbe, "exit", "7"]);
        Assert.Equal(7, r.ExitCode);
        Assert.Empty(r.Stderr); // --quiet
    }

    [Fact]
    public void ACommandThatCannotStartExits127()
    {
        ProcessResult r = Processes.Launcher(["run", "--modules", "A", "--", "no-such-command-alvk"]);
        Assert.Equal(127, r.ExitCode);
        Assert.Contains("cannot start 'no-such-command-alvk'", r.Stderr);
    }

    [Fact]
    public void DotnetRunGetsAWarning()
    {
        ProcessResult r = Processes.Launcher(["run", "--modules", "A", "--", "dotnet", "run", "--no-such-option-alvk"]);
        Assert.Contains("warning: every .NET process `dotnet run` starts loads the profiler", r.Stderr);
    }

    [Theory]
    [InlineData(PosixSignal.SIGINT, 2)]
    [InlineData(PosixSignal.SIGTERM, 15)]
    public async Task ASignalToTheLauncherReachesTheChild(PosixSignal signal, int number)
    {
        if (OperatingSystem.IsWindows())
            return;
        if (signal == PosixSignal.SIGINT && SigIntIgnoredHere())
            return; // inherited as ignored (a background job of a non-interactive shell): nothing to forward
        // setsid: no controlling terminal, so the launcher cannot assume a terminal delivered it.
        bool setsid = File.Exists("/usr/bin/setsid");
        string file = setsid ? "/usr/bin/setsid" : "dotnet";
        List<string> args = ["run", "--modules", "EnvProbe", "--", "dotnet", Repo.EnvProbe, "wait-signal", "42"];
        args.InsertRange(0, setsid ? ["dotnet", Repo.Launcher] : [Repo.Launcher]);
        using var process = Process.Start(Processes.StartInfo(file, args, Processes.WithEmptyNuGetCache()))!;
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        string? ready = await process.StandardOutput.ReadLineAsync();
        if (ready?.Contains("\"ready\":true") != true)
            Assert.Fail($"child not ready: {ready}\n{await stderr}");
        Assert.Equal(0, Kill(process.Id, number));
        string rest = await process.StandardOutput.ReadToEndAsync();
        using var limit = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await process.WaitForExitAsync(limit.Token);
        Assert.Equal(42, process.ExitCode);
        Assert.Contains($"{{\"signal\":\"{signal}\"}}", rest);
    }

    private static bool SigIntIgnoredHere()
    {
        if (!OperatingSystem.IsLinux())
            return false;
        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return line is not null && (Convert.ToUInt64(line["SigIgn:".Length..].Trim(), 16) & (1UL << 1)) != 0;
    }

    [LibraryImport("libc", EntryPoint = "kill")]
    private static partial int Kill(int pid, int signal);
}
