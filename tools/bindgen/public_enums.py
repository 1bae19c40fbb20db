"""The public managed enums that mirror the header's enums: their C# names and XML docs.
The values come from the header (gen_csharp.emit_public_enums); a header member with no entry
here, or an entry whose C member the header lacks, fails the generation and the strict check.
A `None` entry is a managed-only member (its value given here, never one the header uses)."""

ENUMS = [
    dict(
        c="alvk_patch_state", assembly="AlvorKit.Interception", name="PatchState", flags=False,
        summary='<summary>Where a patch is in its life.</summary>',
        members=[
            ('ALVK_PATCH_PENDING', 'Pending', None, "<summary>The command is queued or running on the profiler's worker.</summary>"),
            ('ALVK_PATCH_ACTIVE', 'Active', None, '<summary>The replacement (or generation) is requested and in force.</summary>'),
            ('ALVK_PATCH_REMOVED', 'Removed', None, '<summary>Removed: for this owner, or for everybody once the last owner removed it, and the\noriginal body runs again.</summary>'),
            ('ALVK_PATCH_FAILED', 'Failed', None, '<summary>The runtime refused the ReJIT; the original runs.</summary>'),
            ('ALVK_PATCH_REJECTED', 'Rejected', None, '<summary>The install failed validation; nothing changed.</summary>'),
            ('ALVK_PATCH_UNLOADED', 'Unloaded', None, "<summary>The target's module unloaded.</summary>"),
        ]),
    dict(
        c="alvk_dispatch_path", assembly="AlvorKit.Interception", name="DispatchPath", flags=False,
        summary='<summary>How a patched target reaches its replacement (the telemetry\'s\n<see cref="PatchTelemetry.DispatchPath"/>).</summary>',
        members=[
            ('ALVK_DISPATCH_NONE', 'None', None, '<summary>No replacement in force: a generation, or the original body.</summary>'),
            ('ALVK_DISPATCH_CALLI', 'Calli', None, "<summary>The target's body calls the replacement's entry point through <c>calli</c>: any\nreplacement, one indirect jump more per call, and the replacement is never inlined.</summary>"),
            ('ALVK_DISPATCH_DIRECT_CALL', 'DirectCall', None, "<summary>The target's body calls the replacement directly (its MethodDef, or a MemberRef the\nprofiler emitted into the target's module): the JIT may inline the replacement into the\ntarget, so a patched call costs one call.</summary>"),
        ]),
    dict(
        c="alvk_carrier_state", assembly="AlvorKit.Interception", name="CarrierState", flags=False,
        summary='<summary>Whether a patched target\'s body is carried for its callers, so that the JIT inlines it\ninto them, and why not (the telemetry\'s <see cref="PatchTelemetry.CarrierState"/>).</summary>',
        members=[
            ('ALVK_CARRIER_NONE', 'None', None, '<summary>No patched body in force: pending, or the original IL.</summary>'),
            ('ALVK_CARRIER_ACTIVE', 'Active', None, "<summary>Carried: the callers are redirected to <see cref=\"PatchTelemetry.CarrierToken\"/>, a method\nholding the body in force, which the JIT inlines.</summary>"),
            ('ALVK_CARRIER_KNOWN_CALLERS', 'KnownCallersOnly', None, '<summary>Carried for its known inliners only: the table of carried targets is full, so\ncallers compiled later keep the real call.</summary>'),
            ('ALVK_CARRIER_TOO_BIG', 'TooBig', None, '<summary>No known inliner, and its original code is over 32 IL bytes: callers compiled\nlater keep the real call.</summary>'),
            ('ALVK_CARRIER_NO_INLINING', 'NoInlining', None, '<summary>No known inliner, and marked NoInlining or Synchronized.</summary>'),
            ('ALVK_CARRIER_GENERIC', 'Generic', None, '<summary>A generic method or a method of a generic type.</summary>'),
            ('ALVK_CARRIER_VIRTUAL', 'Virtual', None, '<summary>A virtual method that may be overridden (not final): its calls may dispatch elsewhere.</summary>'),
            ('ALVK_CARRIER_HANDLERS', 'ExceptionHandlers', None, '<summary>The body has exception clauses, which the JIT never inlines.</summary>'),
            ('ALVK_CARRIER_FAILED', 'Failed', None, "<summary>The target's metadata or IL could not be read, or the carrier not emitted.</summary>"),
        ]),
    dict(
        c="alvk_method_flags", assembly="AlvorKit.Interception", name="MethodTraits", flags=True,
        summary='<summary>Facts about a method as the profiler sees it in its loaded module.</summary>',
        members=[
            (None, 'None', 0, '<summary>A static, non-generic method of a non-generic type.</summary>'),
            ('ALVK_METHOD_HAS_THIS', 'Instance', None, '<summary>An instance method (it has a receiver).</summary>'),
            ('ALVK_METHOD_GENERIC', 'Generic', None, '<summary>The method has its own generic parameters.</summary>'),
            ('ALVK_METHOD_DECLARING_TYPE_GENERIC', 'DeclaringTypeGeneric', None, '<summary>The method is declared on a generic type.</summary>'),
            ('ALVK_METHOD_VALUE_TYPE_RECEIVER', 'ValueTypeReceiver', None, '<summary>An instance method of a value type (its receiver arrives by reference).</summary>'),
            ('ALVK_METHOD_NON_VERSIONABLE', 'NonVersionable', None, '<summary>Marked [System.Runtime.Versioning.NonVersionable]: ReadyToRun code of other\nassemblies may have inlined it without the runtime tracking it, so it cannot be patched\n(<see cref="InterceptionStatus.TargetNonVersionable"/>).</summary>'),
        ]),
    dict(
        c="alvk_relocation_kind", assembly="AlvorKit.Interception", name="RelocationKind", flags=False,
        summary="<summary>The metadata a generation's relocation asks the profiler to emit (or reuse).</summary>",
        members=[
            ('ALVK_RELOCATION_STANDALONE_SIG', 'StandAloneSignature', None, "<summary>A StandAloneSig: a calli signature or the body's local variables.</summary>"),
            ('ALVK_RELOCATION_TYPE_SPEC', 'TypeSpec', None, '<summary>A TypeSpec: a generic instantiation, array, pointer or generic parameter.</summary>'),
            ('ALVK_RELOCATION_MEMBER_REF', 'MemberRef', None, '<summary>A MemberRef: a method, constructor or field of another module, or of a generic type.</summary>'),
            ('ALVK_RELOCATION_METHOD_SPEC', 'MethodSpec', None, '<summary>A MethodSpec: a generic method instantiation.</summary>'),
            ('ALVK_RELOCATION_TYPE_REF', 'TypeRef', None, '<summary>A TypeRef: a type of another assembly.</summary>'),
            ('ALVK_RELOCATION_USER_STRING', 'UserString', None, '<summary>A user string: a string literal the module does not have yet (ABI 3.3).</summary>'),
            ('ALVK_RELOCATION_ASSEMBLY_REF', 'AssemblyRef', None, '<summary>An AssemblyRef to an assembly the module does not reference yet, the parent of\nthe TypeRefs a plan names in it (ABI 3.6).</summary>'),
        ]),
    dict(
        c="alvk_generation_state", assembly="AlvorKit.Interception", name="GenerationState", flags=False,
        summary="<summary>Where a generation is: the profiler's alvk_generation_state.</summary>",
        members=[
            ('ALVK_GENERATION_PENDING', 'Pending', None, '<summary>Queued, or being emitted.</summary>'),
            ('ALVK_GENERATION_REQUESTED', 'Requested', None, '<summary>Emitted and requested; the target compiles it on its next call.</summary>'),
            ('ALVK_GENERATION_ACTIVE', 'Active', None, '<summary>Compiled; the target runs it.</summary>'),
            ('ALVK_GENERATION_SUPERSEDED', 'Superseded', None, '<summary>A later generation, or the restore of the original, replaced it.</summary>'),
            ('ALVK_GENERATION_FAILED', 'Failed', None, '<summary>The JIT rejected it; the previous body was restored.</summary>'),
            ('ALVK_GENERATION_REJECTED', 'Rejected', None, '<summary>Validation or metadata emission refused it; nothing changed.</summary>'),
        ]),
    dict(
        c="alvk_stack_type", assembly="AlvorKit.Interception", name="StackType", flags=False,
        summary="<summary>The types of the evaluation stack (ECMA-335 III.1.1), as a stack-type check reports\nthem. The first eight values are the profiler's alvk_stack_type.</summary>",
        members=[
            ('ALVK_STACK_NOTHING', 'Nothing', None, '<summary>No value: an empty stack, or a return with no value.</summary>'),
            ('ALVK_STACK_INT32', 'Int32', None, '<summary>int32: bool, char, the 8-, 16- and 32-bit integers and enums over them.</summary>'),
            ('ALVK_STACK_INT64', 'Int64', None, '<summary>int64: long, ulong and enums over them.</summary>'),
            ('ALVK_STACK_NATIVE_INT', 'NativeInt', None, '<summary>native int: nint, nuint, unmanaged pointers, function pointers.</summary>'),
            ('ALVK_STACK_FLOAT', 'Float', None, '<summary>F: float and double.</summary>'),
            ('ALVK_STACK_OBJECT', 'ObjectReference', None, '<summary>O: an object reference (or null).</summary>'),
            ('ALVK_STACK_BYREF', 'ManagedPointer', None, '<summary>&amp;: a managed pointer (ref, out, in, ldloca, ldflda, ...).</summary>'),
            ('ALVK_STACK_VALUE_TYPE', 'ValueType', None, '<summary>A value type instance (a struct that is not a primitive or an enum).</summary>'),
            (None, 'GenericParameter', 8, "<summary>A value of a generic parameter's type (what it is depends on the\ninstantiation). Only the plan's own check reports it.</summary>"),
        ]),
    dict(
        c="alvk_allocation_profiling", assembly="AlvorKit.Interception.Allocations", name="AllocationProfiling", flags=False,
        summary='<summary>What ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING chose at startup for the whole process\n(<see cref="AllocationCapture.Profiling"/>, <see cref="AllocationReport.Source"/>).</summary>',
        members=[
            ('ALVK_ALLOCATION_PROFILING_OFF', 'Off', None, '<summary>No allocation profiling: <see cref="AllocationCapture.Begin"/> throws.</summary>'),
            ('ALVK_ALLOCATION_PROFILING_EXACT', 'Exact', None, '<summary>"exact" (or "1"): the runtime calls the profiler for every allocation of the\nprocess, window open or not, so every allocation takes the runtime\'s slow path for the\nlife of the process (several times slower; docs/Benchmarks.md has the figures). Windows count\nevery object exactly.</summary>'),
            ('ALVK_ALLOCATION_PROFILING_SAMPLED', 'Sampled', None, '<summary>"sampled": the runtime keeps its fast allocation path and, while a window is\nopen, reports about one allocation per 100 KiB allocated (its AllocationSampled event);\nwindows report per-type estimates with approximate 95% intervals (large and pinned\nobjects counted exactly).</summary>'),
        ]),
    dict(
        c="alvk_capture_mode", assembly="AlvorKit.Interception.Allocations", name="AllocationCaptureMode", flags=False,
        summary='<summary>What a window records.</summary>',
        members=[
            ('ALVK_CAPTURE_COUNT_ONLY', 'CountOnly', None, '<summary>Per-type counts and bytes only (estimates in sampled profiling).</summary>'),
            ('ALVK_CAPTURE_SAMPLED', 'Sampled', None, '<summary>Counts, plus allocation stacks of sampled allocations.</summary>'),
        ]),
    dict(
        c="alvk_capture_phase", assembly="AlvorKit.Interception.Allocations", name="AllocationCapturePhase", flags=False,
        summary='<summary>The phase of the capture machinery (<see cref="AllocationCaptureState.Phase"/>).</summary>',
        members=[
            ('ALVK_CAPTURE_PHASE_IDLE', 'Idle', None, '<summary>No window is open; the last sampling session (if any) has stopped.</summary>'),
            ('ALVK_CAPTURE_PHASE_OPENING', 'Opening', None, '<summary>A window is open; its sampling session is being started.</summary>'),
            ('ALVK_CAPTURE_PHASE_OPEN', 'Open', None, '<summary>A window is open and counting (sampled profiling: the session delivers).</summary>'),
            ('ALVK_CAPTURE_PHASE_CLOSING', 'Closing', None, '<summary>A window is being closed.</summary>'),
            ('ALVK_CAPTURE_PHASE_STOPPING', 'Stopping', None, '<summary>No window is open; a sampling session\'s stop has not returned yet (a new window\nis refused with <see cref="InterceptionStatus.CaptureStopping"/> until it does).</summary>'),
        ]),
]
