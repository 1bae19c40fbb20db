/* Linux specifics of platform.h: CLOCK_MONOTONIC condition variables, dladdr for our path.
 * The rest is in platform_posix.c. */
#define _GNU_SOURCE
#include "platform/platform.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int aip_cond_init(aip_cond *c)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(&c->cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

int aip_cond_wait_until(aip_cond *c, aip_mutex *m, uint64_t deadline_ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / 1000000000u);
    ts.tv_nsec = (long)(deadline_ns % 1000000000u);
    return pthread_cond_timedwait(&c->cond, &m->mutex, &ts) == ETIMEDOUT ? 1 : 0;
}

uint64_t aip_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int aip_self_library_path(char *buf, size_t cap)
{
    Dl_info info;
    if (dladdr((void *)&aip_self_library_path, &info) == 0 || info.dli_fname == NULL)
        return -1;
    char *resolved = realpath(info.dli_fname, NULL);
    if (resolved == NULL)
        return -1;
    size_t len = strlen(resolved);
    int rc = -1;
    if (len + 1 <= cap) {
        memcpy(buf, resolved, len + 1);
        rc = 0;
    }
    free(resolved);
    return rc;
}
