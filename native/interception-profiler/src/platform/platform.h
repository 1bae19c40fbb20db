/* Everything that differs between operating systems, behind one small interface.
 * One file per OS (platform_linux.c, platform_darwin.c, platform_windows.c), with the parts
 * Linux and macOS share in platform_posix.c.
 * Atomics are C11 <stdatomic.h> everywhere (MSVC: /experimental:c11atomics). */
#ifndef AIP_PLATFORM_H
#define AIP_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* clang-format off */
#if defined(_WIN32)
typedef struct aip_mutex { void *srwlock; } aip_mutex;
typedef struct aip_cond { void *condition_variable; } aip_cond;
typedef struct aip_thread { void *handle; } aip_thread;
#else
#include <pthread.h>
typedef struct aip_mutex { pthread_mutex_t mutex; } aip_mutex;
typedef struct aip_cond { pthread_cond_t cond; } aip_cond;
typedef struct aip_thread { pthread_t thread; } aip_thread;
#endif
/* clang-format on */

typedef void (*aip_thread_fn)(void *arg);

/* Mutex and condition variable; *_init return 0 on success. */
int aip_mutex_init(aip_mutex *m);
void aip_mutex_destroy(aip_mutex *m);
void aip_mutex_lock(aip_mutex *m);
void aip_mutex_unlock(aip_mutex *m);
int aip_cond_init(aip_cond *c);
void aip_cond_destroy(aip_cond *c);
void aip_cond_wait(aip_cond *c, aip_mutex *m);
/* Waits until signalled or until the monotonic clock reaches deadline_ns. Returns 0 when
 * signalled (or spuriously woken), 1 when the deadline passed. */
int aip_cond_wait_until(aip_cond *c, aip_mutex *m, uint64_t deadline_ns);
void aip_cond_signal(aip_cond *c);
void aip_cond_broadcast(aip_cond *c);

/* A native thread (never a managed one). Returns 0 on success. */
int aip_thread_start(aip_thread *t, aip_thread_fn fn, void *arg);
void aip_thread_join(aip_thread *t);

/* Monotonic clock in nanoseconds. */
uint64_t aip_monotonic_ns(void);

/* Copies environment variable `name` into buf (NUL-terminated). Returns its length, -1 if
 * unset, or -2 if it does not fit in cap bytes. */
int aip_getenv(const char *name, char *buf, size_t cap);

/* Absolute path of the shared library containing this code. Returns 0 on success. */
int aip_self_library_path(char *buf, size_t cap);

/* 1 when both paths name the same existing file, 0 otherwise. */
int aip_same_file(const char *path_a, const char *path_b);

/* `size` bytes of zeroed, page-aligned memory straight from the operating system (a private
 * anonymous mapping; VirtualAlloc on Windows), each page backed only once first written, so
 * tables a profiled process never uses cost nothing. NULL when the OS refuses. Never freed
 * here: it holds the profiler, which lives as long as the process. */
void *aip_zero_pages(size_t size);

/* Writes one line to the process's standard error, unbuffered. */
void aip_write_stderr_line(const char *line);

#endif
