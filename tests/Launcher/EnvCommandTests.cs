using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>`alvorkit-intercept env`, run as a process from the checkout: every format carries
/// the README's variables with the absolute path of an existing library.</summary>
public class EnvCommandTests
{
    private const string Clsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";
    private const string Modules = "Game.Logic;Game.Core";

    [Fact]
    public void Sh()
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", Modules, "--format", "sh"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        var set = Matches(r.Stdout, @"^export (\w+)='([^']*)'$");
        var unset = Regex.Matches(r.Stdout, @"^unset (\w+)$", RegexOptions.Multiline).Select(m => m.Groups[1].Value).ToList();
        AssertVariables(set, Modules, allocations: null);
        Assert.Equal(["ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"], unset);
    }

    [Fact]
    public void ShOutputEvaluatedByAShellSetsTheVariables()
    {
        if (OperatingSystem.IsWindows())
            return;
        // The launcher is started from the shell so `eval "$(...)"` is exercised as documented.
        string script = $"export ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1; " +
                        $"eval \"$(dotnet '{Repo.Launcher}' env --modules 'Game.Logic,Game.Core')\" && env";
        ProcessResult r = Processes.Run("bash", ["-c", script], Processes.WithEmptyNuGetCache());
        Assert.True(r.ExitCode == 0, r.ToString());
        var env = Matches(r.Stdout, @"^((?:CORECLR|ALVORKIT)_\w+)=(.*)$");
        AssertVariables(env, Modules, allocations: null); // the inherited flag was unset
    }

    [Fact]
    public void PowerShell()
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", Modules, "--format", "powershell"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        var set = Matches(r.Stdout, @"^\$env:(\w+) = '([^']*)'$");
        AssertVariables(set, Modules, allocations: null);
        Assert.Matches(@"(?m)^Remove-Item Env:ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING -ErrorAction SilentlyContinue$", r.Stdout);
    }

    [Fact]
    public void Json()
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", Modules, "--allocations", "--format", "json"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject json = JsonNode.Parse(r.Stdout)!.AsObject();
        Assert.Equal(Repo.Rid, (string?)json["rid"]);
        Assert.Equal("a repository build", (string?)json["source"]);
        var env = json["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        AssertVariables(env, Modules, allocations: "sampled");
        Assert.Equal((string?)json["profiler"], env["CORECLR_PROFILER_PATH"]);
        Assert.Empty(json["unset"]!.AsArray());
    }

    [Fact]
    public void LaunchSettings()
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", Modules, "--format", "launchSettings"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject profile = JsonNode.Parse(r.Stdout)!["profiles"]!["AlvorKit Interception"]!.AsObject();
        Assert.Equal("Project", (string?)profile["commandName"]);
        var env = profile["environmentVariables"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        AssertVariables(env, Modules, allocations: null);
    }

    [Fact]
    public void AllocationsAloneLeavesModulesUnsetAndSaysPatchingIsOff()
    {
        ProcessResult r = Processes.Launcher(["env", "--allocations", "--format", "json"]);
        Assert.True(r.ExitCode == 0, r.ToString());
        JsonObject json = JsonNode.Parse(r.Stdout)!.AsObject();
        var env = json["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        AssertVariables(env, modules: null, allocations: "sampled");
        Assert.Equal(["ALVORKIT_INTERCEPTION_MODULES"], json["unset"]!.AsArray().Select(n => (string)n!));
        Assert.Contains("patching is off", r.Stderr);
    }

    [Theory]
    [InlineData("--allocations", "sampled")]
    [InlineData("--allocations=sampled", "sampled")]
    [InlineData("--allocations=exact", "exact")]
    public void AllocationsSetsTheModeItNames(string option, string value)
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", Modules, option]);
        Assert.True(r.ExitCode == 0, r.ToString());
        Assert.Matches($@"(?m)^export ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING='?{value}'?$", r.Stdout);

        ProcessResult ps = Processes.Launcher(["env", "--modules", Modules, option, "--format", "powershell"]);
        Assert.True(ps.ExitCode == 0, ps.ToString());
        Assert.Matches($@"(?m)^\$env:ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING = '{value}'$", ps.Stdout);
    }

    [Fact]
    public void StarIsRefusedWithoutIsolatedProof()
    {
        ProcessResult r = Processes.Launcher(["env", "--modules", "*"]);
        Assert.Equal(64, r.ExitCode);
        Assert.Empty(r.Stdout);
        Assert.Contains("'*' refused", r.Stderr);
        Assert.Contains("isolated proof", r.Stderr);

        ProcessResult proof = Processes.Launcher(["env", "--modules", "*", "--isolated-proof", "--format", "json"]);
        Assert.True(proof.ExitCode == 0, proof.ToString());
        Assert.Equal("*", (string?)JsonNode.Parse(proof.Stdout)!["environment"]!["ALVORKIT_INTERCEPTION_MODULES"]);
    }

    [Theory]
    [InlineData(new[] { "env" }, "give --modules")]
    [InlineData(new[] { "env", "--modules", "bin/Game.dll" }, "outside [A-Za-z0-9._-]")]
    [InlineData(new[] { "env", "--modules", "A", "--format", "fish" }, "--format fish")]
    [InlineData(new[] { "run", "--modules", "A" }, "no command given")]
    [InlineData(new[] { "env", "--allocations=on" }, "--allocations=on: give sampled or exact")]
    [InlineData(new[] { "launch" }, "Unrecognized command or argument 'launch'")]
    public void UsageErrorsExit64(string[] args, string message)
    {
        ProcessResult r = Processes.Launcher(args);
        Assert.Equal(64, r.ExitCode);
        Assert.Contains(message, r.Stderr);
    }

    /// <summary>The README's variables, the path absolute and existing, the same in each slot.</summary>
    internal static void AssertVariables(IReadOnlyDictionary<string, string> env, string? modules, string? allocations)
    {
        Assert.Equal("1", env["CORECLR_ENABLE_PROFILING"]);
        Assert.Equal(Clsid, env["CORECLR_PROFILER"]);
        string path = env["CORECLR_PROFILER_PATH"];
        Assert.True(Path.IsPathFullyQualified(path), path);
        Assert.True(File.Exists(path), path);
        Assert.Equal(Repo.LibraryFileName, Path.GetFileName(path));
        Assert.Equal(path, env["CORECLR_PROFILER_PATH_64"]);
        Assert.Equal(path, env["ALVORKIT_INTERCEPTION_PROFILER_PATH"]);
        if (Repo.IsArm64)
            Assert.Equal(path, env["CORECLR_PROFILER_PATH_ARM64"]);
        else
            Assert.False(env.ContainsKey("CORECLR_PROFILER_PATH_ARM64"));
        Assert.Equal(modules, env.GetValueOrDefault("ALVORKIT_INTERCEPTION_MODULES"));
        Assert.Equal(allocations, env.GetValueOrDefault("ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING"));
    }

    private static Dictionary<string, string> Matches(string text, string pattern) =>
        Regex.Matches(text, pattern, RegexOptions.Multiline)
            .ToDictionary(m => m.Groups[1].Value, m => m.Groups[2].Value.TrimEnd('\r'));
}
