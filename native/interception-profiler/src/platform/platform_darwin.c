/* macOS specifics of platform.h. macOS has no pthread_condattr_setclock, so timed waits
 * convert the monotonic deadline into a relative timeout. The rest is in platform_posix.c. */
#include "platform/platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int aip_cond_init(aip_cond *c)
{
    return pthread_cond_init(&c->cond, NULL);
}

uint64_t aip_monotonic_ns(void)
{
    return clock_gettime_nsec_np(CLOCK_UPTIME_RAW);
}

int aip_cond_wait_until(aip_cond *c, aip_mutex *m, uint64_t deadline_ns)
{
    uint64_t now = aip_monotonic_ns();
    if (now >= deadline_ns)
        return 1;
    uint64_t left = deadline_ns - now;
    struct timespec rel;
    rel.tv_sec = (time_t)(left / 1000000000u);
    rel.tv_nsec = (long)(left % 1000000000u);
    return pthread_cond_timedwait_relative_np(&c->cond, &m->mutex, &rel) == ETIMEDOUT ? 1 : 0;
}

int aip_self_library_path(char *buf, size_t cap)
{
    Dl_info info;
    if (dladdr((void *)&aip_self_library_path, &info) == 0 || info.dli_fname == NULL)
        return -1;
    char resolved[PATH_MAX];
    if (realpath(info.dli_fname, resolved) == NULL)
        return -1;
    size_t len = strlen(resolved);
    if (len + 1 > cap)
        return -1;
    memcpy(buf, resolved, len + 1);
    return 0;
}
