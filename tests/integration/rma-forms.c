/* tests/integration/rma-forms.c: put and get, all forms, sizes and alignments.
 *
 * In every round each rank puts a distinct pattern to every rank (itself
 * included) at sizes from 1 byte to 4 MiB, with local and remote offsets
 * 0, 1, 3 or 7, from a local buffer in its segment or from malloc()ed memory.
 * After a barrier each rank checks what landed in its segment (and the guard
 * bytes around it), then gets the data back from every peer and checks it.
 *
 * Put forms: Blocking; NB with lc_opt NOW, DEFER or &event; NBI with NOW,
 * DEFER or GROUP; NBI inside an access region.  Get forms: Blocking, NB,
 * NBI, NBI in an access region.  Completion uses gex_Event_Wait/Test,
 * TestSome/WaitSome/TestAll/WaitAll and gex_NBI_Test/Wait.  With lc_opt NOW
 * (and after local completion otherwise) the source is overwritten at once:
 * the target must still see the original bytes.  The Val forms are checked
 * at 1, 2, 4 and 8 bytes.
 */
#include <gasnetex.h>
#include "test.h"

#define MAXSZ ((size_t)4 << 20)
#define REGION (MAXSZ + 64) /* per peer: offset up to 7, guard bytes */
#define GUARD 0xC3
#define SCRIBBLE 0x96

enum { P_BLOCKING, P_NB_NOW, P_NB_DEFER, P_NB_EVENT, P_NBI_NOW, P_NBI_DEFER, P_NBI_GROUP,
       P_REGION, NPUT };
static const char *const put_name[NPUT] = {"PutBlocking",  "PutNB(NOW)",    "PutNB(DEFER)",
                                           "PutNB(&lc)",   "PutNBI(NOW)",   "PutNBI(DEFER)",
                                           "PutNBI(GROUP)", "PutNBI(region)"};
enum { G_BLOCKING, G_NB_TESTALL, G_NB_WAITSOME, G_NBI, G_REGION, NGET };
static const char *const get_name[NGET] = {"GetBlocking", "GetNB(TestAll)", "GetNB(WaitSome)",
                                           "GetNBI", "GetNBI(region)"};

/* Below 129 bytes every size class of the inline neighbour copy
 * (include/gasnet_pshm_inline.h: 1, 2-3, 4-7, 8-16, 17-32, 33-64; then
 * memcpy)
 * at both ends. */
static const size_t sizes[] = {1,    2,     3,     4,     5,     7,     8,     9,
                               15,   16,    17,    31,    32,    33,    63,    64,
                               65,   100,   127,   128,   129,   255,   256,   1000,
                               4095, 4096,  4097,  65535, 65536, 65537, (1u << 20) + 3,
                               MAXSZ};
static const uintptr_t offsets[] = {0, 1, 3, 7};

static uint8_t **lbuf_seg, **lbuf_heap; /* per peer local buffers */
static gex_Event_t *ev, *lcev;

static uint64_t seed_of(gex_Rank_t src, gex_Rank_t dst, unsigned round)
{
    return ((uint64_t)src * 7919u + dst) * 100003u + round;
}

/* Where rank src's data lands in rank dst's segment. */
static uint8_t *remote_at(gex_Rank_t dst, gex_Rank_t src, uintptr_t off)
{
    return (uint8_t *)test_seg_at(dst, (uintptr_t)src * REGION + 8 + off);
}

static int all_invalid(const gex_Event_t *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (e[i] != GEX_EVENT_INVALID) return 0;
    return 1;
}

static void scribble(uint8_t **buf, uintptr_t off, size_t nb)
{
    for (gex_Rank_t p = 0; p < test_size; p++) memset(buf[p] + off, SCRIBBLE, nb);
}

static void put_round(int form, uint8_t **src, uintptr_t loff, uintptr_t roff, size_t nb)
{
    for (gex_Rank_t p = 0; p < test_size; p++) ev[p] = lcev[p] = GEX_EVENT_INVALID;
    if (form == P_REGION) gex_NBI_BeginAccessRegion(0);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        gex_Rank_t dst = (test_rank + p) % test_size;
        uint8_t *s = src[dst] + loff;
        void *d = remote_at(dst, test_rank, roff);
        switch (form) {
        case P_BLOCKING:
            CHECK_OK(gex_RMA_PutBlocking(test_tm, dst, d, s, nb, 0));
            memset(s, SCRIBBLE, nb);
            break;
        case P_NB_NOW:
            ev[dst] = gex_RMA_PutNB(test_tm, dst, d, s, nb, GEX_EVENT_NOW, 0);
            CHECK(ev[dst] != GEX_EVENT_NO_OP);
            memset(s, SCRIBBLE, nb); /* locally complete already */
            break;
        case P_NB_DEFER:
            ev[dst] = gex_RMA_PutNB(test_tm, dst, d, s, nb, GEX_EVENT_DEFER, 0);
            CHECK(ev[dst] != GEX_EVENT_NO_OP);
            break;
        case P_NB_EVENT:
            ev[dst] = gex_RMA_PutNB(test_tm, dst, d, s, nb, &lcev[dst], 0);
            CHECK(ev[dst] != GEX_EVENT_NO_OP);
            break;
        case P_NBI_NOW:
            CHECK_OK(gex_RMA_PutNBI(test_tm, dst, d, s, nb, GEX_EVENT_NOW, 0));
            memset(s, SCRIBBLE, nb);
            break;
        case P_NBI_DEFER:
        case P_REGION:
            CHECK_OK(gex_RMA_PutNBI(test_tm, dst, d, s, nb, GEX_EVENT_DEFER, 0));
            break;
        case P_NBI_GROUP:
            CHECK_OK(gex_RMA_PutNBI(test_tm, dst, d, s, nb, GEX_EVENT_GROUP, 0));
            break;
        }
    }
    switch (form) {
    case P_NB_NOW:
        for (gex_Rank_t p = 0; p < test_size; p++) gex_Event_Wait(ev[p]);
        break;
    case P_NB_DEFER:
        gex_Event_WaitAll(ev, test_size, 0);
        CHECK(all_invalid(ev, test_size));
        scribble(src, loff, nb);
        break;
    case P_NB_EVENT:
        gex_Event_WaitAll(lcev, test_size, 0); /* local completion first */
        CHECK(all_invalid(lcev, test_size));
        scribble(src, loff, nb);
        while (!all_invalid(ev, test_size)) gex_Event_WaitSome(ev, test_size, 0);
        break;
    case P_NBI_NOW:
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case P_NBI_DEFER:
        while (gex_NBI_Test(GEX_EC_ALL, 0) != 0) gasnet_AMPoll();
        scribble(src, loff, nb);
        break;
    case P_NBI_GROUP:
        gex_NBI_Wait(GEX_EC_LC, 0);
        scribble(src, loff, nb);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case P_REGION: {
        gex_Event_t e = gex_NBI_EndAccessRegion(0);
        while (gex_Event_Test(e) != 0) gasnet_AMPoll();
        scribble(src, loff, nb);
        break;
    }
    default:
        break;
    }
}

static void get_round(int form, uint8_t **dst, uintptr_t loff, uintptr_t roff, size_t nb)
{
    for (gex_Rank_t p = 0; p < test_size; p++) ev[p] = GEX_EVENT_INVALID;
    if (form == G_REGION) gex_NBI_BeginAccessRegion(0);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        gex_Rank_t src = (test_rank + test_size - p) % test_size;
        uint8_t *d = dst[src] + loff;
        void *s = remote_at(src, test_rank, roff);
        switch (form) {
        case G_BLOCKING:
            CHECK_OK(gex_RMA_GetBlocking(test_tm, d, src, s, nb, 0));
            break;
        case G_NB_TESTALL:
        case G_NB_WAITSOME:
            ev[src] = gex_RMA_GetNB(test_tm, d, src, s, nb, 0);
            CHECK(ev[src] != GEX_EVENT_NO_OP);
            break;
        case G_NBI:
        case G_REGION:
            CHECK_OK(gex_RMA_GetNBI(test_tm, d, src, s, nb, 0));
            break;
        }
    }
    switch (form) {
    case G_NB_TESTALL:
        while (gex_Event_TestAll(ev, test_size, 0) != 0) gasnet_AMPoll();
        CHECK(all_invalid(ev, test_size));
        break;
    case G_NB_WAITSOME:
        while (!all_invalid(ev, test_size)) {
            if (gex_Event_TestSome(ev, test_size, 0) != 0) gex_Event_WaitSome(ev, test_size, 0);
        }
        break;
    case G_NBI:
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    case G_REGION:
        gex_Event_Wait(gex_NBI_EndAccessRegion(0));
        break;
    default:
        break;
    }
}

static void set_guards(uint8_t *p, size_t nb)
{
    p[-1] = GUARD;
    p[nb] = GUARD;
}

static void check_guards(const uint8_t *p, size_t nb, const char *what)
{
    CHECK_MSG(p[-1] == GUARD && p[nb] == GUARD,
              "%s: %zu bytes overran: guard before 0x%02x, after 0x%02x", what, nb, p[-1], p[nb]);
}

static void one_round(unsigned round, size_t nb, int pform, int gform)
{
    uintptr_t loff = offsets[round % 4], roff = offsets[(round / 4) % 4];
    uint8_t **pbuf = (round & 1) ? lbuf_heap : lbuf_seg;
    uint8_t **gbuf = (round % 3) ? lbuf_seg : lbuf_heap;
    char what[160];

    /* Guards around where every peer's data will land in my segment. */
    for (gex_Rank_t s = 0; s < test_size; s++) set_guards(remote_at(test_rank, s, roff), nb);
    for (gex_Rank_t p = 0; p < test_size; p++)
        test_fill(pbuf[p] + loff, nb, seed_of(test_rank, p, round));
    test_barrier();

    put_round(pform, pbuf, loff, roff, nb);
    test_barrier();
    for (gex_Rank_t s = 0; s < test_size; s++) {
        snprintf(what, sizeof what, "%s of %zu bytes from rank %u (src offset %lu, dst offset %lu, "
                 "%s source)", put_name[pform], nb, (unsigned)s, (unsigned long)loff,
                 (unsigned long)roff, pbuf == lbuf_seg ? "in-segment" : "malloc");
        CHECK_PATTERN(remote_at(test_rank, s, roff), nb, seed_of(s, test_rank, round), what);
        check_guards(remote_at(test_rank, s, roff), nb, what);
    }

    for (gex_Rank_t p = 0; p < test_size; p++) {
        memset(gbuf[p] + loff, 0, nb);
        set_guards(gbuf[p] + loff, nb);
    }
    get_round(gform, gbuf, loff, roff, nb);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        snprintf(what, sizeof what, "%s of %zu bytes from rank %u (src offset %lu, dst offset %lu, "
                 "%s destination)", get_name[gform], nb, (unsigned)p, (unsigned long)roff,
                 (unsigned long)loff, gbuf == lbuf_seg ? "in-segment" : "malloc");
        CHECK_PATTERN(gbuf[p] + loff, nb, seed_of(test_rank, p, round), what);
        check_guards(gbuf[p] + loff, nb, what);
    }
    test_barrier(); /* nobody overwrites a region another rank still reads */
}

static gex_RMA_Value_t val_of(gex_Rank_t src, gex_Rank_t dst, int form, uint64_t mask)
{
    return (0x8877665544332211ull ^ (src * 0x0101010101010101ull) ^ ((uint64_t)form << 4) ^ dst) &
           mask;
}

/* Val forms: an nb-byte integer written and read back as that integer. */
static void val_tests(void)
{
    static const size_t vsizes[] = {1, 2, 4, 8};
    for (unsigned v = 0; v < 4; v++) {
        size_t nb = vsizes[v];
        for (int form = 0; form < 3; form++) {
            uint64_t mask = nb == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * nb)) - 1);
            for (gex_Rank_t dst = 0; dst < test_size; dst++) {
                gex_RMA_Value_t val = val_of(test_rank, dst, form, mask);
                uint8_t *d = remote_at(dst, test_rank, 8); /* aligned */
                if (form == 0) {
                    CHECK_OK(gex_RMA_PutBlockingVal(test_tm, dst, d, val, nb, 0));
                } else if (form == 1) {
                    gex_Event_Wait(gex_RMA_PutNBVal(test_tm, dst, d, val, nb, 0));
                } else {
                    CHECK_OK(gex_RMA_PutNBIVal(test_tm, dst, d, val, nb, 0));
                }
            }
            if (form == 2) gex_NBI_Wait(GEX_EC_PUT, 0);
            test_barrier();
            for (gex_Rank_t src = 0; src < test_size; src++) {
                gex_RMA_Value_t want = val_of(src, test_rank, form, mask);
                const uint8_t *here = remote_at(test_rank, src, 8);
                uint64_t got = 0;
                switch (nb) {
                case 1: got = *here; break;
                case 2: { uint16_t x; memcpy(&x, here, 2); got = x; break; }
                case 4: { uint32_t x; memcpy(&x, here, 4); got = x; break; }
                default: memcpy(&got, here, 8); break;
                }
                CHECK_MSG(got == want, "PutVal form %d, %zu bytes from rank %u: 0x%" PRIx64
                          " != 0x%" PRIx64, form, nb, (unsigned)src, got, want);
                /* Read it back remotely too: the owner's value for me. */
                gex_RMA_Value_t back = gex_RMA_GetBlockingVal(test_tm, src,
                                                              remote_at(src, test_rank, 8), nb, 0);
                gex_RMA_Value_t mine = val_of(test_rank, src, form, mask);
                CHECK_MSG(back == mine, "GetBlockingVal %zu bytes from rank %u: 0x%" PRIx64
                          " != 0x%" PRIx64, nb, (unsigned)src, (uint64_t)back, (uint64_t)mine);
            }
            test_barrier();
        }
    }
}

int main(int argc, char **argv)
{
    test_init("rma", &argc, &argv, 0, 0, 1);
    /* Layout: one REGION per peer for incoming puts, then my in-segment
     * local buffers (one REGION per peer). */
    uintptr_t segsize = 2 * (uintptr_t)REGION * test_size;
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, segsize));
    test_query_segments();
    lbuf_seg = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    lbuf_heap = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    ev = (gex_Event_t *)calloc(test_size, sizeof(gex_Event_t));
    lcev = (gex_Event_t *)calloc(test_size, sizeof(gex_Event_t));
    CHECK(lbuf_seg && lbuf_heap && ev && lcev);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        lbuf_seg[p] = (uint8_t *)test_seg_at(test_rank, REGION * (test_size + p)) + 8;
        lbuf_heap[p] = (uint8_t *)malloc(REGION);
        CHECK(lbuf_heap[p] != NULL);
        lbuf_heap[p] += 8;
    }
    test_barrier();

    double t0 = test_now();
    val_tests();
    TEST_MSG0("Val forms: %.2f s", test_now() - t0);

    unsigned round = 0;
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    for (size_t si = 0; si < nsizes; si++) {
        t0 = test_now();
        for (int pf = 0; pf < NPUT; pf++, round++)
            one_round(round, sizes[si], pf, (int)(round % NGET));
        if (sizes[si] >= 65536)
            TEST_MSG0("%8zu bytes: %d put and %d get forms, every peer: %.2f s", sizes[si], NPUT,
                      NGET, test_now() - t0);
    }
    TEST_MSG0("%u rounds passed", round);
    test_pass();
    return 0;
}
