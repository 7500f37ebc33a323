/* tests/integration/progress/am-lc.c: asynchronous local completion of AM
 * Requests (lc_opt = &event and GEX_EVENT_GROUP).  Both ranks of a pair
 * send to each other at once; every handler checks its payload.
 *
 *   A. Long, zero-copy size (NBIG x BIG bytes from the segment, each into
 *      its own slot of the peer's segment): the event is waited for, then
 *      the source is overwritten; the handler must see the original bytes.
 *      Over verbs without the send thread the event must be pending when
 *      the call returns (the payload is read in place by RDMA: local
 *      completion is the send completion), and still pending after 20 ms
 *      without any GASNet call (nothing reaped the send completion).  After
 *      the event, a blocking get of the slot returns the payload.
 *   B. Medium of MED bytes from the segment (gathered in place over verbs
 *      when >= GASNET_AM_GATHER_MIN): the same checks.
 *   C. GEX_EVENT_GROUP: NGROUP Longs and Mediums, gex_NBI_Wait(GEX_EC_AM),
 *      then all sources overwritten.
 *   D. (argument "sndthread", with GASNET_SND_THREAD=1) a Long's event is
 *      tested with gex_Event_Test, which never polls, and nothing else:
 *      only the send thread can complete it (10 s limit).
 * Over PSHM every event is GEX_EVENT_INVALID (payloads are copied); the
 * pending checks are skipped there.  Any process count >= 2.
 */
#include <gasnetex.h>
#include "../test.h"

#include <stdlib.h>
#include <string.h>

#define BIG ((size_t)256 << 10)
#define NBIG 12
#define MED 4000
#define NMED 40
#define NGROUP 6
#define SRC_OFF 0                                   /* sources: NBIG x BIG */
#define DST_OFF ((uintptr_t)NBIG * BIG)             /* Long slots: (NBIG + NGROUP + 1) x BIG */
#define SEG_BYTES (DST_OFF + (uintptr_t)(NBIG + NGROUP + 1) * BIG)

enum { H_LONG, H_MED, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint32_t got_long, got_med, bad; /* atomics: handlers may run on any thread */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define INC(x) __atomic_add_fetch(&(x), 1, __ATOMIC_ACQ_REL)

static void long_h(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    (void)t;
    size_t at = test_mismatch(buf, n, (uint64_t)(uint32_t)seed);
    if (at != (size_t)-1) {
        fprintf(stderr, "rank %u: Long seed %u: byte %zu of %zu is wrong\n", (unsigned)test_rank,
                (unsigned)seed, at, n);
        INC(bad);
    }
    INC(got_long);
}
static void med_h(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    (void)t;
    size_t at = test_mismatch(buf, n, (uint64_t)(uint32_t)seed);
    if (at != (size_t)-1) {
        fprintf(stderr, "rank %u: Medium seed %u: byte %zu of %zu is wrong\n",
                (unsigned)test_rank, (unsigned)seed, at, n);
        INC(bad);
    }
    INC(got_med);
}

static gex_Rank_t peer;
static int over_verbs;

static uint8_t *src(unsigned i) { return (uint8_t *)test_seg_at(test_rank, SRC_OFF + (uintptr_t)i * BIG); }
static void *slot(unsigned i) { return test_seg_at(peer, DST_OFF + (uintptr_t)i * BIG); }
static uint32_t seed(unsigned phase, unsigned i) { return (uint32_t)(test_rank * 100000u + phase * 1000u + i); }

static void wait_count(uint32_t *c, uint32_t want, const char *what)
{
    double t0 = test_now();
    while (LOAD(*c) < want) {
        CHECK_MSG(test_now() - t0 < 60, "%s: %u of %u arrived after 60 s", what, LOAD(*c), want);
        gasnet_AMPoll();
    }
}

int main(int argc, char **argv)
{
    htable[H_LONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)long_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, NULL, "long"};
    htable[H_MED] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)med_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "med"};
    test_init("am-lc", &argc, &argv, SEG_BYTES, 0, 2);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    int sndthread = argc > 1 && !strcmp(argv[1], "sndthread");
    /* pairs r, r + size/2 (so that 2 hosts x 2 pair across the hosts); an
     * odd size leaves the last rank paired with itself (loopback) */
    gex_Rank_t half = test_size / 2;
    peer = test_rank < half ? test_rank + half : test_rank < 2 * half ? test_rank - half : test_rank;
    gex_RankInfo_t *nbrs = NULL;
    gex_Rank_t nnbrs = 0;
    gex_System_QueryNbrhdInfo(&nbrs, &nnbrs, NULL);
    over_verbs = 1;
    for (gex_Rank_t i = 0; i < nnbrs; i++)
        if (nbrs[i].gex_jobrank == peer) over_verbs = 0;
    test_barrier();

    /* A. Longs with &event */
    unsigned pending = 0, held = 0;
    for (unsigned i = 0; i < NBIG; i++) {
        gex_Event_t ev = GEX_EVENT_NO_OP;
        test_fill(src(i), BIG, seed(1, i));
        CHECK_OK(gex_AM_RequestLong1(test_tm, peer, HIDX(H_LONG), src(i), BIG, slot(i), &ev, 0,
                                     (gex_AM_Arg_t)seed(1, i)));
        CHECK(ev != GEX_EVENT_NO_OP);
        int done = ev == GEX_EVENT_INVALID || gex_Event_Test(ev) == GASNET_OK; /* OK: recycled */
        if (!done) {
            pending++;
            if (!sndthread) {
                /* Only reaping the send completion completes it: 20 ms
                 * without a GASNet call (the completion is surely in the
                 * CQ by then) leave it pending. */
                double t0 = test_now();
                while (test_now() - t0 < 0.02) { /* no GASNet call */ }
                CHECK_MSG(gex_Event_Test(ev) == GASNET_ERR_NOT_READY, "Long %u: lc event "
                          "completed while nothing reaped send completions", i);
                held++;
            }
        }
        if (!done) gex_Event_Wait(ev);
        memset(src(i), 0xEE, BIG); /* must not change what arrives */
        uint8_t *back = malloc(BIG);
        CHECK(back != NULL);
        gex_RMA_GetBlocking(test_tm, back, peer, slot(i), BIG, 0);
        CHECK_PATTERN(back, BIG, seed(1, i), "Long payload read back after its lc event");
        free(back);
    }
    /* Without the send thread nothing can complete the event between the
     * return and the test: every zero-copy Long is pending then.  With it,
     * rxe may have finished the transfer inside ibv_post_send and the
     * thread reaped it already. */
    if (over_verbs && peer != test_rank && !sndthread)
        CHECK_MSG(pending == NBIG, "only %u of %u zero-copy Long Requests returned with their "
                  "lc event pending: local completion is not asynchronous", pending, NBIG);
    printf("am-lc: rank %u: A: %u of %u %zu-byte Long Requests returned with lc pending, %u "
           "still pending 20 ms later without polling (over %s)\n", (unsigned)test_rank,
           pending, NBIG, BIG, held, over_verbs ? "verbs" : "shared memory");
    fflush(stdout);

    /* B. Mediums with &event */
    unsigned mpending = 0;
    for (unsigned i = 0; i < NMED; i++) {
        gex_Event_t ev = GEX_EVENT_NO_OP;
        uint8_t *s = src(0) + (i % 8) * 8192;
        test_fill(s, MED, seed(2, i));
        CHECK_OK(gex_AM_RequestMedium1(test_tm, peer, HIDX(H_MED), s, MED, &ev, 0,
                                       (gex_AM_Arg_t)seed(2, i)));
        CHECK(ev != GEX_EVENT_NO_OP);
        if (ev != GEX_EVENT_INVALID && gex_Event_Test(ev) != GASNET_OK) {
            mpending++;
            gex_Event_Wait(ev);
        }
        memset(s, 0xEE, MED);
    }
    TEST_MSG0("B: %u of %u %d-byte Medium Requests returned with lc pending", mpending, NMED, MED);

    /* C. GEX_EVENT_GROUP */
    for (unsigned i = 0; i < NGROUP; i++) {
        test_fill(src(i), BIG, seed(3, i));
        CHECK_OK(gex_AM_RequestLong1(test_tm, peer, HIDX(H_LONG), src(i), BIG, slot(NBIG + i),
                                     GEX_EVENT_GROUP, 0, (gex_AM_Arg_t)seed(3, i)));
        uint8_t *m = src(NGROUP + i); /* NGROUP + i < NBIG: every source distinct */
        test_fill(m, MED, seed(4, i));
        CHECK_OK(gex_AM_RequestMedium1(test_tm, peer, HIDX(H_MED), m, MED, GEX_EVENT_GROUP, 0,
                                       (gex_AM_Arg_t)seed(4, i)));
    }
    gex_NBI_Wait(GEX_EC_AM, 0);
    for (unsigned i = 0; i < NBIG; i++) memset(src(i), 0xEE, BIG);
    TEST_MSG0("C: %u Longs and %u Mediums with GEX_EVENT_GROUP", NGROUP, NGROUP);

    /* D. only the send thread completes the event */
    unsigned nlong = NBIG + NGROUP;
    if (sndthread) {
        test_fill(src(0), BIG, seed(5, 0));
        gex_Event_t ev = GEX_EVENT_NO_OP;
        CHECK_OK(gex_AM_RequestLong1(test_tm, peer, HIDX(H_LONG), src(0), BIG, slot(NBIG + NGROUP),
                                     &ev, 0, (gex_AM_Arg_t)seed(5, 0)));
        double t0 = test_now();
        while (gex_Event_Test(ev) != GASNET_OK)
            CHECK_MSG(test_now() - t0 < 10, "lc event not complete after 10 s of gex_Event_Test "
                      "without polling (GASNET_SND_THREAD=1 expected)");
        memset(src(0), 0xEE, BIG);
        TEST_MSG0("D: lc event completed in %.3f ms, send-thread-completed-lc (no poll)",
                  (test_now() - t0) * 1e3);
        nlong++;
    }

    wait_count(&got_long, nlong, "Long Requests");
    wait_count(&got_med, NMED + NGROUP, "Medium Requests");
    CHECK_MSG(LOAD(bad) == 0, "%u payloads arrived changed", LOAD(bad));
    test_pass();
}
