/* other/tools/tools-timer.c: gasnet_tools.h timers (gasnett_ticks_now and
 * friends) on the cycle counter where the platform has a constant one.
 *
 * Ticks are the cycle counter's counts (x86-64 rdtsc, aarch64 cntvct_el0),
 * as GASNet's native timers are: on aarch64 the generic timer is constant
 * by architecture; on x86-64 the TSC is read whenever /proc/cpuinfo lists
 * it, constant_tsc or not (GASNet does the same; a virtual CPU such as
 * qemu's TCG lacks the flag while its counter is usable, and interval
 * timing is what clients measure with it).  Elsewhere ticks are
 * nanoseconds of CLOCK_MONOTONIC.  GASNET_TIMER=native|posix overrides the
 * choice.  The library's own timeouts use CLOCK_MONOTONIC, never these.
 *
 * ticks -> ns is a 32.32 fixed-point factor measured once against
 * CLOCK_MONOTONIC: the first gasnett_ticks_now() records a (ticks, ns) pair,
 * the first conversion takes a second pair at least CALIB_NS later (waiting
 * for the rest of that interval if the program converts sooner).  The
 * choice and the factor are each made once (pthread_once); the fast path is
 * one acquire load and the counter read. */
#include <gasnet_tools.h>

#include "other/log/log.h"
#include "other/param/param.h"
#include "other/tools/tools-timer.h"
#include "other/util/sysinfo.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { TIMER_UNSET = 0, TIMER_NATIVE = 1, TIMER_POSIX = 2 };
#define CALIB_NS 20000000ull /* 20 ms between the two calibration pairs */

static int timer_mode;           /* TIMER_*, written once under mode_once */
static pthread_once_t mode_once = PTHREAD_ONCE_INIT;
static uint64_t calib_ticks0, calib_ns0;
static uint64_t ns_per_tick_q32; /* ns per tick << 32; 0 until calibrated */
static pthread_once_t calib_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
/* 1 if the first "flags" line of /proc/cpuinfo lists the TSC (or there is
 * no /proc/cpuinfo to say otherwise: every x86-64 CPU has one). */
static int counter_is_usable(void)
{
    char line[8192];
    int tsc = 1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return 1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        tsc = strstr(line, " tsc") != NULL;
        break;
    }
    fclose(f);
    return tsc;
}
#else
/* aarch64: the generic timer is constant by architecture. */
static int counter_is_usable(void)
{
    return GASNETI_HAVE_CYCLE_COUNTER;
}
#endif

static void choose_mode(void)
{
    const char *want = gasneti_param_str(GASNETI_PARAM_GASNET_TIMER);
    int native;
    if (strcmp(want, "native") == 0)
        native = GASNETI_HAVE_CYCLE_COUNTER;
    else if (strcmp(want, "posix") == 0)
        native = 0;
    else {
        if (strcmp(want, "auto") != 0)
            gasneti_warning("GASNET_TIMER=%s is not auto, native or posix: auto is used", want);
        native = GASNETI_HAVE_CYCLE_COUNTER && counter_is_usable();
    }
    calib_ns0 = gasneti_now_ns();
    calib_ticks0 = native ? gasneti_cycle_counter() : calib_ns0;
    __atomic_store_n(&timer_mode, native ? TIMER_NATIVE : TIMER_POSIX, __ATOMIC_RELEASE);
}

static int mode(void)
{
    int m = __atomic_load_n(&timer_mode, __ATOMIC_ACQUIRE);
    if (__builtin_expect(m == TIMER_UNSET, 0)) {
        pthread_once(&mode_once, choose_mode);
        m = __atomic_load_n(&timer_mode, __ATOMIC_ACQUIRE);
    }
    return m;
}

gasnett_tick_t gasnett_ticks_now(void)
{
    int m = __atomic_load_n(&timer_mode, __ATOMIC_ACQUIRE);
    if (__builtin_expect(m == TIMER_NATIVE, 1)) return gasneti_cycle_counter();
    if (m == TIMER_UNSET) m = mode();
    return m == TIMER_NATIVE ? gasneti_cycle_counter() : gasneti_now_ns();
}

static void calibrate(void)
{
    uint64_t q = (uint64_t)1 << 32;
    if (mode() == TIMER_NATIVE) {
        uint64_t ns1, ticks1;
        do {
            ns1 = gasneti_now_ns();
            ticks1 = gasneti_cycle_counter();
        } while (ns1 - calib_ns0 < CALIB_NS);
        if (ticks1 > calib_ticks0)
            q = (uint64_t)(((double)(ns1 - calib_ns0) / (double)(ticks1 - calib_ticks0)) *
                           4294967296.0);
        if (q == 0) q = 1;
    }
    __atomic_store_n(&ns_per_tick_q32, q, __ATOMIC_RELEASE);
}

uint64_t gasneti_ticks_to_ns(gasnett_tick_t ticks)
{
    uint64_t q = __atomic_load_n(&ns_per_tick_q32, __ATOMIC_ACQUIRE);
    if (__builtin_expect(q == 0, 0)) {
        pthread_once(&calib_once, calibrate);
        q = __atomic_load_n(&ns_per_tick_q32, __ATOMIC_ACQUIRE);
    }
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((unsigned __int128)ticks * q) >> 32);
#else
    return (uint64_t)((double)ticks * ((double)q / 4294967296.0));
#endif
}

/* GASNet's measure (gasnett_tick_granularityus/overheadus): at least 1000
 * reads and 10 changes of the value; granularity is the smallest non-zero
 * step between consecutive reads, overhead the mean time of one read. */
static double tick_metric[2];
static pthread_once_t metric_once = PTHREAD_ONCE_INIT;

static void measure_ticks(void)
{
    gasnett_tick_t start = gasnett_ticks_now(), last = start, min = GASNETT_TICK_MAX;
    int i, steps;
    for (i = 0, steps = 0; i < 1000 || steps < 10; i++) {
        gasnett_tick_t x = gasnett_ticks_now();
        if (x != last) {
            steps++;
            if (x - last < min) min = x - last;
        }
        last = x;
    }
    tick_metric[0] = (double)gasneti_ticks_to_ns(min) / 1000.0;
    tick_metric[1] = (double)gasneti_ticks_to_ns(last - start) / (1000.0 * i);
}

double gasnett_tick_granularityus(void)
{
    pthread_once(&metric_once, measure_ticks);
    return tick_metric[0];
}

double gasnett_tick_overheadus(void)
{
    pthread_once(&metric_once, measure_ticks);
    return tick_metric[1];
}

int gasneti_ticks_native(void)
{
    return mode() == TIMER_NATIVE;
}
