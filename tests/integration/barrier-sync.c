/* tests/integration/barrier-sync.c: barriers.
 *
 *  1. gex_Coll_BarrierBlocking many times (and its latency).
 *  2. Barrier semantics: before each barrier every rank writes the iteration
 *     number into its slot on every rank with a blocking put; after the
 *     barrier all slots must hold it.  The barrier alternates between
 *     BarrierBlocking, BarrierNB + gex_Event_Wait, BarrierNB + gex_Event_Test
 *     polling, legacy notify/wait and legacy gasnet_barrier; one rank is
 *     sometimes late.
 *  3. Legacy (GASNet-1) barriers: matching named ids, anonymous, named mixed
 *     with anonymous, gasnet_barrier_try polling, and deliberate mismatches
 *     (different ids, GASNET_BARRIERFLAG_MISMATCH) that must return
 *     GASNET_ERR_BARRIER_MISMATCH on every rank, through notify/wait and
 *     through gasnet_barrier (with gasnet_barrier_result's report); the
 *     barriers after a mismatch must work again.
 * The client is initialised with GEX_FLAG_USES_GASNET1 to use gasnet_barrier_*.
 */
#include <gasnet.h>
#include "test.h"

#define ITERS_PLAIN 1000
#define ITERS_CHECKED 100
#define ITERS_LEGACY 100

static volatile uint32_t *slots; /* slot r: last value written by rank r */

static void legacy_barrier(int id, int flags)
{
    gasnet_barrier_notify(id, flags);
    int rc = gasnet_barrier_wait(id, flags);
    CHECK_MSG(rc == GASNET_OK, "gasnet_barrier_wait(%d, 0x%x) returned %d (%s)", id, flags, rc,
              gasnet_ErrorName(rc));
}

static void some_barrier(unsigned i)
{
    switch (i % 5) {
    case 0:
        CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
        break;
    case 1:
        gex_Event_Wait(gex_Coll_BarrierNB(test_tm, 0));
        break;
    case 2: {
        gex_Event_t e = gex_Coll_BarrierNB(test_tm, 0);
        CHECK(e != GEX_EVENT_NO_OP);
        while (gex_Event_Test(e) != 0) gasnet_AMPoll();
        break;
    }
    case 3:
        legacy_barrier((int)i, 0);
        break;
    default: { /* the one-call legacy barrier */
        int rc = gasnet_barrier((int)i, 0);
        CHECK_MSG(rc == GASNET_OK, "gasnet_barrier(%u, 0) returned %d (%s)", i, rc,
                  gasnet_ErrorName(rc));
        break;
    }
    }
}

static void checked_barriers(void)
{
    for (unsigned i = 1; i <= ITERS_CHECKED; i++) {
        gex_Rank_t late = i % test_size;
        if (test_rank == late && (i % 10) == 0) usleep(20000); /* the others must wait */
        for (gex_Rank_t r = 0; r < test_size; r++) {
            uint32_t v = i;
            CHECK_OK(gex_RMA_PutBlocking(test_tm, r, (char *)test_seg[r] + test_rank * sizeof v,
                                         &v, sizeof v, 0));
        }
        some_barrier(i);
        for (gex_Rank_t r = 0; r < test_size; r++)
            CHECK_MSG(slots[r] == i, "after barrier %u (kind %u) slot of rank %u holds %u", i,
                      i % 5, (unsigned)r, (unsigned)slots[r]);
        some_barrier(i + 1); /* nobody writes i+1 before everyone checked i */
    }
}

static void expect_mismatch(int notify_id, int notify_flags, int wait_id, int wait_flags,
                            const char *what)
{
    gasnet_barrier_notify(notify_id, notify_flags);
    int rc = gasnet_barrier_wait(wait_id, wait_flags);
    CHECK_MSG(rc == GASNET_ERR_BARRIER_MISMATCH, "%s: gasnet_barrier_wait returned %d (%s), "
              "expected GASNET_ERR_BARRIER_MISMATCH", what, rc, gasnet_ErrorName(rc));
}

/* gasnet_barrier(id, flags): a match, then rank odd's different id, which
 * every rank must see as a mismatch, also in gasnet_barrier_result. */
static void one_call_barriers(gex_Rank_t odd)
{
    int rc = gasnet_barrier(40, 0), id = -1;
    CHECK_MSG(rc == GASNET_OK, "gasnet_barrier(40, 0) returned %d (%s)", rc, gasnet_ErrorName(rc));
    int fl = gasnet_barrier_result(&id);
    CHECK_MSG(fl == 0 && id == 40, "gasnet_barrier_result after a matching gasnet_barrier(40): "
              "flags 0x%x, id %d", fl, id);
    rc = gasnet_barrier(test_rank == odd ? 42 : 41, 0);
    CHECK_MSG(rc == GASNET_ERR_BARRIER_MISMATCH, "rank %u called gasnet_barrier with another id: "
              "returned %d (%s), expected GASNET_ERR_BARRIER_MISMATCH", (unsigned)odd, rc,
              gasnet_ErrorName(rc));
    fl = gasnet_barrier_result(&id);
    CHECK_MSG(fl & GASNET_BARRIERFLAG_MISMATCH, "gasnet_barrier_result after a mismatched "
              "gasnet_barrier: flags 0x%x (no GASNET_BARRIERFLAG_MISMATCH)", fl);
    rc = gasnet_barrier(43, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK_MSG(rc == GASNET_OK, "anonymous gasnet_barrier after a mismatch returned %d (%s)", rc,
              gasnet_ErrorName(rc));
}

static void legacy_barriers(void)
{
    for (int i = 0; i < ITERS_LEGACY; i++) {
        legacy_barrier(i, 0);                                     /* named, matching */
        legacy_barrier(i * 7 + (int)test_rank, GASNET_BARRIERFLAG_ANONYMOUS); /* anonymous */
        /* One rank anonymous, the others named: matches. */
        gex_Rank_t anon = (gex_Rank_t)i % test_size;
        legacy_barrier(12345 + i, test_rank == anon ? GASNET_BARRIERFLAG_ANONYMOUS : 0);
        /* Split phase with gasnet_barrier_try polling. */
        gasnet_barrier_notify(-i, 0);
        int rc;
        while ((rc = gasnet_barrier_try(-i, 0)) == GASNET_ERR_NOT_READY) gasnet_AMPoll();
        CHECK_MSG(rc == GASNET_OK, "gasnet_barrier_try returned %d (%s)", rc,
                  gasnet_ErrorName(rc));
    }
    if (test_size > 1) {
        for (gex_Rank_t odd = 0; odd < test_size; odd++) {
            int id = test_rank == odd ? 2 : 1;
            char what[80];
            snprintf(what, sizeof what, "rank %u notified a different id", (unsigned)odd);
            expect_mismatch(id, 0, id, 0, what);
            legacy_barrier(77, 0); /* works again */
            snprintf(what, sizeof what, "rank %u passed GASNET_BARRIERFLAG_MISMATCH",
                     (unsigned)odd);
            int fl = test_rank == odd ? GASNET_BARRIERFLAG_MISMATCH : 0;
            expect_mismatch(5, fl, 5, fl, what);
            CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0)); /* and so does the EX barrier */
            one_call_barriers(odd);
        }
    }
    /* Notify and wait ids differ on one rank only (a local mismatch). */
    if (test_rank == 0) {
        expect_mismatch(3, 0, 4, 0, "wait id differs from notify id");
    } else {
        gasnet_barrier_notify(3, 0);
        (void)gasnet_barrier_wait(3, 0); /* may or may not report the mismatch */
    }
    legacy_barrier(99, 0);
}

int main(int argc, char **argv)
{
    test_init("barrier", &argc, &argv, (uintptr_t)GASNET_PAGESIZE * 4, GEX_FLAG_USES_GASNET1, 1);
    slots = (volatile uint32_t *)test_seg[test_rank];
    memset((void *)slots, 0, test_size * sizeof(uint32_t));
    test_barrier();

    double t0 = test_now();
    for (int i = 0; i < ITERS_PLAIN; i++) CHECK_OK(gex_Coll_BarrierBlocking(test_tm, 0));
    double t = test_now() - t0;
    TEST_MSG0("%d x gex_Coll_BarrierBlocking: %.1f us each", ITERS_PLAIN, t / ITERS_PLAIN * 1e6);

    t0 = test_now();
    checked_barriers();
    TEST_MSG0("%d checked barriers (Blocking, NB+Wait, NB+Test, legacy): %.2f s", ITERS_CHECKED,
              test_now() - t0);

    t0 = test_now();
    legacy_barriers();
    TEST_MSG0("legacy named/anonymous/try barriers and mismatches: %.2f s", test_now() - t0);
    test_pass();
    return 0;
}
