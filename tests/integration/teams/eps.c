/* tests/integration/teams/eps.c: endpoints and created segments (issue 14,
 * item 4).
 *
 * Every rank creates two more endpoints (indices 1 and 2), a 64 KiB
 * segment for endpoint 1 (library-allocated on even ranks, client memory on
 * odd ranks), binds and publishes it, and registers on endpoint 1 a
 * handler at the same index as a different handler of endpoint 0.  Then:
 *   - gex_Segment_QueryBound through gex_TM_Pair(ep0, 1) sees every rank's
 *     segment, with a local address for its own and for neighbours'
 *     library-allocated (shared) ones, which then show the data put there;
 *   - every rank puts a 10000-byte pattern (several AM chunks) into slot
 *     `me` of every other rank's endpoint-1 segment, alternating Blocking,
 *     NB and NBI, and reads it back with Gets;
 *   - every rank sends a Medium to every other rank's endpoint 1 from
 *     endpoint 0 and from endpoint 1, and one to endpoint 0 at the same
 *     handler index: each lands on the right endpoint (gex_Token_Info's
 *     gex_ep), and each Reply returns to the endpoint that sent the
 *     Request;
 *   - every rank sends to endpoint 1 of every rank (itself included) Long
 *     Requests of LSLOT bytes (more than one PSHM queue slot, more than
 *     the verbs packed limit: fragments to a neighbour's client memory,
 *     memcpy to a neighbour's shared segment, RDMA over verbs) from
 *     endpoint 0, from endpoint 1, and as a negotiated-payload Long from
 *     endpoint 1; the handler checks the endpoint, the address and the
 *     bytes, and answers the last two with a Long Reply (fixed, then
 *     negotiated-payload) into the sender's endpoint-1 segment; a
 *     negotiated-payload Medium reaches endpoint 1 as well;
 *   - after a barrier, each rank checks every slot of its segment byte for
 *     byte and the counts.
 */
#include <gasnetex.h>
#include <gasnet_mk.h>
#include "../test.h"

#define SEGLEN (2 << 20)
#define SLOT 10000
#define LSLOT 66000            /* > 65000: a PSHM queue slot, verbs packed limit */
#define LBASE 65536            /* Long Requests: region g, sender s */
#define LREQ(base, g, s) ((char *)(base) + LBASE + ((size_t)(g) * 4 + (s)) * LSLOT)
#define LREP(base, r) LREQ(base, 3, r) /* Long Replies from rank r (regions 3, 4) */
#define HREQ (GEX_AM_INDEX_BASE + 5)
#define HREP (GEX_AM_INDEX_BASE + 6)
#define HLREQ (GEX_AM_INDEX_BASE + 7)
#define HLREP (GEX_AM_INDEX_BASE + 8)
#define LO(p) ((gex_AM_Arg_t)(uint32_t)(uintptr_t)(p))
#define HI(p) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)(p) >> 32))
#define PTR(lo, hi) ((void *)(uintptr_t)((uint64_t)(uint32_t)(lo) | (uint64_t)(uint32_t)(hi) << 32))

static gex_EP_t ep1, ep2;
static void *mine;
static volatile int req_ep0, req_ep1, rep_ep0, rep_ep1, lreq[3], lrep[2];
static uint8_t rbuf[LSLOT];

static void check_payload(gex_Token_t t, void *buf, size_t n, gex_EP_t want)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_EP);
    CHECK(info.gex_ep == want);
    CHECK_EQ(n, 100);
    CHECK_PATTERN(buf, n, 7000 + info.gex_srcrank, "AM payload");
}
static void req_on_ep0(gex_Token_t t, void *buf, size_t n)
{
    check_payload(t, buf, n, test_ep);
    req_ep0++;
    gex_AM_ReplyShort0(t, HREP, 0);
}
static void req_on_ep1(gex_Token_t t, void *buf, size_t n)
{
    check_payload(t, buf, n, ep1);
    req_ep1++;
    gex_AM_ReplyShort0(t, HREP, 0);
}
/* Long Request in region g (0: from endpoint 0; 1: from endpoint 1, fixed;
 * 2: from endpoint 1, negotiated payload); regions 1 and 2 answer with a
 * Long Reply into the sender's endpoint-1 segment at (alo, ahi). */
static void lreq_on_ep1(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t g, gex_AM_Arg_t alo,
                        gex_AM_Arg_t ahi)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_EP | GEX_TI_IS_LONG);
    CHECK(info.gex_ep == ep1);
    CHECK(info.gex_is_long);
    CHECK(g >= 0 && g < 3);
    CHECK_PTR_EQ(buf, LREQ(mine, g, info.gex_srcrank));
    CHECK_EQ(n, LSLOT);
    CHECK_PATTERN(buf, n, 5000 + 100 * g + info.gex_srcrank, "Long Request payload");
    lreq[g]++;
    if (g == 0) {
        gex_AM_ReplyShort0(t, HREP, 0);
    } else if (g == 1) {
        test_fill(rbuf, LSLOT, 6000 + test_rank);
        gex_AM_ReplyLong1(t, HLREP, rbuf, LSLOT, PTR(alo, ahi), GEX_EVENT_NOW, 0, 1);
    } else {
        gex_AM_SrcDesc_t sd =
            gex_AM_PrepareReplyLong(t, NULL, LSLOT, LSLOT, NULL, NULL, 0, 1);
        CHECK_EQ(gex_AM_SrcDescSize(sd), LSLOT);
        test_fill(gex_AM_SrcDescAddr(sd), LSLOT, 6100 + test_rank);
        gex_AM_CommitReplyLong1(sd, HLREP, LSLOT, PTR(alo, ahi), 2);
    }
}
static void lrep_on_ep1(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t g)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK | GEX_TI_EP);
    CHECK(info.gex_ep == ep1);
    CHECK(g == 1 || g == 2);
    CHECK_PTR_EQ(buf, (char *)LREP(mine, info.gex_srcrank) + (size_t)(g - 1) * 4 * LSLOT);
    CHECK_EQ(n, LSLOT);
    CHECK_PATTERN(buf, n, 6000 + 100 * (g - 1) + info.gex_srcrank, "Long Reply payload");
    lrep[g - 1]++;
}
static void rep_on_ep0(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_EP);
    CHECK(info.gex_ep == test_ep);
    rep_ep0++;
}
static void rep_on_ep1(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_EP);
    CHECK(info.gex_ep == ep1);
    rep_ep1++;
}

int main(int argc, char **argv)
{
    test_init("eps", &argc, &argv, 4096, 0, 1);
    gex_Rank_t me = test_rank, n = test_size;
    CHECK(GASNET_MAXEPS >= 3);
    CHECK_EQ(gex_EP_QueryIndex(test_ep), 0);
    CHECK_OK(gex_EP_Create(&ep1, test_client, GEX_EP_CAPABILITY_RMA | GEX_EP_CAPABILITY_AM, 0));
    CHECK_OK(gex_EP_Create(&ep2, test_client, GEX_EP_CAPABILITY_RMA, 0));
    CHECK_EQ(gex_EP_QueryIndex(ep1), 1);
    CHECK_EQ(gex_EP_QueryIndex(ep2), 2);
    CHECK(gex_EP_QuerySegment(ep1) == GEX_SEGMENT_INVALID);
    /* Memory kinds: host only. */
    gex_MK_t hostkind;
    gex_MK_Create_args_t mka;
    memset(&mka, 0, sizeof mka);
    mka.gex_class = GEX_MK_CLASS_CUDA_UVA;
    gex_System_SetVerboseErrors(0);
    CHECK(gex_MK_Create(&hostkind, test_client, &mka, 0) != GASNET_OK);
    gex_System_SetVerboseErrors(1);
    mka.gex_class = GEX_MK_CLASS_HOST;
    CHECK_OK(gex_MK_Create(&hostkind, test_client, &mka, 0));
    CHECK_EQ(gex_MK_QueryClass(hostkind), GEX_MK_CLASS_HOST);
    CHECK_EQ(gex_MK_QueryClass(GEX_MK_HOST), GEX_MK_CLASS_HOST);
    CHECK(gex_MK_QueryClient(hostkind) == test_client);
    gex_Segment_t seg;
    if (me % 2) {
        CHECK(posix_memalign(&mine, 4096, SEGLEN) == 0);
        CHECK_OK(gex_Segment_Create(&seg, test_client, mine, SEGLEN, hostkind, 0));
        CHECK_PTR_EQ(gex_Segment_QueryAddr(seg), mine);
    } else {
        CHECK_OK(gex_Segment_Create(&seg, test_client, NULL, SEGLEN, GEX_MK_HOST, 0));
        mine = gex_Segment_QueryAddr(seg);
        CHECK(mine != NULL);
    }
    CHECK(gex_Segment_QuerySize(seg) >= SEGLEN);
    memset(mine, 0xab, SEGLEN);
    CHECK_OK(gex_EP_BindSegment(ep1, seg, 0));
    CHECK(gex_EP_QuerySegment(ep1) == seg);
    gex_AM_Entry_t h0[] = {
        {HREQ, (gex_AM_Fn_t)req_on_ep0, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "r0"},
        {HREP, (gex_AM_Fn_t)rep_on_ep0, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "p0"}};
    gex_AM_Entry_t h1[] = {
        {HREQ, (gex_AM_Fn_t)req_on_ep1, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "r1"},
        {HREP, (gex_AM_Fn_t)rep_on_ep1, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "p1"},
        {HLREQ, (gex_AM_Fn_t)lreq_on_ep1, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "l1"},
        {HLREP, (gex_AM_Fn_t)lrep_on_ep1, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "m1"}};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, h0, 2));
    CHECK_OK(gex_EP_RegisterHandlers(ep1, h1, 4));
    gex_EP_t pub[2] = {ep1, ep2}; /* ep2 has no segment: nothing published for it */
    CHECK_OK(gex_EP_PublishBoundSegment(test_tm, pub, 2, 0));
    test_barrier();

    gex_TM_t to1 = gex_TM_Pair(test_ep, 1), from1to1 = gex_TM_Pair(ep1, 1);
    void **rseg = calloc(n, sizeof(void *)), **rlocal = calloc(n, sizeof(void *));
    CHECK(rseg != NULL && rlocal != NULL);
    for (gex_Rank_t r = 0; r < n; r++) {
        void *owner, *local;
        uintptr_t len;
        CHECK_OK(gex_Segment_QueryBound(to1, r, &owner, &local, &len));
        CHECK(owner != NULL && len >= SEGLEN);
        void *l0 = NULL; /* neighbours map each other's primordial segments */
        CHECK_OK(gex_Segment_QueryBound(test_tm, r, NULL, &l0, NULL));
        if (r == me) CHECK(local == mine);
        else if (l0 && r % 2 == 0) CHECK(local != NULL); /* library memory: shared */
        else CHECK(local == NULL);
        rseg[r] = owner;
        rlocal[r] = local;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(to1, r, &owner, NULL, &len, 0));
        CHECK_PTR_EQ(owner, rseg[r]);
    }
    static uint8_t buf[SLOT], back[SLOT];
    test_fill(buf, SLOT, 1000 + me);
    int form = 0;
    CHECK(n * SLOT <= LBASE && n <= 4); /* slot s of each segment is rank s's */
    for (gex_Rank_t i = 1; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        char *dst = (char *)rseg[r] + (size_t)me * SLOT;
        switch (form++ % 3) {
        case 0: CHECK_OK(gex_RMA_PutBlocking(to1, r, dst, buf, SLOT, 0)); break;
        case 1: gex_Event_Wait(gex_RMA_PutNB(to1, r, dst, buf, SLOT, GEX_EVENT_DEFER, 0)); break;
        default:
            CHECK_OK(gex_RMA_PutNBI(to1, r, dst, buf, SLOT, GEX_EVENT_NOW, 0));
            gex_NBI_Wait(GEX_EC_PUT, 0);
            break;
        }
        memset(back, 0, SLOT);
        if (i % 2) CHECK_OK(gex_RMA_GetBlocking(to1, back, r, dst, SLOT, 0));
        else gex_Event_Wait(gex_RMA_GetNB(to1, back, r, dst, SLOT, 0));
        CHECK_PATTERN(back, SLOT, 1000 + me, "get back from endpoint 1");
        uint64_t v = gex_RMA_GetBlockingVal(to1, r, dst, 8, 0);
        CHECK_EQ(v, *(uint64_t *)buf);
    }
    /* AMs: to endpoint 1 from endpoint 0 and from endpoint 1, and to endpoint 0. */
    static uint8_t am[100];
    test_fill(am, sizeof am, 7000 + me);
    for (gex_Rank_t i = 1; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        CHECK_OK(gex_AM_RequestMedium0(to1, r, HREQ, am, sizeof am, GEX_EVENT_NOW, 0));
        CHECK_OK(gex_AM_RequestMedium0(from1to1, r, HREQ, am, sizeof am, GEX_EVENT_NOW, 0));
        CHECK_OK(gex_AM_RequestMedium0(test_tm, r, HREQ, am, sizeof am, GEX_EVENT_NOW, 0));
    }
    /* Negotiated-payload Medium to endpoint 1 (from endpoint 0). */
    for (gex_Rank_t i = 1; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        gex_AM_SrcDesc_t sd =
            gex_AM_PrepareRequestMedium(to1, r, NULL, sizeof am, sizeof am, NULL, 0, 0);
        memcpy(gex_AM_SrcDescAddr(sd), am, sizeof am);
        gex_AM_CommitRequestMedium0(sd, HREQ, sizeof am);
    }
    /* Long Requests to endpoint 1 of every rank, ourselves included. */
    static uint8_t lbuf[LSLOT];
    for (gex_Rank_t i = 0; i < n; i++) {
        gex_Rank_t r = (me + i) % n;
        test_fill(lbuf, LSLOT, 5000 + me);
        CHECK_OK(gex_AM_RequestLong3(to1, r, HLREQ, lbuf, LSLOT, LREQ(rseg[r], 0, me),
                                     GEX_EVENT_NOW, 0, 0, 0, 0));
        test_fill(lbuf, LSLOT, 5100 + me);
        char *back1 = LREP(mine, r);
        CHECK_OK(gex_AM_RequestLong3(from1to1, r, HLREQ, lbuf, LSLOT, LREQ(rseg[r], 1, me),
                                     GEX_EVENT_NOW, 0, 1, LO(back1), HI(back1)));
        test_fill(lbuf, LSLOT, 5200 + me);
        char *back2 = back1 + (size_t)4 * LSLOT;
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(from1to1, r, lbuf, LSLOT, LSLOT,
                                                        LREQ(rseg[r], 2, me), GEX_EVENT_NOW, 0, 3);
        CHECK_EQ(gex_AM_SrcDescSize(sd), LSLOT);
        gex_AM_CommitRequestLong3(sd, HLREQ, LSLOT, LREQ(rseg[r], 2, me), 2, LO(back2),
                                  HI(back2));
    }
    int others = (int)n - 1, all = (int)n;
    double t0 = test_now();
    while (req_ep1 < 3 * others || req_ep0 < others || rep_ep0 < 3 * others + all ||
           rep_ep1 < others || lreq[0] < all || lreq[1] < all || lreq[2] < all ||
           lrep[0] < all || lrep[1] < all) {
        gasnet_AMPoll();
        CHECK_MSG(test_now() - t0 < 60, "AMs missing after 60 s: %d %d %d %d %d %d %d %d %d",
                  req_ep0, req_ep1, rep_ep0, rep_ep1, lreq[0], lreq[1], lreq[2], lrep[0],
                  lrep[1]);
    }
    test_barrier();
    CHECK_EQ(req_ep0, others);
    CHECK_EQ(req_ep1, 3 * others);
    CHECK_EQ(rep_ep0, 3 * others + all);
    CHECK_EQ(rep_ep1, others);
    for (int g = 0; g < 3; g++) CHECK_EQ(lreq[g], all);
    CHECK_EQ(lrep[0], all);
    CHECK_EQ(lrep[1], all);
    /* Every Long region holds what its sender put there. */
    for (gex_Rank_t s = 0; s < n; s++) {
        for (int g = 0; g < 3; g++)
            CHECK_PATTERN(LREQ(mine, g, s), LSLOT, 5000 + 100 * g + s, "Long Request region");
        CHECK_PATTERN(LREP(mine, s), LSLOT, 6000 + s, "Long Reply region");
        CHECK_PATTERN(LREP(mine, s) + (size_t)4 * LSLOT, LSLOT, 6100 + s, "NPAM Long Reply");
    }
    /* Every other rank's slot arrived byte for byte; ours is untouched. */
    for (gex_Rank_t s = 0; s < n; s++) {
        uint8_t *slot = (uint8_t *)mine + (size_t)s * SLOT;
        if (s == me) {
            for (size_t k = 0; k < SLOT; k++) CHECK_EQ(slot[k], 0xab);
        } else {
            CHECK_PATTERN(slot, SLOT, 1000 + s, "slot written by a peer");
        }
    }
    /* What we put into a neighbour's shared segment is visible through our
     * own mapping of it. */
    for (gex_Rank_t r = 0; r < n; r++)
        if (r != me && rlocal[r])
            CHECK_PATTERN((uint8_t *)rlocal[r] + (size_t)me * SLOT, SLOT, 1000 + me,
                          "own slot through the local mapping");
    test_barrier();
    gex_Segment_Destroy(seg, 0);
    CHECK(gex_EP_QuerySegment(ep1) == GEX_SEGMENT_INVALID);
    if (me % 2) free(mine);
    gex_MK_Destroy(hostkind, 0);
    test_pass();
}
