using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception;

/// <summary>
/// The entry point: hot-patches methods of this running process through the AlvorKit profiler
/// that CoreCLR loaded at startup.
/// </summary>
/// <example>
/// <code>
/// using var interceptor = Interceptor.Open();   // explains how to start the game if it cannot
/// Patch patch = interceptor.Install(
///     typeof(Enemy).GetMethod(nameof(Enemy.Update))!,         // void Enemy.Update(float dt)
///     typeof(Mods).GetMethod(nameof(Mods.FrozenUpdate))!);     // static void FrozenUpdate(Enemy self, float dt)
/// // every Enemy now runs FrozenUpdate ...
/// patch.Remove();                                               // ... and the original again
/// </code>
/// </example>
public sealed partial class Interceptor : IDisposable
{

    // Interceptors opened in the process, for distinct default owner names.
    private static int _opened;

    private readonly Lock _patchesGate = new();
    private readonly List<Patch> _patches = [];
    private bool _disposed;
    private HotReload.HotReloader? _reload;

    private Interceptor(NativeProfiler native)
    {
        Native = native;
        // Distinct names: hooks order Before/After by owner name, across every interceptor of the process.
        int opened = Interlocked.Increment(ref _opened);
        DefaultOwner = new PatchOwner(opened == 1 ? "default owner" : $"default owner #{opened}");
    }

    /// <summary>
    /// Opens the profiler CoreCLR loaded into this process.
    /// </summary>
    /// <exception cref="InterceptionUnavailableException">The process was not started under the
    /// profiler, or the profiler's ABI differs from this library's. The message names the
    /// environment variables to set and the launcher that sets them
    /// (<c>alvorkit-intercept run --modules &lt;assemblies&gt; -- &lt;command&gt;</c>).</exception>
    public static Interceptor Open() => new(NativeProfiler.Open());

    /// <summary>The profiler library's path.</summary>
    public string ProfilerPath => Native.LibraryPath;

    /// <summary>The ABI version the profiler implements.</summary>
    public Version AbiVersion => Native.AbiVersion;

    /// <summary>One snapshot of the profiler's state, read with one call: its startup status,
    /// patchable modules, allocation profiling, worker queue and what it holds. (The properties
    /// below each read the profiler once per access.)</summary>
    public ProfilerStatus ReadStatus() => Native.Status();

    /// <summary>Whether the profiler accepts patch commands (its startup configuration is valid
    /// and names patchable modules).</summary>
    public bool IsPatchingEnabled => Native.StartupStatus() == InterceptionStatus.Ok;

    /// <summary>Why the profiler refuses patch commands (<see cref="InterceptionStatus.Ok"/> when it
    /// accepts them), such as <see cref="InterceptionStatus.NoPatchableModules"/>.</summary>
    public InterceptionStatus PatchingStatus => Native.StartupStatus();

    /// <summary>Why the profiler refuses patch commands, in its words; null when it accepts them.</summary>
    public string? PatchingRefusal
    {
        get
        {
            InterceptionStatus status = Native.StartupStatus();
            return status == InterceptionStatus.Ok ? null : Native.StatusText(status);
        }
    }

    /// <summary>The assemblies whose methods may be patched (ALVORKIT_INTERCEPTION_MODULES,
    /// normalized: names joined by ';', or "*").</summary>
    public string PatchableModules => Native.Allowlist();

    /// <summary>Allocation capture windows in this process:
    /// <c>using var window = interceptor.Allocations.Begin(AllocationCaptureOptions.Sampled);</c>
    /// (the process must have started with ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled,
    /// or =exact for exact counts at a process-wide cost: see <see cref="AllocationCapture"/>).</summary>
    public AllocationCapture Allocations => Native.Allocations;

    /// <summary>Hot reload from source: the bodies of a rebuilt assembly applied to the loaded one.</summary>
    public HotReload.HotReloader Reload
    {
        get
        {
            ThrowIfDisposed();
            lock (_patchesGate)
                return _reload ??= new HotReload.HotReloader(this, new SemaphoreSlim(1, 1));
        }
    }

    /// <summary>The owner of patches and hooks installed without one; <see cref="Dispose"/> removes them. Named
    /// "default owner" for the first interceptor of the process, "default owner #2", "#3"... for the next ones
    /// (each <see cref="Open"/> makes a new interceptor), so <see cref="HookMethod.Before"/>/<see cref="HookMethod.After"/>
    /// can tell them apart.</summary>
    public PatchOwner DefaultOwner { get; }

    /// <summary>
    /// When true, installs and replacements take the <see cref="DispatchPath.Calli"/> path even where
    /// the direct call would work (default false). The direct call lets the JIT inline the
    /// replacement into the patched target, so a patched call costs one call; calli costs one
    /// indirect jump more and never inlines. This switch exists to compare the two paths (the
    /// proofs and the benchmark run every dispatch case on both); a game has no reason to set it.
    /// It applies to the commands issued after it is set.
    /// </summary>
    public bool PreferCalli { get; set; }

    /// <summary>How long a command may wait for the profiler's worker (default 10 s).</summary>
    public TimeSpan CommandTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>The patches installed through this interceptor that are still held.</summary>
    public IReadOnlyList<Patch> Patches
    {
        get
        {
            lock (_patchesGate)
                return [.. _patches];
        }
    }

    /// <summary>What the profiler sees of <paramref name="method"/>: flags, sizes, and its signature hash and
    /// loaded-body identity as hex.</summary>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The profiler cannot describe it (module not allowed, no IL, ...).</exception>
    public MethodDescription Describe(MethodBase method)
    {
        ArgumentNullException.ThrowIfNull(method);
        ThrowIfDisposed();
        EnsurePatchingEnabled();
        return DescribeCore(method, "Describing");
    }

    /// <summary>
    /// Replaces <paramref name="target"/> with exact dispatch to <paramref name="replacement"/>: from the target's next call on, it
    /// runs the replacement with its receiver and arguments, everywhere (callers that inlined it
    /// are re-JITted too). Blocks this thread until the profiler's worker ran the command (at most
    /// <see cref="CommandTimeout"/>); <see cref="InstallAsync"/> does not.
    /// </summary>
    /// <param name="target">A non-generic method (or constructor) with IL, in a module
    /// ALVORKIT_INTERCEPTION_MODULES allows.</param>
    /// <param name="replacement">A static method whose parameters are the target's receiver (the
    /// declaring class, or <c>ref TStruct</c> for a struct's instance method) and then exactly the
    /// target's parameter types (ref/out/in as by-reference types), returning the target's type:
    /// <see cref="ExpectedReplacementSignature"/> says which.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>. Another owner's patch
    /// on the same target is joined (this replacement takes over).</param>
    /// <returns>The patch, active: the ReJIT is requested.</returns>
    /// <exception cref="SignatureMismatchException">The replacement does not fit, found before
    /// anything reached the profiler; the message names the position and the expected type.</exception>
    /// <exception cref="NotSupportedException">The target is generic (use a plan), varargs or abstract.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the install
    /// (<see cref="InterceptionException.Status"/> says why).</exception>
    /// <exception cref="InvalidOperationException">This owner already holds a patch on the target.</exception>
    public Patch Install(MethodBase target, MethodInfo replacement, PatchOwner? owner = null) =>
        Completed(InstallCore(target, replacement, owner, synchronous: true, CancellationToken.None));

    /// <summary>
    /// <see cref="Install"/> without blocking the calling thread: the wait for the profiler's worker
    /// is a poll on a timer, so a frame that starts the install goes on at once (for a dev
    /// console). The target's description and the command's queuing still run on the calling
    /// thread, before the returned task is handed back; they take microseconds.
    /// </summary>
    /// <param name="target">As for <see cref="Install"/>.</param>
    /// <param name="replacement">As for <see cref="Install"/>.</param>
    /// <param name="owner">As for <see cref="Install"/>.</param>
    /// <param name="cancellationToken">Stops the waiting. Before the command is queued (while
    /// another command on the same target runs), nothing happens. Once it is queued, the
    /// profiler still runs it: the task ends as canceled at once, and the patch, when the command
    /// succeeds, is held by <paramref name="owner"/> as usual (its Dispose removes it).</param>
    /// <returns>The patch, active; the task fails with the exceptions <see cref="Install"/> throws.</returns>
    public Task<Patch> InstallAsync(MethodBase target, MethodInfo replacement, PatchOwner? owner = null,
        CancellationToken cancellationToken = default) =>
        Detached(InstallCore(target, replacement, owner, synchronous: false, cancellationToken), cancellationToken);

    private ValueTask<Patch> InstallCore(MethodBase target, MethodInfo replacement, PatchOwner? owner,
        bool synchronous, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(target);
        ArgumentNullException.ThrowIfNull(replacement);
        return One(InstallManyCore([(target, replacement)], owner, synchronous, cancellationToken));
    }

    /// <summary>
    /// Gives the plan's target the body the plan describes: from its next call on, the target runs
    /// it. When <paramref name="owner"/> already holds a patch on the target, that patch gets the new generation
    /// (chained after the target's current one) and is returned. Blocks this thread until the
    /// profiler's worker ran the command; <see cref="ApplyAsync"/> does not.
    /// </summary>
    /// <param name="plan">The new body.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <returns>The patch. Its <see cref="Patch.ReadLastGeneration"/> says Requested until the target's
    /// next call compiles the body, then Active (or Failed, when the JIT rejected it and the
    /// profiler restored the previous body).</returns>
    /// <exception cref="PlanException">The plan cannot be lowered (before anything reached the profiler).</exception>
    /// <exception cref="StackTypeMismatchException">The body is not type-safe (an instruction finds a
    /// value it cannot take), found by the plan before anything reached the profiler, or by the
    /// profiler; the target keeps its body. <see cref="GenerationPlan.AllowUnverifiable"/> opts out.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the generation; for a
    /// relocation, the message names the plan symbol it came from. A method or field the plan
    /// references that the loaded assemblies do not have is <see cref="InterceptionStatus.MemberNotFound"/>,
    /// found before the body was handed to the runtime: nothing changed.</exception>
    public Patch Apply(GenerationPlan plan, PatchOwner? owner = null) =>
        Completed(ApplyCore(plan, owner, synchronous: true, CancellationToken.None));

    /// <summary><see cref="Apply"/> without blocking the calling thread on the profiler's worker
    /// (see <see cref="InstallAsync"/>: lowering the plan, its checks and the queuing run on the
    /// calling thread; the wait does not).</summary>
    /// <param name="plan">The new body.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>.</param>
    /// <param name="cancellationToken">Stops the waiting, as for <see cref="InstallAsync"/>: a
    /// generation already queued is still applied and held by the owner.</param>
    /// <returns>The patch; the task fails with the exceptions <see cref="Apply"/> throws.</returns>
    public Task<Patch> ApplyAsync(GenerationPlan plan, PatchOwner? owner = null,
        CancellationToken cancellationToken = default) =>
        Detached(ApplyCore(plan, owner, synchronous: false, cancellationToken), cancellationToken);

    private ValueTask<Patch> ApplyCore(GenerationPlan plan, PatchOwner? owner, bool synchronous,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(plan);
        ThrowIfDisposed();
        owner ??= DefaultOwner;
        owner.ThrowIfDisposed();
        LoweredGeneration lowered = plan.Lower();
        return One(ApplyLoweredMany([new LoweredEntry(plan.Target, lowered, plan.Name, plan)], owner, synchronous,
                                    cancellationToken));
    }

    /// <summary>The hooks' path for one target: <see cref="ApplyManyForHooks"/> as a batch of one, even
    /// through a disposed interceptor (it needs only the profiler, as <see cref="RemoveCore"/> does), so the
    /// process-wide hook composition can still change, and be removed, after every interceptor that added
    /// hooks was disposed.</summary>
    internal ValueTask<Patch> ApplyForHooks(GenerationPlan plan, PatchOwner owner, bool synchronous) =>
        One(ApplyManyForHooks([plan], owner, synchronous));

    /// <summary>A single command is a batch of one: its patch, or the one refusal's own reason (the
    /// exception the single call documents) rather than a <see cref="BatchInstallException"/>.</summary>
    private static async ValueTask<Patch> One(ValueTask<IReadOnlyList<Patch>> batch)
    {
        try
        {
            return (await batch.ConfigureAwait(false))[0];
        }
        catch (BatchInstallException e) when (e.Refusals.Count == 1)
        {
            ExceptionDispatchInfo.Throw(e.Refusals[0].Reason);
            throw;
        }
    }

    /// <summary>alvk_generation_validate for <paramref name="lowered"/> on <paramref name="target"/>
    /// (nothing queued): null when it passes, else the failure as the exception a submission
    /// would throw. Throws InterceptionUnavailableException when the profiler refuses patch
    /// commands.</summary>
    /// <remarks>The one managed-side check of a body that is no plan (a hot reload's translated
    /// body: GenerationPlan.Lower checks a plan's): it names the failing method and reason before
    /// the batch, and a rehearsal stops after it. The submission validates again natively.</remarks>
    internal Exception? ValidateLowered(MethodBase target, LoweredGeneration lowered, PatchOwner owner)
    {
        ThrowIfDisposed();
        EnsurePatchingEnabled();
        InterceptionStatus rc = Native.Describe(target, out MethodDescription? description);
        if (rc != InterceptionStatus.Ok)
            return Failure(rc, target, "Describing");
        rc = Native.Validate(lowered, description!, 0, owner.Id, out uint failing);
        return rc == InterceptionStatus.Ok
            ? null
            : Failure(rc, target, "Validating the generation for", detail: Entry(rc, (int)failing, lowered));
    }

    /// <summary>
    /// The signature a replacement of <paramref name="target"/> must have for
    /// <see cref="Install"/>: static, the target's receiver first (the declaring class, or
    /// <c>ref TStruct</c> for a struct's instance method), then exactly the target's parameters,
    /// returning the target's return type. Its ToString is the C#-like declaration
    /// (<c>static int Damage(Enemy self, float amount)</c>).
    /// </summary>
    /// <exception cref="NotSupportedException">Exact dispatch cannot serve the target (generic,
    /// varargs or abstract).</exception>
    public static ReplacementSignature ExpectedReplacementSignature(MethodBase target)
    {
        ArgumentNullException.ThrowIfNull(target);
        ReplacementRules.CheckTarget(target);
        return new ReplacementSignature(ReplacementRules.ExpectedParameters(target), ReplacementRules.ReturnTypeOf(target),
            $"static {ReplacementRules.Describe(target)}");
    }

    /// <summary>Removes the patches and hooks of <see cref="DefaultOwner"/> (the hooks composed with other
    /// owners' on a target are woven again without them). Patches and hooks of other owners, including those
    /// added through other interceptors, stay until their owner (or they themselves) are removed; hooks are
    /// composed process-wide, and a later change to them (their removal included) needs only the profiler, so it
    /// still works once this interceptor is disposed.</summary>
    public void Dispose()
    {
        if (_disposed)
            return;
        try
        {
            DefaultOwner.Dispose();
        }
        finally
        {
            _disposed = true;
        }
    }

    // ------------------------------------------------------------ patch commands

    internal NativeProfiler Native { get; }

    /// <summary>The replacement named as a method, for the direct call; null for calli only
    /// (<see cref="PreferCalli"/>, or an assembly the target's module cannot reference).</summary>
    private NativeProfiler.ReplacementMethod? MethodOf(MethodBase target, MethodInfo replacement) =>
        !PreferCalli && DirectCallRule.CanReference(target, replacement) ? Native.Name(replacement) : null;

    internal async ValueTask ReplaceCore(Patch patch, MethodInfo replacement, bool synchronous,
        CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(replacement);
        ReplacementRules.CheckTarget(patch.Target);
        ReplacementRules.Check(patch.Target, replacement);
        IntPtr entry = EntryPoint(replacement);
        SemaphoreSlim gate = PatchRegistry.GateOf(patch.Target);
        await Enter(gate, synchronous, cancellationToken).ConfigureAwait(false);
        try
        {
            if (patch.IsRemoved)
                throw new InvalidOperationException(
                    $"this patch on {Names.Of(patch.Target)} was removed; install a new one.");
            cancellationToken.ThrowIfCancellationRequested();
            InterceptionStatus rc = Native.Replace(patch.Native.Handle, patch.Owner.Id, entry,
                MethodOf(patch.Target, replacement), out ulong command);
            if (rc == InterceptionStatus.Ok)
                rc = synchronous ? WaitBlocking(command) : await WaitFor(command).ConfigureAwait(false);
            if (rc != InterceptionStatus.Ok)
                throw Failure(rc, patch.Target, "Replacing the patch of", patch.Native.Handle);
            patch.Replacement = replacement;
            patch.NoteDispatch(Native.Telemetry(patch.Native.Handle));
            patch.Plan = null;
            patch.Lowered = null;
            patch.GenerationName = null;
            patch.GenerationId = 0;
        }
        finally
        {
            gate.Release();
        }
    }

    internal async ValueTask RemoveCore(Patch patch, bool synchronous, CancellationToken cancellationToken)
    {
        SemaphoreSlim gate = PatchRegistry.GateOf(patch.Target);
        await Enter(gate, synchronous, cancellationToken).ConfigureAwait(false);
        try
        {
            if (patch.IsRemoved)
                return;
            cancellationToken.ThrowIfCancellationRequested();
            ulong handle = patch.Native.Handle;
            InterceptionStatus rc = Native.Remove(handle, patch.Owner.Id, out ulong command);
            if (rc is InterceptionStatus.PatchEnded or InterceptionStatus.UnknownPatch)
            {
                // Ended without us (its module unloaded, or the profiler recycled it).
                Release(patch, Native.Telemetry(handle), ended: true);
                return;
            }
            if (rc == InterceptionStatus.Ok)
                rc = synchronous ? WaitBlocking(command) : await WaitFor(command).ConfigureAwait(false);
            if (rc != InterceptionStatus.Ok)
                throw Failure(rc, patch.Target, "Removing the patch of", handle);
            PatchTelemetry? final = Native.Telemetry(handle);
            Release(patch, final, ended: final is null || final.State is not (PatchState.Active or PatchState.Pending));
        }
        finally
        {
            gate.Release();
        }
    }

    /// <summary>Runs an operation of this class for a Task-returning method: a token that fires
    /// ends the returned task at once, while the operation (its command already queued) finishes
    /// its bookkeeping on its own; a failure it meets then is observed here, not left unobserved.</summary>
    internal static Task<T> Detached<T>(ValueTask<T> operation, CancellationToken cancellationToken)
    {
        Task<T> task = operation.AsTask();
        if (!cancellationToken.CanBeCanceled || task.IsCompleted)
            return task;
        task.ContinueWith(static t => _ = t.Exception, CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        return task.WaitAsync(cancellationToken);
    }

    /// <summary>The result of an operation of this class run with <c>synchronous: true</c>. That
    /// path never yields (the gate and the profiler's wait block the calling thread), so the
    /// operation has completed when it returns; should it ever not have, this blocks on it as a
    /// task (reading a pending ValueTask's result directly is undefined).</summary>
    internal static T Completed<T>(ValueTask<T> operation)
    {
        Debug.Assert(operation.IsCompleted, "the synchronous path yielded");
        return operation.IsCompleted ? operation.Result : operation.AsTask().GetAwaiter().GetResult();
    }

    /// <inheritdoc cref="Completed{T}(ValueTask{T})"/>
    internal static void Completed(ValueTask operation)
    {
        Debug.Assert(operation.IsCompleted, "the synchronous path yielded");
        if (operation.IsCompleted)
            operation.GetAwaiter().GetResult(); // throws what the operation threw
        else
            operation.AsTask().GetAwaiter().GetResult();
    }

    internal static Task Detached(ValueTask operation, CancellationToken cancellationToken) =>
        Detached(WithResult(operation), cancellationToken);

    private static async ValueTask<bool> WithResult(ValueTask operation)
    {
        await operation.ConfigureAwait(false);
        return true;
    }

    // The target's gate: a blocking wait for the synchronous methods, an asynchronous one (no
    // thread held) for the Task-returning ones.
    private static async ValueTask Enter(SemaphoreSlim gate, bool synchronous, CancellationToken cancellationToken)
    {
        if (synchronous)
            gate.Wait(cancellationToken);
        else
            await gate.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    // The command's result, waiting at most CommandTimeout. Synchronous (WaitBlocking): one
    // blocking alvk_command_wait, called directly, so a synchronous call runs none of the
    // ValueTask code over the status (framework generic code compiled at run time on its first
    // use). Asynchronous (WaitFor): a look, one blocking wait of a few milliseconds on a pool
    // thread, then looks on timers (CommandWait): a command the worker runs in a few
    // milliseconds is seen as it ends, and no thread is parked for the whole timeout.
    private InterceptionStatus WaitBlocking(ulong command) => Native.Wait(command, CommandTimeout);

    // A rehearsal's wait (no command) takes the asynchronous wait's steps without a first look.
    private ValueTask<InterceptionStatus> WaitFor(ulong command, bool rehearsal = false) =>
        CommandWait.For(Native, command, CommandTimeout, rehearsal);

    private void Hold(NativePatch native, Patch patch)
    {
        native.Holders.Add(patch);
        patch.Owner.Add(patch);
        lock (_patchesGate)
            _patches.Add(patch);
    }

    private void Release(Patch patch, PatchTelemetry? final, bool ended)
    {
        patch.MarkRemoved(final);
        patch.Native.Holders.Remove(patch);
        patch.Owner.Forget(patch);
        lock (_patchesGate)
            _patches.Remove(patch);
        if (ended)
            PatchRegistry.Forget(patch.Native);
    }

    // ---------------------------------------------------------------- helpers

    private MethodDescription DescribeCore(MethodBase method, string doing)
    {
        InterceptionStatus rc = Native.Describe(method, out MethodDescription? description);
        if (rc != InterceptionStatus.Ok)
            throw Failure(rc, method, doing);
        return description!;
    }

    private void EnsurePatchingEnabled()
    {
        InterceptionStatus status = Native.StartupStatus();
        if (status != InterceptionStatus.Ok)
            throw Refused(status);
    }

    private InterceptionUnavailableException Refused(InterceptionStatus status) => new(UnavailableReason.PatchingRefused, status,
        Setup.Explain($"The AlvorKit profiler is loaded, but it refuses patch commands: {Native.StatusText(status)}"));

    /// <summary>The entry point of a static method, prepared (the calli target of a replacement or a hook).</summary>
    internal static IntPtr EntryPoint(MethodInfo replacement)
    {
        RuntimeHelpers.PrepareMethod(replacement.MethodHandle);
        return replacement.MethodHandle.GetFunctionPointer();
    }

    private Exception Failure(InterceptionStatus status, MethodBase target, string doing, ulong handle = 0,
        GenerationInfo? generation = null, string? detail = null)
    {
        if (status.IsStartupRefusal())
            return Refused(status);
        string name = Native.StatusName(status), description = Native.StatusDescription(status);
        string hint = status switch
        {
            InterceptionStatus.ModuleNotAllowed =>
                $" Add '{target.Module.Assembly.GetName().Name}' to {Setup.ModulesVariable} (it is '{Native.Allowlist()}') " +
                "before the process starts.",
            InterceptionStatus.Timeout =>
                $" The profiler's worker did not finish within {CommandTimeout.TotalSeconds:0.#} s; the command may still complete.",
            InterceptionStatus.GenericTargetUnsupported =>
                " Exact dispatch cannot serve every instantiation: write the body as a GenerationPlan instead.",
            InterceptionStatus.TargetNonVersionable =>
                " It is marked [NonVersionable]: ReadyToRun code of other assemblies (the framework's among them) " +
                "may have inlined its body without the runtime recording it, so a patch could not reach every " +
                "caller. Patch the methods that call it instead.",
            InterceptionStatus.ModuleCollectible =>
                $" It belongs to the copy of '{target.Module.Assembly.GetName().Name}' loaded in the collectible " +
                $"AssemblyLoadContext '{Names.ContextOf(target.Module.Assembly)}', which no allowlist can make " +
                "patchable. Load the assembly in a non-collectible context to patch it.",
            InterceptionStatus.ModuleAmbiguous =>
                $" '{target.Module.Assembly.GetName().Name}' is loaded more than once (one copy per " +
                "AssemblyLoadContext), and the profiler could not tell which copy this method belongs to.",
            _ => "",
        };
        return new PatchException(target, status, name, description,
            $"{doing} {Names.Of(target)} failed: {name} ({description}).{hint}{detail}",
            handle != 0 ? Native.Telemetry(handle) : null, generation);
    }

    // The profiler's ALVK_E_STACK_TYPE_MISMATCH, as the exception the plan's own check throws.
    private static StackTypeMismatchException TypeMismatch(GenerationPlan plan, GenerationInfo result)
    {
        string instruction = plan.InstructionNameAt(result.TypeErrorOffset) ?? "the instruction";
        string found = result.TypeFound == StackType.Nothing ? "nothing" : Describe(result.TypeFound);
        string expected = result.TypeExpected == StackType.Nothing ? "no value" : Describe(result.TypeExpected);
        return new StackTypeMismatchException(plan.Target, result.TypeErrorOffset, instruction, result.TypeFound,
            result.TypeExpected, null, null,
            $"Applying a plan to {Names.Of(plan.Target)} failed: the profiler refused the body as not type-safe " +
            $"({result.StatusName}): IL_{result.TypeErrorOffset:X4} {instruction} finds {found} where it needs {expected}. " +
            "Nothing changed: the target keeps its body. (A body that is deliberately unverifiable and correct can " +
            "be applied with plan.AllowUnverifiable().)",
            detectedByProfiler: true, generation: result);
    }

    private static string Describe(StackType type) => type switch
    {
        StackType.Int32 => "int32",
        StackType.Int64 => "int64",
        StackType.NativeInt => "native int",
        StackType.Float => "F (a float or double)",
        StackType.ObjectReference => "an object reference",
        StackType.ManagedPointer => "a managed pointer",
        StackType.ValueType => "a value type",
        _ => type.ToString(),
    };

    // " The failing relocation is #2: newobj ... at IL_0004: MemberRef ..." for statuses about one entry.
    private static string? Entry(InterceptionStatus status, int index, LoweredGeneration lowered)
    {
        if (status == InterceptionStatus.ILMapInvalid)
            return $" The failing IL map entry is #{index}.";
        if (status == InterceptionStatus.MemberNotFound && index >= 0 && index < lowered.Relocations.Count)
            return $" The failing relocation is #{index}: {lowered.Relocations[index].Description}: the assemblies " +
                "loaded in this process have no such member on that type or on its base types (was the plan built " +
                "against another version of the assembly?). Nothing was applied; the target keeps its current body.";
        if (status.NamesAnEntry() && index >= 0 && index < lowered.Relocations.Count)
            return $" The failing relocation is #{index}: {lowered.Relocations[index].Description}.";
        return null;
    }

    internal bool IsDisposed => _disposed;

    private void ThrowIfDisposed() => ObjectDisposedException.ThrowIf(_disposed, this);
}
