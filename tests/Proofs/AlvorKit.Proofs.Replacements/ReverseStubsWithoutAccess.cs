using System.Runtime.CompilerServices;

namespace AlvorKit.Proofs.Replacements;

/// <summary>A reverse-patch stub in an assembly that does NOT ignore access checks to the host (TranspileProof):
/// given Vault.Rate's body (a private static field of the host), it is refused, and when forced, CoreCLR makes
/// it throw.</summary>
public static class ReverseStubsWithoutAccess
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int Rate(int x) => -1;
}
