using System.Runtime.CompilerServices;
using AlvorKit.Proofs.Host;

// The stubs below get bodies of the host's Vault, which read its private members: CoreCLR lets this
// assembly's code use them because it names the host here.
[assembly: IgnoresAccessChecksTo("AlvorKit.Proofs.Host")]

namespace System.Runtime.CompilerServices
{
    /// <summary>Declared by the mod itself: CoreCLR matches the attribute by its full name.</summary>
    [AttributeUsage(AttributeTargets.Assembly, AllowMultiple = true)]
    internal sealed class IgnoresAccessChecksToAttribute(string assemblyName) : Attribute
    {
        public string AssemblyName { get; } = assemblyName;
    }
}

namespace AlvorKit.Proofs.HookMod
{
    /// <summary>Reverse-patch stubs of the host's Vault (TranspileProof): each returns -1 until its body is the
    /// original's.</summary>
    public static class VaultStubs
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Worth(Vault self, int x) => -1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WorthTranspiled(Vault self, int x) => -1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Bonus(Vault self, int x) => -1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Rate(int x) => -1;
    }
}

namespace AlvorKit.Proofs.HookMod
{
    /// <summary>Reverse patches declared in a patch class (PatchAll): a stub, and one whose transpiler makes the
    /// 100 a 1000.</summary>
    public static class VaultReversePatches
    {
        [AlvorKit.Interception.PatchReversePatch]
        [AlvorKit.Interception.Patch(typeof(Vault), nameof(Vault.Worth))]
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Worth(Vault self, int x) => -1;

        [AlvorKit.Interception.PatchReversePatch(Transpiler = nameof(Edit))]
        [AlvorKit.Interception.Patch(typeof(Vault), nameof(Vault.Worth))]
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int WorthEdited(Vault self, int x) => -1;

        public static IEnumerable<AlvorKit.Interception.BodyInstruction> Edit(
            IEnumerable<AlvorKit.Interception.BodyInstruction> instructions) => TranspileEdits.HundredToThousand(instructions);
    }
}
