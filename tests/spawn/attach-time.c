/* tests/spawn/attach-time.c: startup time of a job, for the spawner
 * measurements (tests/spawn/startup-time.sh).  Every rank runs
 * gex_Client_Init, gex_Segment_Attach and a barrier; then rank 0 prints
 * "attach-done <CLOCK_REALTIME in ns> <ranks>" and every rank calls
 * gasnet_exit(0).  With the argument "sleep", every rank prints
 * "rank R: sleeping" after the barrier and sleeps 60 s instead (for the
 * tests that signal the launcher).  Public API only. */
#include <gasnetex.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "attach-time", &argc, &argv, 0) != GASNET_OK) return 1;
    if (gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) return 1;
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    if (argc > 1 && !strcmp(argv[1], "sleep")) {
        printf("rank %u: sleeping\n", (unsigned)gex_TM_QueryRank(tm));
        fflush(stdout);
        sleep(60);
        return 1;
    }
    if (gex_TM_QueryRank(tm) == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("attach-done %lld %u\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
               (unsigned)gex_TM_QuerySize(tm));
        fflush(stdout);
    }
    gasnet_exit(0);
    return 0;
}
