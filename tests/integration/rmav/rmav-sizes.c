/* tests/integration/rmav/rmav-sizes.c: put and get across every size class
 * of the verbs RMA transport (core/ibv/rma/rdma.c), every completion form, odd
 * alignments, in- and out-of-segment local buffers; data verified byte for
 * byte, guard bytes around every destination.
 *
 *   rmav-sizes [--max BYTES] [--big BYTES]
 *
 * Each rank puts to rank+1 (mod n) and reads its own data back from there.
 * Sizes cross the inline limit (72), the bounce-buffer size and the default
 * non-bulk bounce limit (64 KiB), and, with GASNET_PUT/GET_STRIPE_SZ set
 * small, the stripe size; up to --max (default 4 MiB) every size runs with
 * all 8 put forms and all 5 get forms; then one transfer of --big bytes
 * (default 16 MiB; 0 = none) each way: a put from the segment, a get into
 * malloc()ed memory.  The Val forms run at 1, 2, 4 and 8 bytes.  Over PSHM
 * this is memcpy; the verbs tier (tests/softroce/verbs.manifest) runs it with
 * PSHM off on one and two rails.
 */
#include <gasnetex.h>
#include "../test.h"

#define GUARD 0xA5
#define SCRIBBLE 0x5A

enum { P_BLOCKING, P_NB_NOW, P_NB_DEFER, P_NB_EVENT, P_NBI_NOW, P_NBI_DEFER, P_NBI_GROUP,
       P_REGION, NPUT };
static const char *const put_name[NPUT] = {"PutBlocking",   "PutNB(NOW)",    "PutNB(DEFER)",
                                           "PutNB(&lc)",    "PutNBI(NOW)",   "PutNBI(DEFER)",
                                           "PutNBI(GROUP)", "PutNBI(region)"};
enum { G_BLOCKING, G_NB_WAIT, G_NB_TEST, G_NBI, G_REGION, NGET };
static const char *const get_name[NGET] = {"GetBlocking", "GetNB(Wait)", "GetNB(Test)", "GetNBI",
                                           "GetNBI(region)"};

static const size_t sizes[] = {1,     2,     3,      7,      8,      9,      63,
                               64,    65,    71,     72,     73,     100,    255,
                               256,   1000,  4095,   4096,   4097,   24575,  24577,
                               65535, 65536, 65537,  131077, 262144, 524287, (1u << 20) + 3,
                               (4u << 20) - 1, 4u << 20};
static const uintptr_t offsets[] = {0, 1, 3, 7, 5};
#define NOFF (sizeof offsets / sizeof offsets[0])

static size_t maxsz = (size_t)4 << 20, bigsz = (size_t)16 << 20, region;
static gex_Rank_t peer;
static uint8_t *seg_src, *seg_dst, *heap_src, *heap_dst; /* region bytes each, guards inside */

static uint64_t seed_of(unsigned round) { return (uint64_t)test_rank * 1000003u + round * 7u + 1; }

/* Where my puts land in the peer's segment (its first region). */
static uint8_t *remote_at(uintptr_t off) { return (uint8_t *)test_seg_at(peer, 16 + off); }

static void guards_set(uint8_t *p, size_t n)
{
    memset(p - 8, GUARD, 8);
    memset(p + n, GUARD, 8);
}

static void guards_check(const uint8_t *p, size_t n, const char *what)
{
    for (int i = 1; i <= 8; i++)
        CHECK_MSG(p[-i] == GUARD && p[n + (size_t)i - 1] == GUARD,
                  "%s: %zu bytes overran a guard (byte %d before: 0x%02x, after: 0x%02x)", what,
                  n, i, p[-i], p[n + (size_t)i - 1]);
}

/* One put of n bytes with form f; with NOW (and once local completion is
 * known otherwise) the source is scribbled over before the data is checked. */
static void put_form(int f, uint8_t *d, uint8_t *s, size_t n)
{
    gex_Event_t e = GEX_EVENT_INVALID, lc = GEX_EVENT_INVALID;
    switch (f) {
    case P_BLOCKING:
        CHECK_OK(gex_RMA_PutBlocking(test_tm, peer, d, s, n, 0));
        memset(s, SCRIBBLE, n);
        break;
    case P_NB_NOW:
        e = gex_RMA_PutNB(test_tm, peer, d, s, n, GEX_EVENT_NOW, 0);
        memset(s, SCRIBBLE, n);
        gex_Event_Wait(e);
        break;
    case P_NB_DEFER:
        e = gex_RMA_PutNB(test_tm, peer, d, s, n, GEX_EVENT_DEFER, 0);
        while (gex_Event_Test(e) != GASNET_OK) gasnet_AMPoll();
        memset(s, SCRIBBLE, n);
        break;
    case P_NB_EVENT:
        e = gex_RMA_PutNB(test_tm, peer, d, s, n, &lc, 0);
        gex_Event_Wait(lc);
        memset(s, SCRIBBLE, n);
        gex_Event_Wait(e);
        break;
    case P_NBI_NOW:
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, s, n, GEX_EVENT_NOW, 0));
        memset(s, SCRIBBLE, n);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case P_NBI_DEFER:
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, s, n, GEX_EVENT_DEFER, 0));
        gex_NBI_Wait(GEX_EC_ALL, 0);
        memset(s, SCRIBBLE, n);
        break;
    case P_NBI_GROUP:
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, s, n, GEX_EVENT_GROUP, 0));
        gex_NBI_Wait(GEX_EC_LC, 0);
        memset(s, SCRIBBLE, n);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    default: {
        gex_NBI_BeginAccessRegion(0);
        CHECK_OK(gex_RMA_PutNBI(test_tm, peer, d, s, n, GEX_EVENT_DEFER, 0));
        gex_Event_t r = gex_NBI_EndAccessRegion(0);
        while (gex_Event_Test(r) != GASNET_OK) gasnet_AMPoll();
        memset(s, SCRIBBLE, n);
        break;
    }
    }
}

static void get_form(int f, uint8_t *d, uint8_t *s, size_t n)
{
    gex_Event_t e;
    switch (f) {
    case G_BLOCKING:
        CHECK_OK(gex_RMA_GetBlocking(test_tm, d, peer, s, n, 0));
        break;
    case G_NB_WAIT:
        gex_Event_Wait(gex_RMA_GetNB(test_tm, d, peer, s, n, 0));
        break;
    case G_NB_TEST:
        e = gex_RMA_GetNB(test_tm, d, peer, s, n, 0);
        while (gex_Event_TestAll(&e, 1, 0) != GASNET_OK) gasnet_AMPoll();
        CHECK(e == GEX_EVENT_INVALID);
        break;
    case G_NBI:
        CHECK_OK(gex_RMA_GetNBI(test_tm, d, peer, s, n, 0));
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    default:
        gex_NBI_BeginAccessRegion(0);
        CHECK_OK(gex_RMA_GetNBI(test_tm, d, peer, s, n, 0));
        gex_Event_Wait(gex_NBI_EndAccessRegion(0));
        break;
    }
}

/* Put n bytes to the peer, check there (by the peer, after a barrier), get
 * them back and check here. */
static void one_round(unsigned round, size_t n, int pf, int gf, int src_in_seg, int dst_in_seg)
{
    uintptr_t loff = offsets[round % NOFF], roff = offsets[(round / NOFF) % NOFF];
    uint8_t *s = (src_in_seg ? seg_src : heap_src) + loff;
    uintptr_t goff = offsets[(round + 2) % NOFF];
    uint8_t *g = (dst_in_seg ? seg_dst : heap_dst) + goff;
    uint8_t *mine = (uint8_t *)test_seg_at(test_rank, 16 + roff); /* where the put from my
                                                                  * predecessor lands */
    char what[200];
    guards_set(mine, n);
    test_fill(s, n, seed_of(round));
    test_barrier();
    put_form(pf, remote_at(roff), s, n);
    test_barrier();
    gex_Rank_t from = (test_rank + test_size - 1) % test_size;
    snprintf(what, sizeof what, "%s of %zu bytes from rank %u (offsets src %lu dst %lu, %s source)",
             put_name[pf], n, (unsigned)from, (unsigned long)loff, (unsigned long)roff,
             src_in_seg ? "in-segment" : "malloc");
    CHECK_PATTERN(mine, n, (uint64_t)from * 1000003u + round * 7u + 1, what);
    guards_check(mine, n, what);

    memset(g, 0, n);
    guards_set(g, n);
    get_form(gf, g, remote_at(roff), n);
    snprintf(what, sizeof what, "%s of %zu bytes from rank %u (offsets src %lu dst %lu, %s "
             "destination)", get_name[gf], n, (unsigned)peer, (unsigned long)roff,
             (unsigned long)goff, dst_in_seg ? "in-segment" : "malloc");
    CHECK_PATTERN(g, n, seed_of(round), what);
    guards_check(g, n, what);
    test_barrier(); /* the peer is done reading my region before the next put */
}

static void val_round(void)
{
    static const size_t vs[] = {1, 2, 4, 8};
    for (unsigned i = 0; i < 4; i++) {
        size_t n = vs[i];
        uint64_t mask = n == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * n)) - 1);
        for (int form = 0; form < 3; form++) {
            gex_RMA_Value_t v = (0x1122334455667788ull ^ ((uint64_t)test_rank << 40) ^
                                 (uint64_t)(form * 16 + (int)n)) & mask;
            uint8_t *d = remote_at(64 + 8 * (uintptr_t)i);
            if (form == 0) CHECK_OK(gex_RMA_PutBlockingVal(test_tm, peer, d, v, n, 0));
            else if (form == 1) gex_Event_Wait(gex_RMA_PutNBVal(test_tm, peer, d, v, n, 0));
            else {
                CHECK_OK(gex_RMA_PutNBIVal(test_tm, peer, d, v, n, 0));
                gex_NBI_Wait(GEX_EC_PUT, 0);
            }
            gex_RMA_Value_t back = gex_RMA_GetBlockingVal(test_tm, peer, d, n, 0);
            CHECK_MSG(back == v, "Val form %d, %zu bytes: read back 0x%" PRIx64 ", wrote 0x%"
                      PRIx64, form, n, (uint64_t)back, (uint64_t)v);
        }
    }
    test_barrier();
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end == 'K' || *end == 'k') v <<= 10;
    else if (*end == 'M' || *end == 'm') v <<= 20;
    return (size_t)v;
}

int main(int argc, char **argv)
{
    test_init("rmav-sizes", &argc, &argv, 0, 0, 1);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--max")) maxsz = parse_size(argv[i + 1]);
        else if (!strcmp(argv[i], "--big")) bigsz = parse_size(argv[i + 1]);
        else CHECK_MSG(0, "unknown option %s (use --max BYTES, --big BYTES)", argv[i]);
    }
    size_t top = maxsz > bigsz ? maxsz : bigsz;
    region = (top + 64 + 4095) & ~(size_t)4095;
    /* Segment: incoming puts | my in-segment source | my in-segment get buffer. */
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, 3 * region));
    test_query_segments();
    peer = (test_rank + 1) % test_size;
    seg_src = (uint8_t *)test_seg_at(test_rank, region) + 16;
    seg_dst = (uint8_t *)test_seg_at(test_rank, 2 * region) + 16;
    heap_src = (uint8_t *)malloc(region);
    heap_dst = (uint8_t *)malloc(region);
    CHECK(heap_src && heap_dst);
    heap_src += 16;
    heap_dst += 16;
    test_barrier();

    double t0 = test_now();
    val_round();
    unsigned round = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] && sizes[si] <= maxsz; si++) {
        for (int pf = 0; pf < NPUT; pf++, round++)
            one_round(round, sizes[si], pf, (int)(round % NGET), (round / 2) % 2 == 0,
                      round % 3 != 0);
    }
    double t1 = test_now();
    TEST_MSG0("%u rounds up to %zu bytes (%d put x %d get forms each size): %.2f s", round,
              maxsz, NPUT, NGET, t1 - t0);
    if (bigsz) {
        one_round(round++, bigsz, P_NB_EVENT, G_NBI, 1, 0);
        TEST_MSG0("%zu bytes once each way (in-segment source, malloc destination): %.2f s",
                  bigsz, test_now() - t1);
    }
    test_pass();
    return 0;
}
