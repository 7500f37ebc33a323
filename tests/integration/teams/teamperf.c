/* tests/integration/teams/teamperf.c: per-operation cost of a barrier and
 * an 8-byte broadcast on a split team (world split in two halves) and on a
 * created team with the world's members in reverse order (same membership
 * as the world: the difference is the cost of the team machinery) beside
 * the same operations on the primordial team, in the same run.
 *
 * Robust on a loaded host: each repetition times ITERS operations of every
 * case back to back, rotating which case goes first; a repetition's time
 * for a case is the slowest rank's (a collective is as slow as its last
 * member); rank 0 prints the minimum and the median over the repetitions,
 * and the ratio of each team's median to the primordial team's.
 * Arguments: ITERS (default 2000), REPS (default 7).
 */
#include <gasnetex.h>
#include <gasnet_coll.h>
#include "../test.h"

#include <stdlib.h>

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
        v = 0;
        gex_Event_t ev = gex_Coll_BroadcastNB(tm, (gex_Rank_t)(i % n), &v, &src, 8, 0);
        gex_Event_Wait(ev);
        CHECK_EQ(v, 42);
    }
    CHECK_OK(gex_Coll_BarrierBlocking(tm, 0));
    return (test_now() - t0) * 1e6 / iters;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define NCASE 6 /* barrier x3 teams, broadcast x3 teams */

int main(int argc, char **argv)
{
    test_init("teamperf", &argc, &argv, 0, 0, 2);
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    CHECK(iters > 0 && reps > 0);
    gex_TM_t half;
    gex_TM_Split(&half, test_tm, test_rank >= test_size / 2, (int)test_rank, NULL, 0,
                 GEX_FLAG_TM_NO_SCRATCH);
    gex_EP_Location_t *loc = calloc(test_size, sizeof(*loc));
    CHECK(loc != NULL);
    for (gex_Rank_t r = 0; r < test_size; r++) loc[r].gex_rank = test_size - 1 - r;
    gex_TM_t rev;
    gex_TM_Create(&rev, 1, test_tm, loc, test_size, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_TM_t tms[3] = {test_tm, half, rev};
    double *t = calloc((size_t)reps * NCASE, sizeof(double));
    double *worst = calloc((size_t)reps * NCASE, sizeof(double));
    CHECK(t && worst);
    /* One warm-up pass, not recorded. */
    for (int c = 0; c < NCASE; c++)
        (void)(c < 3 ? time_barrier(tms[c], iters / 10 + 1) : time_bcast(tms[c - 3], iters / 10 + 1));
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < NCASE; k++) {
            int c = (k + rep) % NCASE; /* rotate the order: no case always goes first */
            test_barrier();
            t[rep * NCASE + c] = c < 3 ? time_barrier(tms[c], iters) : time_bcast(tms[c - 3], iters);
        }
    }
    test_barrier();
    gex_Event_Wait(gex_Coll_ReduceToOneNB(test_tm, 0, worst, t, GEX_DT_DBL, sizeof(double),
                                          (size_t)reps * NCASE, GEX_OP_MAX, NULL, NULL, 0));
    if (test_rank == 0) {
        double mn[NCASE], med[NCASE], *col = calloc((size_t)reps, sizeof(double));
        CHECK(col != NULL);
        for (int c = 0; c < NCASE; c++) {
            for (int rep = 0; rep < reps; rep++) col[rep] = worst[rep * NCASE + c];
            qsort(col, (size_t)reps, sizeof(double), dbl_cmp);
            mn[c] = col[0];
            med[c] = reps % 2 ? col[reps / 2] : (col[reps / 2 - 1] + col[reps / 2]) / 2;
        }
        free(col);
        printf("teamperf: %u processes, %d operations x %d repetitions, microseconds per "
               "operation (slowest rank), min / median\n",
               (unsigned)test_size, iters, reps);
        for (int k = 0; k < 2; k++) {
            const double *m = mn + 3 * k, *d = med + 3 * k;
            printf("teamperf: %s  primordial(%u) %7.2f / %7.2f  split(%u) %7.2f / %7.2f  "
                   "reversed(%u) %7.2f / %7.2f  median ratio split %.2f reversed %.2f\n",
                   k ? "bcast 8 B" : "barrier  ", (unsigned)test_size, m[0], d[0],
                   (unsigned)gex_TM_QuerySize(half), m[1], d[1], (unsigned)test_size, m[2], d[2],
                   d[1] / d[0], d[2] / d[0]);
        }
    }
    free(t);
    free(worst);
    free(loc);
    gex_TM_Destroy(half, NULL, 0);
    gex_TM_Destroy(rev, NULL, 0);
    test_pass();
}
