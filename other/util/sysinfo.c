/* other/util/sysinfo.c: host facts and the monotonic clock (sysinfo.h). */
#include "other/util/sysinfo.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t gasneti_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int gasneti_cpu_count(void)
{
    static int cached; /* 0 = not yet known; races only repeat the query */
    int n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!n) {
        long v = sysconf(_SC_NPROCESSORS_ONLN);
        n = (v > 0 && v < (1L << 30)) ? (int)v : -1;
        __atomic_store_n(&cached, n, __ATOMIC_RELAXED);
    }
    return n > 0 ? n : 0;
}

uint64_t gasneti_physmem_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES);
    long pagesize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pagesize <= 0) return 0;
    return (uint64_t)pages * (uint64_t)pagesize;
}

const char *gasneti_gethostname(void)
{
    static char name[256];
    static int state; /* 0 unknown, 1 filling, 2 ready */
    int expect = 0;
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 2) return name;
    if (__atomic_compare_exchange_n(&state, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        if (gethostname(name, sizeof name - 1) != 0 || !name[0])
            snprintf(name, sizeof name, "unknown");
        name[sizeof name - 1] = '\0';
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
        return name;
    }
    while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2) {
    }
    return name;
}
