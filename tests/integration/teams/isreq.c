/* tests/integration/teams/isreq.c: gex_Token_Info in Reply handlers.
 *
 * The specification: gex_is_req is 1 in a Request handler and 0 otherwise.
 * Every rank sends its right-hand neighbour four Short Requests; the Request
 * handler checks it sees a Request, then answers the first with a Short,
 * the second with a Medium, the third with a Long and the fourth with a
 * negotiated-payload Medium Reply.  Each Reply handler asks
 * gex_Token_Info(GEX_TI_ALL) and checks gex_is_req == 0 (and gex_is_long,
 * gex_entry, gex_srcrank).  Then every rank arms VIS peer completion for a
 * Put to its right-hand neighbour; the neighbour's peer-completion handler,
 * a Reply handler, must also see gex_is_req == 0.
 */
#include <gasnetex.h>
#include <gasnet_vis.h>
#include "../test.h"

#define H_REQ (GEX_AM_INDEX_BASE + 0)
#define H_RSHORT (GEX_AM_INDEX_BASE + 1)
#define H_RMED (GEX_AM_INDEX_BASE + 2)
#define H_RLONG (GEX_AM_INDEX_BASE + 3)
#define H_RNPAM (GEX_AM_INDEX_BASE + 4)
#define H_PC (GEX_AM_INDEX_BASE + 5)
#define NREPLIES 4
#define PAYLOAD 64
#define LONG_OFF 0
#define PUT_OFF 4096

static gex_Rank_t left, right;
static volatile int replies, pc_runs;

/* The token's view, checked: is_req and is_long as given, the entry of the
 * running handler, the expected sender. */
static void check_info(gex_Token_t t, int is_req, int is_long, gex_AM_Index_t idx,
                       gex_Rank_t from)
{
    gex_Token_Info_t info;
    memset(&info, 0xa5, sizeof info);
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK((got & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP));
    CHECK_EQ(info.gex_srcrank, from);
    CHECK_PTR_EQ(info.gex_ep, test_ep);
    if (got & GEX_TI_IS_REQ) CHECK_MSG(!!info.gex_is_req == is_req,
                                       "handler %u: gex_is_req %d, expected %d", (unsigned)idx,
                                       (int)info.gex_is_req, is_req);
    else CHECK_MSG(0, "handler %u: gex_Token_Info did not report GEX_TI_IS_REQ", (unsigned)idx);
    if (got & GEX_TI_IS_LONG) CHECK_EQ(!!info.gex_is_long, is_long);
    if (got & GEX_TI_ENTRY) CHECK_EQ(info.gex_entry->gex_index, idx);
}

static void req_h(gex_Token_t t, gex_AM_Arg_t kind)
{
    uint8_t buf[PAYLOAD];
    check_info(t, 1, 0, H_REQ, left);
    test_fill(buf, sizeof buf, test_rank); /* the Reply handler expects its right */
    if (kind == 0) {
        CHECK_OK(gex_AM_ReplyShort0(t, H_RSHORT, 0));
    } else if (kind == 1) {
        CHECK_OK(gex_AM_ReplyMedium0(t, H_RMED, buf, sizeof buf, GEX_EVENT_NOW, 0));
    } else if (kind == 2) {
        CHECK_OK(gex_AM_ReplyLong0(t, H_RLONG, buf, sizeof buf, test_seg_at(left, LONG_OFF),
                                   GEX_EVENT_NOW, 0));
    } else {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, PAYLOAD, PAYLOAD, NULL, 0, 0);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP);
        memcpy(gex_AM_SrcDescAddr(sd), buf, PAYLOAD);
        gex_AM_CommitReplyMedium0(sd, H_RNPAM, PAYLOAD);
    }
}

static void rshort_h(gex_Token_t t)
{
    check_info(t, 0, 0, H_RSHORT, right);
    replies++;
}

/* A Reply with a payload: the token's view, then the payload itself. */
static void payload_reply(gex_Token_t t, void *buf, size_t n, gex_AM_Index_t idx, int is_long,
                          const char *what)
{
    check_info(t, 0, is_long, idx, right);
    CHECK_EQ(n, PAYLOAD);
    if (is_long) CHECK_PTR_EQ(buf, test_seg_at(test_rank, LONG_OFF));
    CHECK_PATTERN(buf, n, right, what);
    replies++;
}

static void rmed_h(gex_Token_t t, void *buf, size_t n)
{
    payload_reply(t, buf, n, H_RMED, 0, "Medium Reply payload");
}

static void rlong_h(gex_Token_t t, void *buf, size_t n)
{
    payload_reply(t, buf, n, H_RLONG, 1, "Long Reply payload");
}

static void rnpam_h(gex_Token_t t, void *buf, size_t n)
{
    payload_reply(t, buf, n, H_RNPAM, 0, "negotiated-payload Medium Reply payload");
}

static void pc_h(gex_Token_t t, void *buf, size_t n)
{
    check_info(t, 0, 0, H_PC, left);
    CHECK_EQ(n, sizeof(uint32_t));
    uint32_t who;
    memcpy(&who, buf, sizeof who);
    CHECK_EQ(who, left);
    pc_runs++;
}

int main(int argc, char **argv)
{
    test_init("isreq", &argc, &argv, 65536, 0, 1);
    gex_AM_Entry_t h[] = {
        {H_REQ, (gex_AM_Fn_t)req_h, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "req"},
        {H_RSHORT, (gex_AM_Fn_t)rshort_h, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "rshort"},
        {H_RMED, (gex_AM_Fn_t)rmed_h, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "rmed"},
        {H_RLONG, (gex_AM_Fn_t)rlong_h, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "rlong"},
        {H_RNPAM, (gex_AM_Fn_t)rnpam_h, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "rnpam"},
        {H_PC, (gex_AM_Fn_t)pc_h, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "pc"},
    };
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, h, sizeof h / sizeof h[0]));
    right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;
    test_barrier();

    for (int kind = 0; kind < NREPLIES; kind++) {
        CHECK_OK(gex_AM_RequestShort1(test_tm, right, H_REQ, 0, kind));
        GASNET_BLOCKUNTIL(replies == kind + 1);
    }

    /* VIS peer completion: the neighbour's Reply handler runs once. */
    static uint8_t src[256];
    test_fill(src, sizeof src, test_rank);
    uint32_t me = test_rank;
    gex_VIS_SetPeerCompletionHandler(H_PC, &me, sizeof me, 0);
    gex_Memvec_t dv = {test_seg_at(right, PUT_OFF), sizeof src}, sv = {src, sizeof src};
    CHECK_OK(gex_VIS_VectorPutBlocking(test_tm, right, 1, &dv, 1, &sv, 0));
    GASNET_BLOCKUNTIL(pc_runs == 1);
    test_barrier();
    CHECK_EQ(pc_runs, 1);
    CHECK_EQ(replies, NREPLIES);
    test_pass();
}
