using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Loader;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// `watch` compiles with the .NET SDK's own C# compiler: the Microsoft.CodeAnalysis assemblies
/// of the SDK that `dotnet` picks in the current folder (its global.json respected), loaded from
/// its Roslyn/bincore folder. That is the compiler `dotnet build` runs, so an unchanged method
/// compiles to the IL the game loaded; and it is ReadyToRun, so a save does not wait for the
/// JIT to compile the compiler (the Microsoft.CodeAnalysis package is IL only). The launcher
/// builds against the package of the same version and ships no copy (ExcludeAssets="runtime").
/// </summary>
internal static class SdkCompiler
{
    private static readonly Lazy<string?> Folder = new(Locate);

    /// <summary>The SDK's compiler folder, or null when there is none.</summary>
    public static string? Directory => Folder.Value;

    [ModuleInitializer]
    internal static void Register() => AssemblyLoadContext.Default.Resolving += Resolve;

    /// <summary>Throws the launcher's error when the SDK's compiler cannot be found.</summary>
    public static void Require()
    {
        if (Directory is null)
            throw new LauncherException(ExitCodes.BuildFailed,
                "watch compiles with the .NET SDK's own C# compiler, and found none: `dotnet --version` names no SDK " +
                $"with a Roslyn/bincore folder under {DotnetRoot()}. Install the .NET 10 SDK.");
    }

    private static Assembly? Resolve(AssemblyLoadContext context, AssemblyName name)
    {
        if (name.Name is not { } simple || !simple.StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal) ||
            Directory is not { } folder)
            return null;
        string path = Path.Combine(folder, simple + ".dll");
        return File.Exists(path) ? context.LoadFromAssemblyPath(path) : null;
    }

    private static string? Locate()
    {
        string sdks = Path.Combine(DotnetRoot(), "sdk");
        if (SdkVersion() is { } version && Bincore(Path.Combine(sdks, version)) is { } chosen)
            return chosen;
        return null;
    }

    private static string? Bincore(string sdk)
    {
        string folder = Path.Combine(sdk, "Roslyn", "bincore");
        return File.Exists(Path.Combine(folder, "Microsoft.CodeAnalysis.CSharp.dll")) ? folder : null;
    }

    // The runtime running the launcher is <root>/shared/Microsoft.NETCore.App/<version>/.
    private static string DotnetRoot() =>
        Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));

    private static string? SdkVersion()
    {
        string host = Path.Combine(DotnetRoot(), OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet");
        var start = new ProcessStartInfo(File.Exists(host) ? host : "dotnet", "--version")
        {
            RedirectStandardOutput = true, // its errors, if any, go to the watcher's stderr
            UseShellExecute = false,
        };
        try
        {
            using Process? process = Process.Start(start);
            if (process is null)
                return null;
            string version = process.StandardOutput.ReadToEnd().Trim();
            process.WaitForExit();
            return process.ExitCode == 0 && version.Length > 0 ? version : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }
}
