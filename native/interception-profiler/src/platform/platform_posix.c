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

/* Whole zero pages only: after MADV_DONTNEED a private anonymous page reads as zero (Linux),
 * or keeps its contents (macOS may); both are the zeros it held. */
size_t aip_release_zero_pages(void *start, size_t size)
{
    long page_size = sysconf(_SC_PAGESIZE);
    if (page_size <= 0 || size == 0)
        return 0;
    uintptr_t page = (uintptr_t)page_size;
    uintptr_t first = ((uintptr_t)start + page - 1) & ~(page - 1);
    uintptr_t end = ((uintptr_t)start + size) & ~(page - 1);
    size_t released = 0;
    for (uintptr_t at = first; at < end; at += page) {
        const uint64_t *words = (const uint64_t *)at;
        size_t n = page / sizeof *words, i = 0;
        while (i < n && words[i] == 0)
            ++i;
        if (i == n && madvise((void *)at, page, MADV_DONTNEED) == 0)
            released += page;
    }
    return released;
}
