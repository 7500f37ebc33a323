/* tests/integration/teams/bindseg.c: gex_EP_BindSegment.
 *
 * The specification: flags other than 0 are an error (GASNET_ERR_BAD_ARG);
 * an endpoint that already has a bound segment cannot take a second one
 * (GASNET_ERR_BAD_ARG); a segment made with gex_Segment_Create and bound to
 * the primordial endpoint instead of gex_Segment_Attach becomes that
 * endpoint's segment: gex_EP_QuerySegment returns it and, once published
 * (gex_EP_PublishBoundSegment), gex_EP_QueryBoundSegmentNB and
 * gex_Segment_QueryBound report every rank's, and RMA and Long AMs on the
 * primordial team reach it.
 *
 * No gex_Segment_Attach here.  Every rank (1) checks the refusals, (2) binds
 * a created segment to its primordial endpoint and publishes it, (3) puts a
 * pattern into its right-hand neighbour's segment with every Put form, gets
 * it back with every Get form, and sends it a Long Request into that
 * segment; after a barrier it checks what its left-hand neighbour wrote.
 */
#include <gasnetex.h>
#include "../test.h"

#define SEGSZ (256 * 1024)
#define CHUNK 8192
#define H_LONG (GEX_AM_INDEX_BASE + 0)
enum { OFF_BLOCKING, OFF_NBI, OFF_NB, OFF_LONG, OFF_BIG, NSLOTS };
#define BIG (SEGSZ - OFF_BIG * CHUNK) /* the rest of the segment: many network packets */

static gex_Rank_t left, right;
static uint8_t *myseg;
static volatile int longs;

static void long_h(gex_Token_t t, void *buf, size_t n)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, left);
    CHECK_PTR_EQ(buf, myseg + OFF_LONG * CHUNK);
    CHECK_EQ(n, CHUNK);
    CHECK_PATTERN(buf, n, ((uint64_t)left << 8) | OFF_LONG, "Long into the bound segment");
    longs++;
}

static void refusals(void)
{
    gex_Segment_t s1, s2;
    CHECK_OK(gex_Segment_Create(&s1, test_client, NULL, 4 * GASNET_PAGESIZE, GEX_MK_HOST, 0));
    CHECK_OK(gex_Segment_Create(&s2, test_client, NULL, 4 * GASNET_PAGESIZE, GEX_MK_HOST, 0));
    gex_EP_t ep1;
    CHECK_OK(gex_EP_Create(&ep1, test_client, GEX_EP_CAPABILITY_RMA, 0));
    /* Reserved flags: refused, nothing bound. */
    CHECK_EQ(gex_EP_BindSegment(ep1, s1, 1), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_EP_BindSegment(ep1, s1, (gex_Flags_t)1 << 20), GASNET_ERR_BAD_ARG);
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), GEX_SEGMENT_INVALID);
    CHECK_EQ(gex_EP_BindSegment(test_ep, s1, 1), GASNET_ERR_BAD_ARG);
    CHECK_PTR_EQ(gex_EP_QuerySegment(test_ep), GEX_SEGMENT_INVALID);
    /* A second bind to an endpoint that has one: refused, the first stays. */
    CHECK_OK(gex_EP_BindSegment(ep1, s1, 0));
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), s1);
    CHECK_EQ(gex_EP_BindSegment(ep1, s2, 0), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_EP_BindSegment(ep1, s1, 0), GASNET_ERR_BAD_ARG);
    CHECK_PTR_EQ(gex_EP_QuerySegment(ep1), s1);
    gex_Segment_Destroy(s2, 0);
}

int main(int argc, char **argv)
{
    test_init("bindseg", &argc, &argv, 0, 0, 1);
    right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;
    gex_AM_Entry_t h[] = {
        {H_LONG, (gex_AM_Fn_t)long_h, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "long"}};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, h, 1));
    refusals();

    /* The primordial endpoint takes a created segment instead of an attached one. */
    gex_Segment_t seg;
    CHECK_OK(gex_Segment_Create(&seg, test_client, NULL, SEGSZ, GEX_MK_HOST, 0));
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    CHECK_OK(gex_EP_BindSegment(test_ep, seg, 0));
    CHECK_PTR_EQ(gex_EP_QuerySegment(test_ep), seg);
    gex_Segment_t other;
    CHECK_OK(gex_Segment_Create(&other, test_client, NULL, SEGSZ, GEX_MK_HOST, 0));
    CHECK_EQ(gex_EP_BindSegment(test_ep, other, 0), GASNET_ERR_BAD_ARG);
    CHECK_PTR_EQ(gex_EP_QuerySegment(test_ep), seg);
    gex_Segment_Destroy(other, 0);
    CHECK_OK(gex_EP_PublishBoundSegment(test_tm, &test_ep, 1, 0));

    /* Everyone's segment, through both queries. */
    test_seg = (void **)calloc(test_size, sizeof(void *));
    CHECK(test_seg != NULL);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *owner = NULL;
        uintptr_t len = 0;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(test_tm, r, &owner, NULL, &len, 0));
        CHECK_MSG(owner != NULL && len >= SEGSZ, "rank %u's bound segment: %p, %lu bytes",
                  (unsigned)r, owner, (unsigned long)len);
        void *owner2 = NULL;
        uintptr_t len2 = 0;
        CHECK_OK(gex_Segment_QueryBound(test_tm, r, &owner2, NULL, &len2));
        CHECK_PTR_EQ(owner2, owner);
        CHECK_EQ(len2, len);
        test_seg[r] = owner;
    }
    CHECK_PTR_EQ(test_seg[test_rank], myseg);
    test_barrier();

    /* RMA on the primordial team into the neighbour's bound segment. */
    static uint8_t src[NSLOTS][CHUNK], back[CHUNK];
    static uint8_t bigsrc[BIG], bigback[BIG];
    for (int k = 0; k < NSLOTS; k++) test_fill(src[k], CHUNK, ((uint64_t)test_rank << 8) | k);
    test_fill(bigsrc, BIG, ((uint64_t)test_rank << 8) | OFF_BIG);
    uint8_t *dst = (uint8_t *)test_seg[right];
    CHECK_OK(gex_RMA_PutBlocking(test_tm, right, dst + OFF_BLOCKING * CHUNK, src[OFF_BLOCKING],
                                 CHUNK, 0));
    CHECK_OK(gex_RMA_PutNBI(test_tm, right, dst + OFF_NBI * CHUNK, src[OFF_NBI], CHUNK,
                            GEX_EVENT_NOW, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_Event_Wait(gex_RMA_PutNB(test_tm, right, dst + OFF_NB * CHUNK, src[OFF_NB], CHUNK,
                                 GEX_EVENT_DEFER, 0));
    CHECK_OK(gex_RMA_PutBlocking(test_tm, right, dst + OFF_BIG * CHUNK, bigsrc, BIG, 0));
    CHECK_OK(gex_AM_RequestLong0(test_tm, right, H_LONG, src[OFF_LONG], CHUNK,
                                 dst + OFF_LONG * CHUNK, GEX_EVENT_NOW, 0));
    CHECK_OK(gex_RMA_GetBlocking(test_tm, back, right, dst + OFF_BLOCKING * CHUNK, CHUNK, 0));
    CHECK_PATTERN(back, CHUNK, ((uint64_t)test_rank << 8) | OFF_BLOCKING, "GetBlocking");
    memset(back, 0, CHUNK);
    CHECK_OK(gex_RMA_GetNBI(test_tm, back, right, dst + OFF_NBI * CHUNK, CHUNK, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
    CHECK_PATTERN(back, CHUNK, ((uint64_t)test_rank << 8) | OFF_NBI, "GetNBI");
    memset(back, 0, CHUNK);
    gex_Event_Wait(gex_RMA_GetNB(test_tm, back, right, dst + OFF_NB * CHUNK, CHUNK, 0));
    CHECK_PATTERN(back, CHUNK, ((uint64_t)test_rank << 8) | OFF_NB, "GetNB");
    CHECK_OK(gex_RMA_GetBlocking(test_tm, bigback, right, dst + OFF_BIG * CHUNK, BIG, 0));
    CHECK_PATTERN(bigback, BIG, ((uint64_t)test_rank << 8) | OFF_BIG, "large GetBlocking");
    GASNET_BLOCKUNTIL(longs == 1);
    test_barrier();

    /* What the left-hand neighbour wrote here. */
    CHECK_PATTERN(myseg + OFF_BLOCKING * CHUNK, CHUNK, ((uint64_t)left << 8) | OFF_BLOCKING,
                  "PutBlocking");
    CHECK_PATTERN(myseg + OFF_NBI * CHUNK, CHUNK, ((uint64_t)left << 8) | OFF_NBI, "PutNBI");
    CHECK_PATTERN(myseg + OFF_NB * CHUNK, CHUNK, ((uint64_t)left << 8) | OFF_NB, "PutNB");
    CHECK_PATTERN(myseg + OFF_BIG * CHUNK, BIG, ((uint64_t)left << 8) | OFF_BIG,
                  "large PutBlocking");
    test_pass();
}
