/* other/tools/tools-timer.h: what tools-timer.c offers beyond the public
 * gasnett_ticks_* interface (for tests and benchmarks). */
#ifndef GASNETI_TOOLS_TIMER_H
#define GASNETI_TOOLS_TIMER_H

/* 1 when gasnett_ticks_now() reads the cycle counter, 0 when it reads
 * CLOCK_MONOTONIC (nanoseconds). */
int gasneti_ticks_native(void);

#endif /* GASNETI_TOOLS_TIMER_H */
