/* core/phases.c: start-up and exit phase times (GASNET_STARTUP_TIMES).
 *
 * init.c and exit.c mark the end of each phase with gasnetc_phase(); when
 * GASNET_STARTUP_TIMES is set, the rank prints every mark on one line of
 * stderr as it exits:
 *
 *   gasnet-startup-times rank 3 of 128: init 1764323456.123456 boot ... exit ...
 *
 * Each value is the wall-clock time (CLOCK_REALTIME, seconds) at which the
 * phase of that name ended on this rank ("init": gex_Client_Init was
 * entered), so that a tool can line the ranks up against the launcher's own
 * start and end (tests/perf/bench_many.py, core/README "Start-up phases").
 * Marks cost one clock read each; nothing is printed unless asked for.
 */
#include "core/gasnet_core_private.h"

#include <stdio.h>
#include <time.h>

#define MAX_PHASES 16

static struct {
    const char *name;
    double t;
} marks[MAX_PHASES];
static int nmarks;

void gasnetc_phase(const char *name)
{
    struct timespec ts;
    if (nmarks == MAX_PHASES) return;
    clock_gettime(CLOCK_REALTIME, &ts);
    marks[nmarks].name = name;
    marks[nmarks].t = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    nmarks++;
}

void gasnetc_phase_report(void)
{
    char line[MAX_PHASES * 32 + 64];
    size_t len = 0;
    if (!nmarks || !GASNETI_PARAM_BOOL(GASNET_STARTUP_TIMES)) return;
    len += (size_t)snprintf(line, sizeof line, "gasnet-startup-times rank %u of %u:",
                            (unsigned)gasneti_mynode, (unsigned)gasneti_nodes);
    for (int i = 0; i < nmarks && len < sizeof line; i++)
        len += (size_t)snprintf(line + len, sizeof line - len, " %s %.6f", marks[i].name,
                                marks[i].t);
    if (len < sizeof line - 1) line[len++] = '\n';
    fwrite(line, 1, len < sizeof line ? len : sizeof line - 1, stderr);
    fflush(stderr);
}
