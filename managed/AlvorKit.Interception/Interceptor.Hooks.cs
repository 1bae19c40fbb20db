using System.Reflection;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception;

public sealed partial class Interceptor
{
    /// <summary>The hook sets of the process (every interceptor's) and the internal owner that holds their
    /// woven bodies.</summary>
    internal static HookComposer Composer => HookComposer.Shared;

    /// <summary>
    /// Weaves a prefix, a postfix, a finalizer and/or a transpiler (Harmony's) into <paramref name="target"/>'s original IL:
    /// from its next call on, the target runs them around its own body, everywhere (callers that inlined it are
    /// re-JITted too). The hooks of every owner on the target are composed into one body; blocks this thread
    /// until the profiler's worker ran the command (<see cref="HookAsync"/> does not).
    /// </summary>
    /// <remarks>
    /// <para><b>Hooks.</b> A hook is a static, non-generic method. Its parameters are bound by name, before
    /// anything reaches the profiler (<see cref="HookBindingException"/> otherwise, naming the parameter, what
    /// it expected, what it found and a declaration that works):</para>
    /// <list type="bullet">
    /// <item><c>__instance</c>: the receiver. Class: the declaring type, a base, an interface it implements, or
    /// object. Struct: <c>ref T</c> (by value <c>T</c> is a copy; object or an interface: boxed copy;
    /// <c>ref object</c>: a boxed copy, unboxed back into the receiver after the hook).</item>
    /// <item><c>__result</c>: the result so far (default until the original or a hook sets it): <c>T</c>, or
    /// object (boxed), or <c>ref T</c> to change it, or <c>ref object</c> (boxed into a temporary, unboxed back
    /// after the hook). A ref-returning target: <c>ref T</c> is the returned
    /// reference (<c>T</c> or object read through it), so only postfixes take it: there is no reference before
    /// the original returned, nor after it threw (<see cref="HookBindingKind.RefResultNotReturned"/> for a prefix
    /// or finalizer). On a ref-returning target a prefix returns void and a finalizer returns void: skipping the
    /// original or swallowing its exception would return no reference
    /// (<see cref="HookBindingKind.NullReferenceReturn"/>), except a bool prefix that takes <c>__resultRef</c>.</item>
    /// <item><c>__resultRef</c> (a ref-returning target's prefix or postfix): <c>ref RefResult&lt;T&gt;</c>; a delegate
    /// the hook sets there is called once right after it, and its reference becomes the result (a bool prefix that
    /// sets it may skip the original). Elsewhere: <see cref="HookBindingKind.ResultRef"/>.</item>
    /// <item><c>__state</c>: one local per hook set (the hooks of one <see cref="Hook"/> call, or of one patch
    /// class on one target): a prefix takes it as <c>out T</c> or <c>ref T</c>; a postfix or finalizer as
    /// <c>T</c> or <c>ref T</c>. The local has the prefix's type; a hook may take it by value as any type it is
    /// assignable to (a prefix's <c>out List&lt;int&gt;</c>, a postfix's <c>IEnumerable&lt;int&gt;</c> or object;
    /// a value-type state boxed), by ref only as that very type (else <see cref="HookBindingKind.StateType"/>).</item>
    /// <item><c>__exception</c> (finalizers only): the exception the prefixes, the original or the postfixes
    /// threw, or null on success; type Exception.</item>
    /// <item><c>__runOriginal</c>: bool, by value: whether the original runs (in a prefix: so far) or ran.</item>
    /// <item><c>__originalMethod</c>: the target as MethodBase (or MethodInfo/ConstructorInfo/object); of a generic
    /// target, the instantiation running (<c>Bag&lt;int&gt;.Add</c>, <c>Pick&lt;string&gt;</c>), shared code included.</item>
    /// <item>An argument, by the target parameter's name or by position <c>__0</c>, <c>__1</c>...: by value
    /// (the same type, or object: boxed), or <c>ref T</c> for the argument's location (to change it). A target's
    /// ref/out/in argument: <c>ref T</c> is its location; by value (T or object) reads through it. <c>ref object</c>:
    /// boxed into a temporary, unboxed back into the argument after the hook (a by-value one too).</item>
    /// <item><c>___name</c> (three underscores): the field <c>name</c> of the target's declaring type or of a base
    /// class (<c>___0</c>: the type's first declared field), instance or static: by value (a copy; object: boxed) or
    /// <c>ref T</c> to change it (a struct receiver's field in place); a field whose type involves the target's
    /// generic parameters as object. None: <see cref="HookBindingKind.UnknownField"/>; an instance field of a static
    /// target: <see cref="HookBindingKind.InstanceFieldOnStaticTarget"/>; private to a base class or internal to
    /// another assembly (the woven body is the target's own code): <see cref="HookBindingKind.InaccessibleField"/>.</item>
    /// <item>Any of these under another name: <see cref="PatchArgumentAttribute"/> on the parameter (a name or a
    /// position), or on the hook method or its class with the parameter's name as <c>newName</c>.</item>
    /// <item><c>__args</c>: object[] of boxed copies of every argument, built before the hook; after it, every
    /// element is written back to its argument (ref/out included), so a hook may change arguments through it.</item>
    /// </list>
    /// <para>A target with generic parameters (a generic method, a method of a generic type) gets one woven body
    /// for all its instantiations: a value whose type involves a generic parameter (the receiver of a generic
    /// type, such an argument or result) is taken as object, boxed, and the hook runs for every instantiation;
    /// or as one instantiation (<c>int item</c>, <c>Bag&lt;int&gt; __instance</c>, <c>ref string item</c>), every
    /// such parameter agreeing on the generic arguments: the hook then runs for that instantiation only (the
    /// body tests <c>typeof(T) == typeof(int)</c>, which the JIT folds; shared code compares at run time, so a
    /// hook typed for <c>Bag&lt;string&gt;</c> does not run for <c>Bag&lt;object&gt;</c>), its values converted
    /// (box, unbox.any). A target given as one instantiation (<c>Box&lt;int&gt;.Get</c>) is woven into its
    /// definition, and its hooks, whatever they take, run for that instantiation only (Harmony's binding of a
    /// patch of one instantiation); a hook typed for another one is refused.</para>
    /// <para><b>Prefix</b>: returns void or bool. Prefixes run in order, by Harmony's rule: once one returned false,
    /// a later prefix that could change the outcome (returns bool, or takes anything but __instance,
    /// __originalMethod and __state by ref, out or as a reference type) is skipped, one that only reads values
    /// still runs; if any returned false, the original is skipped, and the result is what the prefixes set
    /// through <c>ref __result</c> (default otherwise). In a constructor, prefixes run first, before the base
    /// constructor call.</para>
    /// <para><b>Postfix</b>: returns void; or, pass-through, returns the target's return type and takes the result
    /// so far as its first parameter (any name): <c>__result = Postfix(__result, ...)</c>. Postfixes run whether
    /// or not the original ran, but not after an exception.</para>
    /// <para><b>Finalizer</b>: runs after everything else, on success too (<c>__exception</c> null). A void
    /// finalizer observes: an exception is rethrown with its original stack (<c>rethrow</c>). One that returns
    /// Exception decides: null swallows the exception (the target returns <c>__result</c>), another exception
    /// is thrown (on success too). When several finalizers run, each sees the exception the previous left. An
    /// exception a finalizer throws propagates. With finalizers, one try/catch(Exception) covers the prefixes,
    /// the original and the postfixes.</para>
    /// <para><b>Transpiler</b> (Harmony's): a static method
    /// <c>IEnumerable&lt;BodyInstruction&gt; Transpiler(IEnumerable&lt;BodyInstruction&gt; instructions)</c> that
    /// may also take <see cref="GenerationPlan"/> (to define labels and declare locals: Harmony's ILGenerator) and
    /// <see cref="MethodBase"/> (the target), in any order, bound by type. It gets the target's original
    /// instructions (<see cref="GenerationPlan.FromOriginal"/>) and returns the new ones; the body is built as:
    /// the original, then every transpiler of every owner in order (each gets the previous one's output), then
    /// the prefixes, postfixes and finalizers woven around the result. A target with only transpilers is valid.
    /// Transpilers run again each time the body is composed (every add or removal on the target): write them
    /// as pure functions of their input. One that throws, returns null, or makes a body that is not valid
    /// (<see cref="TranspilerException"/>) refuses the change: nothing is applied, the target keeps its body.</para>
    /// <para><b>Reverse patches</b> in a patch class: a static stub marked <see cref="PatchReversePatchAttribute"/>
    /// gets the original body of the method its own <see cref="PatchAttribute"/> (else the class's single one) names,
    /// as <see cref="ReversePatch"/> gives it; PatchAll applies the reverse patches first (one batch, held by the
    /// owner, not in the returned list: <see cref="PatchOwner.Patches"/>), then the hooks, and removes the reverse
    /// patches again when the hooks fail.</para>
    /// <para><b>Order and owners.</b> Per kind (transpilers too), hooks run by <see cref="HookMethod.Before"/>/<see cref="HookMethod.After"/>
    /// (owner names; Harmony IDs are owner names here), then <see cref="HookMethod.Priority"/> (higher first),
    /// then install order, as Harmony's PatchSorter orders them (so a port keeps its order): on a cycle of
    /// Before/After, one dependency of the least important waiting hook is dropped at a time. Every
    /// owner's hooks on a target are composed into ONE woven body, whichever interceptor added them (the
    /// composition is process-wide: two mods that each <see cref="Open"/> an interceptor compose on a shared
    /// target), held in the profiler by one internal owner of the process; adding or removing an owner's hooks
    /// weaves it again; the last removal restores the original. Each interceptor's <see cref="DefaultOwner"/>
    /// has its own name ("default owner", "default owner #2"...), and its <see cref="Dispose"/> removes only
    /// that owner's hooks. An owner disposed while hooks are being added to it either refuses them
    /// (ObjectDisposedException) or removes them.
    /// Between the woven body and a whole-body patch (Install, Replace, Apply of a plan, hot reload) on the same
    /// target, the profiler's owner rule holds: the body set last is in force, and each departure republishes
    /// the most recent remaining one; changing the hooks sets the woven body again.</para>
    /// <para><b>Calls.</b> A public hook of a public type whose assembly the target's AssemblyLoadContext resolves
    /// by name is called directly (<c>call</c>, through an AssemblyRef the generation adds: the JIT may inline
    /// it); any other hook through its entry point (<c>calli</c>).</para>
    /// <para><b>Not supported</b> (<see cref="HookBindingException"/>, each with its own <see cref="HookBindingKind"/>):
    /// abstract, extern or runtime-implemented targets (<see cref="HookBindingKind.TargetWithoutBody"/>), a body
    /// with <c>jmp</c> (<see cref="HookBindingKind.TargetUsesJmp"/>), generic hooks
    /// (<see cref="HookBindingKind.GenericHook"/>), instance hooks (<see cref="HookBindingKind.NotStatic"/>),
    /// varargs (<see cref="HookBindingKind.Varargs"/>), hooks of collectible assemblies
    /// (<see cref="HookBindingKind.CollectibleHook"/>: the woven body would keep calling into a context that can
    /// unload), a <c>__state</c> type the target's module cannot name (<see cref="HookBindingKind.UnreachableType"/>:
    /// the type, or a type inside it, is neither the module's nor reachable through an AssemblyRef it has or can
    /// add for the target's AssemblyLoadContext).</para>
    /// </remarks>
    /// <param name="target">The method (or constructor) with IL to hook, in a module ALVORKIT_INTERCEPTION_MODULES allows.</param>
    /// <param name="prefix">Runs before the original (null: none).</param>
    /// <param name="postfix">Runs after the original (null: none).</param>
    /// <param name="finalizer">Runs last, also after an exception (null: none).</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>. Disposing it removes these hooks.</param>
    /// <param name="transpiler">Edits the original's instructions before the hooks are woven around them (null:
    /// none; see the remarks).</param>
    /// <returns>The hook set, woven: the ReJIT is requested.</returns>
    /// <exception cref="HookBindingException">A hook does not fit the target, or the target cannot be hooked
    /// (nothing reached the profiler).</exception>
    /// <exception cref="PlanException">The woven body cannot be built for the target.</exception>
    /// <exception cref="TranspilerException">A transpiler threw, returned null, or made a body that is not valid:
    /// nothing was applied.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the woven body; the target keeps the
    /// body it had.</exception>
    public WovenPatch Hook(MethodBase target, HookMethod? prefix = null, HookMethod? postfix = null,
        HookMethod? finalizer = null, PatchOwner? owner = null, HookMethod? transpiler = null) =>
        Completed(HookCore(target, prefix, postfix, finalizer, owner, transpiler, synchronous: true,
            CancellationToken.None));

    /// <summary><see cref="Hook"/> without blocking the calling thread on the profiler's worker.</summary>
    /// <param name="target">As for <see cref="Hook"/>.</param>
    /// <param name="prefix">As for <see cref="Hook"/>.</param>
    /// <param name="postfix">As for <see cref="Hook"/>.</param>
    /// <param name="finalizer">As for <see cref="Hook"/>.</param>
    /// <param name="owner">As for <see cref="Hook"/>.</param>
    /// <param name="transpiler">As for <see cref="Hook"/> (before the token: a CancellationToken comes last).</param>
    /// <param name="cancellationToken">Stops the waiting; once the woven body is queued it is still applied
    /// and held as usual.</param>
    /// <returns>The hook set; the task fails with the exceptions <see cref="Hook"/> throws.</returns>
    public Task<WovenPatch> HookAsync(MethodBase target, HookMethod? prefix = null, HookMethod? postfix = null,
        HookMethod? finalizer = null, PatchOwner? owner = null, HookMethod? transpiler = null,
        CancellationToken cancellationToken = default) =>
        Detached(HookCore(target, prefix, postfix, finalizer, owner, transpiler, synchronous: false, cancellationToken),
            cancellationToken);

    /// <summary>
    /// Weaves every patch class of <paramref name="assembly"/> (a class with <see cref="PatchAttribute"/>, or
    /// with a hook that has one; see <see cref="PatchAll(Type, PatchOwner?)"/>), in a category or not, in ONE
    /// batch: every hook is bound first, every touched target's body is woven, and all are applied together, all
    /// or nothing. <see cref="PatchCategory"/> and <see cref="PatchAllUncategorized"/> select by category.
    /// </summary>
    /// <param name="assembly">The mod's assembly.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>One hook set per (patch class, target), in class, then declaration order.</returns>
    /// <exception cref="HookBindingException">A hook does not fit, a [Patch] names no (or an ambiguous) member, or a
    /// patch class has no hooks: nothing was applied.</exception>
    /// <exception cref="PatchClassException">A lifecycle method (Prepare, Cleanup, TargetMethod, TargetMethods)
    /// threw or returned what it must not: nothing was applied (unless a Cleanup returned it afterwards).</exception>
    /// <exception cref="BatchInstallException">The profiler refused the batch: nothing was applied.</exception>
    /// <exception cref="PatchException">The profiler failed a single-target change.</exception>
    /// <exception cref="ReversePatchException">A <see cref="PatchReversePatchAttribute"/> stub cannot receive its
    /// original (see <see cref="ReversePatch"/>): nothing was applied.</exception>
    public IReadOnlyList<WovenPatch> PatchAll(Assembly assembly, PatchOwner? owner = null)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        return PatchClasses(assembly, CorePatchConvention.Instance, _ => true, owner);
    }

    /// <summary>
    /// Weaves the hooks of one patch class (Harmony's <c>PatchAll</c> for one class) in one batch. A patch class
    /// holds static methods named Prefix, Postfix, Finalizer and Transpiler or marked <see cref="PatchPrefixAttribute"/>,
    /// <see cref="PatchPostfixAttribute"/>, <see cref="PatchFinalizerAttribute"/>, <see cref="PatchTranspilerAttribute"/>. <see cref="PatchAttribute"/> on
    /// the class names its targets (several: the hooks patch each, one hook set per target); on a hook method,
    /// that method alone patches the named target. <see cref="PatchPriorityAttribute"/>,
    /// <see cref="PatchBeforeAttribute"/> and <see cref="PatchAfterAttribute"/> on the class apply to its hooks;
    /// on a method they win over the class's.
    /// </summary>
    /// <remarks>
    /// Harmony's patch-class lifecycle: a Prepare method (<see cref="PatchPrepareAttribute"/>) is called first
    /// without a target (false skips the class), then once per target (false skips the target); TargetMethods or
    /// TargetMethod (<see cref="PatchTargetMethodsAttribute"/>, <see cref="PatchTargetMethodAttribute"/>) supply the
    /// targets instead of the attributes; with <see cref="PatchDeclaredMembersAttribute"/> every member of the type
    /// named by <c>[Patch(typeof(TheType))]</c> is a target; a Cleanup method (<see cref="PatchCleanupAttribute"/>) is
    /// called per target and once more at the end, with the exception if one occurred (returning Exception replaces
    /// it, null suppresses it). The Prepare calls and the binding come before the batch is applied, the Cleanup
    /// calls after it.
    /// </remarks>
    /// <param name="patchClass">The patch class.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>One hook set per target, in declaration order (none when Prepare skipped the class).</returns>
    /// <exception cref="HookBindingException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="PatchClassException">As for <see cref="PatchAll(Assembly, PatchOwner?)"/>.</exception>
    /// <exception cref="BatchInstallException">The profiler refused the batch: nothing was applied.</exception>
    /// <exception cref="PatchException">The profiler failed a single-target change.</exception>
    /// <exception cref="ReversePatchException">A <see cref="PatchReversePatchAttribute"/> stub cannot receive its
    /// original (see <see cref="ReversePatch"/>): nothing was applied.</exception>
    public IReadOnlyList<WovenPatch> PatchAll(Type patchClass, PatchOwner? owner = null)
    {
        ArgumentNullException.ThrowIfNull(patchClass);
        owner ??= DefaultOwner;
        PatchClassModel model = CorePatchConvention.Instance.Read(patchClass);
        PhaseProbe.Mark("read");
        return PatchModels([model], [owner, this], owner);
    }

    /// <summary>The classes of one batch, with their lifecycle (<see cref="PatchClassRun"/>): bound, then applied
    /// for <paramref name="owner"/>; <paramref name="context"/> is what their lifecycle methods may take.</summary>
    internal IReadOnlyList<WovenPatch> PatchModels(IReadOnlyList<PatchClassModel> classes, object[] context, PatchOwner owner)
    {
        ThrowIfDisposed();
        owner.ThrowIfDisposed();
        HookComposer composer = Composer;
        return PatchClassRun.Run(classes, context, Bind, (prepared, bound) =>
        {
            // Reverse patches first (Harmony's order), held by the owner; removed again when the hooks fail.
            List<DiscoveredReversePatch> reverse = [.. prepared.SelectMany(m => ReversePatchDiscovery.Discover(m.Type))];
            IReadOnlyList<Patch> reversed = reverse.Count == 0 ? [] : ApplyReversePatches(reverse, owner);
            PhaseProbe.Mark("reverse patches");
            try
            {
                if (bound.Count == 0)
                    return [];
                var sets = new List<WovenPatch>(bound.Count);
                foreach (BoundClassSet b in bound)
                    sets.Add(new WovenPatch(this, composer, b.Set.Target, owner, b.Hooks, Names.Of(b.Set.PatchClass),
                        b.Transpilers, b.Infixes));
                EnsurePatchingEnabled();
                PhaseProbe.Mark("sets made");
                return Completed(composer.AddAsync(sets, synchronous: true, CancellationToken.None));
            }
            catch (Exception e) when (reversed.Count > 0 &&
                                      e is InterceptionException or InvalidOperationException or NotSupportedException)
            {
                foreach (Patch patch in reversed)
                    patch.Remove();
                throw;
            }
        });

        static BoundClassSet Bind(DiscoveredSet d) => InfixBinder.BindDiscovered(d);
    }

    /// <summary>The reverse patches of a batch of patch classes, applied together (all or nothing) for the owner.</summary>
    private IReadOnlyList<Patch> ApplyReversePatches(IReadOnlyList<DiscoveredReversePatch> reverse, PatchOwner owner)
    {
        EnsurePatchingEnabled();
        foreach (DiscoveredReversePatch r in reverse)
            CheckStubModule(r.Original, r.Stub);
        List<GenerationPlan> plans = [.. reverse.Select(r =>
            ReversePatcher.Plan(r.Original, r.Stub, r.Transpiler is { } t ? new HookMethod(t) : null))];
        return ApplyMany(plans, owner);
    }

    private async ValueTask<WovenPatch> HookCore(MethodBase target, HookMethod? prefix, HookMethod? postfix,
        HookMethod? finalizer, PatchOwner? owner, HookMethod? transpiler, bool synchronous,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(target);
        ThrowIfDisposed();
        owner ??= DefaultOwner;
        owner.ThrowIfDisposed();
        MethodBase given = target;
        target = PatchDiscovery.Definition(target);
        (BoundSet bound, IReadOnlyList<BoundTranspiler> transpilers) = Transpilers.BindSet(target,
            prefix is null ? [] : [prefix], postfix is null ? [] : [postfix], finalizer is null ? [] : [finalizer],
            transpiler is null ? [] : [transpiler], given);
        EnsurePatchingEnabled();
        HookComposer composer = Composer;
        var set = new WovenPatch(this, composer, target, owner, bound, "Hook call", transpilers);
        await composer.AddAsync([set], synchronous, cancellationToken).ConfigureAwait(false);
        return set;
    }
}
