/* A native program that embeds .NET the way a game engine does, not through `dotnet app.dll`:
 * nethost's get_hostfxr_path finds hostfxr, hostfxr_initialize_for_runtime_config starts the
 * runtime from a component's runtimeconfig.json, and load_assembly_and_get_function_pointer
 * gives an [UnmanagedCallersOnly] method of that component, which the program calls with its own
 * remaining arguments; the method's result is the exit code.
 *
 *   alvk_native_host <Game.dll> [arguments for the game...]
 *
 * NativeHostProofs runs it under `alvorkit-intercept run`: the launcher's variables reach the
 * runtime this program starts, as they reach `dotnet`, so CoreCLR loads the profiler here too.
 *
 * The hostfxr declarations below are our own, written from its documented signatures (the
 * SDK's hostfxr.h and coreclr_delegates.h are not used); nethost.h comes from the SDK's apphost
 * pack at build time (tests/NativeHost/CMakeLists.txt). The code is portable C11. On Windows it
 * would differ where marked _WIN32: char_t is wchar_t (hence wmain, L"" literals and %ls; mingw
 * needs -municode), the library is loaded with LoadLibraryW and GetProcAddress, paths are made
 * absolute with _wfullpath, hostfxr's functions are __cdecl and the delegates __stdcall (the same
 * convention on x64), and the link is against nethost.lib with nethost.dll beside the program. */
#ifndef _WIN32
#define _XOPEN_SOURCE 700 /* realpath: the C11 build has no POSIX extensions otherwise */
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nethost.h>

#ifdef _WIN32
#include <windows.h>
#define HOST_TEXT(s) L##s
#define HOST_STRING_FORMAT "%ls"
#define HOSTFXR_CALL __cdecl
#define DELEGATE_CALL __stdcall
#else
#include <dlfcn.h>
#define HOST_TEXT(s) s
#define HOST_STRING_FORMAT "%s"
#define HOSTFXR_CALL
#define DELEGATE_CALL
#endif

/* ---- hostfxr, as documented (docs/design/features/native-hosting.md in dotnet/runtime) ---- */

typedef void *hostfxr_context;

/* hostfxr_initialize_parameters: the size first, for versioning. */
struct host_initialize_parameters {
    size_t size;
    const char_t *host_path;
    const char_t *dotnet_root;
};

/* hostfxr_delegate_type's value for load_assembly_and_get_function_pointer. */
enum { HOST_DELEGATE_LOAD_ASSEMBLY_AND_GET_FUNCTION_POINTER = 5 };

typedef int32_t(HOSTFXR_CALL *initialize_for_runtime_config_fn)(
    const char_t *runtime_config_path, const struct host_initialize_parameters *parameters,
    hostfxr_context *context);
typedef int32_t(HOSTFXR_CALL *get_runtime_delegate_fn)(const hostfxr_context context, int kind,
                                                       void **delegate);
typedef int32_t(HOSTFXR_CALL *close_fn)(const hostfxr_context context);

/* The delegate load_assembly_and_get_function_pointer returns: it loads the assembly into an
 * isolated load context of its own (the component's deps.json resolves its references) and
 * gives a function pointer to a static method of it. */
typedef int(DELEGATE_CALL *load_assembly_and_get_function_pointer_fn)(
    const char_t *assembly_path, const char_t *type_name, const char_t *method_name,
    const char_t *delegate_type_name, void *reserved, void **delegate);

/* The delegate type name that asks for an [UnmanagedCallersOnly] method: no delegate type. */
#define UNMANAGED_CALLERS_ONLY_METHOD ((const char_t *)-1)

/* HostedGame.Entry.Run: the arguments after the game's path, in the platform's char_t. */
typedef int(DELEGATE_CALL *game_entry_fn)(const char_t **argv, int argc);

enum {
    EXIT_USAGE = 64,
    EXIT_NO_HOSTFXR = 70,
    EXIT_RUNTIME_NOT_STARTED = 71,
    EXIT_ENTRY_NOT_FOUND = 72,
};

/* ---- the platform: loading a library, absolute paths, string lengths ---- */

static void *library_open(const char_t *path)
{
#ifdef _WIN32
    return (void *)LoadLibraryW(path);
#else
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
#endif
}

/* An exported function's address (a function pointer kept as void *, as dlsym gives it). */
static void *library_export(void *library, const char *name)
{
#ifdef _WIN32
    return (void *)GetProcAddress((HMODULE)library, name);
#else
    return dlsym(library, name);
#endif
}

/* The absolute path of `path`, allocated (free it); NULL when it does not exist. hostfxr and
 * load_assembly_and_get_function_pointer take full paths. */
static char_t *absolute_path(const char_t *path)
{
#ifdef _WIN32
    return _wfullpath(NULL, path, 0);
#else
    return realpath(path, NULL);
#endif
}

static size_t text_length(const char_t *text)
{
#ifdef _WIN32
    return wcslen(text);
#else
    return strlen(text);
#endif
}

/* <dir>/Game.runtimeconfig.json for <dir>/Game.dll, allocated (free it); NULL when the path
 * does not end in .dll. */
static char_t *runtime_config_of(const char_t *assembly)
{
    static const char_t dll[] = HOST_TEXT(".dll");
    static const char_t config[] = HOST_TEXT(".runtimeconfig.json");
    size_t length = text_length(assembly);
    size_t suffix = sizeof dll / sizeof dll[0] - 1;
    if (length < suffix || memcmp(assembly + length - suffix, dll, suffix * sizeof(char_t)) != 0)
        return NULL;
    size_t stem = length - suffix;
    char_t *path = malloc((stem + sizeof config / sizeof config[0]) * sizeof(char_t));
    if (path == NULL)
        return NULL;
    memcpy(path, assembly, stem * sizeof(char_t));
    memcpy(path + stem, config, sizeof config);
    return path;
}

/* ---- starting the runtime ---- */

/* hostfxr's statuses are HRESULT-like: negative (as int32) is a failure; 0 Success, 1
 * Success_HostAlreadyInitialized and 2 Success_DifferentRuntimeProperties are not. */
static int hostfxr_failed(int32_t status)
{
    return status < 0;
}

struct hostfxr {
    initialize_for_runtime_config_fn initialize_for_runtime_config;
    get_runtime_delegate_fn get_runtime_delegate;
    close_fn close;
};

/* Finds hostfxr as the apphost of `assembly` would (nethost: beside the app, then DOTNET_ROOT,
 * then the machine's registered or default install location) and loads its three functions. */
static int hostfxr_load(const char_t *assembly, struct hostfxr *fxr)
{
    char_t path[4096];
    size_t size = sizeof path / sizeof path[0];
    struct get_hostfxr_parameters where = {sizeof where, assembly, NULL};
    int status = get_hostfxr_path(path, &size, &where);
    if (status != 0) {
        fprintf(stderr, "host: get_hostfxr_path failed (0x%08x): no .NET install found\n",
                (unsigned)status);
        return 0;
    }
    printf("host | hostfxr=" HOST_STRING_FORMAT "\n", path);
    void *library = library_open(path);
    if (library == NULL) {
        fprintf(stderr, "host: cannot load " HOST_STRING_FORMAT "\n", path);
        return 0;
    }
    fxr->initialize_for_runtime_config = (initialize_for_runtime_config_fn)library_export(
        library, "hostfxr_initialize_for_runtime_config");
    fxr->get_runtime_delegate =
        (get_runtime_delegate_fn)library_export(library, "hostfxr_get_runtime_delegate");
    fxr->close = (close_fn)library_export(library, "hostfxr_close");
    if (fxr->initialize_for_runtime_config == NULL || fxr->get_runtime_delegate == NULL ||
        fxr->close == NULL) {
        fprintf(stderr, "host: " HOST_STRING_FORMAT " lacks the hosting functions (.NET 3.0+)\n",
                path);
        return 0;
    }
    return 1;
}

/* Starts the runtime the component's runtimeconfig.json asks for and returns the delegate that
 * loads assemblies into it; NULL on failure. The context is closed once the delegate is had:
 * the runtime stays loaded for the life of the process. */
static load_assembly_and_get_function_pointer_fn runtime_start(const struct hostfxr *fxr,
                                                               const char_t *config)
{
    hostfxr_context context = NULL;
    int32_t status = fxr->initialize_for_runtime_config(config, NULL, &context);
    if (hostfxr_failed(status) || context == NULL) {
        fprintf(stderr,
                "host: hostfxr_initialize_for_runtime_config(" HOST_STRING_FORMAT
                ") failed (0x%08x)\n",
                config, (unsigned)status);
        if (context != NULL)
            fxr->close(context);
        return NULL;
    }
    void *delegate = NULL;
    status = fxr->get_runtime_delegate(
        context, HOST_DELEGATE_LOAD_ASSEMBLY_AND_GET_FUNCTION_POINTER, &delegate);
    fxr->close(context);
    if (hostfxr_failed(status) || delegate == NULL) {
        fprintf(stderr, "host: hostfxr_get_runtime_delegate failed (0x%08x)\n", (unsigned)status);
        return NULL;
    }
    return (load_assembly_and_get_function_pointer_fn)delegate;
}

static int run(const char_t *game, int argc, const char_t **argv)
{
    struct hostfxr fxr;
    if (!hostfxr_load(game, &fxr))
        return EXIT_NO_HOSTFXR;
    char_t *config = runtime_config_of(game);
    if (config == NULL) {
        fprintf(stderr, "host: " HOST_STRING_FORMAT " is not a .dll\n", game);
        return EXIT_USAGE;
    }
    printf("host | config=" HOST_STRING_FORMAT "\n", config);
    load_assembly_and_get_function_pointer_fn load = runtime_start(&fxr, config);
    free(config);
    if (load == NULL)
        return EXIT_RUNTIME_NOT_STARTED;

    void *entry = NULL;
    int status = load(game, HOST_TEXT("HostedGame.Entry, HostedGame"), HOST_TEXT("Run"),
                      UNMANAGED_CALLERS_ONLY_METHOD, NULL, &entry);
    if (hostfxr_failed(status) || entry == NULL) {
        fprintf(stderr,
                "host: HostedGame.Entry.Run not loaded from " HOST_STRING_FORMAT " (0x%08x)\n",
                game, (unsigned)status);
        return EXIT_ENTRY_NOT_FOUND;
    }
    printf("host | entry=HostedGame.Entry.Run | arguments=%d\n", argc);
    /* The game writes through its own console stream to the same descriptor: what this program
     * buffered goes first, so the lines come out in order. */
    fflush(stdout);
    int result = ((game_entry_fn)entry)(argv, argc);
    printf("host | exit=%d\n", result);
    fflush(stdout);
    return result;
}

#ifdef _WIN32
int wmain(int argc, wchar_t **argv)
#else
int main(int argc, char **argv)
#endif
{
    if (argc < 2) {
        fprintf(stderr, "usage: alvk_native_host <Game.dll> [arguments for the game...]\n");
        return EXIT_USAGE;
    }
    char_t *game = absolute_path(argv[1]);
    if (game == NULL) {
        fprintf(stderr, "host: " HOST_STRING_FORMAT " not found\n", argv[1]);
        return EXIT_USAGE;
    }
    int result = run(game, argc - 2, (const char_t **)(argv + 2));
    free(game);
    return result;
}
