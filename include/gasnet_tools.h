/* gasnet_tools.h: the GASNet tools interface (gasnett_ / GASNETT_ names).
 *
 * The subset that GASNet clients and test harnesses use: timers, sleep,
 * memory barriers, atomics, compiler annotations, mutexes and condition
 * variables, thread-local keys, environment queries and system properties.
 * Semantics follow GASNet's README-tools; the implementation is ours
 * (C11 __atomic builtins, POSIX threads and clocks; sources in other/tools).
 * The parts, one header per topic, are included from here:
 *   gasnet_tools_basic.h    helpers, sizes, linkage, compiler features and
 *                           annotations, ident strings, system properties
 *   gasnet_tools_membar.h   memory barriers
 *   gasnet_tools_timer.h    timers and sleep
 *   gasnet_tools_atomic.h   atomics
 *   gasnet_tools_thread.h   mutexes, condition variables, thread-local keys
 *   gasnet_tools_sys.h      environment, system queries, process control
 *   gasnet_tools_trace.h    tracing and statistics (no-ops)
 *   gasnet_tools_conduit.h  what needs the conduit library (gasnetex.h)
 *
 * Self-contained: includes only gasnet_config.h and system headers (never
 * gasnet_fwd.h), compiles as C99 or later and as C++.  gasnetex.h includes it.
 * Many "functions" here are macros or static inline functions: do not take
 * their address or #undef them.
 *
 * Threading: GASNETT_THREAD_SAFE is defined when GASNET_PAR/GASNET_PARSYNC is
 * (or when the client defines it); otherwise GASNETT_THREAD_SINGLE.  The
 * atomics and mutexes are real in both modes; the weak barriers compile to
 * compiler fences in single-threaded mode.  A tools-only client may instead
 * define GASNETT_LITE_MODE (GASNet's tools-lite mode): it gets the basic
 * part, memory barriers and timers only, no thread model, and its objects
 * link with any of our libraries (no thread-model link check), so one
 * object can serve SEQ and PAR programs.  Lite mode is not for objects that
 * also include gasnetex.h.
 */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
#define _INCLUDED_GASNET_TOOLS_H

#include <gasnet_config.h>
#include <gasnet_portable_platform.h>
/* The standard headers GASNet's headers make visible to clients. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(GASNETT_LITE_MODE) + defined(GASNETT_THREAD_SAFE) + defined(GASNETT_THREAD_SINGLE) > 1
#error gasnet_tools.h: define at most one of GASNETT_THREAD_SAFE, GASNETT_THREAD_SINGLE, GASNETT_LITE_MODE
#endif
#if defined(GASNETT_THREAD_SAFE) && defined(GASNET_SEQ)
#error gasnet_tools.h: GASNETT_THREAD_SAFE conflicts with GASNET_SEQ
#endif
#if defined(GASNETT_LITE_MODE)
#if defined(GASNET_FWD_H)
#error gasnet_tools.h: GASNETT_LITE_MODE is for tools-only objects, not for those including gasnetex.h
#endif
#undef GASNETT_LITE_MODE
#define GASNETT_LITE_MODE 1
#define GASNETT_THREAD_MODEL LITE
#elif defined(GASNET_PAR) || defined(GASNET_PARSYNC) || defined(GASNETT_THREAD_SAFE)
#undef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#define GASNETT_THREAD_MODEL PAR
/* GASNet's headers test this one rather than GASNETT_THREAD_SAFE. */
#ifndef GASNETI_THREADS
#define GASNETI_THREADS 1
#endif
#else
#undef GASNETT_THREAD_SINGLE
#define GASNETT_THREAD_SINGLE 1
#define GASNETT_THREAD_MODEL SEQ
#endif

/* ---- versions ------------------------------------------------------------ */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
#define GASNETT_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR
#define GASNETT_RELEASE_VERSION_MINOR GASNET_RELEASE_VERSION_MINOR
#define GASNETT_RELEASE_VERSION_PATCH GASNET_RELEASE_VERSION_PATCH


#include <gasnet_tools_basic.h>
#include <gasnet_tools_membar.h>
#include <gasnet_tools_timer.h>
#ifndef GASNETT_LITE_MODE
#include <gasnet_tools_atomic.h>
#include <gasnet_tools_thread.h>
#include <gasnet_tools_sys.h>
#include <gasnet_tools_trace.h>
#endif

/* ---- configuration string and link-time check ---------------------------- */
#define GASNETT_LITE_CONFIG_STRING                                                    \
    "RELEASE=" GASNET_RELEASE_VERSION_STR ",SPEC=" _STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) \
    "." _STRINGIFY(GASNETT_SPEC_VERSION_MINOR) ",PTR=" _STRINGIFY(GASNETT_PTR_CONFIG) "," \
    _STRINGIFY(GASNETT_DEBUG_CONFIG) "," _STRINGIFY(GASNETT_THREAD_MODEL) ","             \
    _STRINGIFY(GASNETT_TIMER_CONFIG) "," _STRINGIFY(GASNETT_MEMBAR_CONFIG)
#ifdef GASNETT_LITE_MODE
#define GASNETT_CONFIG_STRING GASNETT_LITE_CONFIG_STRING
#else
#define GASNETT_CONFIG_STRING                                                           \
    GASNETT_LITE_CONFIG_STRING "," _STRINGIFY(GASNETT_ATOMIC_CONFIG) ","                \
    _STRINGIFY(GASNETT_ATOMIC32_CONFIG) "," _STRINGIFY(GASNETT_ATOMIC64_CONFIG)
#endif

/* Every object that includes this header references a symbol that only a
 * library built for the same thread model defines, and one for the release
 * (every library defines it).  Lite mode has no thread model: only the
 * release is checked. */
GASNETT_BEGIN_EXTERNC
#define GASNETT_LINKCONFIG_IDIOTCHECK(name) _CONCAT(gasnett_linkconfig_idiotcheck_, name)
extern int GASNETT_LINKCONFIG_IDIOTCHECK(_CONCAT(RELEASE_MAJOR_, GASNET_RELEASE_VERSION_MAJOR));
#ifdef GASNETT_LITE_MODE
#define GASNETI_TOOLS_LINKCHECK_MODEL 0
#else
extern int GASNETT_LINKCONFIG_IDIOTCHECK(GASNETT_THREAD_MODEL);
#define GASNETI_TOOLS_LINKCHECK_MODEL GASNETT_LINKCONFIG_IDIOTCHECK(GASNETT_THREAD_MODEL)
#endif
#if !defined(GASNETI_BUILDING_LIBRARY) && !defined(GASNETI_IN_TREE)
static __attribute__((__used__)) int *gasnett_linkconfig_idiotcheck(void)
{
    static int val;
    val += GASNETI_TOOLS_LINKCHECK_MODEL +
           GASNETT_LINKCONFIG_IDIOTCHECK(_CONCAT(RELEASE_MAJOR_, GASNET_RELEASE_VERSION_MAJOR));
    return &val;
}
#endif
GASNETT_END_EXTERNC

#endif /* GASNET_TOOLS_H */

/* The services that need the conduit library: declared once gasnet_fwd.h
 * (included by gasnetex.h) is in, also when this header came first. */
#if defined(GASNET_FWD_H) && !defined(GASNETI_TOOLS_CONDUIT_PART)
#include <gasnet_tools_conduit.h>
#endif
