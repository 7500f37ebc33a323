/* other/tools/tools-timer.h: what tools-timer.c offers beyond the public
 * gasnett_ticks_* interface: the bare cycle counter (also for tests and
 * benchmarks that compare with it) and the timer's choice. */
#ifndef GASNETI_TOOLS_TIMER_H
#define GASNETI_TOOLS_TIMER_H

#include <stdint.h>

/* GASNETI_HAVE_CYCLE_COUNTER: 1 where gasneti_cycle_counter() reads a
 * hardware counter (x86-64 rdtsc, aarch64 cntvct_el0), 0 where it is only
 * declared (never called: the timer uses CLOCK_MONOTONIC there). */
#if defined(__x86_64__)
#define GASNETI_HAVE_CYCLE_COUNTER 1
static inline uint64_t gasneti_cycle_counter(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}
#elif defined(__aarch64__)
#define GASNETI_HAVE_CYCLE_COUNTER 1
static inline uint64_t gasneti_cycle_counter(void)
{
    uint64_t v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v)::"memory");
    return v;
}
#else
#define GASNETI_HAVE_CYCLE_COUNTER 0
static inline uint64_t gasneti_cycle_counter(void)
{
    return 0;
}
#endif

/* 1 when gasnett_ticks_now() reads the cycle counter, 0 when it reads
 * CLOCK_MONOTONIC (nanoseconds). */
int gasneti_ticks_native(void);

#endif /* GASNETI_TOOLS_TIMER_H */
