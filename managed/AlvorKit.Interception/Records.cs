using System.Globalization;
using System.Reflection;
using System.Text;

namespace AlvorKit.Interception;

/// <summary>What the profiler counted and timed for one patch (shared by every owner of the
/// target's patch).</summary>
public sealed record PatchTelemetry
{
    /// <summary>The profiler's state of the patch.</summary>
    public PatchState State { get; init; }

    /// <summary>The status of the latest finished command (<see cref="InterceptionStatus.Ok"/> when it succeeded).</summary>
    public InterceptionStatus LastStatus { get; init; }

    /// <summary>Commands queued or running.</summary>
    public int PendingCommands { get; init; }

    /// <summary>Commands the worker finished for this patch.</summary>
    public int CommandsCompleted { get; init; }

    /// <summary>Owners holding the patch.</summary>
    public int OwnerCount { get; init; }

    /// <summary>The load epoch of the target's module.</summary>
    public int ModuleEpoch { get; init; }

    /// <summary>The runtime's ModuleID of the module copy patched (one assembly loaded in two
    /// AssemblyLoadContexts is two copies, each patched on its own).</summary>
    public ulong ModuleId { get; init; }

    /// <summary>The target's MethodDef token.</summary>
    public int MethodToken { get; init; }

    /// <summary>The StandAloneSig token emitted for exact dispatch (0 before any).</summary>
    public int CalliSignatureToken { get; init; }

    /// <summary>GetReJITParameters callbacks seen for the target.</summary>
    public int GetReJITParametersCallbacks { get; init; }

    /// <summary>ReJITCompilationStarted callbacks seen for the target.</summary>
    public int ReJITCompilationsStarted { get; init; }

    /// <summary>ReJITCompilationFinished callbacks seen for the target.</summary>
    public int ReJITCompilationsFinished { get; init; }

    /// <summary>ReJITError callbacks seen for the target.</summary>
    public int ReJITErrors { get; init; }

    /// <summary>Inliners re-JITted so far: callers that had inlined the target (as the JIT
    /// reported it), each counted once per request of the target (install, replace, remove) that
    /// re-JITted it.</summary>
    /// <remarks>Inliners recompile lazily, at their next call after the request, so this is 0 right
    /// after <see cref="Interceptor.Install"/> returns and grows as they run; it stays 0 when no
    /// caller had inlined the target (callers compiled after the install call it instead). An
    /// inliner whose inlining the JIT did not report (ReadyToRun code) counts for the most
    /// recently requested patch.</remarks>
    public int InlinersReJITted { get; init; }

    /// <summary>HRESULT of the latest RequestReJIT(WithInliners).</summary>
    public int RequestHResult { get; init; }

    /// <summary>HRESULT of the latest SetILFunctionBody.</summary>
    public int SetILHResult { get; init; }

    /// <summary>HRESULT of the latest ReJIT compilation.</summary>
    public int CompilationHResult { get; init; }

    /// <summary>HRESULT of the latest ReJITError.</summary>
    public int ErrorHResult { get; init; }

    /// <summary>HRESULT of the latest metadata emission or ApplyMetaData.</summary>
    public int MetadataHResult { get; init; }

    /// <summary>The replacement entry point in force (zero for generations and once removed).</summary>
    public IntPtr ReplacementEntryPoint { get; init; }

    /// <summary>How the target reaches the replacement in force (<see cref="DispatchPath.None"/> for
    /// a generation or once removed).</summary>
    public DispatchPath DispatchPath { get; init; }

    /// <summary>Why the path is <see cref="DispatchPath.Calli"/> although the replacement was named
    /// as a method (for example <see cref="InterceptionStatus.ReplacementNotAccessible"/>);
    /// <see cref="InterceptionStatus.Ok"/> otherwise, and when the interceptor chose calli itself
    /// (<see cref="Interceptor.PreferCalli"/>, or a replacement its target's module cannot
    /// reference).</summary>
    public InterceptionStatus DispatchFallback { get; init; }

    /// <summary>On the direct path, the MethodDef or MemberRef token the target's body calls (0 otherwise).</summary>
    public int CallToken { get; init; }

    /// <summary>Whether the body in force is carried for the target's callers (a method the profiler
    /// defines with that body and no ReJIT version, which callers redirected to it inline), or why not
    /// (ABI 3.10; <see cref="CarrierState.None"/> from an older library).</summary>
    public CarrierState CarrierState { get; init; }

    /// <summary>While <see cref="CarrierState"/> is <see cref="CarrierState.Active"/> (or
    /// <see cref="CarrierState.KnownCallersOnly"/>), the carrier's MethodDef token in the target's module; 0 otherwise.</summary>
    public int CarrierToken { get; init; }

    /// <summary>Caller bodies redirected to the target's carrier over the patch's life, once per caller and
    /// body published (a new body routes its callers again): its known inliners and the callers found as
    /// they compiled. Each is re-JIT'd at its next call.</summary>
    public int CallersRedirected { get; init; }

    /// <summary>Of <see cref="CallersRedirected"/>, the callers found at a compilation (their first, or
    /// tiering's next) while the target was patched: no inliner the runtime knew.</summary>
    public int CallersDiscovered { get; init; }

    /// <summary>Callers that kept the real call of the patched target: in another module, generic,
    /// calling it behind <c>constrained.</c>, a full table, or an IL or metadata failure.</summary>
    public int CallersKept { get; init; }

    /// <summary>The latest command, from queuing to the ReJIT request.</summary>
    public TimeSpan CommandElapsed { get; init; }

    /// <summary>The latest command, from queuing to its first finished compilation (zero until
    /// the target was called and compiled).</summary>
    public TimeSpan CompileElapsed { get; init; }

    /// <summary>One line for a log or a console: state, callbacks, HRESULTs that are not S_OK,
    /// and times.</summary>
    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture,
            $"{State}, {OwnerCount} owner(s), {CommandsCompleted} command(s) done; callbacks: " +
            $"{GetReJITParametersCallbacks} GetReJITParameters, {ReJITCompilationsStarted} started, " +
            $"{ReJITCompilationsFinished} finished, {ReJITErrors} errors; {InlinersReJITted} inliners re-JITted so far; " +
            $"command {CommandElapsed.TotalMilliseconds:0.###} ms, compile {CompileElapsed.TotalMilliseconds:0.###} ms");
        foreach ((string name, int hr) in new[]
                 {
                     ("request", RequestHResult), ("setIL", SetILHResult), ("compile", CompilationHResult),
                     ("error", ErrorHResult), ("metadata", MetadataHResult),
                 })
        {
            if (hr != 0)
                text.Append(CultureInfo.InvariantCulture, $"; {name} 0x{hr:X8}");
        }
        if (DispatchPath != DispatchPath.None)
            text.Append("; dispatch ").Append(DispatchPath.ToString());
        if (DispatchFallback != InterceptionStatus.Ok)
            text.Append(" (direct call refused: ").Append(DispatchFallback.ToString()).Append(')');
        if (CarrierState != CarrierState.None)
            text.Append(CultureInfo.InvariantCulture,
                $"; carrier {CarrierState}, {CallersRedirected} caller(s) redirected ({CallersDiscovered} found compiling), {CallersKept} kept");
        if (LastStatus != InterceptionStatus.Ok)
            text.Append("; last status ").Append(LastStatus.ToString());
        return text.ToString();
    }
}

/// <summary>What the profiler reports for one method of a loaded, allowed module: its shape and
/// the two hashes that prove a patch is built against exactly this method.</summary>
public sealed record MethodDescription
{
    /// <summary>The method described.</summary>
    public required MethodBase Method { get; init; }

    /// <summary>Its MethodDef token.</summary>
    public int MetadataToken { get; init; }

    /// <summary>Its module's version ID.</summary>
    public Guid ModuleVersionId { get; init; }

    /// <summary>The module's load epoch (increases with every module load in the process).</summary>
    public int ModuleEpoch { get; init; }

    /// <summary>The runtime's ModuleID of the module copy described: an assembly loaded in
    /// several AssemblyLoadContexts is one copy per context, each with its own methods.</summary>
    public ulong ModuleId { get; init; }

    /// <summary>The method's attributes.</summary>
    public MethodAttributes Attributes { get; init; }

    /// <summary>The method's implementation flags.</summary>
    public MethodImplAttributes ImplementationFlags { get; init; }

    /// <summary>Receiver and generic facts.</summary>
    public MethodTraits Traits { get; init; }

    /// <summary>The declaring type's TypeDef token.</summary>
    public int DeclaringTypeToken { get; init; }

    /// <summary>Parameters, without the receiver.</summary>
    public int ParameterCount { get; init; }

    /// <summary>Length of its signature blob in bytes.</summary>
    public int SignatureLength { get; init; }

    /// <summary>Size of its loaded IL body (header, code, EH sections).</summary>
    public int BodySize { get; init; }

    /// <summary>Size of its IL code.</summary>
    public int CodeSize { get; init; }

    /// <summary>The body's max stack.</summary>
    public int MaxStack { get; init; }

    /// <summary>Exception-handling clauses in the body.</summary>
    public int ExceptionClauseCount { get; init; }

    /// <summary>The locals' StandAloneSig token, or 0.</summary>
    public int LocalSignatureToken { get; init; }

    /// <summary>SHA-256 of the signature blob.</summary>
    public Sha256Digest SignatureHash { get; init; }

    /// <summary>SHA-256 of the loaded IL body (its identity: a generation names the body it
    /// was built against by it).</summary>
    public Sha256Digest BodyIdentity { get; init; }
}

/// <summary>One relocation of a generation, as the profiler resolved it.</summary>
/// <param name="Kind">The metadata it stands for.</param>
/// <param name="Token">The token written into the body (or handed to a child as its parent).</param>
/// <param name="Reused">True when the module already had this definition from an earlier generation.</param>
/// <param name="HResult">The metadata call's HRESULT (0 when reused).</param>
/// <param name="Description">Which plan symbol it came from, for example
/// <c>newobj Box&lt;int&gt;::.ctor(int) at IL_0004</c>.</param>
public sealed record RelocationInfo(RelocationKind Kind, int Token, bool Reused, int HResult, string Description);

/// <summary>The profiler's result for one generation.</summary>
public sealed record GenerationInfo
{
    /// <summary>The generation's ID (process-wide, increasing).</summary>
    public ulong Id { get; init; }

    /// <summary>The generation it replaced (0: the original body).</summary>
    public ulong PriorId { get; init; }

    /// <summary>Its state.</summary>
    public GenerationState State { get; init; }

    /// <summary>Why it was rejected or failed (<see cref="InterceptionStatus.Ok"/> otherwise).</summary>
    public InterceptionStatus Status { get; init; }

    /// <summary>The name of <see cref="Status"/> (alvk_status_name), such as <c>ALVK_E_COMPILATION_FAILED</c>.</summary>
    public string StatusName { get; init; } = "";

    /// <summary>The profiler's description of <see cref="Status"/>.</summary>
    public string StatusDescription { get; init; } = "";

    /// <summary>For validation errors: the relocation or IL map entry it is about.</summary>
    public int FailingIndex { get; init; }

    /// <summary>HRESULT of the first failing metadata call, or of ApplyMetaData.</summary>
    public int MetadataHResult { get; init; }

    /// <summary>HRESULT of SetILInstrumentedCodeMap (CORPROF_E_DEBUGGING_DISABLED without a debugger).</summary>
    public int ILMapHResult { get; init; }

    /// <summary>HRESULT of the compilation, once it happened.</summary>
    public int CompilationHResult { get; init; }

    /// <summary>From queuing to the finished compilation (zero until then).</summary>
    public TimeSpan Elapsed { get; init; }

    /// <summary>Every relocation, in the order the plan produced them.</summary>
    public IReadOnlyList<RelocationInfo> Relocations { get; init; } = [];

    /// <summary>For a stack-type refusal (<c>ALVK_E_STACK_TYPE_MISMATCH</c>): the IL offset of the
    /// instruction, or of the point where two paths meet.</summary>
    public int TypeErrorOffset { get; init; }

    /// <summary>For a stack-type refusal: what the instruction found on the stack.</summary>
    public StackType TypeFound { get; init; }

    /// <summary>For a stack-type refusal: what the instruction needs there.</summary>
    public StackType TypeExpected { get; init; }
}

/// <summary>The signature a replacement must have for exact dispatch to a target
/// (<see cref="Interceptor.ExpectedReplacementSignature"/>): a static method taking
/// <see cref="Parameters"/> and returning <see cref="ReturnType"/>.</summary>
public sealed record ReplacementSignature
{
    private readonly string _declaration;

    internal ReplacementSignature(IReadOnlyList<Type> parameters, Type returnType, string declaration)
    {
        Parameters = parameters;
        ReturnType = returnType;
        _declaration = declaration;
    }

    /// <summary>The parameter types in order: for an instance target, its receiver first (the
    /// declaring class, or the struct by reference), then the target's parameters (ref, out and in
    /// as by-reference types).</summary>
    public IReadOnlyList<Type> Parameters { get; }

    /// <summary>The target's return type (<see cref="void"/> for a constructor or a void method).</summary>
    public Type ReturnType { get; }

    /// <summary>Whether <paramref name="method"/> has this signature (static, these parameter types,
    /// this return type).</summary>
    public bool IsMatchedBy(MethodInfo method)
    {
        ArgumentNullException.ThrowIfNull(method);
        ParameterInfo[] actual = method.GetParameters();
        return method.IsStatic && !method.ContainsGenericParameters && method.ReturnType == ReturnType &&
               actual.Length == Parameters.Count && actual.Select(p => p.ParameterType).SequenceEqual(Parameters);
    }

    /// <summary>The declaration, C#-like: <c>static int Damage(Enemy self, float amount)</c>.</summary>
    public override string ToString() => _declaration;
}

/// <summary>One snapshot of the profiler's state in this process (<see cref="Interceptor.ReadStatus"/>),
/// read with one call.</summary>
public sealed record ProfilerStatus
{
    /// <summary>Why the profiler refuses patch commands (<see cref="InterceptionStatus.Ok"/> when it accepts them).</summary>
    public InterceptionStatus StartupStatus { get; init; }

    /// <summary>Whether the profiler accepts patch commands.</summary>
    public bool IsPatchingEnabled => StartupStatus == InterceptionStatus.Ok;

    /// <summary>The assemblies whose methods may be patched (names joined by ';', or "*").</summary>
    public string PatchableModules { get; init; } = "";

    /// <summary>Whether allocation capture windows can open (ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=1 at startup).</summary>
    public bool AllocationProfiling { get; init; }

    /// <summary>The runtime's version, as the profiler read it.</summary>
    public string RuntimeVersion { get; init; } = "";

    /// <summary>Whether the profiler's worker thread runs.</summary>
    public bool WorkerAlive { get; init; }

    /// <summary>The worker queue's slots (a command meets <see cref="InterceptionStatus.QueueFull"/> when all are taken).</summary>
    public int QueueCapacity { get; init; }

    /// <summary>Commands waiting now.</summary>
    public int QueueDepth { get; init; }

    /// <summary>Commands the worker has finished since startup.</summary>
    public ulong CommandsCompleted { get; init; }

    /// <summary>Metadata tokens the profiler emitted into modules, and their bytes.</summary>
    public ulong MetadataTokensEmitted { get; init; }

    /// <summary>The bytes of the names and blobs of those tokens.</summary>
    public ulong MetadataBytesEmitted { get; init; }

    /// <summary>Emissions served from the token cache instead.</summary>
    public ulong MetadataTokensReused { get; init; }

    /// <summary>The bytes of IL bodies and maps the profiler holds now.</summary>
    public ulong SnapshotBytes { get; init; }

    /// <summary>How many such bodies.</summary>
    public ulong SnapshotCount { get; init; }

    /// <summary>The most patches the profiler's table holds, live or ended
    /// (ALVORKIT_INTERCEPTION_MAX_PATCHES, 65,536 when unset); 0 when patching is off.</summary>
    public uint PatchCapacity { get; init; }

    /// <summary>Patch slots the table has allocated so far (it grows as patches are installed).</summary>
    public uint PatchSlotsAllocated { get; init; }

    /// <summary>Patches live now (installed, not yet removed or ended).</summary>
    public uint LivePatches { get; init; }

    /// <summary>ReadyToRun images whose precompiled code the profiler refuses now (they may
    /// inline an allowlisted assembly's methods untracked; their code is JIT-compiled).</summary>
    public uint PrecompiledImagesRefused { get; init; }

    /// <summary>Such images that kept their precompiled code because the profiler's set of them
    /// (128) was full.</summary>
    public uint PrecompiledRefusalsOverflowed { get; init; }

    /// <summary>Methods whose precompiled code was refused so far (JIT-compiled instead).</summary>
    public ulong PrecompiledMethodsRefused { get; init; }
}
