using System.Text.Json.Nodes;
using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>samples/PackageConsumer restored from the local feed through its own NuGet.config,
/// then started under the launcher: it patches its own method and puts it back. Also the
/// launcher as a .NET tool installed from the same feed.</summary>
[Collection(PackagesCollection.Name)]
public class PackageConsumerTests(PackagesFixture packages)
{
    [Fact]
    public void TheSampleRestoresFromTheLocalFeedAndRunsPatched()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        using var temp = new TempDir("consumer");
        string cache = temp.Sub("packages"); // a fresh global packages folder: nothing stale, nothing shared
        string artifacts = Path.Combine(temp.Path, "artifacts");
        ProcessResult build = Processes.Run("dotnet",
            ["build", Path.Combine(Repo.Root, "samples", "PackageConsumer", "PackageConsumer.csproj"), "-c", "Release",
             "--packages", cache, "--artifacts-path", artifacts, "-nologo", "-v", "quiet"],
            timeout: TimeSpan.FromMinutes(3));
        Assert.True(build.ExitCode == 0, build.ToString());

        // Both packages came from the local folder feed.
        foreach (string id in new[] { "alvorkit.interception", "alvorkit.interception.profiler.native" })
        {
            string metadata = Path.Combine(cache, id, PackagesFixture.Version, ".nupkg.metadata");
            Assert.True(File.Exists(metadata), metadata);
            Assert.Equal(packages.Feed, ((string)JsonNode.Parse(File.ReadAllText(metadata))!["source"]!).TrimEnd('/', '\\'));
        }

        // The native package put the library in the output: the SDK's runtimes/<rid>/native/
        // copy, and the buildTransitive copy next to the app.
        string output = Path.Combine(artifacts, "bin", "PackageConsumer", "release");
        string app = Path.Combine(output, "PackageConsumer.dll");
        string nextToApp = Path.Combine(output, Repo.LibraryFileName);
        Assert.True(File.Exists(app), app);
        Assert.True(File.Exists(nextToApp), nextToApp);
        Assert.True(File.Exists(Path.Combine(output, "runtimes", Repo.Rid, "native", Repo.LibraryFileName)));
        Assert.Equal(File.ReadAllBytes(Repo.NativeLibrary), File.ReadAllBytes(nextToApp));

        // Without the profiler it says so and stops.
        ProcessResult plain = Processes.Run("dotnet", [app]);
        Assert.Equal(3, plain.ExitCode);
        Assert.Contains("original: Scoring.Score(20) = 41", plain.Stdout);
        Assert.Contains("PackageConsumer: the profiler is not available (", plain.Stderr);

        // Under the launcher: original, patched, restored.
        ProcessResult run = Processes.Launcher(["run", "--modules", "PackageConsumer", "--", "dotnet", app]);
        Assert.Contains($"(from the app's output)", run.Stderr);
        JsonObject report = AssertPatchedAndRestored(run, nextToApp);
        // The app (built without a RID) loads the package's assemblies precompiled for this RID:
        // the SDK copied runtimes/<rid>/lib/ into the output and listed it in the app's
        // deps.json, and the host takes it over the IL images of lib/ on this RID.
        string precompiled = Path.Combine(output, "runtimes", Repo.Rid, "lib", "net10.0");
        Assert.Equal(Path.Combine(precompiled, "AlvorKit.Interception.Native.dll"), (string?)report["bindingAssembly"]);
        Assert.Equal(PackageLayoutTests.ApiExpected ? Path.Combine(precompiled, "AlvorKit.Interception.dll") : null,
                     (string?)report["apiAssembly"]);
        Assert.Equal(Repo.Rid, ManagedImage.Read(File.ReadAllBytes((string)report["bindingAssembly"]!)).CompiledFor);
        // The IL images are beside the app for any other runtime.
        Assert.True(ManagedImage.Read(File.ReadAllBytes(Path.Combine(output, "AlvorKit.Interception.Native.dll"))).IsIlOnly);
    }

    /// <summary>The sample's run under the profiler at `library`: original, patched, restored,
    /// in its output and its report (returned), through the API when the package carries it,
    /// else the binding's low-level calls.</summary>
    internal static JsonObject AssertPatchedAndRestored(ProcessResult run, string library)
    {
        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Contains("original: Scoring.Score(20) = 41", run.Stdout);
        Assert.Contains("patched: Scoring.Score(20) = 2000 (install Ok)", run.Stdout);
        Assert.Contains("restored: Scoring.Score(20) = 41 (remove Ok)", run.Stdout);
        JsonObject report = run.Report;
        Assert.True((bool)report["ok"]!, report.ToJsonString());
        Assert.Equal(41, (int)report["original"]!);
        Assert.Equal(2000, (int)report["patched"]!);
        Assert.Equal(41, (int)report["restored"]!);
        Assert.Equal("Ok", (string?)report["install"]);
        Assert.Equal("Ok", (string?)report["remove"]);
        Assert.Equal(3, (int)report["abiMajor"]!);
        Assert.Equal(library, (string?)report["profiler"]);
        Assert.Equal(PackageLayoutTests.ApiExpected ? "api" : "binding", (string?)report["via"]);
        return report;
    }

    [Fact]
    public void TheInstalledToolFindsTheLibraryItCarries()
    {
        Assert.True(packages.Result.ExitCode == 0, packages.Result.ToString());
        using var temp = new TempDir("tool");
        string toolPath = temp.Sub("tools");
        ProcessResult install = Processes.Run("dotnet",
            ["tool", "install", "--tool-path", toolPath, "--add-source", packages.Feed, "--ignore-failed-sources",
             "AlvorKit.Interception.Launcher", "--version", PackagesFixture.Version],
            workingDirectory: temp.Path, timeout: TimeSpan.FromMinutes(2));
        Assert.True(install.ExitCode == 0, install.ToString());

        string command = Path.Combine(toolPath, OperatingSystem.IsWindows() ? "alvorkit-intercept.exe" : "alvorkit-intercept");
        ProcessResult env = Processes.Run(command, ["env", "--modules", "Game.Logic", "--format", "json"],
            Processes.WithEmptyNuGetCache(), temp.Path);
        Assert.True(env.ExitCode == 0, env.ToString());
        JsonObject json = JsonNode.Parse(env.Stdout)!.AsObject();
        Assert.Equal("next to the launcher", (string?)json["source"]);
        string path = (string)json["profiler"]!;
        Assert.StartsWith(Path.Combine(toolPath, ".store", "alvorkit.interception.launcher"), path);
        Assert.EndsWith(Path.Combine("runtimes", Repo.Rid, "native", Repo.LibraryFileName), path);
        Assert.Equal(File.ReadAllBytes(Repo.NativeLibrary), File.ReadAllBytes(path));
        var variables = json["environment"]!.AsObject().ToDictionary(p => p.Key, p => (string)p.Value!);
        EnvCommandTests.AssertVariables(variables, "Game.Logic", allocations: null);

        // run --reload from the package: its startup hook, and the AlvorKit assemblies the hook
        // loads, lie beside the installed launcher.
        string drop = Path.Combine(temp.Path, "drop");
        ProcessResult reload = Processes.Run(command,
            ["run", "--reload", drop, "--modules", "EnvProbe", "--", "dotnet", Repo.EnvProbe, "env"],
            Processes.WithEmptyNuGetCache(), temp.Path);
        Assert.True(reload.ExitCode == 0, reload.ToString());
        Assert.Contains($"alvorkit-reload: watching {drop} for updates (patchable: EnvProbe)", reload.Stderr);
        string hook = (string)reload.Report["environment"]!["DOTNET_STARTUP_HOOKS"]!;
        Assert.StartsWith(Path.Combine(toolPath, ".store", "alvorkit.interception.launcher"), hook);
        Assert.EndsWith("AlvorKit.Interception.StartupHook.dll", hook);
    }
}
