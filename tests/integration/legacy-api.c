/* tests/integration/legacy-api.c: a GASNet-1 style program (gasnet.h only).
 *
 * gasnet_init / gasnet_attach with a handler table (fixed indices and one
 * "don't care" entry whose index attach fills in), gasnet_getSegmentInfo,
 * Short/Medium/Long Requests and Replies with the numbered legacy macros,
 * gasnet_AMGetMsgSource, GASNET_BLOCKUNTIL, gasnet_put/get (+ _bulk),
 * _nb with gasnet_wait_syncnb / gasnet_try_syncnb, _nbi with
 * gasnet_wait_syncnbi_*, put_val/get_val, legacy barriers and gasnet_exit(0).
 */
#include <gasnet.h>
#include "test.h"

#define H_PING 200
#define H_MED 201
#define H_MEDREP 202
#define H_LONG 203
#define H_LONGREP 204
#define AREA 65536 /* per peer, in every segment */

static gasnet_seginfo_t *seginfo;
static volatile int pongs, medreps, longreps;
static gasnet_handler_t h_pong; /* assigned by gasnet_attach */

static gasnet_node_t source_of(gasnet_token_t t)
{
    gasnet_node_t src = (gasnet_node_t)-1;
    CHECK_OK(gasnet_AMGetMsgSource(t, &src));
    CHECK(src < gasnet_nodes());
    return src;
}

static void ping(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1)
{
    gasnet_node_t src = source_of(t);
    CHECK_EQ(a0, (gasnet_handlerarg_t)(src * 1000 + 1));
    CHECK_EQ(a1, -(gasnet_handlerarg_t)src - 7);
    CHECK_OK(gasnet_AMReplyShort2(t, h_pong, a0 + 1, a1 - 1));
}

static void pong(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1)
{
    gasnet_node_t me = gasnet_mynode();
    CHECK_EQ(a0, (gasnet_handlerarg_t)(me * 1000 + 2));
    CHECK_EQ(a1, -(gasnet_handlerarg_t)me - 8);
    pongs++;
}

static void med(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t seed)
{
    (void)source_of(t);
    CHECK_PATTERN(buf, nb, (uint64_t)(uint32_t)seed, "legacy Medium Request payload");
    /* Echo the payload back (the handler's buffer is valid until return). */
    CHECK_OK(gasnet_AMReplyMedium1(t, H_MEDREP, buf, nb, seed));
}

static void medrep(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t seed)
{
    CHECK_PATTERN(buf, nb, (uint64_t)(uint32_t)seed, "legacy Medium Reply payload");
    medreps++;
}

static void lng(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t seed,
                gasnet_handlerarg_t off)
{
    gasnet_node_t src = source_of(t);
    CHECK_PTR_EQ(buf, (char *)seginfo[gasnet_mynode()].addr + off);
    CHECK_PATTERN(buf, nb, (uint64_t)(uint32_t)seed, "legacy Long Request payload");
    /* Reply Long into the requester's segment, same offset. */
    CHECK_OK(gasnet_AMReplyLong2(t, H_LONGREP, buf, nb, (char *)seginfo[src].addr + off, seed,
                                 off));
}

static void lngrep(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t seed,
                   gasnet_handlerarg_t off)
{
    CHECK_PTR_EQ(buf, (char *)seginfo[gasnet_mynode()].addr + off);
    CHECK_PATTERN(buf, nb, (uint64_t)(uint32_t)seed, "legacy Long Reply payload");
    longreps++;
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

static void am_tests(uint8_t *buf)
{
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    size_t maxmed = gasnet_AMMaxMedium();
    CHECK(maxmed >= 512 && gasnet_AMMaxLongRequest() >= 512 && gasnet_AMMaxLongReply() >= 512);
    CHECK(gasnet_AMMaxArgs() >= 16);
    for (gasnet_node_t i = 0; i < n; i++) {
        gasnet_node_t peer = (me + i) % n;
        int want = pongs + 1;
        CHECK_OK(gasnet_AMRequestShort2(peer, H_PING, (gasnet_handlerarg_t)(me * 1000 + 1),
                                        -(gasnet_handlerarg_t)me - 7));
        GASNET_BLOCKUNTIL(pongs == want);

        size_t sizes[] = {0, 1, 100, 4096, maxmed};
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            gasnet_handlerarg_t seed = (gasnet_handlerarg_t)(me * 64 + k);
            test_fill(buf, sizes[k], (uint64_t)(uint32_t)seed);
            want = medreps + 1;
            CHECK_OK(gasnet_AMRequestMedium1(peer, H_MED, buf, sizes[k], seed));
            GASNET_BLOCKUNTIL(medreps == want);

            size_t lsz = sizes[k] < AREA ? sizes[k] : AREA;
            gasnet_handlerarg_t off = (gasnet_handlerarg_t)(me * AREA);
            test_fill(buf, lsz, (uint64_t)(uint32_t)seed + 99);
            want = longreps + 1;
            CHECK_OK(gasnet_AMRequestLong2(peer, H_LONG, buf, lsz,
                                           (char *)seginfo[peer].addr + off, seed + 99, off));
            GASNET_BLOCKUNTIL(longreps == want);
        }
    }
}

static void rma_tests(uint8_t *buf)
{
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    gasnet_handle_t *h = (gasnet_handle_t *)calloc(n, sizeof(gasnet_handle_t));
    CHECK(h != NULL);
    const size_t nb = 5000;
    for (int form = 0; form < 4; form++) {
        uint64_t seed = 1000u * (unsigned)form + me;
        /* Put my pattern to my area on every peer. */
        for (gasnet_node_t p = 0; p < n; p++) {
            void *dst = (char *)seginfo[p].addr + me * AREA + 1;
            test_fill(buf, nb, seed + p);
            if (form == 0) {
                gasnet_put(p, dst, buf, nb);
            } else if (form == 1) {
                gasnet_wait_syncnb(gasnet_put_nb(p, dst, buf, nb));
            } else if (form == 2) {
                gasnet_put_nbi(p, dst, buf, nb);
                gasnet_wait_syncnbi_puts();
            } else {
                gasnet_put_bulk(p, dst, buf, nb);
            }
        }
        barrier();
        for (gasnet_node_t s = 0; s < n; s++)
            CHECK_PATTERN((char *)seginfo[me].addr + s * AREA + 1, nb,
                          1000u * (unsigned)form + s + me, "legacy put");
        /* Get it back. */
        for (gasnet_node_t p = 0; p < n; p++) {
            uint8_t *dst = buf + (size_t)p * nb;
            void *src = (char *)seginfo[p].addr + me * AREA + 1;
            memset(dst, 0, nb);
            if (form == 0)
                gasnet_get(dst, p, src, nb);
            else if (form == 1)
                h[p] = gasnet_get_nb(dst, p, src, nb);
            else if (form == 2)
                gasnet_get_nbi(dst, p, src, nb);
            else
                gasnet_get_bulk(dst, p, src, nb);
        }
        if (form == 1)
            for (gasnet_node_t p = 0; p < n; p++)
                while (gasnet_try_syncnb(h[p]) != GASNET_OK) gasnet_AMPoll();
        if (form == 2) gasnet_wait_syncnbi_all();
        for (gasnet_node_t p = 0; p < n; p++)
            CHECK_PATTERN(buf + (size_t)p * nb, nb, seed + p, "legacy get");
        barrier();
    }
    /* Value forms. */
    for (gasnet_node_t p = 0; p < n; p++)
        gasnet_put_val(p, (char *)seginfo[p].addr + me * AREA, 0xABCD0000u + me, 4);
    barrier();
    for (gasnet_node_t p = 0; p < n; p++) {
        gasnet_register_value_t v = gasnet_get_val(p, (char *)seginfo[p].addr + me * AREA, 4);
        CHECK_EQ(v, 0xABCD0000u + me);
    }
    barrier();
    free(h);
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t table[] = {
        {H_PING, (void (*)())ping},     {0, (void (*)())pong},    {H_MED, (void (*)())med},
        {H_MEDREP, (void (*)())medrep}, {H_LONG, (void (*)())lng}, {H_LONGREP, (void (*)())lngrep},
    };
    test_name = "legacy";
    CHECK_OK(gasnet_init(&argc, &argv));
    test_rank = gasnet_mynode();
    test_size = gasnet_nodes();
    uintptr_t segsize = (uintptr_t)AREA * test_size + GASNET_PAGESIZE;
    segsize = (segsize + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECK(segsize <= gasnet_getMaxLocalSegmentSize());
    CHECK_OK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), segsize, 0));
    h_pong = table[1].index;
    CHECK_MSG(h_pong >= 128, "gasnet_attach gave the don't-care handler index %u", h_pong);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (i != 1) CHECK(table[i].index != h_pong);

    seginfo = (gasnet_seginfo_t *)calloc(test_size, sizeof(gasnet_seginfo_t));
    CHECK(seginfo != NULL);
    CHECK_OK(gasnet_getSegmentInfo(seginfo, (int)test_size));
    for (gasnet_node_t r = 0; r < test_size; r++)
        CHECK_MSG(seginfo[r].addr != NULL && seginfo[r].size >= segsize,
                  "segment of node %u: %p, %lu bytes", (unsigned)r, seginfo[r].addr,
                  (unsigned long)seginfo[r].size);
    uint8_t *buf = (uint8_t *)malloc(gasnet_AMMaxMedium() + (size_t)test_size * 5000 + 4096);
    CHECK(buf != NULL);
    barrier();

    am_tests(buf);
    barrier();
    rma_tests(buf);
    barrier();
    if (test_rank == 0) {
        printf("PASS legacy (%u processes)\n", (unsigned)test_size);
        fflush(stdout);
    }
    barrier(); /* the line is out before any rank exits */
    free(buf);
    gasnet_exit(0);
    return 0;
}
