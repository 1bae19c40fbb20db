/* A hint to the CPU inside a spin-wait: lets a sibling hardware thread run and saves power.
 * One instruction; no system call. */
#ifndef AIP_CPU_RELAX_H
#define AIP_CPU_RELAX_H

#if defined(_MSC_VER)
#include <intrin.h>
#endif

static inline void aip_cpu_relax(void)
{
#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_pause();
#elif defined(_MSC_VER) && defined(_M_ARM64)
    __yield();
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif (defined(__GNUC__) || defined(__clang__)) && (defined(__aarch64__) || defined(__arm__))
    __asm__ __volatile__("yield");
#endif
}

#endif
