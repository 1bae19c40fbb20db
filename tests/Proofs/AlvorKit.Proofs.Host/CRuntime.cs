using System.Runtime.InteropServices;

namespace AlvorKit.Proofs.Host;

/// <summary>The C runtime's `int abs(int)`, which the unmanaged calli proofs call: libc on
/// Linux, msvcrt on Windows (the win-x64 host under Wine).</summary>
internal static class CRuntime
{
    /// <summary>The address of the C runtime's `abs`.</summary>
    public static IntPtr Abs() =>
        NativeLibrary.GetExport(NativeLibrary.Load(OperatingSystem.IsWindows() ? "msvcrt.dll" : "libc.so.6"), "abs");
}
