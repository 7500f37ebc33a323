/* other/util/sysinfo.h: facts about this host and a monotonic clock.
 *
 * For the library (PSHM sizing, GASNET_POLL_YIELD auto mode, physmem limits,
 * timeouts) and for gasnet_tools.h.  All functions are thread-safe and may
 * be called from AM handlers.
 */
#ifndef GASNETI_SYSINFO_H
#define GASNETI_SYSINFO_H

#include <stdint.h>

/* Nanoseconds of CLOCK_MONOTONIC (arbitrary origin, never goes back). */
uint64_t gasneti_now_ns(void);

/* Online CPUs of this host, or 0 if unknown.  Cached after the first call. */
int gasneti_cpu_count(void);

/* Physical memory of this host in bytes, or 0 if unknown. */
uint64_t gasneti_physmem_bytes(void);

/* This host's name (gethostname, cached; "unknown" if that fails). */
const char *gasneti_gethostname(void);

#endif /* GASNETI_SYSINFO_H */
