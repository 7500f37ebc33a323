/* tests/integration/rmav/rmav-lc.c: local completion and visibility of puts
 * over verbs (core/ibv/rma/rdma.c).
 *
 *   rmav-lc [--bounce BYTES] [--fenced] [--burst N]
 *
 * 1. Non-bulk source reuse: PutBlocking, PutNB(NOW), PutNBI(NOW) and the
 *    Val forms return with the source reusable, so the test overwrites it
 *    at once, then syncs; the peer must see the original bytes.  Also
 *    PutNB(&lc) / PutNBI(GROUP): once local completion is reported the
 *    source is overwritten before the operation completes.  Sizes around
 *    the inline limit, the bounce buffer size and the non-bulk bounce limit,
 *    sources in the segment and in malloc()ed memory.
 * 2. How the call returned, when the peer is reached over the network (not
 *    in this process's neighbourhood), from an in-segment source, in the
 *    SEQ library (no other thread reaps completions):
 *      above the inline limit and <= --bounce (GASNET_NONBULKPUT_BOUNCE_LIMIT,
 *      default 64 KiB; one bounce buffer): PutNB(NOW) returns a live event,
 *      i.e. it did not wait for the network (it copied);
 *      above --bounce (zero-copy, waits for local completion = the HCA's
 *      acknowledgement): the event is already complete (GEX_EVENT_INVALID),
 *      unless --fenced (GASNET_USE_FENCED_PUTS=1: completion comes with the
 *      fence READ after the write).
 * 3. Visibility: --burst N NBI puts (DEFER, mixed sizes, both buffers), then
 *    gex_NBI_Wait and a barrier: the peer checks every byte.  Then the
 *    same with an AM Request instead of the barrier: the peer checks the
 *    data as soon as the AM has run, with no barrier in between (the
 *    pattern that multi-rail fencing exists for, seed README "Bug 3447").
 */
#include <gasnetex.h>
#include "../test.h"

#define SLOT ((size_t)1 << 20) /* bytes per destination slot */
#define NSLOT 8
static const size_t lc_sizes[] = {8, 72, 73, 1000, 4096, 65535, 65536, 65537, 200000, SLOT - 16};
#define NLCS (sizeof lc_sizes / sizeof lc_sizes[0])

static gex_Rank_t peer, from;
static uint8_t *seg_src, *heap_src;
static size_t bounce = 65536;
static int fenced = 0, remote_peer = 0;
static unsigned burst = 64;
static volatile unsigned notified;
static gex_AM_Entry_t htable[1];

static uint8_t *slot_at(gex_Rank_t r, unsigned i) { return (uint8_t *)test_seg_at(r, (size_t)i * SLOT + 8); }
static uint64_t seed_of(gex_Rank_t r, unsigned k) { return (uint64_t)r * 65537u + k * 31u + 5; }

static void h_notify(gex_Token_t t, gex_AM_Arg_t k)
{
    (void)t;
    notified = (unsigned)k;
}

/* Part 1: one non-bulk form; the source is overwritten as soon as allowed. */
static void reuse_one(int form, size_t n, uint8_t *src, unsigned k)
{
    uint8_t *d = slot_at(peer, k % NSLOT);
    gex_Event_t e = GEX_EVENT_INVALID, lc = GEX_EVENT_INVALID;
    test_fill(src, n, seed_of(test_rank, k));
    switch (form) {
    case 0:
        CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, d, src, n, 0));
        memset(src, 0xEE, n);
        break;
    case 1:
        e = gex_RMA_PutNB(test_tm, peer, d, src, n, GEX_EVENT_NOW, 0);
        memset(src, 0xEE, n);
        gex_Event_Wait(e);
        break;
    case 2:
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, src, n, GEX_EVENT_NOW, 0));
        memset(src, 0xEE, n);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case 3:
        e = gex_RMA_PutNB(test_tm, peer, d, src, n, &lc, 0);
        gex_Event_Wait(lc);
        memset(src, 0xEE, n);
        gex_Event_Wait(e);
        break;
    default:
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, src, n, GEX_EVENT_GROUP, 0));
        gex_NBI_Wait(GEX_EC_LC, 0);
        memset(src, 0xEE, n);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    }
}

static void part_reuse(void)
{
    static const char *const names[5] = {"PutBlocking", "PutNB(NOW)", "PutNBI(NOW)",
                                         "PutNB(&lc)", "PutNBI(GROUP)"};
    unsigned k = 0;
    for (int form = 0; form < 5; form++) {
        for (size_t i = 0; i < NLCS; i++, k++) {
            uint8_t *src = (k % 2 ? heap_src : seg_src) + (k % 3);
            reuse_one(form, lc_sizes[i], src, k);
            test_barrier();
            char what[160];
            snprintf(what, sizeof what, "%s of %zu bytes from rank %u (%s source overwritten "
                     "after the call)", names[form], lc_sizes[i], (unsigned)from,
                     k % 2 ? "malloc" : "in-segment");
            CHECK_PATTERN(slot_at(test_rank, k % NSLOT), lc_sizes[i], seed_of(from, k), what);
            test_barrier();
        }
    }
    /* Val forms: the value is gone when the call returns. */
    for (unsigned i = 0; i < 8; i++) {
        gex_RMA_Value_t v = 0x0102030405060708ull * (i + 1) + test_rank;
        uint8_t *d = slot_at(peer, 0) + 8 * i;
        if (i % 3 == 0) CHECK_OK(gex_RMA_PutBlockingVal(test_tm, peer, d, v, 8, 0));
        else if (i % 3 == 1) gex_Event_Wait(gex_RMA_PutNBVal(test_tm, peer, d, v, 8, 0));
        else CHECK_OK(gex_RMA_PutNBIVal(test_tm, peer, d, v, 8, 0));
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    test_barrier();
    for (unsigned i = 0; i < 8; i++) {
        uint64_t got;
        memcpy(&got, slot_at(test_rank, 0) + 8 * i, 8);
        CHECK_EQ(got, 0x0102030405060708ull * (i + 1) + from);
    }
    test_barrier();
    TEST_MSG0("source reuse: %u puts in 5 forms plus 8 Val puts verified", k);
}

/* Part 2: how PutNB(NOW) returned (network peers only). */
static void part_return(void)
{
    if (!remote_peer) {
        TEST_MSG0("return checks: skipped (the peer shares memory with this process)");
        return;
    }
    unsigned live = 0, done = 0;
    for (size_t i = 0; i < NLCS; i++) {
        size_t n = lc_sizes[i];
        if (n <= 72) continue; /* inline: either answer is right */
        gex_Event_t e = gex_RMA_PutNB(test_tm, peer, slot_at(peer, 1), seg_src, n, GEX_EVENT_NOW, 0);
        if (n <= bounce && n <= 65536) {
            CHECK_MSG(e != GEX_EVENT_INVALID, "PutNB(NOW) of %zu bytes (<= bounce limit %zu) "
                      "waited for the network: it should have copied and returned", n, bounce);
            live++;
        } else if (n > bounce && !fenced) {
            CHECK_MSG(e == GEX_EVENT_INVALID, "PutNB(NOW) of %zu bytes (> bounce limit %zu) "
                      "returned before its acknowledgement: the source was not copied, so the "
                      "call must wait", n, bounce);
            done++;
        }
        gex_Event_Wait(e);
    }
    test_barrier();
    TEST_MSG0("return checks: %u copied (returned at once), %u zero-copy (waited)", live, done);
}

/* Part 3: NBI puts visible after gex_NBI_Wait plus a barrier, or plus an AM. */
static void burst_round(unsigned round, int by_am)
{
    size_t off[NSLOT] = {0};
    /* Each put has its own source bytes (a slot per destination slot), so
     * nothing is overwritten before the NBI set completes. */
    for (unsigned j = 0; j < burst; j++) {
        unsigned s = j % NSLOT;
        size_t n = 1 + (size_t)(seed_of(round, j) % (j % 4 == 3 ? 150000 : 3000));
        if (off[s] + n > SLOT - 16) continue;
        uint8_t *src = (j % 2 ? heap_src : seg_src) + (size_t)s * SLOT + off[s];
        test_fill(src, n, seed_of(test_rank, round * 1000 + j));
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, slot_at(peer, s) + off[s], src, n, GEX_EVENT_DEFER,
                                0));
        off[s] += n;
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    if (by_am) {
        CHECK_OK(gex_AM_RequestShort1(test_tm, peer, htable[0].gex_index, 0,
                                      (gex_AM_Arg_t)(round + 1)));
        GASNET_BLOCKUNTIL(notified == round + 1);
    } else {
        test_barrier();
    }
    memset(off, 0, sizeof off);
    for (unsigned j = 0; j < burst; j++) {
        unsigned s = j % NSLOT;
        size_t n = 1 + (size_t)(seed_of(round, j) % (j % 4 == 3 ? 150000 : 3000));
        if (off[s] + n > SLOT - 16) continue;
        char what[160];
        snprintf(what, sizeof what, "NBI put %u of round %u (%zu bytes) from rank %u, checked "
                 "after %s", j, round, n, (unsigned)from, by_am ? "its AM" : "NBI_Wait+barrier");
        CHECK_PATTERN(slot_at(test_rank, s) + off[s], n, seed_of(from, round * 1000 + j), what);
        off[s] += n;
    }
    test_barrier();
}

int main(int argc, char **argv)
{
    test_init("rmav-lc", &argc, &argv, 0, 0, 1);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bounce") && i + 1 < argc) bounce = strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--fenced")) fenced = 1;
        else if (!strcmp(argv[i], "--burst") && i + 1 < argc) burst = (unsigned)atoi(argv[++i]);
        else CHECK_MSG(0, "unknown option %s (use --bounce BYTES, --fenced, --burst N)", argv[i]);
    }
    htable[0] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)h_notify, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT,
                                 1, NULL, "notify"};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, 1));
    /* Segment: NSLOT incoming slots | in-segment sources (NSLOT slots). */
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, 2 * NSLOT * SLOT));
    test_query_segments();
    peer = (test_rank + 1) % test_size;
    from = (test_rank + test_size - 1) % test_size;
    seg_src = (uint8_t *)test_seg_at(test_rank, NSLOT * SLOT);
    heap_src = (uint8_t *)malloc(NSLOT * SLOT);
    CHECK(heap_src != NULL);
    gex_RankInfo_t *nbrhd;
    gex_Rank_t nn, me;
    gex_System_QueryNbrhdInfo(&nbrhd, &nn, &me);
    remote_peer = 1;
    for (gex_Rank_t i = 0; i < nn; i++)
        if (nbrhd[i].gex_jobrank == peer) remote_peer = 0;
    test_barrier();

    double t0 = test_now();
    part_reuse();
    part_return();
    for (unsigned r = 0; r < 4; r++) burst_round(r, r % 2);
    TEST_MSG0("visibility: 4 bursts of %u NBI puts (2 checked after a barrier, 2 after an AM): "
              "%.2f s in all", burst, test_now() - t0);
    test_pass();
    return 0;
}
