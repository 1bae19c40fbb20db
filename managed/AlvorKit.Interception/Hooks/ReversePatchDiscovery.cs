using System.Reflection;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception.Hooks;

/// <summary>One reverse patch a patch class declares: the original, the stub, its transpiler (or null).</summary>
internal sealed record DiscoveredReversePatch(MethodBase Original, MethodInfo Stub, MethodInfo? Transpiler);

/// <summary>
/// Finds the reverse patches of a patch class: its methods marked <see cref="PatchReversePatchAttribute"/>, each
/// with the original its own <see cref="PatchAttribute"/> names, or the class's single one.
/// </summary>
internal static class ReversePatchDiscovery
{
    private const BindingFlags Declared = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                                          BindingFlags.Instance | BindingFlags.DeclaredOnly;

    /// <summary>Whether the class declares a reverse-patch stub (without resolving its original).</summary>
    public static bool Declares(Type patchClass) =>
        patchClass.GetMethods(Declared).Any(m => m.IsDefined(typeof(PatchReversePatchAttribute), false));

    /// <summary>The class's reverse patches, in declaration order (HookBindingException: no original, or several).</summary>
    public static IReadOnlyList<DiscoveredReversePatch> Discover(Type patchClass)
    {
        var found = new List<DiscoveredReversePatch>();
        foreach (MethodInfo stub in patchClass.GetMethods(Declared).OrderBy(m => m.MetadataToken))
        {
            if (stub.GetCustomAttribute<PatchReversePatchAttribute>(false) is not { } reverse)
                continue;
            List<PatchAttribute> patches = [.. stub.GetCustomAttributes<PatchAttribute>(false)];
            if (patches.Count == 0)
                patches = [.. patchClass.GetCustomAttributes<PatchAttribute>(false)];
            if (patches.Count != 1)
                throw HookBinder.Refuse(HookBindingKind.TargetNotFound, stub, null, -1, null, null,
                    $"The reverse-patch stub {Names.Of(stub)} of {Names.Of(patchClass)} names " +
                    $"{(patches.Count == 0 ? "no original" : $"{patches.Count} originals")}: put one " +
                    "[Patch(typeof(TheType), \"TheMethod\")] on the stub (or one on its class).");
            MethodBase original = PatchTargets.Definition(
                PatchTargets.Resolve(CorePatchConvention.Spec(patches[0], $"[Patch] on {Names.Of(stub)}"), stub));
            MethodInfo? transpiler = null;
            if (reverse.Transpiler is { } name)
            {
                MethodInfo[] named = [.. patchClass.GetMethods(Declared).Where(m => m.Name == name)];
                if (named.Length != 1)
                    throw HookBinder.Refuse(HookBindingKind.TargetNotFound, stub, original, -1, null, null,
                        $"[PatchReversePatch(Transpiler = \"{name}\")] on {Names.Of(stub)} names " +
                        $"{(named.Length == 0 ? "no method" : $"{named.Length} methods")} of {Names.Of(patchClass)}; " +
                        $"declare one: static IEnumerable<BodyInstruction> {name}(IEnumerable<BodyInstruction> instructions).");
                transpiler = named[0];
            }
            found.Add(new DiscoveredReversePatch(original, stub, transpiler));
        }
        return found;
    }
}
