/* tests/integration/teams/teamperf.c: per-operation cost of a barrier and
 * an 8-byte broadcast on a split team (world split in two halves) and on a
 * created team with the world's members in reverse order (same membership:
 * the difference is the cost of the team machinery) beside the same
 * operations on the primordial team, in the same run.
 * Iterations: argv[1] (default 2000).  Rank 0 prints one line per case
 * (microseconds per operation, as seen by rank 0).
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include "../test.h"

static double time_barrier(gex_TM_t tm, int iters)
{
    CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
    double t0 = test_now();
    for (int i = 0; i < iters; i++) CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
    return (test_now() - t0) * 1e6 / iters;
}

static double time_bcast(gex_TM_t tm, int iters)
{
    uint64_t v = 0, src = 42;
    gex_Rank_t n = gex_TM_QuerySize(tm);
    CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
    double t0 = test_now();
    for (int i = 0; i < iters; i++) {
        gex_Event_t ev = gex_Coll_BroadcastNB(tm, (gex_Rank_t)(i % n), &v, &src, 8, 0);
        gex_Event_Wait(ev);
        CHECK_EQ(v, 42);
    }
    CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
    return (test_now() - t0) * 1e6 / iters;
}

int main(int argc, char **argv)
{
    test_init("teamperf", &argc, &argv, 0, 0, 2);
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    gex_TM_t half;
    gex_TM_Split(&half, test_tm, test_rank >= test_size / 2, (int)test_rank, NULL, 0,
                 GEX_FLAG_TM_NO_SCRATCH);
    gex_EP_Location_t *loc = calloc(test_size, sizeof(*loc));
    CHECK(loc != NULL);
    for (gex_Rank_t r = 0; r < test_size; r++) loc[r].gex_rank = test_size - 1 - r;
    gex_TM_t rev;
    gex_TM_Create(&rev, 1, test_tm, loc, test_size, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    double r[2][3];
    for (int rep = 0; rep < 2; rep++) { /* the second pass is the one reported */
        r[0][0] = time_barrier(test_tm, iters);
        r[0][1] = time_barrier(half, iters);
        r[0][2] = time_barrier(rev, iters);
        r[1][0] = time_bcast(test_tm, iters);
        r[1][1] = time_bcast(half, iters);
        r[1][2] = time_bcast(rev, iters);
    }
    if (test_rank == 0) {
        printf("teamperf: %u processes, %d iterations, microseconds per operation (rank 0)\n",
               (unsigned)test_size, iters);
        for (int k = 0; k < 2; k++)
            printf("teamperf: %s  primordial(%u) %8.2f  split(%u) %8.2f  reversed(%u) %8.2f\n",
                   k ? "bcast 8 B" : "barrier  ", (unsigned)test_size, r[k][0],
                   (unsigned)gex_TM_QuerySize(half), r[k][1], (unsigned)test_size, r[k][2]);
    }
    gex_TM_Destroy(half, NULL, 0);
    gex_TM_Destroy(rev, NULL, 0);
    test_pass();
}
