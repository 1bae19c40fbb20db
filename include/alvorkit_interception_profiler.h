/*
 * AlvorKit Interception Profiler: the public C ABI.
 *
 * This header is the sole source of the ABI. The native library exports exactly the
 * functions declared with ALVK_API below (plus DllGetClassObject for CoreCLR), and the
 * managed bindings are generated from this file.
 *
 * Rules every declaration here follows:
 *   - fixed-width integer types only; every enum is 32 bits wide (..._MAX_ENUM);
 *   - every struct that crosses the ABI starts with `uint32_t size`, which the caller sets
 *     to sizeof(struct) as it knows it; a size below the ABI's minimum (the struct as
 *     ABI 3.0 had it) is refused with ALVK_E_STRUCT_SIZE; fields a later minor version
 *     appended are read only when `size` covers them (absent, they count as 0) and nothing
 *     is written past `size`;
 *   - one status enum (alvk_status) with pinned values that never change meaning;
 *   - every function is safe to call from any thread, before or after the profiler attached.
 *
 * How a process gets the profiler: CoreCLR loads this library before managed code runs when
 *   CORECLR_ENABLE_PROFILING=1
 *   CORECLR_PROFILER={3840ACF7-5AF1-49EA-BF94-5F7086C57F57}
 *   CORECLR_PROFILER_PATH=<absolute path of this library>   (or the _64 / _ARM64 variants)
 *   ALVORKIT_INTERCEPTION_PROFILER_PATH=<the same absolute path>
 *   ALVORKIT_INTERCEPTION_MODULES=<assembly simple names separated by ';', or '*'>
 *   ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING=sampled|exact|1  (optional; 1 means exact)
 *   ALVORKIT_INTERCEPTION_MAX_PATCHES=<patch table bound>        (optional, ABI 3.4)
 * Managed code then opens the already-loaded library through
 * ALVORKIT_INTERCEPTION_PROFILER_PATH and calls the functions below.
 */
#ifndef ALVORKIT_INTERCEPTION_PROFILER_H
#define ALVORKIT_INTERCEPTION_PROFILER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------
 * Export and calling convention
 * ------------------------------------------------------------------------------------- */
#if defined(_WIN32)
#  if defined(ALVK_BUILDING_LIBRARY)
#    define ALVK_API __declspec(dllexport)
#  else
#    define ALVK_API __declspec(dllimport)
#  endif
#  define ALVK_CALL __cdecl
#elif defined(__GNUC__) || defined(__clang__)
#  define ALVK_API __attribute__((visibility("default")))
#  define ALVK_CALL
#else
#  define ALVK_API
#  define ALVK_CALL
#endif

/* ---------------------------------------------------------------------------------------
 * Versions
 *
 * The ABI version packs major (10 bits), minor (10 bits) and patch (12 bits). A binding
 * must refuse a library whose major differs from the one it was generated for, and may use
 * a library whose minor is greater or equal to its own.
 * ------------------------------------------------------------------------------------- */
#define ALVK_ABI_VERSION_MAJOR 3
#define ALVK_ABI_VERSION_MINOR 10
#define ALVK_ABI_VERSION_PATCH 0

#define ALVK_MAKE_VERSION(major, minor, patch) \
    ((((uint32_t)(major)) << 22) | (((uint32_t)(minor)) << 12) | ((uint32_t)(patch)))
#define ALVK_VERSION_MAJOR_OF(version) (((uint32_t)(version)) >> 22)
#define ALVK_VERSION_MINOR_OF(version) ((((uint32_t)(version)) >> 12) & 0x3FFu)
#define ALVK_VERSION_PATCH_OF(version) (((uint32_t)(version)) & 0xFFFu)

#define ALVK_ABI_VERSION \
    ALVK_MAKE_VERSION(ALVK_ABI_VERSION_MAJOR, ALVK_ABI_VERSION_MINOR, ALVK_ABI_VERSION_PATCH)

/* The profiler's COM class ID, as CORECLR_PROFILER must name it. */
#define ALVK_PROFILER_CLSID_STRING "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}"

/* ---------------------------------------------------------------------------------------
 * Status codes
 *
 * Values are pinned and grouped: 0 success; 1-99 arguments and ABI use; 100-199 startup
 * configuration; 200-299 the native worker and its queue; 300-399 signatures, IL bodies and
 * targets; 400-499 patches; 500-599 method generations; 600-699 allocation capture. A
 * value is never reused.
 * Each entry: X(name, value, description).
 * ------------------------------------------------------------------------------------- */
#define ALVK_STATUS_LIST(X)                                                                  \
    X(ALVK_OK, 0, "the call succeeded")                                                      \
    X(ALVK_E_NULL_ARGUMENT, 1, "a required pointer argument was NULL")                       \
    X(ALVK_E_STRUCT_SIZE, 2, "the struct's size field is below what this ABI version needs") \
    X(ALVK_E_NOT_ATTACHED, 3,                                                                \
      "this library instance was not loaded and initialized by CoreCLR as the profiler")     \
    X(ALVK_E_BUFFER_TOO_SMALL, 4, "the caller's buffer cannot hold the result")              \
    X(ALVK_E_INTERNAL, 99, "an internal invariant failed; the operation was not performed")  \
    X(ALVK_E_PROFILER_PATH_UNSET, 100,                                                       \
      "ALVORKIT_INTERCEPTION_PROFILER_PATH is not set; managed code cannot find the profiler") \
    X(ALVK_E_PROFILER_PATH_MISMATCH, 101,                                                    \
      "ALVORKIT_INTERCEPTION_PROFILER_PATH does not name the library CoreCLR loaded")        \
    X(ALVK_E_ALLOWLIST_MALFORMED, 102,                                                       \
      "ALVORKIT_INTERCEPTION_MODULES is malformed; the profiler stays inert")                \
    X(ALVK_E_NO_PATCHABLE_MODULES, 103,                                                      \
      "ALVORKIT_INTERCEPTION_MODULES is empty or unset; patch commands are refused")         \
    X(ALVK_E_PROFILER_INFO_UNAVAILABLE, 104,                                                 \
      "the runtime does not provide ICorProfilerInfo10 or newer")                            \
    X(ALVK_E_EVENT_MASK_REFUSED, 105, "the runtime refused the profiler's event mask")        \
    X(ALVK_E_ALLOCATION_FLAG_MALFORMED, 106,                                                 \
      "ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING must be unset, 0, 1, exact or sampled")     \
    X(ALVK_E_ALLOCATION_SIZING_MALFORMED, 107,                                               \
      "ALVORKIT_INTERCEPTION_ALLOCATION_TYPES or _SAMPLES is not a whole number within its bounds") \
    X(ALVK_E_PATCH_CAPACITY_MALFORMED, 108,                                                  \
      "ALVORKIT_INTERCEPTION_MAX_PATCHES is not a whole number within its bounds")          \
    X(ALVK_E_WORKER_UNAVAILABLE, 200, "the native worker thread is not running")             \
    X(ALVK_E_QUEUE_FULL, 201, "the worker queue is full; nothing was enqueued")              \
    X(ALVK_E_TIMEOUT, 202, "the wait ended before the command completed")               \
    X(ALVK_E_UNKNOWN_COMMAND, 203,                                                         \
      "no command has that ID (never issued, or older than the last ALVK_COMMAND_HISTORY)") \
    X(ALVK_E_SIGNATURE_MALFORMED, 300, "a signature blob does not parse as ECMA-335")       \
    X(ALVK_E_SIGNATURE_UNSUPPORTED, 301,                                                   \
      "the signature uses a feature exact dispatch does not support (varargs, explicit this)") \
    X(ALVK_E_METHOD_BODY_MALFORMED, 302, "an IL method body's header, code or EH sections are invalid") \
    X(ALVK_E_GENERIC_TARGET_UNSUPPORTED, 303,                                              \
      "the target is generic or belongs to a generic type; not supported for exact dispatch yet") \
    X(ALVK_E_LIMIT_EXCEEDED, 304, "an input exceeds a documented bound of this ABI")        \
    X(ALVK_E_UNKNOWN_MODULE, 310, "no loaded module has that MVID (or that module_id)")     \
    X(ALVK_E_MODULE_NOT_ALLOWED, 311,                                                      \
      "the module's assembly is not in ALVORKIT_INTERCEPTION_MODULES")                     \
    X(ALVK_E_MODULE_UNLOADED, 312, "the module (or that load of it) has unloaded")          \
    X(ALVK_E_TOKEN_NOT_METHODDEF, 313, "the token is not a MethodDef token (0x06xxxxxx)")  \
    X(ALVK_E_TOKEN_OUT_OF_RANGE, 314, "the MethodDef token's row does not exist in the module") \
    X(ALVK_E_METHOD_HAS_NO_IL, 315,                                                        \
      "the method has no IL body (abstract, extern, P/Invoke or runtime-implemented)")     \
    X(ALVK_E_METADATA_FAILED, 316, "the runtime's metadata or IL query failed; see the HRESULT") \
    X(ALVK_E_CATALOG_FULL, 317, "the module catalog is full; later modules are not patchable") \
    X(ALVK_E_SIGNATURE_HASH_MISMATCH, 318,                                                 \
      "the method's signature hash differs from the one the caller expected")              \
    X(ALVK_E_BODY_IDENTITY_MISMATCH, 319,                                                  \
      "the method's loaded IL body differs from the one the caller built against")         \
    X(ALVK_E_MODULE_COLLECTIBLE, 320,                                                      \
      "the module belongs to a collectible AssemblyLoadContext; the runtime cannot ReJIT its methods") \
    X(ALVK_E_MODULE_AMBIGUOUS, 321,                                                        \
      "several loaded copies of the module have that MVID; name one by its module_id")       \
    X(ALVK_E_TARGET_NON_VERSIONABLE, 322,                                                  \
      "the target is [NonVersionable]: ReadyToRun code of other assemblies inlines it untracked") \
    X(ALVK_E_REPLACEMENT_NOT_ACCESSIBLE, 323,                                              \
      "the replacement or a type enclosing it is not public: the target's module cannot call it directly") \
    X(ALVK_E_REPLACEMENT_UNSUPPORTED, 324,                                                 \
      "the replacement is generic, of a generic type, or not a static method with IL: no direct call") \
    X(ALVK_E_REPLACEMENT_IS_TARGET, 325,                                                   \
      "the replacement is the target itself: every call of it would call itself") \
    X(ALVK_E_UNKNOWN_PATCH, 400, "no patch has that handle (never issued, or recycled)")   \
    X(ALVK_E_NOT_OWNER, 401, "the owner does not hold this patch")                         \
    X(ALVK_E_INVALID_OWNER, 402, "owner 0 is reserved; give a nonzero owner")              \
    X(ALVK_E_INVALID_REPLACEMENT, 403, "the replacement entry point is 0")                 \
    X(ALVK_E_INVALID_FLAGS, 404, "a flag bit or reserved field is not valid in this ABI version") \
    X(ALVK_E_PATCH_TABLE_FULL, 405, "every patch slot is live; remove a patch first")      \
    X(ALVK_E_OWNERS_FULL, 406, "the patch already has the maximum number of owners")       \
    X(ALVK_E_PATCH_ENDED, 407, "the patch reached a terminal state; install a new one")    \
    X(ALVK_E_REJIT_FAILED, 408, "the runtime refused the ReJIT request; see the telemetry's HRESULTs") \
    X(ALVK_E_METADATA_EMIT_FAILED, 409,                                                    \
      "emitting a metadata token or applying metadata failed; see the telemetry's HRESULTs") \
    X(ALVK_E_DUPLICATE_TARGET, 410, "a batch names the same target twice")                  \
    X(ALVK_E_BATCH_ABORTED, 411,                                                           \
      "another request of the batch was refused; nothing of the batch was applied")          \
    X(ALVK_E_STALE_GENERATION, 500,                                                        \
      "prior_generation is not the target's latest generation")                            \
    X(ALVK_E_UNKNOWN_GENERATION, 501, "the patch has no result for that generation")       \
    X(ALVK_E_IL_MALFORMED, 502,                                                            \
      "the code is not a valid instruction stream (unknown opcode, cut operand, bad branch)") \
    X(ALVK_E_RELOCATION_MALFORMED, 503,                                                    \
      "a relocation's kind, size, name, blob or parent is invalid")                        \
    X(ALVK_E_RELOCATION_NOT_OPERAND, 504,                                                  \
      "a relocation's offset is not a token operand (of an instruction, the locals, a catch)") \
    X(ALVK_E_RELOCATION_KIND_MISMATCH, 505,                                                \
      "the instruction at a relocation does not take that kind of token")                  \
    X(ALVK_E_RELOCATION_OVERLAP, 506, "two relocations fill the same operand")             \
    X(ALVK_E_IL_MAP_INVALID, 507, "an IL map entry is out of range or out of order")       \
    X(ALVK_E_COMPILATION_FAILED, 508,                                                      \
      "the runtime could not compile the generation; the prior body was restored")          \
    X(ALVK_E_MEMBER_NOT_FOUND, 509,                                                        \
      "a method or field the generation references does not exist where it points")         \
    X(ALVK_E_STACK_TYPE_MISMATCH, 510,                                                     \
      "the body is not type-safe: an instruction finds a stack type it cannot take")         \
    X(ALVK_E_ALLOCATION_PROFILING_OFF, 600,                                                \
      "allocation capture needs ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING at startup")     \
    X(ALVK_E_CAPTURE_ACTIVE, 601, "a capture window is already open")                      \
    X(ALVK_E_CAPTURE_NOT_ACTIVE, 602, "no capture window is open")                         \
    X(ALVK_E_NO_CAPTURE, 603, "no capture window has ended yet")                           \
    X(ALVK_E_UNKNOWN_FUNCTION, 604, "the runtime does not know that FunctionID")           \
    X(ALVK_E_CAPTURE_STOPPING, 605,                                                        \
      "the previous window's sampling session has not stopped yet; try again later")       \
    X(ALVK_E_CAPTURE_SESSION_FAILED, 606,                                                  \
      "the runtime refused the sampling session (EventPipeStartSession failed)")           \
    X(ALVK_E_CAPTURE_CONTROL_UNAVAILABLE, 607,                                             \
      "the thread that opens and stops sampling sessions is not running")                  \
    X(ALVK_E_SAMPLING_UNSUPPORTED, 608,                                                    \
      "sampled allocation profiling needs .NET 10 or later (its AllocationSampled event)")

typedef enum alvk_status {
#define ALVK_STATUS_ENUM_ENTRY(name, value, description) name = value,
    ALVK_STATUS_LIST(ALVK_STATUS_ENUM_ENTRY)
#undef ALVK_STATUS_ENUM_ENTRY
    ALVK_STATUS_MAX_ENUM = 0x7FFFFFFF
} alvk_status;

/* ---------------------------------------------------------------------------------------
 * Limits
 * ------------------------------------------------------------------------------------- */
/* At most this many names in ALVORKIT_INTERCEPTION_MODULES. */
#define ALVK_MAX_ALLOWLIST_ENTRIES 32
/* An assembly simple name in the allowlist is 1 to this many bytes of [A-Za-z0-9._-]. */
#define ALVK_MAX_MODULE_NAME_LENGTH 127
/* ABI 3.7. Hot reload's side assemblies: what a reload adds to an allowlisted assembly Name
 * (methods, fields, types) is loaded as an assembly named Name + this infix + a decimal number
 * (1 to 9 digits, no sign or leading zero), and such an assembly may be patched when Name may
 * (a later reload changes the bodies it carries). */
#define ALVK_RELOAD_ASSEMBLY_INFIX ".alvk-reload-"
/* Capacity of alvk_runtime_status.allowlist, terminating NUL included. */
#define ALVK_ALLOWLIST_TEXT_CAPACITY 4096
/* Capacity of alvk_runtime_status.runtime_version, terminating NUL included. */
#define ALVK_RUNTIME_VERSION_CAPACITY 64

/* ---------------------------------------------------------------------------------------
 * Enumerations
 * ------------------------------------------------------------------------------------- */
typedef enum alvk_allowlist_kind {
    ALVK_ALLOWLIST_NONE = 0,  /* unset, empty, or malformed: nothing is patchable */
    ALVK_ALLOWLIST_NAMED = 1, /* the listed assembly simple names are patchable */
    ALVK_ALLOWLIST_ALL = 2,   /* '*': every module (isolated proof processes only) */
    ALVK_ALLOWLIST_KIND_MAX_ENUM = 0x7FFFFFFF
} alvk_allowlist_kind;

/* ---------------------------------------------------------------------------------------
 * Runtime status
 * ------------------------------------------------------------------------------------- */
typedef struct alvk_runtime_status {
    uint32_t size;                 /* in: sizeof(alvk_runtime_status) */
    uint32_t attached;             /* 1 once CoreCLR called Initialize on this instance */
    alvk_status startup_status;    /* ALVK_OK, or why the profiler refuses patch commands */
    uint32_t profiler_info_version; /* highest ICorProfilerInfo version obtained (0 if none) */
    uint32_t event_mask_low;       /* COR_PRF_MONITOR flags in force */
    uint32_t event_mask_high;      /* COR_PRF_HIGH_MONITOR flags in force */
    uint32_t runtime_type;         /* COR_PRF_RUNTIME_TYPE: 2 for CoreCLR */
    uint16_t runtime_major;        /* from ICorProfilerInfo3::GetRuntimeInformation */
    uint16_t runtime_minor;
    uint16_t runtime_build;
    uint16_t runtime_qfe;
    alvk_allowlist_kind allowlist_kind;
    uint32_t allowlist_count;      /* names in `allowlist` (0 for NONE and ALL) */
    uint32_t allocation_profiling; /* an alvk_allocation_profiling: 0 off, 1 exact, 2 sampled */
    uint32_t worker_alive;         /* 1 while the native worker thread runs */
    int32_t worker_init_hresult;   /* HRESULT of the worker's InitializeCurrentThread */
    uint32_t queue_capacity;       /* worker queue slots */
    uint32_t queue_depth;          /* commands waiting now */
    uint64_t commands_completed;   /* commands the worker has finished */
    char runtime_version[ALVK_RUNTIME_VERSION_CAPACITY]; /* UTF-8, NUL-terminated */
    char allowlist[ALVK_ALLOWLIST_TEXT_CAPACITY]; /* normalized: names joined by ';', or "*" */
    /* ABI 3.1: the metadata this profiler added to modules (tokens it emitted, the bytes of
     * their names and blobs) and the emissions it served from its token cache instead. */
    uint64_t metadata_tokens_emitted;
    uint64_t metadata_bytes_emitted;
    uint64_t metadata_tokens_reused;
    /* ABI 3.1: the bytes of IL bodies and maps the profiler holds now (the snapshots in
     * force, each owner's last body, the last body that compiled), and how many. Bounded
     * per patch whatever the number of replacements. */
    uint64_t snapshot_bytes;
    uint64_t snapshot_count;
    /* ABI 3.4: the patch table's bound (ALVORKIT_INTERCEPTION_MAX_PATCHES), the slots it has
     * allocated so far, and the patches live now (not terminal). */
    uint32_t patch_capacity;
    uint32_t patch_slots_allocated;
    uint32_t live_patches;
    uint32_t reserved;
    /* ABI 3.4: ReadyToRun images whose precompiled code is refused now (docs/Interception.md,
     * "ReadyToRun"), such images that kept their code because the set was full, and the cache
     * searches answered "JIT-compile it" so far. */
    uint32_t precompiled_images_refused;
    uint32_t precompiled_refusals_overflowed;
    uint64_t precompiled_methods_refused;
} alvk_runtime_status;

/* ---------------------------------------------------------------------------------------
 * Methods
 * ------------------------------------------------------------------------------------- */

/* A module version ID: the 16 bytes of the module's #GUID heap entry, in the same order
 * as System.Guid.ToByteArray() gives them. */
typedef struct alvk_mvid {
    uint8_t bytes[16];
} alvk_mvid;

typedef enum alvk_method_flags {
    ALVK_METHOD_HAS_THIS = 0x1,               /* instance method */
    ALVK_METHOD_GENERIC = 0x2,                /* has its own generic parameters */
    ALVK_METHOD_DECLARING_TYPE_GENERIC = 0x4, /* declared on a generic type definition */
    ALVK_METHOD_VALUE_TYPE_RECEIVER = 0x8,    /* instance method of a value type */
    /* ABI 3.4: marked [System.Runtime.Versioning.NonVersionable]: ReadyToRun code of other
     * assemblies may inline it without the runtime tracking it, so patching it is refused
     * (ALVK_E_TARGET_NON_VERSIONABLE). */
    ALVK_METHOD_NON_VERSIONABLE = 0x10,
    ALVK_METHOD_FLAGS_MAX_ENUM = 0x7FFFFFFF
} alvk_method_flags;

/* What the profiler sees of one method of a loaded, allowed module. The two hashes let a
 * caller prove it is about to patch exactly the method it compiled against:
 *   signature_hash = SHA-256 of the MethodDefSig blob: the bytes of the method's #Blob heap
 *                    entry, without the blob's compressed length prefix;
 *   body_identity  = SHA-256 of the IL method body as loaded: its tiny or fat header, its
 *                    code, the padding that 4-byte-aligns the extra sections, and every
 *                    extra section (EH clauses) up to the end of the last one; body_size
 *                    bytes in all, starting at the method's RVA. */
typedef struct alvk_method_description {
    uint32_t size;              /* in: sizeof(alvk_method_description) */
    uint32_t method_token;
    alvk_mvid module_mvid;
    uint32_t module_epoch;      /* increases with every module load in the process */
    uint32_t method_attributes; /* CorMethodAttr */
    uint32_t impl_attributes;   /* CorMethodImpl */
    uint32_t flags;             /* alvk_method_flags */
    uint32_t declaring_type;    /* TypeDef token */
    uint32_t param_count;       /* without the receiver */
    uint32_t signature_length;
    uint32_t body_size;
    uint32_t code_size;
    uint32_t max_stack;
    uint32_t eh_clause_count;
    uint32_t local_signature;   /* StandAloneSig token of the locals, or 0 */
    uint8_t signature_hash[32];
    uint8_t body_identity[32];
    /* ABI 3.1 */
    uint64_t module_id;         /* the runtime's ModuleID of the copy described */
    uint32_t module_flags;      /* alvk_module_flags */
    uint32_t reserved;
} alvk_method_description;

/* ---------------------------------------------------------------------------------------
 * Module copies (ABI 3.1)
 *
 * One assembly can be loaded more than once: in the default AssemblyLoadContext and in a
 * plugin's. Every copy has the same MVID and is a separate module with its own methods, so
 * a command names the copy it means by module_id (the runtime's ModuleID, from
 * alvk_module_identify) and module_epoch (the load, as the catalog numbered it; 0: whichever
 * load of that ModuleID is live). A patch belongs to the copy it was installed on: two
 * copies of one method are two patches, and replace, remove and rollback act on that copy.
 *
 * module_id 0 keeps the ABI 3.0 meaning, the copy the MVID alone names: the only loaded copy
 * that is not collectible (collectible copies never count while one is loaded, since they
 * can never be patched), ALVK_E_MODULE_AMBIGUOUS when several non-collectible copies are
 * loaded, and with only collectible copies loaded, the newest of them.
 *
 * Collectible copies (a collectible AssemblyLoadContext) are catalogued and identified, but
 * the runtime cannot ReJIT their methods: describing, patching or generating for one is
 * ALVK_E_MODULE_COLLECTIBLE, whatever ALVORKIT_INTERCEPTION_MODULES says.
 * ------------------------------------------------------------------------------------- */
typedef enum alvk_module_flags {
    ALVK_MODULE_ALLOWED = 0x1,     /* ALVORKIT_INTERCEPTION_MODULES lets it be patched */
    ALVK_MODULE_COLLECTIBLE = 0x2, /* loaded in a collectible AssemblyLoadContext */
    ALVK_MODULE_UNLOADED = 0x4,    /* its epoch ended (identify answers only loaded copies) */
    ALVK_MODULE_FLAGS_MAX_ENUM = 0x7FFFFFFF
} alvk_module_flags;

typedef struct alvk_module_info {
    uint32_t size;         /* in: sizeof(alvk_module_info) */
    uint32_t epoch;        /* the catalog's number of this load */
    alvk_mvid mvid;
    uint64_t module_id;    /* the runtime's ModuleID */
    uint32_t flags;        /* alvk_module_flags */
    uint32_t copies;       /* loaded copies with this MVID, this one included */
} alvk_module_info;

/* ---------------------------------------------------------------------------------------
 * Patches
 *
 * A patch replaces one method (the target) with exact dispatch to a replacement: the
 * target's body becomes "load every argument, calli the replacement", so the replacement
 * receives the target's real receiver (by reference for value types), every argument and
 * ref/out/in location, and returns the target's exact return type. A replacement is a
 * static method whose parameters are the receiver (instance targets) followed by the
 * target's parameters, with the target's return type; `replacement` is its entry point
 * (RuntimeMethodHandle.GetFunctionPointer() in .NET). Generic targets are refused for now.
 *
 * Commands are queued to the profiler's worker thread and return at once; a command's
 * result is read with alvk_patch_wait or in the telemetry. One patch exists per target (a
 * method of one module copy): installing on a target that already has a live patch joins it
 * as another owner with the new replacement. The original body returns only when the last owner removes it.
 * ------------------------------------------------------------------------------------- */
typedef uint64_t alvk_patch_handle; /* 0 is never a valid handle */
/* A method generation's ID (see "Method generations"): process-wide, increasing; 0: none. */
typedef uint64_t alvk_generation_id;
/* ABI 3.1: the ID of one accepted command (install, replace, remove, generation submit):
 * process-wide, increasing, never given to a refused call; 0: none. */
typedef uint64_t alvk_command_id;
/* How many of the latest commands alvk_command_wait can still answer for. */
#define ALVK_COMMAND_HISTORY 1024

/* ABI 3.4: the patch table holds ALVORKIT_INTERCEPTION_MAX_PATCHES patches (live or ended;
 * once ALVK_MIN_PATCH_CAPACITY patches have ended, or at the bound, a new patch recycles the
 * oldest ended one), ALVK_DEFAULT_PATCH_CAPACITY when unset, between
 * ALVK_MIN_PATCH_CAPACITY and ALVK_MAX_PATCH_CAPACITY. It grows as patches are installed:
 * the bound costs no memory until it is used. alvk_runtime_status.patch_capacity says the
 * bound in force. ALVK_MAX_PATCHES is ABI 3.0's fixed size, kept as the minimum. */
#define ALVK_DEFAULT_PATCH_CAPACITY 65536u
#define ALVK_MIN_PATCH_CAPACITY 256u
#define ALVK_MAX_PATCH_CAPACITY 1048576u
#define ALVK_MAX_PATCHES 256
#define ALVK_MAX_PATCH_OWNERS 16
/* ABI 3.4: at most this many requests in one alvk_patch_install_batch. */
#define ALVK_MAX_BATCH_REQUESTS 4096u

typedef enum alvk_install_flags {
    /* ReJIT the target and the callers the profiler saw inline it, with RequestReJIT, and
     * refuse further inlining of the target in JITInlining; instead of the default
     * RequestReJITWithInliners(COR_PRF_REJIT_BLOCK_INLINING). */
    ALVK_INSTALL_INLINER_FALLBACK = 0x1,
    /* Generations only: the body is deliberately unverifiable (unsafe code the caller
     * compiled on purpose); skip the stack-type check (ALVK_E_STACK_TYPE_MISMATCH). */
    ALVK_INSTALL_UNVERIFIABLE = 0x2,
    ALVK_INSTALL_FLAGS_MAX_ENUM = 0x7FFFFFFF
} alvk_install_flags;

typedef struct alvk_install_request {
    uint32_t size;              /* sizeof(alvk_install_request) */
    uint32_t method_token;      /* MethodDef token of the target */
    alvk_mvid module_mvid;      /* the target's module */
    uint8_t signature_hash[32]; /* must equal alvk_method_description.signature_hash */
    uint8_t body_identity[32];  /* must equal alvk_method_description.body_identity */
    uint64_t replacement;       /* entry point of the replacement; nonzero */
    uint64_t owner;             /* the caller's owner ID; nonzero */
    uint32_t flags;             /* alvk_install_flags */
    uint32_t reserved;          /* 0 */
    /* ABI 3.1: the copy of the module (see "Module copies"); 0 and 0: the copy the MVID
     * names. With a module_id, that copy's MVID must be module_mvid. */
    uint64_t module_id;
    uint32_t module_epoch;      /* with module_id: the load it must still be (0: any live) */
    uint32_t reserved1;         /* 0 */
    /* ABI 3.4: the replacement as a method, for a direct call (see alvk_dispatch_path): the
     * loaded copy that defines it (alvk_module_identify) and its MethodDef token there. Both
     * 0: calli through `replacement` only. They must name the method whose entry point
     * `replacement` is. ABI 3.8: naming the target itself is ALVK_E_REPLACEMENT_IS_TARGET. */
    uint64_t replacement_module_id;
    uint32_t replacement_token;
    uint32_t reserved2;         /* 0 */
} alvk_install_request;

/* ABI 3.4: a replacement, for alvk_patch_replace_with. */
typedef struct alvk_replacement {
    uint32_t size;         /* sizeof(alvk_replacement) */
    uint32_t method_token; /* its MethodDef token in module_id; 0 (with module_id 0): calli only */
    uint64_t entry_point;  /* its entry point; nonzero (the calli fallback) */
    uint64_t module_id;    /* the loaded copy that defines it (alvk_module_identify), or 0 */
} alvk_replacement;

/* ABI 3.4: how a patched target reaches its replacement.
 * DIRECT_CALL: the target's body is "load every argument, call <replacement>, ret", with the
 * replacement named by a MethodDef (same module) or a MemberRef the profiler emits (with its
 * TypeRef and AssemblyRef, cached per module epoch); the JIT may inline the replacement into
 * the target, so a patched call costs one call. Chosen when the install names the
 * replacement's module and token, the replacement is a static, non-virtual, non-generic
 * method with IL of non-generic types that the target's module may access (in the target's
 * own assembly internal suffices; from another one the method and its types must be public,
 * or nested public), a MemberRef's signature (the target's, receiver first) can bind to it
 * (the same parameter count and BYREFs, and the same custom modifiers in the same places:
 * an `in` parameter of a virtual target, an `init` setter or a `ref readonly` return carry a
 * modreq that a static replacement does not, so those take calli), and its assembly can be
 * referenced from the target's module (the same load context: the caller's to check).
 * CALLI: "load every argument, ldc.i8 <entry point>, calli": any replacement, one indirect
 * jump more per call and never inlined. Taken when no method was named or the direct call
 * cannot work; the telemetry's dispatch_fallback says why. */
typedef enum alvk_dispatch_path {
    ALVK_DISPATCH_NONE = 0,        /* no replacement in force (a generation, or the original) */
    ALVK_DISPATCH_CALLI = 1,
    ALVK_DISPATCH_DIRECT_CALL = 2,
    ALVK_DISPATCH_PATH_MAX_ENUM = 0x7FFFFFFF
} alvk_dispatch_path;

/* ABI 3.10: whether a patched target's body is carried for its callers, and why not. A
 * carrier is a method the profiler defines in the target's module with the target's current
 * body and no ReJIT version of its own; the callers the profiler knows or finds have their calls
 * of the target redirected to it (re-JIT'd), so the JIT may inline the patched body into them
 * (the runtime never inlines a method with an active ReJIT version). A target is considered
 * when it has known inliners (callers whose code had inlined it), or when it has none and its
 * original code is at most 32 IL bytes (then the callers compiled while it is patched are found
 * at their compilation). */
typedef enum alvk_carrier_state {
    ALVK_CARRIER_NONE = 0,           /* no patched body in force (pending, or the original IL) */
    ALVK_CARRIER_ACTIVE = 1,         /* carried: carrier_token holds the body in force */
    ALVK_CARRIER_KNOWN_CALLERS = 2,  /* carried for its known inliners only: the table of carried
                                      * targets (64) is full, callers compiled later are not found */
    ALVK_CARRIER_TOO_BIG = 3,        /* no known inliner, and its original code is over 32 IL
                                      * bytes: the JIT would not inline it for its size */
    ALVK_CARRIER_NO_INLINING = 4,    /* no known inliner, and marked NoInlining or Synchronized */
    ALVK_CARRIER_GENERIC = 5,        /* generic target or type: one carrier per shape would be needed */
    ALVK_CARRIER_VIRTUAL = 6,        /* a virtual target that may be overridden (not final): its
                                      * calls may dispatch elsewhere */
    ALVK_CARRIER_HANDLERS = 7,       /* the body has exception clauses, which the JIT never inlines */
    ALVK_CARRIER_FAILED = 8,         /* metadata or IL could not be read or emitted */
    ALVK_CARRIER_STATE_MAX_ENUM = 0x7FFFFFFF
} alvk_carrier_state;

typedef enum alvk_patch_state {
    ALVK_PATCH_PENDING = 0,  /* the install is queued or running */
    ALVK_PATCH_ACTIVE = 1,   /* the replacement is requested and in force */
    ALVK_PATCH_REMOVED = 2,  /* terminal: the last owner removed it; the original runs */
    ALVK_PATCH_FAILED = 3,   /* terminal: the runtime refused the ReJIT; the original runs */
    ALVK_PATCH_REJECTED = 4, /* terminal: the install failed validation; nothing changed */
    ALVK_PATCH_UNLOADED = 5, /* terminal: the target's module unloaded */
    ALVK_PATCH_STATE_MAX_ENUM = 0x7FFFFFFF
} alvk_patch_state;

typedef struct alvk_patch_telemetry {
    uint32_t size;                  /* in: sizeof(alvk_patch_telemetry) */
    alvk_patch_state state;
    alvk_status last_status;        /* result of the latest finished command */
    uint32_t pending_commands;      /* queued or running */
    uint32_t commands_completed;
    uint32_t owner_count;
    uint32_t flags;                 /* alvk_install_flags of the install */
    uint32_t module_epoch;
    uint32_t method_token;
    uint32_t calli_signature_token; /* the StandAloneSig emitted for dispatch */
    uint32_t get_rejit_parameters;  /* callbacks seen for the target */
    uint32_t rejit_started;
    uint32_t rejit_finished;
    uint32_t rejit_errors;
    uint32_t inliners_rejitted;     /* callers that had inlined the target, counted as each
                                     * is re-JITted (at its next call), once per request */
    int32_t request_hresult;        /* last RequestReJIT / RequestReJITWithInliners */
    int32_t set_il_hresult;         /* last SetILFunctionBody in GetReJITParameters */
    int32_t compilation_hresult;    /* last ReJITCompilationFinished status */
    int32_t error_hresult;          /* last ReJITError status */
    int32_t metadata_hresult;       /* last GetTokenFromSig / ApplyMetaData */
    uint64_t replacement;           /* the replacement in force (0 once removed) */
    uint64_t command_elapsed_ns;    /* latest command: queued -> ReJIT requested */
    uint64_t compile_elapsed_ns;    /* latest command: queued -> ReJIT compilation finished */
    alvk_generation_id current_generation; /* requested or in force; 0: the original */
    alvk_generation_id latest_generation;  /* newest accepted: what a next generation names */
    uint64_t module_id;                    /* ABI 3.1: the copy patched (0: its install named
                                            * no loaded copy) */
    /* ABI 3.4 */
    alvk_dispatch_path dispatch_path;      /* of the replacement in force */
    alvk_status dispatch_fallback;         /* why CALLI when a method was named (for example
                                            * ALVK_E_REPLACEMENT_NOT_ACCESSIBLE); else ALVK_OK */
    uint32_t call_token;                   /* DIRECT_CALL: the MethodDef or MemberRef called */
    uint32_t reserved;
    /* ABI 3.10: the carrier of the body in force (alvk_carrier_state). The counters count
     * over the patch's life, once per caller and body of the target published (a new body
     * routes its callers again). */
    alvk_carrier_state carrier_state;
    uint32_t carrier_token;      /* the carrier's MethodDef while carried; else 0 */
    uint32_t callers_redirected; /* caller bodies redirected to the carrier: the known inliners
                                  * and the callers found as they compiled */
    uint32_t callers_discovered; /* of those, callers found at a compilation (their first, or
                                  * tiering's next) while the target was patched */
    uint32_t callers_kept;       /* callers that kept the real call: in another module, generic,
                                  * calling it behind `constrained.`, a full table, a failure */
    uint32_t reserved3;
} alvk_patch_telemetry;

/* ---------------------------------------------------------------------------------------
 * Method generations
 *
 * A generation is a complete IL method body for a target, built by the caller against the
 * target module's metadata, plus what the body needs that the module may not have yet:
 * bounded relocations, each naming the metadata it stands for and the 4-byte token operands
 * it fills (one relocation per distinct reference, however many instructions name it). The
 * profiler validates everything before touching metadata, emits (or reuses) the tokens for
 * the loaded module epoch, writes them into a private copy of the body and publishes it as
 * the target's next ReJIT body. Generations chain: each names the one it
 * replaces (0 for the first), so a stale caller cannot overwrite a newer body. An exact-
 * dispatch install is one kind of generation. alvk_patch_remove by the last owner restores
 * the original body.
 * ------------------------------------------------------------------------------------- */

/* Bounds of one generation. */
#define ALVK_MAX_GENERATION_BODY_BYTES 65536
#define ALVK_MAX_GENERATION_BLOB_BYTES 65536
#define ALVK_MAX_RELOCATIONS 4096
#define ALVK_MAX_IL_MAP_ENTRIES 4096
/* The extra operand sites (alvk_relocation.site_count) of all a generation's relocations
 * together. Each site takes 4 bytes of the blob pool, and no two sites share an operand. */
#define ALVK_MAX_RELOCATION_SITES 16384
/* A relocation that is emitted (for example as another relocation's parent) but whose token
 * is written nowhere in the body. */
#define ALVK_RELOCATION_NO_OPERAND 0xFFFFFFFFu
/* A STANDALONE_SIG relocation with a local variable signature that fills the fat header's
 * LocalVarSigTok, so a body can declare locals the module has no signature for. */
#define ALVK_RELOCATION_LOCALS_SIGNATURE 0xFFFFFFFEu
/* ABI 3.3. A TYPE_REF or TYPE_SPEC relocation that fills the class token of exception clause
 * `clause` (0-based, in the order the body's EH sections list them), which must be a typed
 * catch clause (flags COR_ILEXCEPTION_CLAUSE_NONE). clause < ALVK_MAX_CATCH_TYPE_CLAUSE. */
#define ALVK_RELOCATION_CATCH_TYPE(clause) (0xFFFF0000u + (uint32_t)(clause))
#define ALVK_MAX_CATCH_TYPE_CLAUSE 0xFFF0u
/* ABI 3.3. Class references inside a relocation's blob. In a signature, a
 * TypeDefOrRefOrSpecEncoded coded index whose tag (its two low bits) is 3, which ECMA-335
 * II.23.2.8 leaves unused, names relocation number `row` (1-based, the value shifted right by
 * 2) of the same generation: an earlier TYPE_REF relocation. The profiler writes that
 * relocation's token in its place before it checks or defines the blob, so a signature can
 * name a type the module does not reference yet. Anything else with tag 3 is
 * ALVK_E_RELOCATION_MALFORMED for the relocation whose blob holds it. */
#define ALVK_SIGNATURE_RELOCATION_TAG 3u

typedef enum alvk_relocation_kind {
    /* blob: a method signature (calli) or a local variable signature. */
    ALVK_RELOCATION_STANDALONE_SIG = 1,
    /* blob: a TypeSpec signature (a generic instantiation, an array, a pointer...). */
    ALVK_RELOCATION_TYPE_SPEC = 2,
    /* parent, name and blob: a method or field signature; the token is a MemberRef. */
    ALVK_RELOCATION_MEMBER_REF = 3,
    /* parent (a MethodDef or MemberRef) and blob: a MethodSpec instantiation signature. */
    ALVK_RELOCATION_METHOD_SPEC = 4,
    /* parent (the resolution scope: an AssemblyRef, ModuleRef or enclosing TypeRef) and
     * name ("Namespace.Type"): a TypeRef, for references to types of other modules. */
    ALVK_RELOCATION_TYPE_REF = 5,
    /* ABI 3.3. blob: the string's UTF-16LE code units (an even length; 0 for ""), for an
     * ldstr operand; the token is a user string (DefineUserString). */
    ALVK_RELOCATION_USER_STRING = 6,
    /* ABI 3.6. blob: exactly 8 bytes, the little-endian module_id (alvk_module_identify) of
     * a loaded, non-collectible module; the token is an AssemblyRef of the target's module to
     * that module's assembly: the module's own AssemblyRef with the same name (compared
     * without regard to ASCII case, as the binder does) when it has one, else one defined with
     * the assembly's name, version, culture and public key, cached per module epoch, as the
     * direct call's (alvk_dispatch_path). il_offset ALVK_RELOCATION_NO_OPERAND, no name, no
     * parent: it exists to be the parent (parent_relocation) of TYPE_REF relocations, so a
     * generation can name types and members of an assembly its module does not reference
     * yet (the caller checks that the target's load context resolves that name to that
     * assembly). On the worker: ALVK_E_UNKNOWN_MODULE or ALVK_E_MODULE_UNLOADED when no live
     * module has that id (ALVK_E_CATALOG_FULL when it is not found and the catalog dropped
     * loads: it may be one of them), ALVK_E_MODULE_COLLECTIBLE for a collectible one,
     * ALVK_E_RELOCATION_MALFORMED when it is the target's own module (its types are TypeDefs),
     * ALVK_E_METADATA_FAILED (the HRESULT in the relocation's result) when that module's
     * assembly identity cannot be read, ALVK_E_LIMIT_EXCEEDED when its name, culture or public
     * key exceed the profiler's bounds (511 UTF-16 units, 127, 2048 bytes),
     * ALVK_E_METADATA_EMIT_FAILED when the definition fails; the generation ends REJECTED
     * with that relocation as its failing index. */
    ALVK_RELOCATION_ASSEMBLY_REF = 7,
    ALVK_RELOCATION_KIND_MAX_ENUM = 0x7FFFFFFF
} alvk_relocation_kind;

typedef struct alvk_relocation {
    uint32_t size;              /* sizeof(alvk_relocation) */
    alvk_relocation_kind kind;
    uint32_t il_offset;         /* offset in the code (after the header) of the 4-byte token
                                 * operand to fill, ALVK_RELOCATION_NO_OPERAND,
                                 * ALVK_RELOCATION_LOCALS_SIGNATURE or
                                 * ALVK_RELOCATION_CATCH_TYPE(clause) */
    uint32_t parent_token;      /* MEMBER_REF, METHOD_SPEC, TYPE_REF: an existing token of
                                 * the target module, or 0 to use parent_relocation */
    uint32_t parent_relocation; /* 1-based index of an earlier relocation whose token is the
                                 * parent; 0 when parent_token is used */
    uint32_t name_offset;       /* UTF-8 name in the blob pool (MEMBER_REF, TYPE_REF) */
    uint32_t name_length;
    uint32_t blob_offset;       /* signature blob in the blob pool */
    uint32_t blob_length;
    /* ABI 3.9. More operands the same token fills: site_count little-endian uint32 offsets
     * at sites_offset in the blob pool (no alignment needed), each one what il_offset may be
     * except ALVK_RELOCATION_NO_OPERAND and ALVK_RELOCATION_LOCALS_SIGNATURE: the offset in
     * the code of a 4-byte token operand, or ALVK_RELOCATION_CATCH_TYPE(clause). Each is
     * checked as il_offset is (its instruction must take this kind; no operand is filled by
     * two sites of any relocations), and gets the token written. So identical references
     * share one relocation however many instructions name them. 0 and 0: none. A caller
     * built against ABI 3.8 passes the struct without these two fields (size 36), which is
     * accepted as having none: the array's stride is the first relocation's size, and every
     * relocation must carry that size. */
    uint32_t sites_offset;
    uint32_t site_count;
} alvk_relocation;

/* An original-to-instrumented IL offset pair (ICorProfilerFunctionControl's COR_IL_MAP). */
typedef struct alvk_il_map_entry {
    uint32_t old_offset; /* in the original code */
    uint32_t new_offset; /* in the generation's code */
    uint32_t accurate;   /* 1 when the mapping is exact */
} alvk_il_map_entry;

typedef struct alvk_generation {
    uint32_t size;                   /* sizeof(alvk_generation) */
    uint32_t method_token;           /* the target's MethodDef */
    alvk_mvid module_mvid;
    uint8_t expected_body_identity[32]; /* the target's loaded-body identity */
    alvk_generation_id prior_generation; /* the target's current generation, 0 if none */
    uint64_t owner;                  /* nonzero; the first generation makes it an owner */
    const uint8_t *body;             /* complete IL method body: header, code, EH sections */
    const uint8_t *blobs;            /* pool of the relocations' names and blobs */
    const alvk_relocation *relocations;
    const alvk_il_map_entry *il_map; /* may be NULL when il_map_count is 0 */
    uint32_t body_size;
    uint32_t blobs_size;
    uint32_t relocation_count;
    uint32_t il_map_count;
    uint32_t flags;                  /* alvk_install_flags */
    uint32_t reserved;               /* 0 */
    /* ABI 3.1: the copy of the module (see "Module copies"); 0 and 0: the copy the MVID
     * names. With a module_id, that copy's MVID must be module_mvid. */
    uint64_t module_id;
    uint32_t module_epoch;           /* with module_id: the load it must still be (0: any live) */
    uint32_t reserved1;              /* 0 */
} alvk_generation;

/* The evaluation stack's types (ECMA-335 III.1.1), for ALVK_E_STACK_TYPE_MISMATCH. */
typedef enum alvk_stack_type {
    ALVK_STACK_NOTHING = 0,    /* an empty stack, or a return with no value */
    ALVK_STACK_INT32 = 1,
    ALVK_STACK_INT64 = 2,
    ALVK_STACK_NATIVE_INT = 3,
    ALVK_STACK_FLOAT = 4,      /* F */
    ALVK_STACK_OBJECT = 5,     /* O: an object reference */
    ALVK_STACK_BYREF = 6,      /* &: a managed pointer */
    ALVK_STACK_VALUE_TYPE = 7, /* a value type instance */
    ALVK_STACK_TYPE_MAX_ENUM = 0x7FFFFFFF
} alvk_stack_type;

typedef enum alvk_generation_state {
    ALVK_GENERATION_PENDING = 0,    /* queued or being emitted */
    ALVK_GENERATION_REQUESTED = 1,  /* emitted and ReJIT requested; awaiting compilation */
    ALVK_GENERATION_ACTIVE = 2,     /* compiled; the target runs it */
    ALVK_GENERATION_SUPERSEDED = 3, /* a later generation or the restore replaced it */
    ALVK_GENERATION_FAILED = 4,     /* compilation failed; the prior generation was restored */
    ALVK_GENERATION_REJECTED = 5,   /* validation or emission refused it; nothing changed */
    ALVK_GENERATION_STATE_MAX_ENUM = 0x7FFFFFFF
} alvk_generation_state;

typedef struct alvk_relocation_result {
    uint32_t size;      /* sizeof(alvk_relocation_result) */
    alvk_relocation_kind kind;
    uint32_t token;     /* the token written (or the parent handed on) */
    uint32_t reused;    /* 1 when the token came from an earlier generation of this module epoch */
    int32_t hresult;    /* of the metadata call that made it (S_OK when reused) */
} alvk_relocation_result;

typedef struct alvk_generation_result {
    uint32_t size;               /* in: sizeof(alvk_generation_result) */
    alvk_generation_state state;
    alvk_status status;          /* why it was rejected or failed; ALVK_OK otherwise */
    uint32_t relocation_count;   /* results available */
    alvk_generation_id generation;
    alvk_generation_id prior_generation;
    uint32_t failing_index;      /* for validation errors: the relocation or IL map entry */
    int32_t metadata_hresult;    /* first failing metadata call, or of ApplyMetaData */
    int32_t il_map_hresult;      /* SetILInstrumentedCodeMap (CORPROF_E_DEBUGGING_DISABLED is
                                  * reported here, not fatal) */
    int32_t compilation_hresult; /* ReJITCompilationFinished, or ReJITError; E_FAIL when the
                                  * runtime reported nothing (a compilation started again with
                                  * no finish), or COR_E_MISSINGMETHOD / COR_E_MISSINGFIELD when
                                  * a member the body names turned out to be missing */
    uint64_t elapsed_ns;         /* queued -> compilation finished (0 until then) */
    /* ABI 3.1: for ALVK_E_STACK_TYPE_MISMATCH, the instruction and what it found on the
     * evaluation stack against what it needs (alvk_stack_type). */
    uint32_t type_error_offset;
    uint32_t type_found;
    uint32_t type_expected;
    uint32_t reserved;
} alvk_generation_result;

/* ---------------------------------------------------------------------------------------
 * Allocation capture windows
 *
 * Chosen at startup by ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING (alvk_allocation_profiling):
 *
 * - sampled: the runtime keeps its fast allocation paths. A window opens an in-process
 *   EventPipe session for the runtime's AllocationSampled event (.NET 10: each allocated
 *   byte is sampled with probability 1/102400); per type, the window reports unbiased
 *   estimates of the objects and bytes allocated, each with a 95% interval, and the
 *   allocating stack of every stack_every-th sampled event. Objects on the large and the
 *   pinned object heaps are counted exactly (they go through the runtime's slow path
 *   anyway). The session is opened and stopped by the profiler's capture-control thread,
 *   never by the caller: alvk_capture_begin returns before the runtime delivers the first
 *   sample (ALVK_CAPTURE_WAIT_UNTIL_SAMPLING makes it wait), and alvk_capture_end waits at
 *   most ALVK_CAPTURE_STOP_BOUND_MS for the session to stop.
 * - exact (or 1): the runtime calls the profiler for every allocation of the process, which
 *   makes every allocation slower for the life of the process, window open or not
 *   (docs/Benchmarks.md has the figures; the profiler says so once on stderr at startup).
 *   A window counts every object exactly; a sampled window also records the allocating
 *   stack about once every `sample_interval_bytes` allocated bytes (geometric distances),
 *   from the same callback.
 *
 * Counts, samples and stacks go into storage preallocated at startup; the callbacks only do
 * atomic accounting and the stack walk. Names, modules, tokens and IL offsets are resolved
 * after the window ends.
 * ------------------------------------------------------------------------------------- */
#define ALVK_MAX_SAMPLE_FRAMES 64
#define ALVK_TYPE_NAME_CAPACITY 512
#define ALVK_METHOD_NAME_CAPACITY 256
#define ALVK_DEFAULT_SAMPLE_INTERVAL_BYTES 102400u
/* The smallest sample_interval_bytes accepted (a smaller one is ALVK_E_LIMIT_EXCEEDED). */
#define ALVK_MIN_SAMPLE_INTERVAL_BYTES 64u
/* Defaults (and maxima) of the startup-sized storage; ALVORKIT_INTERCEPTION_ALLOCATION_TYPES
 * and ALVORKIT_INTERCEPTION_ALLOCATION_SAMPLES override the defaults within these. */
#define ALVK_DEFAULT_TYPE_SLOTS 4096u
#define ALVK_MAX_TYPE_SLOTS 1048576u
#define ALVK_DEFAULT_SAMPLE_SLOTS 1024u
#define ALVK_MAX_SAMPLE_SLOTS 262144u
/* Sampled profiling (ABI 3.5): the runtime's mean distance between two AllocationSampled
 * events of a thread (a constant of .NET 10), how long alvk_capture_end waits for the
 * session to stop, and how long ALVK_CAPTURE_WAIT_UNTIL_SAMPLING waits for it to start. */
#define ALVK_RUNTIME_SAMPLING_MEAN_BYTES 102400u
#define ALVK_CAPTURE_STOP_BOUND_MS 2000u
#define ALVK_CAPTURE_START_BOUND_MS 10000u
/* stack_every's largest value. */
#define ALVK_MAX_STACK_EVERY 1000000u

/* What ALVORKIT_INTERCEPTION_ALLOCATION_PROFILING chose (alvk_runtime_status's
 * allocation_profiling; alvk_capture_summary's source). ABI 3.5. */
typedef enum alvk_allocation_profiling {
    ALVK_ALLOCATION_PROFILING_OFF = 0,
    ALVK_ALLOCATION_PROFILING_EXACT = 1,   /* "1" or "exact" */
    ALVK_ALLOCATION_PROFILING_SAMPLED = 2, /* "sampled" */
    ALVK_ALLOCATION_PROFILING_MAX_ENUM = 0x7FFFFFFF
} alvk_allocation_profiling;

typedef enum alvk_capture_mode {
    ALVK_CAPTURE_COUNT_ONLY = 0, /* per-type counts only (estimates when sampled) */
    ALVK_CAPTURE_SAMPLED = 1,    /* counts, plus sampled stacks */
    ALVK_CAPTURE_MODE_MAX_ENUM = 0x7FFFFFFF
} alvk_capture_mode;

/* alvk_capture_options's flags (ABI 3.5; the field was `reserved`, always 0 before). */
/* alvk_capture_begin returns once the sampling session has started (or failed, or
 * ALVK_CAPTURE_START_BOUND_MS passed), instead of at once. For tools and tests: the first
 * session of a process can take a few hundred milliseconds to start. Sampled profiling only;
 * ignored in exact profiling (a window there counts from the moment begin returns). */
#define ALVK_CAPTURE_WAIT_UNTIL_SAMPLING 0x1u
#define ALVK_CAPTURE_VALID_FLAGS 0x1u

typedef struct alvk_capture_options {
    uint32_t size;                  /* sizeof(alvk_capture_options) */
    alvk_capture_mode mode;
    uint32_t sample_interval_bytes; /* exact profiling: mean distance between samples; 0: the
                                       default. Sampled profiling: must be 0 or
                                       ALVK_RUNTIME_SAMPLING_MEAN_BYTES (the runtime's) */
    uint32_t max_samples;           /* 0: all the storage; at most the storage */
    uint32_t max_frames;            /* per sample, 1..ALVK_MAX_SAMPLE_FRAMES; 0: the maximum */
    uint32_t flags;                 /* ALVK_CAPTURE_*; other bits: ALVK_E_INVALID_FLAGS */
    uint64_t seed;                  /* of the sampling distances; 0: chosen by the profiler
                                       (exact profiling; sampled profiling uses the runtime's) */
    /* ABI 3.5. Sampled profiling, ALVK_CAPTURE_SAMPLED windows: walk the stack of one
     * sampled event in stack_every (1..ALVK_MAX_STACK_EVERY; 0 means 1); each stack then
     * stands for stack_every events' estimated bytes. Must be 0 or 1 in exact profiling. */
    uint32_t stack_every;
    uint32_t reserved2;             /* 0 */
} alvk_capture_options;

/* alvk_capture_summary's flags (ABI 3.5). */
/* The runtime refused the sampling session: session_hresult says why; the window counted
 * only large and pinned objects. */
#define ALVK_CAPTURE_SESSION_REFUSED 0x1u
/* The session had not stopped when alvk_capture_end returned: its stop outlasted
 * ALVK_CAPTURE_STOP_BOUND_MS, or its start was still running (end never waits for a start;
 * the capture-control thread stops the session once the start returns). The window's
 * results are complete (nothing after the close is counted), and alvk_capture_begin answers
 * ALVK_E_CAPTURE_STOPPING until the runtime returns. */
#define ALVK_CAPTURE_STOP_PENDING 0x2u
/* The window closed before its session's start returned: the estimates rest only on the
 * events the runtime delivered while it was starting (often none). */
#define ALVK_CAPTURE_CLOSED_BEFORE_SAMPLING 0x4u

typedef struct alvk_capture_summary {
    uint32_t size;                /* in: sizeof(alvk_capture_summary) */
    alvk_capture_mode mode;
    uint32_t type_count;          /* distinct types counted */
    uint32_t sample_count;        /* samples (stacks) kept */
    uint64_t total_objects;       /* every allocation in the window, overflow included
                                     (sampled profiling: the estimate) */
    uint64_t total_bytes;
    uint64_t overflow_objects;    /* allocations of types the full table could not take */
    uint64_t overflow_bytes;
    uint64_t dropped_samples;     /* stacks due while the storage was full */
    uint64_t elapsed_ns;          /* begin -> end */
    uint32_t type_slots;          /* capacity fixed at startup */
    uint32_t sample_slots;
    /* ABI 3.5 */
    alvk_allocation_profiling source; /* EXACT: exact counts; SAMPLED: estimates */
    uint32_t flags;               /* ALVK_CAPTURE_SESSION_REFUSED | _STOP_PENDING | ... */
    uint64_t sampled_events;      /* AllocationSampled events the window counted */
    uint64_t large_objects;       /* exact, sampled profiling: on the large object heap */
    uint64_t large_bytes;
    uint64_t pinned_objects;      /* exact, sampled profiling: on the pinned object heap */
    uint64_t pinned_bytes;
    uint64_t sampling_started_ns; /* begin -> the session started (0: it never did) */
    uint64_t session_stop_ns;     /* how long the session's stop took (0: still pending) */
    int32_t session_hresult;      /* EventPipeStartSession's HRESULT (sampled profiling) */
    uint32_t stack_every;         /* in force */
} alvk_capture_summary;

typedef struct alvk_type_count {
    uint32_t size;                /* sizeof(alvk_type_count) */
    uint32_t reserved;
    uint64_t class_id;
    uint64_t count;               /* exact, or (sampled profiling) the estimate */
    uint64_t bytes;
    char name[ALVK_TYPE_NAME_CAPACITY]; /* "System.Collections.Generic.List<System.Int32>" */
    /* ABI 3.5. Sampled profiling: an approximate 95% interval of count and bytes (the
     * Horvitz-Thompson estimator's normal approximation, widened below 30 sampled events to
     * the exact Poisson bounds on the event count times the mean weight; for the count of a
     * type whose object sizes vary widely it covers somewhat less: docs/Interception.md; the
     * exact large and pinned objects add no width),
     * the sampled events the estimate rests on, and the objects of the type counted exactly
     * (large and pinned heaps; included in count and bytes). Exact profiling: the interval
     * is [count, count] and [bytes, bytes], samples 0, exact_* equal count and bytes. */
    uint64_t count_low;
    uint64_t count_high;
    uint64_t bytes_low;
    uint64_t bytes_high;
    uint64_t samples;
    uint64_t exact_count;
    uint64_t exact_bytes;
} alvk_type_count;

typedef struct alvk_frame {
    uint64_t function_id;         /* 0 for a native frame */
    uint64_t ip;
    alvk_mvid module_mvid;        /* zero when not in a catalogued module */
    uint32_t method_token;
    int32_t il_offset;            /* -1 when unknown (prolog, epilog, no mapping) */
} alvk_frame;

typedef struct alvk_sample {
    uint32_t size;                /* sizeof(alvk_sample) */
    uint32_t frame_count;
    uint64_t class_id;            /* the type whose allocation took the sample */
    uint64_t weight_bytes;        /* bytes this sample stands for (exact profiling: the
                                     sampling interval; sampled: the event's unbiased weight
                                     size / (1 - q^size), times stack_every) */
    alvk_frame frames[ALVK_MAX_SAMPLE_FRAMES]; /* innermost first */
    /* ABI 3.5: the size of the object whose allocation took the sample (the objects the
     * sample stands for: weight_bytes / object_size). */
    uint64_t object_size;
} alvk_sample;

/* The capture machinery now (ABI 3.5), for tools and tests. */
typedef enum alvk_capture_phase {
    ALVK_CAPTURE_PHASE_IDLE = 0,     /* no window; the last session (if any) stopped */
    ALVK_CAPTURE_PHASE_OPENING = 1,  /* a window is open; its session is being started */
    ALVK_CAPTURE_PHASE_OPEN = 2,     /* a window is open and counting (sampled: delivering) */
    ALVK_CAPTURE_PHASE_CLOSING = 3,  /* alvk_capture_end is running */
    ALVK_CAPTURE_PHASE_STOPPING = 4, /* no window; a session's stop has not returned yet */
    ALVK_CAPTURE_PHASE_MAX_ENUM = 0x7FFFFFFF
} alvk_capture_phase;

typedef struct alvk_capture_state {
    uint32_t size;                /* sizeof(alvk_capture_state) */
    alvk_capture_phase phase;
    alvk_allocation_profiling profiling;
    int32_t session_hresult;      /* of the open or last window's EventPipeStartSession
                                     (0 until that start returned) */
    uint64_t sessions_started;    /* sampling sessions started in this process */
    uint64_t sessions_stopped;    /* and stopped (the runtime returned) */
    uint64_t stop_hangs;          /* stops that outlasted ALVK_CAPTURE_STOP_BOUND_MS */
    uint64_t events_in_windows;   /* AllocationSampled events counted, all windows */
    uint64_t events_outside_windows; /* delivered while no window counted (ignored) */
    uint64_t windows_opened;
    uint64_t current_window_events; /* of the open window, so far */
} alvk_capture_state;

typedef struct alvk_method_info {
    uint32_t size;                /* sizeof(alvk_method_info) */
    uint32_t method_token;
    alvk_mvid module_mvid;
    char name[ALVK_METHOD_NAME_CAPACITY]; /* "Namespace.Type.Method" */
} alvk_method_info;

/* ---------------------------------------------------------------------------------------
 * Functions
 * ------------------------------------------------------------------------------------- */

/* The ABI version this library implements (ALVK_ABI_VERSION when built from this header). */
ALVK_API uint32_t ALVK_CALL alvk_version_number(void);

/* A static, NUL-terminated description of `status` ("ALVK_E_QUEUE_FULL: the worker ...").
 * Unknown values give "ALVK_E_UNKNOWN_STATUS: not a status of this ABI version". */
ALVK_API const char *ALVK_CALL alvk_status_string(alvk_status status);

/* The status's static name alone ("ALVK_E_QUEUE_FULL"), like uv_err_name beside uv_strerror.
 * Unknown values give "ALVK_E_UNKNOWN_STATUS". Since ABI 3.2. */
ALVK_API const char *ALVK_CALL alvk_status_name(alvk_status status);

/* Fills `out` with the state of the profiler instance in this process.
 * Returns ALVK_OK when this instance is the one CoreCLR attached (even if its
 * startup_status reports a configuration problem), ALVK_E_NOT_ATTACHED when CoreCLR never
 * initialized it (the fields are still filled), or an argument error. */
ALVK_API alvk_status ALVK_CALL alvk_get_runtime_status(alvk_runtime_status *out);

/* Describes method_token of the loaded module `mvid` (the copy the MVID alone names: see
 * "Module copies"). The work runs on the profiler's worker thread; this call waits for it.
 * Refuses with ALVK_E_NO_PATCHABLE_MODULES or the startup error when patching is off,
 * ALVK_E_UNKNOWN_MODULE, ALVK_E_MODULE_UNLOADED, ALVK_E_MODULE_AMBIGUOUS,
 * ALVK_E_MODULE_COLLECTIBLE, ALVK_E_MODULE_NOT_ALLOWED, ALVK_E_TOKEN_NOT_METHODDEF,
 * ALVK_E_TOKEN_OUT_OF_RANGE,
 * ALVK_E_METHOD_HAS_NO_IL, ALVK_E_METHOD_BODY_MALFORMED, ALVK_E_SIGNATURE_MALFORMED, or an
 * argument error. `out` is written only on ALVK_OK (its size field aside). */
ALVK_API alvk_status ALVK_CALL alvk_describe_method(const alvk_mvid *mvid, uint32_t method_token,
                                                   alvk_method_description *out);

/* Finds the loaded copy of a module. A method of it tells copies of one MVID apart:
 * method_token is the MethodDef token of a non-generic method of a non-generic type of the
 * module, and method_handle the runtime's handle of that method in the copy meant (its
 * FunctionID; in .NET, method.MethodHandle.Value). The profiler compares it with what
 * ICorProfilerInfo::GetFunctionFromToken answers for each loaded copy, which only looks the
 * method up and never loads anything (a copy whose type is not loaded yet cannot match); the
 * value is never dereferenced, and one that matches no copy is ALVK_E_UNKNOWN_MODULE.
 * method_handle 0 asks for the copy the MVID alone names (method_token is then ignored).
 * Runs on the worker and waits for it. ALVK_E_UNKNOWN_MODULE, ALVK_E_MODULE_UNLOADED,
 * ALVK_E_MODULE_AMBIGUOUS (method_handle 0 with several non-collectible copies),
 * ALVK_E_TOKEN_NOT_METHODDEF, ALVK_E_CATALOG_FULL (no copy found and loads were dropped),
 * the startup errors, or an argument error. A collectible or not
 * allowed copy is still identified: its flags say so. */
ALVK_API alvk_status ALVK_CALL alvk_module_identify(const alvk_mvid *mvid,
                                                   uint32_t method_token,
                                                   uint64_t method_handle,
                                                   alvk_module_info *out);

/* As alvk_describe_method, for the copy module_id of load module_epoch (from
 * alvk_module_identify; 0: its live load). ALVK_E_UNKNOWN_MODULE when module_id is 0 or no
 * module the profiler catalogued, ALVK_E_MODULE_UNLOADED when that load ended (or the
 * ModuleID's live load has another epoch), ALVK_E_MODULE_COLLECTIBLE. */
ALVK_API alvk_status ALVK_CALL alvk_describe_module_method(uint64_t module_id,
                                                          uint32_t module_epoch,
                                                          uint32_t method_token,
                                                          alvk_method_description *out);

/* Queues an install. On ALVK_OK *handle names the patch (a new one, or the live patch of
 * that target, which this owner joins). Refused at once, with nothing queued, for argument
 * errors, ALVK_E_INVALID_OWNER, ALVK_E_INVALID_REPLACEMENT, ALVK_E_INVALID_FLAGS (also for a
 * nonzero reserved1, or a module_epoch without a module_id), the startup errors,
 * ALVK_E_PATCH_TABLE_FULL, ALVK_E_OWNERS_FULL, ALVK_E_QUEUE_FULL and
 * ALVK_E_WORKER_UNAVAILABLE (the worker stopped). The module copy is
 * resolved when the install is queued; validation against the loaded method (module copy,
 * token, hashes, IL, generics) happens on the worker: a failing first install ends
 * ALVK_PATCH_REJECTED with that status (ALVK_E_MODULE_AMBIGUOUS, ALVK_E_MODULE_COLLECTIBLE,
 * ALVK_E_MODULE_UNLOADED, ...); a failing join leaves the live patch as it was. A join keeps
 * the flags the patch was installed with. */
ALVK_API alvk_status ALVK_CALL alvk_patch_install(const alvk_install_request *request,
                                                 alvk_patch_handle *handle);

/* Queues a new replacement for a patch this owner holds. Each owner's replacement is
 * remembered: when the owner whose replacement is in force removes itself, the most recent
 * replacement of a remaining owner comes back. */
ALVK_API alvk_status ALVK_CALL alvk_patch_replace(alvk_patch_handle handle, uint64_t owner,
                                                 uint64_t replacement);

/* ABI 3.4. As alvk_patch_replace, with the replacement named as a method too, so the patch
 * can take the direct call (see alvk_dispatch_path). ALVK_E_STRUCT_SIZE, ALVK_E_INVALID_FLAGS
 * (a method_token without a module_id, or the reverse), ALVK_E_INVALID_REPLACEMENT (entry
 * point 0), and the errors of alvk_patch_replace. */
ALVK_API alvk_status ALVK_CALL alvk_patch_replace_with(alvk_patch_handle handle, uint64_t owner,
                                                      const alvk_replacement *replacement);

/* ABI 3.4. Installs `count` patches (1..ALVK_MAX_BATCH_REQUESTS, else ALVK_E_LIMIT_EXCEEDED) as
 * one command, all or nothing, with one ReJIT request for all their targets (and their
 * inliners). NULL arrays: ALVK_E_NULL_ARGUMENT.
 * `requests` is an array of `count` requests, each requests[0].size bytes long (the stride;
 * every request's size must equal it, else ALVK_E_STRUCT_SIZE for the first that differs; the
 * stride need not keep the requests aligned). At once, for every request, the checks
 * alvk_patch_install makes when it queues; two
 * requests on one target are ALVK_E_DUPLICATE_TARGET; the batch is one ReJIT request, so all
 * its patches take one ALVK_INSTALL_INLINER_FALLBACK flag (a join takes its patch's): the first
 * that differs from the first request's is ALVK_E_INVALID_FLAGS. If any fails, nothing is
 * queued: statuses[i] says each request's result (ALVK_E_BATCH_ABORTED for those that passed;
 * every request ALVK_E_INTERNAL when memory ran out) and the call returns the first failure. Else the batch is queued: handles[i] names each
 * request's patch (statuses[i] ALVK_OK) and alvk_last_command the batch's one command.
 * On the worker every target is validated against the loaded method before any body is
 * published; one failure rejects the whole batch (that target's patch ends with its own
 * status, the others with ALVK_E_BATCH_ABORTED; joined patches stay as they were). The
 * command's result (alvk_command_wait) is ALVK_OK when every patch is active, else the first
 * failure; each patch's own result is its alvk_patch_wait / telemetry. */
ALVK_API alvk_status ALVK_CALL alvk_patch_install_batch(const alvk_install_request *requests,
                                                       uint32_t count,
                                                       alvk_patch_handle *handles,
                                                       alvk_status *statuses);

/* ABI 3.6. Submits `count` generations (1..ALVK_MAX_BATCH_REQUESTS, else
 * ALVK_E_LIMIT_EXCEEDED) as one command, all or nothing, with one ReJIT request for all their
 * targets (and their inliners). NULL arrays: ALVK_E_NULL_ARGUMENT. `generations` is an array
 * of `count` generations, each generations[0].size bytes long (the stride; every size must
 * equal it, else ALVK_E_STRUCT_SIZE for the first that differs). At once, every generation is
 * checked as alvk_generation_submit checks it (the stale-generation check included); two on
 * one target (module copy and token) are ALVK_E_DUPLICATE_TARGET; the batch is one ReJIT
 * request, so all take one ALVK_INSTALL_INLINER_FALLBACK flag (a join takes its patch's):
 * the first that differs from the first generation's is ALVK_E_INVALID_FLAGS
 * (ALVK_INSTALL_UNVERIFIABLE may differ). If any fails, nothing is queued and no state
 * changes: statuses[i] says each generation's result (ALVK_E_BATCH_ABORTED for those that
 * passed; every one ALVK_E_INTERNAL when memory ran out, when an ended patch whose slot a new
 * patch of the batch recycled stays recycled) and the call returns the first failure. Else the batch is queued: handles[i] and
 * ids[i] name each target's patch and new generation (statuses[i] ALVK_OK), and
 * alvk_last_command the batch's one command. On the worker every generation's stack-type
 * check, member check and emission run before any body is published; one failure rejects the
 * whole batch: that generation ends REJECTED with its own status and failing index, the
 * others REJECTED with ALVK_E_BATCH_ABORTED, and every target keeps the body it had (a patch
 * the batch created for a target without one ends as a refused install does). The command's
 * result (alvk_command_wait) is ALVK_OK when every generation was requested, else the first
 * failure; each generation's own result is alvk_generation_get_result. */
ALVK_API alvk_status ALVK_CALL alvk_generation_submit_batch(const alvk_generation *generations,
                                                           uint32_t count,
                                                           alvk_patch_handle *handles,
                                                           alvk_generation_id *ids,
                                                           alvk_status *statuses);

/* Queues this owner's removal; the last owner's removal restores the original body, in
 * the target and in callers that had inlined it. */
ALVK_API alvk_status ALVK_CALL alvk_patch_remove(alvk_patch_handle handle, uint64_t owner);

/* Waits up to timeout_ms until none of the patch's commands is queued or running, then
 * returns the latest finished command's status, whichever caller queued it;
 * ALVK_E_TIMEOUT if they are still pending. To wait for one command, use
 * alvk_command_wait. */
ALVK_API alvk_status ALVK_CALL alvk_patch_wait(alvk_patch_handle handle, uint32_t timeout_ms);

/* ABI 3.1. The ID of the command the calling thread queued with its latest call of
 * alvk_patch_install, _replace, _remove or alvk_generation_submit; 0 when that call was
 * refused (or there was none). Like errno: read it on the same thread, right after. */
ALVK_API alvk_command_id ALVK_CALL alvk_last_command(void);

/* ABI 3.1. Waits up to timeout_ms for exactly that command. ALVK_OK with *command_status
 * its result once it finished, ALVK_E_TIMEOUT while it is queued or running,
 * ALVK_E_UNKNOWN_COMMAND when it was never issued or is older than the latest
 * ALVK_COMMAND_HISTORY commands, ALVK_E_NOT_ATTACHED, ALVK_E_NULL_ARGUMENT. */
ALVK_API alvk_status ALVK_CALL alvk_command_wait(alvk_command_id command, uint32_t timeout_ms,
                                                alvk_status *command_status);

/* Copies the patch's telemetry. */
ALVK_API alvk_status ALVK_CALL alvk_patch_get_telemetry(alvk_patch_handle handle,
                                                       alvk_patch_telemetry *out);

/* Checks `generation` as alvk_generation_submit would, without queuing anything, and says
 * which relocation or IL map entry a failure is about (*failing_index, 0-based; 0 when the
 * failure is not about one). Needs no profiler: tools may call it anywhere. */
ALVK_API alvk_status ALVK_CALL alvk_generation_validate(const alvk_generation *generation,
                                                       uint32_t *failing_index);

/* Validates `generation` (bounds, body, relocations, IL map; see the statuses 500-599) on
 * the calling thread, copies it, and queues it. On ALVK_OK *handle names the target's patch
 * and *id the new generation. Refused at once, changing nothing: validation failures, the
 * startup errors, ALVK_E_QUEUE_FULL, ALVK_E_WORKER_UNAVAILABLE, ALVK_E_PATCH_TABLE_FULL,
 * ALVK_E_OWNERS_FULL, ALVK_E_STALE_GENERATION, and a module copy that does not resolve when
 * prior_generation is not 0 (ALVK_E_MODULE_AMBIGUOUS, ...). The stack-type check, the member
 * check and emission run on the worker: their refusals end the generation REJECTED. */
ALVK_API alvk_status ALVK_CALL alvk_generation_submit(const alvk_generation *generation,
                                                     alvk_patch_handle *handle,
                                                     alvk_generation_id *id);

/* The result of generation `id` of a patch (one of its four most recent), with up to
 * capacity relocation results. ALVK_E_UNKNOWN_GENERATION when it has no record of it. */
ALVK_API alvk_status ALVK_CALL alvk_generation_get_result(alvk_patch_handle handle,
                                                         alvk_generation_id id,
                                                         alvk_generation_result *out,
                                                         alvk_relocation_result *relocations,
                                                         uint32_t capacity);

/* Opens a capture window. ALVK_E_ALLOCATION_PROFILING_OFF without the startup variable,
 * ALVK_E_CAPTURE_ACTIVE while one is open, ALVK_E_CAPTURE_STOPPING while the previous
 * window's session has not stopped, ALVK_E_INVALID_FLAGS for an unknown mode or flag or a
 * nonzero reserved2, ALVK_E_LIMIT_EXCEEDED for max_frames, max_samples, stack_every or
 * sample_interval_bytes outside their bounds (sampled profiling: sample_interval_bytes other
 * than 0 or ALVK_RUNTIME_SAMPLING_MEAN_BYTES, or stack_every above 1 in exact profiling),
 * ALVK_E_CAPTURE_CONTROL_UNAVAILABLE when the capture-control thread is gone. Sampled
 * profiling: returns without waiting for the session unless ALVK_CAPTURE_WAIT_UNTIL_SAMPLING;
 * with it, ALVK_E_CAPTURE_SESSION_FAILED (the window is closed again) when the runtime refused
 * the session, ALVK_E_TIMEOUT (the window stays open and samples once the session starts)
 * after ALVK_CAPTURE_START_BOUND_MS. ALVK_E_SAMPLING_UNSUPPORTED before .NET 10. A refusal
 * before the window opens (ALVK_E_EVENT_MASK_REFUSED included) keeps the last window's
 * results readable; a refused session (ALVK_E_CAPTURE_SESSION_FAILED) has cleared them. */
ALVK_API alvk_status ALVK_CALL alvk_capture_begin(const alvk_capture_options *options);

/* Closes the window, resolves what it recorded, and summarizes it. The results stay
 * readable until the next alvk_capture_begin. Changing nothing (the window stays open):
 * ALVK_E_CAPTURE_NOT_ACTIVE when none is open, ALVK_E_QUEUE_FULL, ALVK_E_WORKER_UNAVAILABLE,
 * ALVK_E_NOT_ATTACHED. Once the window is closed: ALVK_OK; ALVK_E_TIMEOUT when the worker
 * took more than 10 s to resolve it (the summary is written; the results become readable
 * when the worker finishes, alvk_capture_read_* answer ALVK_E_NO_CAPTURE until then).
 * Sampled profiling: nothing allocated after this call began is counted; the call waits at
 * most ALVK_CAPTURE_STOP_BOUND_MS for the session to stop (ALVK_CAPTURE_STOP_PENDING in the
 * summary's flags when it did not). Never call it from inside a runtime callback. */
ALVK_API alvk_status ALVK_CALL alvk_capture_end(alvk_capture_summary *summary);

/* Copies per-type counts of the last ended window, from index `first`, up to capacity;
 * *written receives how many. Every element's size field must be set, to one value of at
 * least the ABI 3.0 size (544), which is also the array's stride; elements of unequal
 * sizes are ALVK_E_STRUCT_SIZE. alvk_capture_read_samples follows the same rule (its ABI
 * 3.0 size is the struct without object_size). */
ALVK_API alvk_status ALVK_CALL alvk_capture_read_types(uint32_t first, alvk_type_count *out,
                                                      uint32_t capacity, uint32_t *written);

/* Copies samples of the last ended window, frames resolved to module, token and IL offset. */
ALVK_API alvk_status ALVK_CALL alvk_capture_read_samples(uint32_t first, alvk_sample *out,
                                                        uint32_t capacity, uint32_t *written);

/* Names the method of a frame (FunctionID), for reports. */
ALVK_API alvk_status ALVK_CALL alvk_capture_describe_function(uint64_t function_id,
                                                             alvk_method_info *out);

/* The capture machinery's phase and counters (ABI 3.5). ALVK_E_ALLOCATION_PROFILING_OFF
 * without the startup variable (the fields are still filled: phase IDLE, profiling OFF). */
ALVK_API alvk_status ALVK_CALL alvk_capture_get_state(alvk_capture_state *out);

#ifdef __cplusplus
}
#endif

#endif /* ALVORKIT_INTERCEPTION_PROFILER_H */
