/* gasnet_tools_timer.h: timers (the cycle counter, or CLOCK_MONOTONIC) and sleep.
 * Part of gasnet_tools.h, which includes it: not meant to be included
 * directly. */
#ifndef GASNET_TOOLS_TIMER_H
#define GASNET_TOOLS_TIMER_H
#ifndef _INCLUDED_GASNET_TOOLS_H
#error gasnet_tools_timer.h is part of gasnet_tools.h: include <gasnet_tools.h>
#endif

GASNETT_BEGIN_EXTERNC

/* ---- timers and sleep ---------------------------------------------------- */
/* Ticks are counts of the cycle counter (x86-64 TSC, aarch64 generic
 * timer), else nanoseconds of
 * CLOCK_MONOTONIC (other/tools/tools-timer.c); gasnett_ticks_to_ns converts
 * a tick value or a difference of two. */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)
extern gasnett_tick_t gasnett_ticks_now(void);
extern uint64_t gasneti_ticks_to_ns(gasnett_tick_t ticks);
#define gasnett_ticks_to_ns(ticks) gasneti_ticks_to_ns((gasnett_tick_t)(ticks))
#define gasnett_ticks_to_us(ticks) (gasneti_ticks_to_ns((gasnett_tick_t)(ticks)) / 1000)
/* Smallest observable tick step and cost of gasnett_ticks_now(), in us. */
extern double gasnett_tick_granularityus(void);
extern double gasnett_tick_overheadus(void);
/* Wall-clock time in microseconds since the epoch. */
extern uint64_t gasnett_gettimeofday_us(void);
/* Sleeps at least ns nanoseconds (returns early only if interrupted). */
extern int gasnett_nsleep(uint64_t ns_delay);
extern int gasnett_sched_yield(void);

GASNETT_END_EXTERNC
#endif /* GASNET_TOOLS_TIMER_H */
