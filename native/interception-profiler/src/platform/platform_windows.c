/* Windows implementation of platform.h: SRW locks, condition variables, Win32 threads,
 * QueryPerformanceCounter, and UTF-8 paths converted to and from UTF-16. */
#define WIN32_LEAN_AND_MEAN
#include "platform/platform.h"
#include "text/utf.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>

_Static_assert(sizeof(SRWLOCK) == sizeof(void *), "aip_mutex holds one SRWLOCK");
_Static_assert(sizeof(CONDITION_VARIABLE) == sizeof(void *),
               "aip_cond holds one CONDITION_VARIABLE");

/* clang-format off */
int aip_mutex_init(aip_mutex *m) { InitializeSRWLock((PSRWLOCK)&m->srwlock); return 0; }
void aip_mutex_destroy(aip_mutex *m) { (void)m; }
void aip_mutex_lock(aip_mutex *m) { AcquireSRWLockExclusive((PSRWLOCK)&m->srwlock); }
void aip_mutex_unlock(aip_mutex *m) { ReleaseSRWLockExclusive((PSRWLOCK)&m->srwlock); }
/* clang-format on */

int aip_cond_init(aip_cond *c)
{
    InitializeConditionVariable((PCONDITION_VARIABLE)&c->condition_variable);
    return 0;
}

void aip_cond_destroy(aip_cond *c)
{
    (void)c;
}

void aip_cond_wait(aip_cond *c, aip_mutex *m)
{
    SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->condition_variable, (PSRWLOCK)&m->srwlock,
                              INFINITE, 0);
}

int aip_cond_wait_until(aip_cond *c, aip_mutex *m, uint64_t deadline_ns)
{
    uint64_t now = aip_monotonic_ns();
    if (now >= deadline_ns)
        return 1;
    uint64_t ms = (deadline_ns - now + 999999u) / 1000000u;
    if (ms >= INFINITE)
        ms = INFINITE - 1;
    if (SleepConditionVariableSRW((PCONDITION_VARIABLE)&c->condition_variable,
                                  (PSRWLOCK)&m->srwlock, (DWORD)ms, 0))
        return 0;
    return GetLastError() == ERROR_TIMEOUT ? 1 : 0;
}

void aip_cond_signal(aip_cond *c)
{
    WakeConditionVariable((PCONDITION_VARIABLE)&c->condition_variable);
}
void aip_cond_broadcast(aip_cond *c)
{
    WakeAllConditionVariable((PCONDITION_VARIABLE)&c->condition_variable);
}

typedef struct thread_start {
    aip_thread_fn fn;
    void *arg;
} thread_start;

static DWORD WINAPI thread_main(LPVOID p)
{
    thread_start start = *(thread_start *)p;
    free(p);
    start.fn(start.arg);
    return 0;
}

int aip_thread_start(aip_thread *t, aip_thread_fn fn, void *arg)
{
    thread_start *start = malloc(sizeof *start);
    if (start == NULL)
        return -1;
    start->fn = fn;
    start->arg = arg;
    t->handle = CreateThread(NULL, 0, thread_main, start, 0, NULL);
    if (t->handle == NULL) {
        free(start);
        return -1;
    }
    return 0;
}

void aip_thread_join(aip_thread *t)
{
    WaitForSingleObject((HANDLE)t->handle, INFINITE);
    CloseHandle((HANDLE)t->handle);
    t->handle = NULL;
}

uint64_t aip_monotonic_ns(void)
{
    LARGE_INTEGER counter, frequency;
    QueryPerformanceCounter(&counter);
    QueryPerformanceFrequency(&frequency);
    uint64_t c = (uint64_t)counter.QuadPart, f = (uint64_t)frequency.QuadPart;
    return (c / f) * 1000000000u + (c % f) * 1000000000u / f;
}

int aip_getenv(const char *name, char *buf, size_t cap)
{
    WCHAR wname[256], value[32768];
    if (MultiByteToWideChar(CP_UTF8, 0, name, -1, wname, 256) == 0)
        return -1;
    DWORD n = GetEnvironmentVariableW(wname, value, 32768);
    if (n == 0)
        return GetLastError() == ERROR_ENVVAR_NOT_FOUND ? -1 : (cap > 0 ? (buf[0] = '\0', 0) : -2);
    if (n >= 32768)
        return -2;
    return aip_utf16_to_utf8((const uint16_t *)value, buf, cap);
}

int aip_self_library_path(char *buf, size_t cap)
{
    HMODULE self = NULL;
    WCHAR path[32768];
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS |
                                GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            (LPCWSTR)(void *)&aip_self_library_path, &self))
        return -1;
    DWORD n = GetModuleFileNameW(self, path, 32768);
    if (n == 0 || n >= 32768)
        return -1;
    return aip_utf16_to_utf8((const uint16_t *)path, buf, cap) >= 0 ? 0 : -1;
}

static int file_identity(const char *path, BY_HANDLE_FILE_INFORMATION *info)
{
    WCHAR wpath[32768];
    if (MultiByteToWideChar(CP_UTF8, 0, path, -1, wpath, 32768) == 0)
        return -1;
    HANDLE h = CreateFileW(wpath, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    BOOL ok = GetFileInformationByHandle(h, info);
    CloseHandle(h);
    return ok ? 0 : -1;
}

int aip_same_file(const char *path_a, const char *path_b)
{
    BY_HANDLE_FILE_INFORMATION a, b;
    if (file_identity(path_a, &a) != 0 || file_identity(path_b, &b) != 0)
        return 0;
    return a.dwVolumeSerialNumber == b.dwVolumeSerialNumber &&
           a.nFileIndexHigh == b.nFileIndexHigh && a.nFileIndexLow == b.nFileIndexLow;
}

void aip_write_stderr_line(const char *line)
{
    HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    DWORD written;
    if (err == NULL || err == INVALID_HANDLE_VALUE)
        return;
    WriteFile(err, line, (DWORD)strlen(line), &written, NULL);
    WriteFile(err, "\r\n", 2, &written, NULL);
}

void *aip_zero_pages(size_t size)
{
    /* Committed pages read as zero and take memory only once written. */
    return VirtualAlloc(NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
}
