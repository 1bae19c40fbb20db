using System.Reflection;
using AlvorKit.Interception.Hooks;

namespace AlvorKit.Interception;

public sealed partial class Interceptor
{
    /// <summary>
    /// Weaves an inner prefix and/or inner postfix (Harmony's infix) around calls of <paramref name="callee"/>
    /// inside <paramref name="target"/>'s original IL: the hooks run just before and just after that call, and
    /// see and change its arguments and result. Composed with every owner's hooks on the target like
    /// <see cref="Hook"/> (after the transpilers, before the prefixes, postfixes and finalizers are woven around
    /// the body); removing the set weaves the target again from the others.
    /// </summary>
    /// <remarks>
    /// <para>An inner hook is a static, non-generic method. Its parameters are bound by name:</para>
    /// <list type="bullet">
    /// <item>a parameter name of the callee, or <c>__0</c>, <c>__1</c>...: that argument of the call (the
    /// callee's type, or a base/object for a reference; <c>ref T</c> to change what the call receives);</item>
    /// <item><c>__instance</c>: the call's receiver (a class's instance method; by value);</item>
    /// <item><c>__result</c>: the call's result: in an inner postfix what it returned (<c>ref T</c> to change what
    /// the target gets); in an inner prefix <c>ref T</c> sets the result used when the call is skipped
    /// (default otherwise).</item>
    /// </list>
    /// <para>An inner prefix returns void, or bool: false skips the call (every inner prefix still runs; the
    /// call runs when all returned true). An inner postfix returns void and runs whether or not the call was
    /// skipped. Inner hooks of several owners on the same call run in the order of <see cref="HookMethod"/>
    /// (priority, Before/After, install order).</para>
    /// <para>Not supported (<see cref="HookBindingKind.InnerCall"/>): constructors (newobj), a struct's instance
    /// methods, callees with by-ref parameters or a by-ref result, calls with the <c>constrained.</c> prefix.
    /// The outer method's arguments, <c>__state</c> and <c>__runOriginal</c> are not given to inner hooks.</para>
    /// </remarks>
    /// <param name="target">The method whose body makes the call.</param>
    /// <param name="callee">The called method (for a generic one, the instantiation the target calls).</param>
    /// <param name="occurrence">Which call of <paramref name="callee"/> in the body (after its transpilers), in
    /// IL order: 1 the first, 2 the second..., -1 the last, -2 the one before it; 0 every call.</param>
    /// <param name="innerPrefix">Runs before the call (null: none).</param>
    /// <param name="innerPostfix">Runs after the call (null: none).</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>The hook set, woven: the ReJIT is requested.</returns>
    /// <exception cref="HookBindingException">A hook does not fit the call, the body does not make the call that
    /// often, or neither hook was given (nothing reached the profiler).</exception>
    /// <exception cref="PatchException">The profiler refused or failed the woven body.</exception>
    public WovenPatch HookCall(MethodBase target, MethodInfo callee, int occurrence = 0, HookMethod? innerPrefix = null,
        HookMethod? innerPostfix = null, PatchOwner? owner = null) =>
        Completed(HookCallCore(target, callee, occurrence, innerPrefix, innerPostfix, owner, synchronous: true,
            CancellationToken.None));

    /// <summary><see cref="HookCall"/> without blocking the calling thread on the profiler's worker.</summary>
    /// <param name="target">As for <see cref="HookCall"/>.</param>
    /// <param name="callee">As for <see cref="HookCall"/>.</param>
    /// <param name="occurrence">As for <see cref="HookCall"/>.</param>
    /// <param name="innerPrefix">As for <see cref="HookCall"/>.</param>
    /// <param name="innerPostfix">As for <see cref="HookCall"/>.</param>
    /// <param name="owner">As for <see cref="HookCall"/>.</param>
    /// <param name="cancellationToken">Stops the waiting; once queued, the body is still applied.</param>
    /// <returns>The hook set; the task fails with the exceptions <see cref="HookCall"/> throws.</returns>
    public Task<WovenPatch> HookCallAsync(MethodBase target, MethodInfo callee, int occurrence = 0,
        HookMethod? innerPrefix = null, HookMethod? innerPostfix = null, PatchOwner? owner = null,
        CancellationToken cancellationToken = default) =>
        Detached(HookCallCore(target, callee, occurrence, innerPrefix, innerPostfix, owner, synchronous: false,
            cancellationToken), cancellationToken);

    private async ValueTask<WovenPatch> HookCallCore(MethodBase target, MethodInfo callee, int occurrence,
        HookMethod? innerPrefix, HookMethod? innerPostfix, PatchOwner? owner, bool synchronous,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(callee);
        ThrowIfDisposed();
        owner ??= DefaultOwner;
        owner.ThrowIfDisposed();
        target = PatchDiscovery.Definition(target);
        HookBinder.CheckTarget(target);
        if (innerPrefix is null && innerPostfix is null)
            throw InfixBinder.Refuse(HookBindingKind.NoHooks, null, target, -1, null, null,
                $"No inner prefix or inner postfix was given for the calls of {Internal.Names.Of(callee)} in " +
                $"{Internal.Names.Of(target)}: pass innerPrefix: and/or innerPostfix:.");
        List<BoundInfix> infixes = [];
        if (innerPrefix is not null)
            infixes.Add(InfixBinder.Bind(target, innerPrefix, true, callee, occurrence));
        if (innerPostfix is not null)
            infixes.Add(InfixBinder.Bind(target, innerPostfix, false, callee, occurrence));
        EnsurePatchingEnabled();
        HookComposer composer = Composer;
        var set = new WovenPatch(this, composer, target, owner, new BoundSet([], [], [], null), "Hook call", null, infixes);
        await composer.AddAsync([set], synchronous, cancellationToken).ConfigureAwait(false);
        return set;
    }
}
