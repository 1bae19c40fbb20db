using System.Runtime.InteropServices;
using AlvorKit.Interception.Launcher;
using AlvorKit.Tests.Support;

namespace AlvorKit.Interception.Launcher.Tests;

/// <summary>Paths of the checkout these tests run in.</summary>
internal static class Repo
{
    public static string Root => Checkout.Root;

    public static string Configuration => Checkout.Configuration;

    public static string Rid { get; } = Rids.Current();

    public static string LibraryFileName { get; } = Rids.LibraryFileName(Rid);

    /// <summary>The library build.sh builds (build/native-release), which the CLI tests expect
    /// the launcher to find when run from the checkout.</summary>
    public static string NativeLibrary { get; } = Required(Path.Combine(Root, "build", "native-release", "native",
        "interception-profiler", LibraryFileName), "build the native library first: ./build.sh native");

    /// <summary>The launcher copy in this test's output (see the csproj).</summary>
    public static string Launcher { get; } = Required(Path.Combine(AppContext.BaseDirectory,
        "AlvorKit.Interception.Launcher.dll"), "build tests/Launcher");

    public static string EnvProbe { get; } = Required(Path.Combine(Root, "tests", "Launcher", "EnvProbe", "bin",
        Configuration, "net10.0", "EnvProbe.dll"), "build tests/Launcher");

    public static bool IsArm64 => RuntimeInformation.ProcessArchitecture == Architecture.Arm64;

    private static string Required(string path, string hint) =>
        File.Exists(path) ? path : throw new FileNotFoundException($"{path} is missing: {hint}");
}

/// <summary>A folder under the system temp folder, deleted on Dispose.</summary>
internal sealed class TempDir(string prefix) : IDisposable
{
    public string Path { get; } = Directory.CreateTempSubdirectory($"alvk-{prefix}-").FullName;

    public string Sub(string name) => Directory.CreateDirectory(System.IO.Path.Combine(Path, name)).FullName;

    public void Dispose()
    {
        try { Directory.Delete(Path, recursive: true); }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
    }
}
