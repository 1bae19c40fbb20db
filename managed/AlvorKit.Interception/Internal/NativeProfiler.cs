using System.Buffers.Binary;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using AlvorKit.Interception.Allocations;
using AlvorKit.Interception.Native;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.Internal;

/// <summary>
/// The one place that speaks the low-level binding (AlvorKit.Interception.Native): it turns
/// the binding's structs into this library's records and its AlvkStatus into the public
/// <see cref="InterceptionStatus"/> (both generated from the header's one list, so a cast
/// between them is exact), so the binding can be regenerated without touching anything else here.
/// Calls here take no lock: the profiler accepts calls from any thread at once.
/// </summary>
internal sealed unsafe class NativeProfiler : ICommandResults
{
    private static readonly Lock OpenGate = new();
    private static NativeProfiler? _shared;

    private readonly ProfilerLibrary _library;

    private NativeProfiler(ProfilerLibrary library)
    {
        _library = library;
        uint version = library.VersionNumber;
        AbiVersion = new Version((int)ProfilerLibrary.MajorOf(version), (int)ProfilerLibrary.MinorOf(version),
            (int)ProfilerLibrary.PatchOf(version));
    }

    /// <summary>The library CoreCLR loaded into this process (opened once), or an
    /// InterceptionUnavailableException that says how to start the process.</summary>
    public static NativeProfiler Open()
    {
        lock (OpenGate)
        {
            if (_shared is not null)
                return _shared;
            try
            {
                _shared = new NativeProfiler(ProfilerLibrary.Open());
            }
            catch (ProfilerUnavailableException e)
            {
                throw new InterceptionUnavailableException(
                    e.Reason == ProfilerUnavailableReason.AbiMismatch
                        ? UnavailableReason.AbiMismatch
                        : UnavailableReason.ProfilerNotLoaded,
                    e.Reason switch
                    {
                        ProfilerUnavailableReason.PathUnset => InterceptionStatus.ProfilerPathUnset,
                        ProfilerUnavailableReason.NotAttached => InterceptionStatus.NotAttached,
                        _ => null,
                    },
                    Setup.Explain(e.Reason switch
                    {
                        ProfilerUnavailableReason.PathUnset =>
                            "The AlvorKit interception profiler is not loaded in this process " +
                            $"({Setup.PathVariable} is not set).",
                        ProfilerUnavailableReason.LibraryNotLoadable =>
                            $"The AlvorKit interception profiler cannot be opened: {e.Message}",
                        ProfilerUnavailableReason.NotAttached =>
                            "The AlvorKit interception profiler library is present, but CoreCLR did not load it " +
                            "as this process's profiler (CORECLR_ENABLE_PROFILING, CORECLR_PROFILER and " +
                            $"CORECLR_PROFILER_PATH must be set before the process starts, and {Setup.PathVariable} " +
                            "must name the same file).",
                        _ => $"The loaded profiler does not match this library: {e.Message} " +
                             $"AlvorKit.Interception needs ABI {ProfilerLibrary.AbiMajor}.x " +
                             $"(minor {ProfilerLibrary.AbiMinor} or later).",
                    }),
                    e);
            }
            return _shared;
        }
    }

    public string LibraryPath => _library.Path;

    private AllocationCapture? _allocations;

    /// <summary>The process's allocation capture (made on first use, outside any window).</summary>
    public AllocationCapture Allocations
    {
        get
        {
            lock (OpenGate)
                return _allocations ??= new AllocationCapture(_library);
        }
    }

    public Version AbiVersion { get; }

    /// <summary>The startup status (Ok when patch commands are accepted).</summary>
    public InterceptionStatus StartupStatus()
    {
        AlvkStatus rc = _library.GetRuntimeStatus(out AlvkRuntimeStatus status);
        return rc == AlvkStatus.Ok ? (InterceptionStatus)status.StartupStatus : (InterceptionStatus)rc;
    }

    /// <summary>alvk_get_runtime_status as one record.</summary>
    public ProfilerStatus Status()
    {
        AlvkStatus rc = _library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return new ProfilerStatus
        {
            StartupStatus = rc == AlvkStatus.Ok ? (InterceptionStatus)s.StartupStatus : (InterceptionStatus)rc,
            PatchableModules = s.Allowlist,
            AllocationProfiling = s.AllocationProfiling != 0,
            RuntimeVersion = s.RuntimeVersion,
            WorkerAlive = s.WorkerAlive != 0,
            QueueCapacity = (int)s.QueueCapacity,
            QueueDepth = (int)s.QueueDepth,
            CommandsCompleted = s.CommandsCompleted,
            MetadataTokensEmitted = s.MetadataTokensEmitted,
            MetadataBytesEmitted = s.MetadataBytesEmitted,
            MetadataTokensReused = s.MetadataTokensReused,
            SnapshotBytes = s.SnapshotBytes,
            SnapshotCount = s.SnapshotCount,
            PatchCapacity = s.PatchCapacity,
            PatchSlotsAllocated = s.PatchSlotsAllocated,
            LivePatches = s.LivePatches,
            PrecompiledImagesRefused = s.PrecompiledImagesRefused,
            PrecompiledRefusalsOverflowed = s.PrecompiledRefusalsOverflowed,
            PrecompiledMethodsRefused = s.PrecompiledMethodsRefused,
        };
    }

    /// <summary>The modules the profiler lets callers patch ("*" or names joined by ';').</summary>
    public string Allowlist()
    {
        _library.GetRuntimeStatus(out AlvkRuntimeStatus status);
        return status.Allowlist;
    }

    /// <summary>alvk_status_string: "ALVK_E_NAME: what it means".</summary>
    public string StatusText(InterceptionStatus status) => _library.StatusString((AlvkStatus)status);

    /// <summary>alvk_status_name: "ALVK_E_NAME".</summary>
    public string StatusName(InterceptionStatus status) => _library.StatusName((AlvkStatus)status);

    /// <summary>What the status means, without its name.</summary>
    public string StatusDescription(InterceptionStatus status) => _library.StatusDescription((AlvkStatus)status);

    /// <summary>Which loaded copy a module is (the profiler's ModuleID and load epoch). One
    /// assembly can be loaded in several AssemblyLoadContexts: every copy has the same MVID, so
    /// the profiler tells them apart by a method's runtime handle in the copy.</summary>
    internal sealed record ModuleCopy(ulong Id, uint Epoch, AlvkModuleFlags Flags, uint Copies);

    // Once per module: a Module object is one load of one copy for as long as it lives (a
    // collectible copy's Module goes with it, and the table does not keep it alive).
    private static readonly ConditionalWeakTable<Module, ModuleCopy> Copies = new();

    /// <summary>alvk_module_identify for `module`, cached; `hint` is a method of it that may serve
    /// as the probe (a non-generic method of a non-generic type).</summary>
    public InterceptionStatus Identify(Module module, MethodBase? hint, out ModuleCopy? copy)
    {
        if (Copies.TryGetValue(module, out copy))
            return InterceptionStatus.Ok;
        MethodBase? probe = Probe(module, hint);
        AlvkStatus rc = _library.ModuleIdentify(module.ModuleVersionId, probe?.MetadataToken ?? 0,
            probe?.MethodHandle.Value ?? IntPtr.Zero, out AlvkModuleInfo info);
        if (rc != AlvkStatus.Ok)
            return (InterceptionStatus)rc;
        copy = Copies.GetValue(module, _ => new ModuleCopy(info.ModuleId, info.Epoch, (AlvkModuleFlags)info.Flags,
            info.Copies));
        return InterceptionStatus.Ok;
    }

    /// <summary>A method whose handle tells the copies of `module` apart: `hint` when it fits,
    /// else the first fitting method of the module; null when it has none (the profiler then
    /// takes the MVID alone, which is ambiguous while several copies are loaded).</summary>
    private static MethodBase? Probe(Module module, MethodBase? hint)
    {
        if (hint is not null && Fits(hint, module))
            return hint;
        Type?[] types;
        try
        {
            types = module.GetTypes();
        }
        catch (ReflectionTypeLoadException e)
        {
            types = e.Types;
        }
        const BindingFlags all = BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic |
                                 BindingFlags.Static | BindingFlags.Instance;
        foreach (Type? type in types)
        {
            if (type is null || type.IsGenericType)
                continue;
            try
            {
                foreach (MethodBase m in type.GetMethods(all).Concat<MethodBase>(type.GetConstructors(all)))
                {
                    if (Fits(m, module))
                        return m;
                }
            }
            catch (TypeLoadException)
            {
            }
        }
        return null;
    }

    // The runtime answers a FunctionID only for a method with no type arguments of its own or
    // of its type; its handle's value is that FunctionID.
    // An instance method of a value type is no probe: the runtime has two method descs for it
    // (the method and its unboxing stub, for a virtual one such as an async state machine's
    // MoveNext), and the one its handle names need not be the one the profiler looks up.
    private static bool Fits(MethodBase m, Module module) =>
        m.Module == module && !m.IsGenericMethod && m.DeclaringType is { IsGenericType: false } &&
        !(m.DeclaringType.IsValueType && !m.IsStatic) && (m.MetadataToken >> 24) == 0x06;

    /// <summary>A replacement named as a method for the direct call (ABI 3.4): the loaded copy of
    /// its module and its MethodDef token.</summary>
    internal sealed record ReplacementMethod(ulong ModuleId, uint Token);

    /// <summary>`replacement` as the profiler names it for a direct call, or null (calli only) when
    /// its module cannot be identified.</summary>
    public ReplacementMethod? Name(MethodInfo replacement) =>
        Identify(replacement.Module, replacement, out ModuleCopy? copy) == InterceptionStatus.Ok
            ? new ReplacementMethod(copy!.Id, unchecked((uint)replacement.MetadataToken))
            : null;

    public InterceptionStatus Describe(MethodBase method, out MethodDescription? description)
    {
        description = null;
        InterceptionStatus status = Identify(method.Module, method, out ModuleCopy? copy);
        if (status != InterceptionStatus.Ok)
            return status;
        AlvkStatus rc = _library.DescribeModuleMethod(copy!.Id, copy.Epoch, method.MetadataToken,
            out AlvkMethodDescription d);
        if (rc != AlvkStatus.Ok)
            return (InterceptionStatus)rc;
        description = new MethodDescription
        {
            Method = method,
            MetadataToken = unchecked((int)d.MethodToken),
            ModuleVersionId = method.Module.ModuleVersionId,
            ModuleEpoch = (int)d.ModuleEpoch,
            ModuleId = d.ModuleId,
            Attributes = (MethodAttributes)d.MethodAttributes,
            ImplementationFlags = (MethodImplAttributes)d.ImplAttributes,
            Traits = (MethodTraits)(uint)d.Flags,
            DeclaringTypeToken = unchecked((int)d.DeclaringType),
            ParameterCount = (int)d.ParamCount,
            SignatureLength = (int)d.SignatureLength,
            BodySize = (int)d.BodySize,
            CodeSize = (int)d.CodeSize,
            MaxStack = (int)d.MaxStack,
            ExceptionClauseCount = (int)d.EhClauseCount,
            LocalSignatureToken = unchecked((int)d.LocalSignature),
            SignatureHash = new Sha256Digest(new ReadOnlySpan<byte>(d.SignatureHash, Sha256Digest.Length)),
            BodyIdentity = new Sha256Digest(new ReadOnlySpan<byte>(d.BodyIdentity, Sha256Digest.Length)),
        };
        return InterceptionStatus.Ok;
    }

    /// <summary>alvk_patch_install_batch for these targets (descriptions) and replacements: the
    /// batch's status, each request's status and handle, and its one command.</summary>
    public InterceptionStatus InstallBatch(IReadOnlyList<MethodDescription> targets, IReadOnlyList<IntPtr> replacements,
        IReadOnlyList<ReplacementMethod?> methods, ulong owner, ulong[] handles, InterceptionStatus[] statuses,
        out ulong command)
    {
        var requests = new AlvkInstallRequest[targets.Count];
        for (int i = 0; i < requests.Length; i++)
            requests[i] = Request(targets[i], replacements[i], methods[i], owner);
        var raw = new AlvkStatus[requests.Length];
        var rc = (InterceptionStatus)_library.PatchInstallBatch(requests, handles, raw);
        command = _library.LastCommand();
        for (int i = 0; i < raw.Length; i++)
            statuses[i] = (InterceptionStatus)raw[i];
        return rc;
    }

    // An install request for the copy the description is of, naming the replacement's method
    // for the direct call when `method` is not null.
    private static AlvkInstallRequest Request(MethodDescription target, IntPtr replacement, ReplacementMethod? method,
        ulong owner)
    {
        AlvkInstallRequest request = default;
        request.Size = (uint)sizeof(AlvkInstallRequest);
        request.MethodToken = unchecked((uint)target.MetadataToken);
        request.ModuleMvid = AlvkMvid.From(target.ModuleVersionId);
        request.ModuleId = target.ModuleId; // the copy the description is of
        request.ModuleEpoch = (uint)target.ModuleEpoch;
        target.SignatureHash.CopyTo(new Span<byte>(request.SignatureHash, Sha256Digest.Length));
        target.BodyIdentity.CopyTo(new Span<byte>(request.BodyIdentity, Sha256Digest.Length));
        request.Replacement = (ulong)replacement;
        request.ReplacementModuleId = method?.ModuleId ?? 0;
        request.ReplacementToken = method?.Token ?? 0;
        request.Owner = owner;
        return request;
    }

    public InterceptionStatus Replace(ulong handle, ulong owner, IntPtr replacement, ReplacementMethod? method,
        out ulong command)
    {
        var r = new AlvkReplacement
        {
            Size = (uint)sizeof(AlvkReplacement),
            MethodToken = method?.Token ?? 0,
            EntryPoint = (ulong)replacement,
            ModuleId = method?.ModuleId ?? 0,
        };
        var rc = (InterceptionStatus)_library.PatchReplaceWith(handle, owner, r);
        command = _library.LastCommand();
        return rc;
    }

    public InterceptionStatus Remove(ulong handle, ulong owner, out ulong command)
    {
        var rc = (InterceptionStatus)_library.PatchRemove(handle, owner);
        command = _library.LastCommand();
        return rc;
    }

    /// <summary>Waits up to `timeout` for one command (the one its queuing call issued), blocking
    /// this thread: its result, or why the wait did not get it (Timeout, UnknownCommand).</summary>
    public InterceptionStatus Wait(ulong command, TimeSpan timeout)
    {
        AlvkStatus rc = _library.CommandWait(command,
            (uint)Math.Clamp(timeout.TotalMilliseconds, 0, uint.MaxValue), out AlvkStatus result);
        return rc == AlvkStatus.Ok ? (InterceptionStatus)result : (InterceptionStatus)rc;
    }

    /// <summary>Looks at one command without waiting (alvk_command_wait with timeout 0): true with
    /// its result once it finished; false while it is queued or running. When the look itself
    /// fails (UnknownCommand), true with that status.</summary>
    public bool TryResult(ulong command, out InterceptionStatus result)
    {
        AlvkStatus rc = _library.CommandWait(command, 0, out AlvkStatus status);
        result = rc == AlvkStatus.Ok ? (InterceptionStatus)status : (InterceptionStatus)rc;
        return rc != AlvkStatus.Timeout;
    }

    public PatchTelemetry? Telemetry(ulong handle)
    {
        if (_library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t) != AlvkStatus.Ok)
            return null;
        return new PatchTelemetry
        {
            State = (PatchState)(int)t.State,
            LastStatus = (InterceptionStatus)t.LastStatus,
            PendingCommands = (int)t.PendingCommands,
            CommandsCompleted = (int)t.CommandsCompleted,
            OwnerCount = (int)t.OwnerCount,
            ModuleEpoch = (int)t.ModuleEpoch,
            ModuleId = t.ModuleId,
            MethodToken = unchecked((int)t.MethodToken),
            CalliSignatureToken = unchecked((int)t.CalliSignatureToken),
            GetReJITParametersCallbacks = (int)t.GetReJITParameters,
            ReJITCompilationsStarted = (int)t.ReJITStarted,
            ReJITCompilationsFinished = (int)t.ReJITFinished,
            ReJITErrors = (int)t.ReJITErrors,
            InlinersReJITted = (int)t.InlinersReJITted,
            RequestHResult = t.RequestHResult,
            SetILHResult = t.SetILHResult,
            CompilationHResult = t.CompilationHResult,
            ErrorHResult = t.ErrorHResult,
            MetadataHResult = t.MetadataHResult,
            ReplacementEntryPoint = unchecked((nint)t.Replacement),
            DispatchPath = (DispatchPath)(int)t.DispatchPath,
            DispatchFallback = (InterceptionStatus)t.DispatchFallback,
            CallToken = unchecked((int)t.CallToken),
            CarrierState = (CarrierState)(int)t.CarrierState,
            CarrierToken = unchecked((int)t.CarrierToken),
            CallersRedirected = (int)t.CallersRedirected,
            CallersDiscovered = (int)t.CallersDiscovered,
            CallersKept = (int)t.CallersKept,
            CommandElapsed = FromNanoseconds(t.CommandElapsedNs),
            CompileElapsed = FromNanoseconds(t.CompileElapsedNs),
        };
    }

    /// <summary>alvk_generation_validate (no profiler involvement): the status, and the
    /// relocation or IL map entry it is about.</summary>
    public InterceptionStatus Validate(LoweredGeneration g, MethodDescription target, ulong prior, ulong owner,
        out uint failingIndex)
    {
        InterceptionStatus rc = WithModuleIds(g, out g, out failingIndex);
        if (rc != InterceptionStatus.Ok)
            return rc;
        uint failing = 0;
        rc = Pinned(g, target, prior, owner,
            (in AlvkGeneration generation) => _library.GenerationValidate(generation, out failing));
        failingIndex = failing;
        return rc;
    }

    /// <summary>A validation of a generation with one relocation (a string), which the validator
    /// refuses at its first check (no owner; nor has it a body): the relocations laid out as the library reads them,
    /// as for the first body that names a new string or member (the framework's spans over
    /// <see cref="AlvkRelocation"/>, compiled at run time on their first use). Changes nothing;
    /// the validator's status.</summary>
    public InterceptionStatus RehearseRelocationLayout()
    {
        AlvkRelocation relocation = default;
        relocation.Kind = AlvkRelocationKind.UserString;
        AlvkGeneration generation = default;
        generation.Relocations = &relocation;
        generation.RelocationCount = 1;
        return (InterceptionStatus)_library.GenerationValidate(generation, out _);
    }

    /// <summary>alvk_generation_validate through a library bound by the caller (the hot reload
    /// tests open the library by path: the validator needs no profiler).</summary>
    public static InterceptionStatus Validate(AlvkExports exports, LoweredGeneration g, MethodDescription target,
        ulong owner, out uint failingIndex)
    {
        uint failing = 0;
        InterceptionStatus rc = Pinned(g, target, 0, owner, (in AlvkGeneration generation) =>
        {
            AlvkGeneration copy = generation;
            uint index = 0;
            AlvkStatus status = exports.GenerationValidate(&copy, &index);
            failing = index;
            return status;
        });
        failingIndex = failing;
        return rc;
    }

    /// <summary>alvk_generation_get_result as a record (relocations described from `lowered`
    /// when it is the generation's plan), or null when the profiler no longer has it.</summary>
    public GenerationInfo? Generation(ulong handle, ulong id, LoweredGeneration? lowered)
    {
        if (id == 0)
            return null;
        // As many results as the generation has: its plan's count (a library older than ABI 3.9
        // may add one per operand site), else what the profiler says it has.
        int capacity = lowered?.Relocations.Sum(s => 1 + (int)s.SiteCount) ?? 0;
        if (lowered is null)
        {
            if (_library.GenerationGetResult(handle, id, out AlvkGenerationResult first, []) != AlvkStatus.Ok)
                return null;
            capacity = (int)Math.Min(first.RelocationCount, AlvkConstants.MaxRelocations);
        }
        var relocations = new AlvkRelocationResult[capacity];
        if (_library.GenerationGetResult(handle, id, out AlvkGenerationResult r, relocations) != AlvkStatus.Ok)
            return null;
        var list = new List<RelocationInfo>();
        for (int i = 0; i < Math.Min((int)r.RelocationCount, relocations.Length); i++)
        {
            AlvkRelocationResult x = relocations[i];
            list.Add(new RelocationInfo((RelocationKind)(int)x.Kind, unchecked((int)x.Token), x.Reused != 0, x.HResult,
                lowered is not null && i < lowered.Relocations.Count ? lowered.Relocations[i].Description : ""));
        }
        var status = (InterceptionStatus)r.Status;
        return new GenerationInfo
        {
            Id = r.Generation,
            PriorId = r.PriorGeneration,
            State = (GenerationState)(int)r.State,
            Status = status,
            StatusName = StatusName(status),
            StatusDescription = StatusDescription(status),
            FailingIndex = (int)r.FailingIndex,
            MetadataHResult = r.MetadataHResult,
            ILMapHResult = r.ILMapHResult,
            CompilationHResult = r.CompilationHResult,
            Elapsed = FromNanoseconds(r.ElapsedNs),
            Relocations = list,
            TypeErrorOffset = (int)r.TypeErrorOffset,
            TypeFound = (StackType)(int)r.TypeFound,
            TypeExpected = (StackType)(int)r.TypeExpected,
        };
    }

    /// <summary>The generation a new one must name as its prior: the live patch's latest
    /// (its telemetry says), or 0 when the patch has ended or never existed.</summary>
    public ulong LatestGeneration(ulong handle)
    {
        if (handle == 0 || _library.PatchGetTelemetry(handle, out AlvkPatchTelemetry t) != AlvkStatus.Ok)
            return 0;
        bool ended = t.State is AlvkPatchState.Removed or AlvkPatchState.Failed
            or AlvkPatchState.Rejected or AlvkPatchState.Unloaded;
        return ended ? 0 : t.LatestGeneration;
    }

    private delegate AlvkStatus GenerationCall(in AlvkGeneration generation);

    private static InterceptionStatus Pinned(LoweredGeneration g, MethodDescription target, ulong prior, ulong owner, GenerationCall call)
    {
        (AlvkRelocation[] relocations, AlvkILMapEntry[] map) = Arrays(g);
        byte[] body = g.Body, pool = g.Pool;
        fixed (byte* b = body)
        fixed (byte* p = pool)
        fixed (AlvkRelocation* r = relocations)
        fixed (AlvkILMapEntry* m = map)
            return (InterceptionStatus)call(Generation(g, target, prior, owner, b, p, r, m));
    }

    // The relocations and IL map of `g` as the ABI lays them out.
    private static (AlvkRelocation[] Relocations, AlvkILMapEntry[] Map) Arrays(LoweredGeneration g)
    {
        var relocations = new AlvkRelocation[g.Relocations.Count];
        for (int i = 0; i < relocations.Length; i++)
        {
            RelocationSpec s = g.Relocations[i];
            relocations[i] = new AlvkRelocation
            {
                Size = (uint)sizeof(AlvkRelocation),
                Kind = (AlvkRelocationKind)(int)s.Kind,
                ILOffset = s.ILOffset,
                ParentToken = s.ParentToken,
                ParentRelocation = s.ParentRelocation,
                NameOffset = s.NameOffset,
                NameLength = s.NameLength,
                BlobOffset = s.BlobOffset,
                BlobLength = s.BlobLength,
                SitesOffset = s.SitesOffset,
                SiteCount = s.SiteCount,
            };
        }
        var map = new AlvkILMapEntry[g.ILMap.Count];
        for (int i = 0; i < map.Length; i++)
            map[i] = new AlvkILMapEntry
            {
                OldOffset = g.ILMap[i].OldOffset,
                NewOffset = g.ILMap[i].NewOffset,
                Accurate = g.ILMap[i].Accurate ? 1u : 0u,
            };
        return (relocations, map);
    }

    // The alvk_generation of `g` for the copy `target` describes, over pinned arrays.
    private static AlvkGeneration Generation(LoweredGeneration g, MethodDescription target, ulong prior, ulong owner,
        byte* body, byte* pool, AlvkRelocation* relocations, AlvkILMapEntry* map)
    {
        AlvkGeneration generation = default;
        generation.Size = (uint)sizeof(AlvkGeneration);
        generation.MethodToken = unchecked((uint)target.MetadataToken);
        generation.ModuleMvid = AlvkMvid.From(target.ModuleVersionId);
        generation.ModuleId = target.ModuleId;
        generation.ModuleEpoch = (uint)target.ModuleEpoch;
        target.BodyIdentity.CopyTo(new Span<byte>(generation.ExpectedBodyIdentity, Sha256Digest.Length));
        generation.PriorGeneration = prior;
        generation.Owner = owner;
        generation.Body = body;
        generation.BodySize = (uint)g.Body.Length;
        generation.Blobs = g.Pool.Length > 0 ? pool : null;
        generation.BlobsSize = (uint)g.Pool.Length;
        generation.Relocations = g.Relocations.Count > 0 ? relocations : null;
        generation.RelocationCount = (uint)g.Relocations.Count;
        generation.ILMap = g.ILMap.Count > 0 ? map : null;
        generation.ILMapCount = (uint)g.ILMap.Count;
        generation.Flags = g.Unverifiable ? (uint)AlvkInstallFlags.Unverifiable : 0u;
        return generation;
    }

    /// <summary>`g` with the blob of every ASSEMBLY_REF relocation filled: the module_id
    /// (alvk_module_identify) of the referenced assembly's manifest module, little-endian. A plan
    /// cannot reach the profiler, so it leaves the 8 bytes for the submission. Not Ok (and the
    /// relocation's index) when a module cannot be identified.</summary>
    private InterceptionStatus WithModuleIds(LoweredGeneration g, out LoweredGeneration filled, out uint failing)
    {
        filled = g;
        failing = 0;
        byte[]? pool = null;
        for (int i = 0; i < g.Relocations.Count; i++)
        {
            if (g.Relocations[i] is not { Referenced: { } assembly } spec)
                continue;
            InterceptionStatus rc = Identify(assembly.ManifestModule, null, out ModuleCopy? copy);
            if (rc != InterceptionStatus.Ok)
            {
                failing = (uint)i;
                return rc;
            }
            pool ??= (byte[])g.Pool.Clone();
            BinaryPrimitives.WriteUInt64LittleEndian(pool.AsSpan((int)spec.BlobOffset, 8), copy!.Id);
        }
        if (pool is not null)
            filled = g with { Pool = pool };
        return InterceptionStatus.Ok;
    }

    /// <summary>One generation of a batch: the lowered body, the copy it is for, its prior.</summary>
    internal readonly record struct BatchEntry(LoweredGeneration Lowered, MethodDescription Target, ulong Prior);

    /// <summary>alvk_generation_submit_batch (ABI 3.6) for `entries`: the batch's status, each
    /// generation's status, patch handle and generation id, and the batch's one command. A module
    /// an ASSEMBLY_REF names that cannot be identified is that entry's status (nothing queued).</summary>
    public InterceptionStatus SubmitBatch(IReadOnlyList<BatchEntry> entries, ulong owner, ulong[] handles, ulong[] ids,
        InterceptionStatus[] statuses, out ulong command)
    {
        command = 0;
        var lowered = new LoweredGeneration[entries.Count];
        InterceptionStatus first = InterceptionStatus.Ok;
        for (int i = 0; i < entries.Count; i++)
        {
            statuses[i] = WithModuleIds(entries[i].Lowered, out lowered[i], out _);
            if (statuses[i] != InterceptionStatus.Ok && first == InterceptionStatus.Ok)
                first = statuses[i];
        }
        if (first != InterceptionStatus.Ok)
        {
            for (int i = 0; i < statuses.Length; i++)
                if (statuses[i] == InterceptionStatus.Ok)
                    statuses[i] = InterceptionStatus.BatchAborted;
            return first;
        }
        // Four arrays pinned per entry (a plain array of handles: a framework list over GCHandle is not precompiled).
        var pins = new GCHandle[4 * entries.Count];
        int pinned = 0;
        try
        {
            var generations = new AlvkGeneration[entries.Count];
            for (int i = 0; i < entries.Count; i++)
            {
                LoweredGeneration g = lowered[i];
                (AlvkRelocation[] relocations, AlvkILMapEntry[] map) = Arrays(g);
                generations[i] = Generation(g, entries[i].Target, entries[i].Prior, owner,
                    (byte*)Pin(g.Body), (byte*)Pin(g.Pool), (AlvkRelocation*)Pin(relocations), (AlvkILMapEntry*)Pin(map));
            }
            var raw = new AlvkStatus[entries.Count];
            var rc = (InterceptionStatus)_library.GenerationSubmitBatch(generations, handles, ids, raw);
            command = _library.LastCommand();
            for (int i = 0; i < raw.Length; i++)
                statuses[i] = (InterceptionStatus)raw[i];
            return rc;
        }
        finally
        {
            for (int i = 0; i < pinned; i++)
                pins[i].Free();
        }

        IntPtr Pin(Array array)
        {
            GCHandle pin = GCHandle.Alloc(array, GCHandleType.Pinned);
            pins[pinned++] = pin;
            return array.Length > 0 ? pin.AddrOfPinnedObject() : IntPtr.Zero;
        }
    }

    private static TimeSpan FromNanoseconds(ulong ns) => TimeSpan.FromTicks((long)Math.Min(ns / 100, long.MaxValue));
}

/// <summary>The groups of statuses this library branches on (values pinned by the C ABI).</summary>
internal static class StatusGroups
{
    /// <summary>Startup configuration problems (100-199), and a profiler that never attached.</summary>
    public static bool IsStartupRefusal(this InterceptionStatus status) =>
        status is InterceptionStatus.NotAttached or (>= InterceptionStatus.ProfilerPathUnset and < InterceptionStatus.WorkerUnavailable);

    /// <summary>Statuses about one relocation or IL map entry (the failing index of
    /// alvk_generation_validate, or of the generation's result, names it).</summary>
    public static bool NamesAnEntry(this InterceptionStatus status) =>
        status is (>= InterceptionStatus.RelocationMalformed and <= InterceptionStatus.ILMapInvalid)
            or InterceptionStatus.SignatureMalformed or InterceptionStatus.MemberNotFound;
}
