/* The parts of platform.h that are the same on every POSIX system we target (Linux and
 * macOS): pthread mutexes and threads, environment, file identity, stderr. What differs
 * (condition-variable clocks, the monotonic clock, this library's path) lives in
 * platform_linux.c and platform_darwin.c. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE  /* madvise (glibc) */
#define _DARWIN_C_SOURCE /* madvise (macOS) */
#include "platform/platform.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define AIP_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AIP_LEAK_CHECKED 1
#endif
#endif
#ifndef AIP_LEAK_CHECKED
#define AIP_LEAK_CHECKED 0
#endif
#if AIP_LEAK_CHECKED
#include <sanitizer/lsan_interface.h>
#endif

/* clang-format off */
int aip_mutex_init(aip_mutex *m) { return pthread_mutex_init(&m->mutex, NULL); }
void aip_mutex_destroy(aip_mutex *m) { pthread_mutex_destroy(&m->mutex); }
void aip_mutex_lock(aip_mutex *m) { pthread_mutex_lock(&m->mutex); }
void aip_mutex_unlock(aip_mutex *m) { pthread_mutex_unlock(&m->mutex); }
void aip_cond_destroy(aip_cond *c) { pthread_cond_destroy(&c->cond); }
void aip_cond_wait(aip_cond *c, aip_mutex *m) { pthread_cond_wait(&c->cond, &m->mutex); }
void aip_cond_signal(aip_cond *c) { pthread_cond_signal(&c->cond); }
void aip_cond_broadcast(aip_cond *c) { pthread_cond_broadcast(&c->cond); }
/* clang-format on */

typedef struct thread_start {
    aip_thread_fn fn;
    void *arg;
} thread_start;

static void *thread_main(void *p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    start.fn(start.arg);
    return NULL;
}

int aip_thread_start(aip_thread *t, aip_thread_fn fn, void *arg)
{
    thread_start *start = malloc(sizeof *start);
    if (start == NULL)
        return -1;
    start->fn = fn;
    start->arg = arg;
    if (pthread_create(&t->thread, NULL, thread_main, start) != 0) {
        free(start);
        return -1;
    }
    return 0;
}

void aip_thread_join(aip_thread *t)
{
    pthread_join(t->thread, NULL);
}

int aip_getenv(const char *name, char *buf, size_t cap)
{
    const char *value = getenv(name);
    if (value == NULL)
        return -1;
    size_t len = strlen(value);
    if (len + 1 > cap || len > (size_t)INT32_MAX)
        return -2;
    memcpy(buf, value, len + 1);
    return (int)len;
}

int aip_same_file(const char *path_a, const char *path_b)
{
    struct stat a, b;
    if (stat(path_a, &a) != 0 || stat(path_b, &b) != 0)
        return 0;
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void aip_write_stderr_line(const char *line)
{
    size_t len = strlen(line);
    while (len > 0) {
        ssize_t n = write(STDERR_FILENO, line, len);
        if (n <= 0)
            break;
        line += n;
        len -= (size_t)n;
    }
    (void)!write(STDERR_FILENO, "\n", 1);
}

void *aip_zero_pages(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#if AIP_LEAK_CHECKED
    /* LeakSanitizer scans the heap and globals, not mappings: what the profiler object holds
     * is reachable through it. */
    __lsan_register_root_region(p, size);
#endif
    return p;
}
