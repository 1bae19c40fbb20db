using Xunit;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>No library for this RID: a clear error naming the RID, the file name and where
/// the launcher looked, exit code 2, and the command never starts.</summary>
public class MissingProfilerTests
{
    [Fact]
    public void AProfilerOptionNamingNoFile()
    {
        string missing = Path.Combine(Path.GetTempPath(), "alvk-no-such-dir", Repo.LibraryFileName);
        ProcessResult r = Processes.Launcher(["run", "--modules", "EnvProbe", "--profiler", missing, "--",
            "dotnet", Repo.EnvProbe, "env"]);
        Assert.Equal(2, r.ExitCode);
        Assert.Empty(r.Stdout); // the child never ran
        Assert.Contains($"no AlvorKit Interception Profiler library for RID {Repo.Rid}", r.Stderr);
        Assert.Contains($"expected a file named {Repo.LibraryFileName}", r.Stderr);
        Assert.Contains($"--profiler: {missing}", r.Stderr);
    }

    [Fact]
    public void ALauncherAloneInAFolderOutsideAnyCheckout()
    {
        using var temp = new TempDir("lonely");
        string tool = temp.Sub("tool");
        string work = temp.Sub("work");
        foreach (string name in new[] { ".dll", ".runtimeconfig.json", ".deps.json" })
            File.Copy(Path.ChangeExtension(Repo.Launcher, null) + name, Path.Combine(tool, "AlvorKit.Interception.Launcher" + name));
        // and the launcher's one dependency, the command-line parser
        File.Copy(Path.Combine(Path.GetDirectoryName(Repo.Launcher)!, "System.CommandLine.dll"), Path.Combine(tool, "System.CommandLine.dll"));
        string launcher = Path.Combine(tool, "AlvorKit.Interception.Launcher.dll");
        string marker = Path.Combine(work, "ran");

        foreach (string[] args in new[]
                 {
                     new[] { "env", "--modules", "Game" },
                     new[] { "run", "--modules", "Game", "--", "touch", marker },
                 })
        {
            ProcessResult r = Processes.Launcher(args, workingDirectory: work, launcher: launcher);
            Assert.True(r.ExitCode == 2, r.ToString());
            Assert.Empty(r.Stdout);
            Assert.Contains($"no AlvorKit Interception Profiler library for RID {Repo.Rid}: expected a file named {Repo.LibraryFileName}", r.Stderr);
            Assert.Contains("ALVORKIT_INTERCEPTION_PROFILER_PATH: unset", r.Stderr);
            Assert.Contains($"next to the launcher: {Path.Combine(tool, "runtimes", Repo.Rid, "native", Repo.LibraryFileName)}", r.Stderr);
            Assert.Contains("the AlvorKit.Interception.Profiler.Native package", r.Stderr);
            Assert.Contains("a repository checkout: none", r.Stderr);
            Assert.False(File.Exists(marker), "the command ran although the profiler is missing");
        }
    }
}
