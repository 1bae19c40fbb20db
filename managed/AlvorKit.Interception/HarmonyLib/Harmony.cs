using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Internal;

#pragma warning disable CA1822 // Unpatch and UnpatchAll are instance methods in Harmony, so ports call them unchanged

namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// Harmony's entry point over the core: a mod written against Harmony's attribute API ports by changing
/// <c>using HarmonyLib;</c> to <c>using AlvorKit.Interception.HarmonyLib;</c>. An instance is an ID: its hooks
/// belong to one <see cref="PatchOwner"/> named by the ID (instances with the same ID share it), so
/// <see cref="HarmonyBefore"/>/<see cref="HarmonyAfter"/> order by IDs. Every instance patches through one
/// <see cref="Interceptor"/> of the process, opened on the first patch (the process must run under the
/// profiler: <see cref="InterceptionUnavailableException"/> otherwise). Patching goes through the core's patch
/// classes and <see cref="Interceptor.Hook"/>: the hooks are woven into the original IL, and the rules of
/// <see cref="Interceptor.Hook"/> apply.
/// </summary>
/// <remarks>
/// What differs from Harmony: <see cref="PatchAll(Assembly)"/> binds every class first and applies them in one batch
/// (all or nothing), so its Prepare calls all come before the batch and its Cleanup calls after it;
/// <see cref="Patch"/> returns the <see cref="WovenPatch"/> (there is no replacement method); a patch class or hook
/// that does not fit is a <see cref="HarmonyException"/> around the core's exception, with nothing applied; the
/// profiler's refusals are the core's exceptions. Transpilers, reverse patches, infixes, HarmonyDelegate and
/// AccessTools are not available.
/// </remarks>
public class Harmony
{
    /// <summary>A Harmony instance for <paramref name="id"/>.</summary>
    /// <param name="id">The mod's unique ID (the owner name of its hooks).</param>
    /// <exception cref="ArgumentException"><paramref name="id"/> is null or empty.</exception>
    public Harmony(string id)
    {
        if (string.IsNullOrEmpty(id))
            throw new ArgumentException("The Harmony ID is null or empty; expected a unique ID such as \"com.me.mymod\".", nameof(id));
        Id = id;
    }

    /// <summary>The ID.</summary>
    public string Id { get; }

    /// <summary>The owner that holds this ID's hooks: disposing it removes them (as <see cref="UnpatchAll"/> with
    /// this ID does, which keeps the owner usable).</summary>
    public PatchOwner Owner => HarmonyIds.OwnerOf(Id);

    /// <summary>Patches every Harmony patch class of the calling assembly (<see cref="PatchAll(Assembly)"/>). The
    /// caller is found on the stack, as Harmony does (the method is never inlined nor tail-called, so a call in
    /// tail position, <c>void Load() =&gt; harmony.PatchAll();</c>, finds it too).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [System.Security.DynamicSecurityMethod]
    public void PatchAll() => PatchAll(Assembly.GetCallingAssembly());

    /// <summary>Patches every Harmony patch class of <paramref name="assembly"/> (a class or struct with a class-level
    /// Harmony attribute), in a category or not, in one batch.</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <exception cref="HarmonyException">A patch class or hook does not fit: nothing was applied.</exception>
    public void PatchAll(Assembly assembly)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        PatchClasses(assembly, _ => true, $"the patch classes of {assembly.GetName().Name}");
    }

    /// <summary>Patches the Harmony patch classes of the calling assembly that have no category (found as for
    /// <see cref="PatchAll()"/>).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [System.Security.DynamicSecurityMethod]
    public void PatchAllUncategorized() => PatchAllUncategorized(Assembly.GetCallingAssembly());

    /// <summary>Patches the Harmony patch classes of <paramref name="assembly"/> that have no (or an empty)
    /// <see cref="HarmonyPatchCategory"/>, in one batch.</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <exception cref="HarmonyException">A patch class or hook does not fit: nothing was applied.</exception>
    public void PatchAllUncategorized(Assembly assembly)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        PatchClasses(assembly, string.IsNullOrEmpty, $"the uncategorized patch classes of {assembly.GetName().Name}");
    }

    /// <summary>Patches the Harmony patch classes of the calling assembly (found as for <see cref="PatchAll()"/>)
    /// in <paramref name="category"/>.</summary>
    /// <param name="category">The category's name.</param>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [System.Security.DynamicSecurityMethod]
    public void PatchCategory(string category) => PatchCategory(Assembly.GetCallingAssembly(), category);

    /// <summary>Patches the Harmony patch classes of <paramref name="assembly"/> whose
    /// <see cref="HarmonyPatchCategory"/> is <paramref name="category"/> (compared exactly), in one batch.</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <param name="category">The category's name.</param>
    /// <exception cref="HarmonyException">A patch class or hook does not fit: nothing was applied.</exception>
    public void PatchCategory(Assembly assembly, string category)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        ArgumentNullException.ThrowIfNull(category);
        PatchClasses(assembly, c => c == category, $"the patch classes of {assembly.GetName().Name} in the category '{category}'");
    }

    /// <summary>Removes the hooks of the calling assembly's patch classes in <paramref name="category"/> (found as for
    /// <see cref="PatchAll()"/>), whichever Harmony ID added them.</summary>
    /// <param name="category">The category's name.</param>
    [MethodImpl(MethodImplOptions.NoInlining)]
    [System.Security.DynamicSecurityMethod]
    public void UnpatchCategory(string category) => UnpatchCategory(Assembly.GetCallingAssembly(), category);

    /// <summary>Removes the hooks of the patch classes of <paramref name="assembly"/> in <paramref name="category"/>
    /// from every target, whichever Harmony ID added them (Harmony removes a class's hook methods).</summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <param name="category">The category's name.</param>
    public void UnpatchCategory(Assembly assembly, string category)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        ArgumentNullException.ThrowIfNull(category);
        HashSet<Type> classes = [.. PatchDiscovery.PatchClasses(assembly, HarmonyPatchConvention.Instance)
            .Where(t => HarmonyPatchConvention.CategoryOf(t) == category)];
        if (classes.Count == 0)
            return;
        List<WovenPatch> sets = [.. HarmonyIds.All.SelectMany(o => o.WovenPatches).Where(s => s.IsInstalled)];
        HarmonyIds.RemoveHooks(sets, (h, _) => h.Method.DeclaringType is { } declaring && classes.Contains(declaring));
    }

    /// <summary>Weaves hooks into <paramref name="original"/> for this ID, as one hook set.</summary>
    /// <param name="original">The method or constructor to patch.</param>
    /// <param name="prefix">A prefix (null: none).</param>
    /// <param name="postfix">A postfix (null: none).</param>
    /// <param name="transpiler">A transpiler (null: none), over <see cref="BodyInstruction"/>s: see
    /// <see cref="Interceptor.Hook"/>.</param>
    /// <param name="finalizer">A finalizer (null: none).</param>
    /// <returns>The hook set, woven (where Harmony returns the replacement method).</returns>
    /// <exception cref="HarmonyException">A hook does not fit the target: nothing was applied.</exception>
    public WovenPatch Patch(MethodBase original, HarmonyMethod? prefix = null, HarmonyMethod? postfix = null,
        HarmonyMethod? transpiler = null, HarmonyMethod? finalizer = null)
    {
        ArgumentNullException.ThrowIfNull(original);
        try
        {
            return HarmonyIds.Interceptor.Hook(original, prefix?.ToHookMethod(), postfix?.ToHookMethod(),
                finalizer?.ToHookMethod(), Owner, transpiler?.ToHookMethod());
        }
        catch (InterceptionException e) when (e is HookBindingException or PlanException)
        {
            throw new HarmonyException($"Patching exception in method {Names.Of(original)}: {e.Message}", e);
        }
    }

    /// <summary>Removes the hooks of <paramref name="type"/> from <paramref name="original"/>: this ID's, another
    /// ID's, or every Harmony ID's ("*").</summary>
    /// <param name="original">The patched method.</param>
    /// <param name="type">Which hooks (<see cref="HarmonyPatchType.All"/>: every kind).</param>
    /// <param name="harmonyID">Whose hooks: a Harmony ID, or "*" for every Harmony ID.</param>
    public void Unpatch(MethodBase original, HarmonyPatchType type, string harmonyID = "*")
    {
        ArgumentNullException.ThrowIfNull(original);
        ArgumentNullException.ThrowIfNull(harmonyID);
        HookKind? kind = type switch
        {
            HarmonyPatchType.Prefix => HookKind.Prefix,
            HarmonyPatchType.Postfix => HookKind.Postfix,
            HarmonyPatchType.Finalizer => HookKind.Finalizer,
            HarmonyPatchType.Transpiler => HookKind.Transpiler,
            _ => null,
        };
        if (kind is null && type != HarmonyPatchType.All)
            return;
        IEnumerable<PatchOwner> owners = harmonyID == "*" ? HarmonyIds.All
            : HarmonyIds.Find(harmonyID) is { } owner ? [owner] : [];
        HarmonyIds.RemoveHooks(SetsOn(original, owners), (_, k) => kind is null || k == kind);
    }

    /// <summary>Removes the hook <paramref name="patch"/> from <paramref name="original"/>, whichever Harmony ID
    /// added it.</summary>
    /// <param name="original">The patched method.</param>
    /// <param name="patch">The hook method to remove.</param>
    public void Unpatch(MethodBase original, MethodInfo patch)
    {
        ArgumentNullException.ThrowIfNull(original);
        ArgumentNullException.ThrowIfNull(patch);
        HarmonyIds.RemoveHooks(SetsOn(original, HarmonyIds.All), (h, _) => h.Method == patch);
    }

    /// <summary>Removes every hook of <paramref name="harmonyID"/>, or of every Harmony ID when null (hooks added
    /// through the core with other owners stay). Each target gets the body the remaining hooks make, or its original.</summary>
    /// <param name="harmonyID">A Harmony ID; null: every Harmony ID.</param>
    public void UnpatchAll(string? harmonyID = null)
    {
        IEnumerable<PatchOwner> owners = harmonyID is null ? HarmonyIds.All
            : HarmonyIds.Find(harmonyID) is { } owner ? [owner] : [];
        List<WovenPatch> sets = [.. owners.SelectMany(o => o.WovenPatches).Where(s => s.IsInstalled)];
        if (sets.Count > 0)
            Interceptor.Completed(Interceptor.Composer.RemoveAsync(sets, synchronous: true, CancellationToken.None));
    }

    /// <summary>Whether <paramref name="harmonyID"/> has hooks woven now.</summary>
    /// <param name="harmonyID">A Harmony ID.</param>
    /// <returns>True when it holds at least one hook set.</returns>
    public static bool HasAnyPatches(string harmonyID)
    {
        ArgumentNullException.ThrowIfNull(harmonyID);
        return HarmonyIds.Find(harmonyID)?.WovenPatches.Any(s => s.IsInstalled) ?? false;
    }

    /// <summary>The methods this ID has hooks on now.</summary>
    /// <returns>Each patched method once (generic ones as their definitions).</returns>
    public IEnumerable<MethodBase> GetPatchedMethods() =>
        HarmonyIds.Targets(HarmonyIds.Find(Id)?.WovenPatches.Where(s => s.IsInstalled) ?? []);

    /// <summary>The methods any Harmony ID has hooks on now.</summary>
    /// <returns>Each patched method once.</returns>
    public static IEnumerable<MethodBase> GetAllPatchedMethods() =>
        HarmonyIds.Targets(HarmonyIds.All.SelectMany(o => o.WovenPatches).Where(s => s.IsInstalled));

    /// <inheritdoc/>
    public override string ToString() => $"Harmony '{Id}'";

    private void PatchClasses(Assembly assembly, Func<string?, bool> select, string what)
    {
        try
        {
            HarmonyIds.Interceptor.PatchClasses(assembly, HarmonyPatchConvention.Instance, select, Owner, [this]);
        }
        catch (Exception e) when (e is not (InterceptionUnavailableException or PatchException or BatchInstallException or
                                       HarmonyException or OutOfMemoryException))
        {
            throw new HarmonyException($"Patching {what} for '{Id}': {e.Message}", e);
        }
    }

    private static List<WovenPatch> SetsOn(MethodBase original, IEnumerable<PatchOwner> owners)
    {
        MethodBase target = PatchTargets.Definition(original);
        return [.. owners.SelectMany(o => o.WovenPatches).Where(s => s.IsInstalled && Interception.Patch.SameMethod(s.Target, target))];
    }
}
