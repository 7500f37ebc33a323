/* tests/integration/am/npam.c: negotiated-payload AMs (NPAM).
 *
 * Every rank sends ROUNDS rounds to every rank (itself included):
 *   1. Medium Request, GASNet buffer, 2 args (numbered Commit); the handler
 *      answers with a Medium Reply prepared with a GASNet buffer;
 *   2. Medium Request from a client buffer (variadic Commit, 2 args), lc_opt
 *      an event; the handler answers with a Long Reply from its own client
 *      buffer into the sender's segment;
 *   3. Long Request, GASNet buffer, into the target's segment (Commit_v2
 *      with GEX_FLAG_IMMEDIATE, retried until accepted);
 *   4. Medium Request with 16 args (variadic _v2); the handler prepares a
 *      Reply, cancels it and answers with a Short Reply instead;
 *   5. a prepared Request cancelled, then a 0-argument Commit.
 * Payload lengths vary per round (0 .. the Medium maximum); every payload
 * and argument is checked where it lands, and so are the sizes Prepare
 * grants (least/most, GEX_FLAG_AM_PREPARE_LEAST_*) and gex_AM_SrcDescAddr.
 */
#include <gasnetex.h>
#include "../test.h"

#define ROUNDS 6
#define SLOT 70000 /* per (sender, round parity) Long landing area */

enum { H_REQ_MED = 200, H_REP_MED, H_REQ_CB, H_REP_LONG, H_REQ_LONG, H_REQ_16, H_REP_SHORT,
       H_REQ_0 };

static volatile unsigned got_rep_med, got_rep_long, got_rep_short, got_req_0;
static size_t maxmed;

static size_t plen(gex_Rank_t src, unsigned round, unsigned kind)
{
    size_t v[] = {0, 1, 7, 512, 4093, maxmed};
    return v[(src + round + kind) % (sizeof v / sizeof v[0])];
}
static uint64_t seed(gex_Rank_t src, gex_Rank_t dst, unsigned round, unsigned kind)
{
    return ((uint64_t)src << 40) | ((uint64_t)dst << 24) | ((uint64_t)round << 8) | kind;
}
static void *long_slot(gex_Rank_t owner, gex_Rank_t sender, unsigned round, int reply)
{
    return test_seg_at(owner, ((uintptr_t)sender * 4 + (round & 1) * 2 + (unsigned)reply) * SLOT);
}

static void req_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round, gex_AM_Arg_t len)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK_EQ(n, (size_t)len);
    CHECK_PATTERN(buf, n, seed(ti.gex_srcrank, test_rank, (unsigned)round, 1), "Medium Request");
    size_t rl = plen(test_rank, (unsigned)round, 2);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, rl, rl + 100, NULL, 0, 2);
    CHECK(gex_AM_SrcDescSize(sd) >= rl);
    test_fill(gex_AM_SrcDescAddr(sd), rl, seed(test_rank, ti.gex_srcrank, (unsigned)round, 2));
    gex_AM_CommitReplyMedium2(sd, H_REP_MED, rl, round, (gex_AM_Arg_t)rl);
}
static void rep_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round, gex_AM_Arg_t len)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK_EQ(n, (size_t)len);
    CHECK_PATTERN(buf, n, seed(ti.gex_srcrank, test_rank, (unsigned)round, 2), "Medium Reply");
    got_rep_med++;
}
static uint8_t reply_src[2][64];
static void req_cb(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round, gex_AM_Arg_t len)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    gex_Rank_t src = ti.gex_srcrank;
    CHECK_EQ(n, (size_t)len);
    CHECK_PATTERN(buf, n, seed(src, test_rank, (unsigned)round, 3), "client-buffer Request");
    uint8_t *mine = reply_src[round & 1];
    test_fill(mine, sizeof reply_src[0], seed(test_rank, src, (unsigned)round, 4));
    void *dst = long_slot(src, test_rank, (unsigned)round, 1);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyLong(t, mine, 10, sizeof reply_src[0], dst,
                                                  GEX_EVENT_NOW, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 1);
    CHECK_PTR_EQ(gex_AM_SrcDescAddr(sd), mine);
    CHECK_EQ(gex_AM_SrcDescSize(sd), 10);
    gex_AM_CommitReplyLong1(sd, H_REP_LONG, 10, dst, round);
}
static void rep_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK_EQ(n, 10);
    CHECK_PTR_EQ(buf, long_slot(test_rank, ti.gex_srcrank, (unsigned)round, 1));
    CHECK_PATTERN(buf, n, seed(ti.gex_srcrank, test_rank, (unsigned)round, 4), "Long Reply");
    got_rep_long++;
}
static void req_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round, gex_AM_Arg_t len)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK_EQ(n, (size_t)len);
    if (n) CHECK_PTR_EQ(buf, long_slot(test_rank, ti.gex_srcrank, (unsigned)round, 0));
    CHECK_PATTERN(buf, n, seed(ti.gex_srcrank, test_rank, (unsigned)round, 5), "Long Request");
    gex_AM_ReplyShort0(t, H_REP_SHORT, 0);
}
static void req_16(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                   gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                   gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                   gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                   gex_AM_Arg_t a14, gex_AM_Arg_t a15)
{
    gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    for (int i = 0; i < 16; i++) CHECK_EQ((uint32_t)a[i], (uint32_t)(0xA5A50000u + (unsigned)i * 7919u));
    CHECK_EQ(n, 3);
    CHECK(memcmp(buf, "npm", 3) == 0);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, 0, 64, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0);
    CHECK_EQ(gex_AM_SrcDescSize(sd), 0);
    CHECK_OK(gex_AM_CancelReplyMedium(sd, 0));
    gex_AM_ReplyShort0(t, H_REP_SHORT, 0);
}
static void rep_short(gex_Token_t t) { (void)t; got_rep_short++; }
static void req_0(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    CHECK_EQ(n, 5);
    CHECK(memcmp(buf, "zero!", 5) == 0);
    got_req_0++;
}

static gex_AM_Entry_t table[] = {
    {H_REQ_MED, (gex_AM_Fn_t)req_med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "req_med"},
    {H_REP_MED, (gex_AM_Fn_t)rep_med, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 2, NULL, "rep_med"},
    {H_REQ_CB, (gex_AM_Fn_t)req_cb, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "req_cb"},
    {H_REP_LONG, (gex_AM_Fn_t)rep_long, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_LONG, 1, NULL, "rep_long"},
    {H_REQ_LONG, (gex_AM_Fn_t)req_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 2, NULL, "req_long"},
    {H_REQ_16, (gex_AM_Fn_t)req_16, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 16, NULL, "req_16"},
    {H_REP_SHORT, (gex_AM_Fn_t)rep_short, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "rep_short"},
    {H_REQ_0, (gex_AM_Fn_t)req_0, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "req_0"},
};

int main(int argc, char **argv)
{
    test_init("am-npam", &argc, &argv, 0, 0, 1);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, table, sizeof table / sizeof table[0]));
    size_t seg = (size_t)test_size * 4 * SLOT;
    CHECK_OK(gex_Segment_Attach(&test_segment, test_tm, (seg + GASNET_PAGESIZE - 1) & ~(size_t)(GASNET_PAGESIZE - 1)));
    test_query_segments();
    maxmed = gex_AM_MaxRequestMedium(test_tm, 0, NULL, 0, 2);
    CHECK(maxmed >= 4093);
    uint8_t *cbuf = malloc(maxmed);
    CHECK(cbuf != NULL);
    unsigned expect = 0;
    for (unsigned round = 0; round < ROUNDS; round++) {
        for (gex_Rank_t i = 0; i < test_size; i++) {
            gex_Rank_t dst = (test_rank + i) % test_size;
            /* 1. GASNet buffer, numbered Commit */
            size_t n = plen(test_rank, round, 1);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, dst, NULL, n, n + 50, NULL, 0, 2);
            CHECK(sd != GEX_AM_SRCDESC_NO_OP);
            CHECK(gex_AM_SrcDescSize(sd) >= n && gex_AM_SrcDescSize(sd) <= n + 50);
            test_fill(gex_AM_SrcDescAddr(sd), n, seed(test_rank, dst, round, 1));
            gex_AM_CommitRequestMedium2(sd, H_REQ_MED, n, round, (gex_AM_Arg_t)n);
            /* 2. client buffer, event lc, variadic Commit */
            n = plen(test_rank, round, 3);
            test_fill(cbuf, n, seed(test_rank, dst, round, 3));
            gex_Event_t lc = GEX_EVENT_NO_OP;
            sd = gex_AM_PrepareRequestMedium(test_tm, dst, cbuf, n / 2, n, &lc, 0, 2);
            CHECK_PTR_EQ(gex_AM_SrcDescAddr(sd), cbuf);
            CHECK_EQ(gex_AM_SrcDescSize(sd), n);
            gex_AM_CommitRequestMedium(sd, H_REQ_CB, n, round, (gex_AM_Arg_t)n);
            gex_Event_Wait(lc);
            memset(cbuf, 0xee, n); /* local completion: the buffer is ours again */
            /* 3. Long, GASNet buffer, Commit_v2 + IMMEDIATE */
            n = plen(test_rank, round, 5);
            void *dest = long_slot(dst, test_rank, round, 0);
            sd = gex_AM_PrepareRequestLong(test_tm, dst, NULL, n, n, dest, NULL, 0, 2);
            CHECK_EQ(gex_AM_SrcDescSize(sd), n);
            test_fill(gex_AM_SrcDescAddr(sd), n, seed(test_rank, dst, round, 5));
            double t0 = test_now();
            while (gex_AM_CommitRequestLong2_v2(sd, H_REQ_LONG, n, dest, GEX_FLAG_IMMEDIATE, round, (gex_AM_Arg_t)n)) {
                CHECK_MSG(test_now() - t0 < 60, "Commit_v2 IMMEDIATE refused for 60 s");
                gasnet_AMPoll();
            }
            /* 4. 16 arguments, variadic _v2 */
            sd = gex_AM_PrepareRequestMedium(test_tm, dst, "npm", 3, 3, GEX_EVENT_NOW, 0, 16);
            int rc = gex_AM_CommitRequestMedium_v2(sd, H_REQ_16, 3, 0,
                0xA5A50000u, 0xA5A50000u + 7919u, 0xA5A50000u + 2 * 7919u, 0xA5A50000u + 3 * 7919u,
                0xA5A50000u + 4 * 7919u, 0xA5A50000u + 5 * 7919u, 0xA5A50000u + 6 * 7919u,
                0xA5A50000u + 7 * 7919u, 0xA5A50000u + 8 * 7919u, 0xA5A50000u + 9 * 7919u,
                0xA5A50000u + 10 * 7919u, 0xA5A50000u + 11 * 7919u, 0xA5A50000u + 12 * 7919u,
                0xA5A50000u + 13 * 7919u, 0xA5A50000u + 14 * 7919u, 0xA5A50000u + 15 * 7919u);
            CHECK_EQ(rc, 0);
            /* 5. cancel, then a 0-argument Commit */
            sd = gex_AM_PrepareRequestMedium(test_tm, dst, NULL, 100, 200, NULL, 0, 0);
            CHECK_OK(gex_AM_CancelRequestMedium(sd, 0));
            sd = gex_AM_PrepareRequestMedium(test_tm, dst, NULL, 5, 5, NULL, 0, 0);
            memcpy(gex_AM_SrcDescAddr(sd), "zero!", 5);
            gex_AM_CommitRequestMedium(sd, H_REQ_0, 5);
            expect++;
        }
        /* Long landing slots alternate by round parity: round r+2 may reuse
         * a slot only once round r's handlers have run (their Replies). */
        double t0 = test_now();
        GASNET_BLOCKUNTIL((got_rep_med == expect && got_rep_long == expect &&
                           got_rep_short == 2 * expect) || test_now() - t0 > 120);
        CHECK_MSG(got_rep_med == expect && got_rep_long == expect && got_rep_short == 2 * expect,
                  "round %u replies: medium %u long %u short %u, expected %u/%u/%u", round,
                  got_rep_med, got_rep_long, got_rep_short, expect, expect, 2 * expect);
    }
    /* Every rank sent ROUNDS to each rank, this one included.  A barrier
     * does not order AMs sent before it: with the RDMA barrier the
     * barrier's write can be read before an earlier Request's receive
     * completion is polled, so wait for the Requests themselves. */
    double t1 = test_now();
    GASNET_BLOCKUNTIL(got_req_0 == expect || test_now() - t1 > 120);
    test_barrier();
    CHECK_EQ(got_req_0, expect);
    free(cbuf);
    test_pass();
}
