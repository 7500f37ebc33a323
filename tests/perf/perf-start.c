/* tests/perf/perf-start.c: a job's start-up and exit (the many-process tier
 * of `make bench`, row mp_start_exit).
 *
 *   gasnetrun_ibv -n 128 tests/perf/perf-start           # the job
 *   gasnetrun_ibv -n 128 tests/perf/perf-start --floor   # its floor
 *
 * The job is GASNet's testhello: gex_Client_Init, a one-page
 * gex_Segment_Attach, a line from the first and the last rank, a barrier,
 * gasnet_exit(0).  With --floor every process returns from main at once,
 * before gex_Client_Init: the same launcher, the same binary loaded the
 * same way, so the time above the floor is the library's start-up and
 * exit.  bench.py times both from the launcher's start to its exit.
 * GASNET_STARTUP_TIMES=1 makes every rank print its start-up phases
 * (core/README "Start-up phases").
 */
#include <gasnetex.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (argc > 1 && !strcmp(argv[1], "--floor")) return 0;
    if (gex_Client_Init(&client, &ep, &tm, "perf-start", &argc, &argv, 0) != GASNET_OK ||
        gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) {
        fprintf(stderr, "perf-start: start-up failed\n");
        gasnet_exit(1);
    }
    gex_Rank_t rank = gex_TM_QueryRank(tm), size = gex_TM_QuerySize(tm);
    if (rank == 0 || rank == size - 1) printf("Hello from rank %u of %u\n", rank, size);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_exit(0);
    return 0;
}
