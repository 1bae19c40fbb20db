/* Loads the built library as any process would and compares the version it reports with
 * the header it was built from. Exit 0 when they agree. */
#include "alvorkit_interception_profiler.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: abi_version_probe <library>\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    uint32_t (*version)(void) = NULL;
    const char *(*name)(alvk_status) = NULL;
    *(void **)&version = dlsym(lib, "alvk_version_number");
    *(void **)&name = dlsym(lib, "alvk_status_string");
    if (version == NULL || name == NULL) {
        fprintf(stderr, "missing export\n");
        return 1;
    }
    uint32_t v = version();
    printf("     library ABI %u.%u.%u, header ABI %u.%u.%u\n", ALVK_VERSION_MAJOR_OF(v),
           ALVK_VERSION_MINOR_OF(v), ALVK_VERSION_PATCH_OF(v), ALVK_ABI_VERSION_MAJOR,
           ALVK_ABI_VERSION_MINOR, ALVK_ABI_VERSION_PATCH);
    if (v != ALVK_ABI_VERSION)
        return 1;
    return strncmp(name(ALVK_E_QUEUE_FULL), "ALVK_E_QUEUE_FULL:", 18) == 0 ? 0 : 1;
}
