using System.Reflection;
using AlvorKit.Interception.Hooks;

namespace AlvorKit.Interception;

public sealed partial class Interceptor
{
    /// <summary>Weaves the patch classes of <paramref name="assembly"/> in the category
    /// <paramref name="category"/> (<see cref="PatchCategoryAttribute"/>, compared exactly), in one batch, as
    /// <see cref="PatchAll(Assembly, PatchOwner?)"/> does (Harmony's PatchCategory).</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <param name="category">The category's name.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>One hook set per (patch class, target); none when no class is in the category.</returns>
    /// <exception cref="HookBindingException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="PatchClassException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="BatchInstallException">The profiler refused the batch: nothing was applied.</exception>
    public IReadOnlyList<WovenPatch> PatchCategory(Assembly assembly, string category, PatchOwner? owner = null)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        ArgumentNullException.ThrowIfNull(category);
        return PatchClasses(assembly, CorePatchConvention.Instance, c => c == category, owner);
    }

    /// <summary>Weaves the patch classes of <paramref name="assembly"/> that are in no category (no
    /// <see cref="PatchCategoryAttribute"/>, or an empty one), in one batch (Harmony's PatchAllUncategorized).</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>One hook set per (patch class, target).</returns>
    /// <exception cref="HookBindingException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="PatchClassException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="BatchInstallException">The profiler refused the batch: nothing was applied.</exception>
    public IReadOnlyList<WovenPatch> PatchAllUncategorized(Assembly assembly, PatchOwner? owner = null)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        return PatchClasses(assembly, CorePatchConvention.Instance, string.IsNullOrEmpty, owner);
    }

    /// <summary>The patch classes of <paramref name="assembly"/> under <paramref name="convention"/> whose category
    /// (null: none) <paramref name="select"/> accepts, in one batch with their lifecycle.</summary>
    internal IReadOnlyList<WovenPatch> PatchClasses(Assembly assembly, IPatchConvention convention,
        Func<string?, bool> select, PatchOwner? owner, object[]? context = null)
    {
        ThrowIfDisposed();
        owner ??= DefaultOwner;
        List<PatchClassModel> classes = [.. PatchDiscovery.PatchClasses(assembly, convention)
            .Select(convention.Read).Where(m => select(m.Category))];
        return PatchModels(classes, context ?? [owner, this], owner);
    }
}
