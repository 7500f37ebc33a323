/* tests/integration/teams/vispc.c: VIS peer completion (issue 14, item 5).
 *
 * Each rank puts rounds of data into its right-hand neighbour's segment
 * with Vector, Indexed and Strided Puts in NB, NBI and Blocking forms, most
 * of them with a peer-completion handler armed (payload: sender, round,
 * padded to GEX_VIS_MAX_PEERCOMPLETION bytes every third round).  The
 * neighbour's handler checks, when it runs, that the round's data is
 * already in place and the payload is intact; rounds that were disarmed
 * (handler 0) must not notify.  Counts are checked after a barrier.
 */
#include <gasnetex.h>
#include <gasnet_vis.h>
#include "../test.h"

#define HIDX (GEX_AM_INDEX_BASE + 3)
#define ROUNDS 60
#define CHUNK 64
#define NCHUNK 4

static gex_Rank_t left;
static volatile int arrivals;
static int expect_round = 0;

typedef struct {
    uint32_t sender, round;
    uint8_t pad[GEX_VIS_MAX_PEERCOMPLETION - 8];
} payload_t;

static uint8_t *area(gex_Rank_t r) { return test_seg_at(r, 0); }

static void pc_handler(gex_Token_t token, void *buf, size_t nbytes)
{
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, left);
    CHECK(nbytes == 8 || nbytes == GEX_VIS_MAX_PEERCOMPLETION);
    payload_t p;
    memcpy(&p, buf, nbytes);
    CHECK_EQ(p.sender, left);
    if (nbytes > 8)
        for (size_t i = 0; i < sizeof(p.pad); i++) CHECK_EQ(p.pad[i], (uint8_t)(i + p.round));
    /* The round's data is already here. */
    CHECK_PATTERN(area(test_rank), NCHUNK * CHUNK, ((uint64_t)left << 32) | p.round,
                  "data before peer completion");
    CHECK_EQ((int)p.round, expect_round);
    expect_round += 2; /* odd rounds are disarmed */
    arrivals++;
}

int main(int argc, char **argv)
{
    test_init("vispc", &argc, &argv, 65536, 0, 1);
    gex_AM_Entry_t h[] = {{HIDX, (gex_AM_Fn_t)pc_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
                           0, NULL, "vispc"}};
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, h, 1));
    gex_Rank_t right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;
    test_barrier();
    static uint8_t src[NCHUNK * CHUNK];
    int sent = 0;
    for (uint32_t round = 0; round < ROUNDS; round++) {
        test_fill(src, sizeof src, ((uint64_t)test_rank << 32) | round);
        payload_t p;
        p.sender = test_rank;
        p.round = round;
        for (size_t i = 0; i < sizeof(p.pad); i++) p.pad[i] = (uint8_t)(i + round);
        if (round % 2 == 0) {
            gex_VIS_SetPeerCompletionHandler(HIDX, &p, round % 3 ? 8 : GEX_VIS_MAX_PEERCOMPLETION, 0);
            sent++;
        } else { /* armed, then disarmed: no notification */
            gex_VIS_SetPeerCompletionHandler(HIDX, &p, 8, 0);
            gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
        }
        uint8_t *dst = area(right);
        gex_Memvec_t dv[NCHUNK], sv[NCHUNK];
        void *di[NCHUNK], *si[NCHUNK];
        for (int k = 0; k < NCHUNK; k++) {
            dv[k].gex_addr = di[k] = dst + k * CHUNK;
            sv[k].gex_addr = si[k] = src + k * CHUNK;
            dv[k].gex_len = sv[k].gex_len = CHUNK;
        }
        ptrdiff_t strides[1] = {CHUNK};
        size_t count[1] = {NCHUNK};
        switch (round % 9) {
        case 0: gex_Event_Wait(gex_VIS_VectorPutNB(test_tm, right, NCHUNK, dv, NCHUNK, sv, 0)); break;
        case 1: gex_VIS_VectorPutNBI(test_tm, right, NCHUNK, dv, NCHUNK, sv, 0); gex_NBI_Wait(GEX_EC_ALL, 0); break;
        case 2: gex_VIS_VectorPutBlocking(test_tm, right, NCHUNK, dv, NCHUNK, sv, 0); break;
        case 3: gex_Event_Wait(gex_VIS_IndexedPutNB(test_tm, right, NCHUNK, di, CHUNK, NCHUNK, si, CHUNK, 0)); break;
        case 4: gex_VIS_IndexedPutNBI(test_tm, right, NCHUNK, di, CHUNK, NCHUNK, si, CHUNK, 0); gex_NBI_Wait(GEX_EC_ALL, 0); break;
        case 5: gex_VIS_IndexedPutBlocking(test_tm, right, NCHUNK, di, CHUNK, NCHUNK, si, CHUNK, 0); break;
        case 6: gex_Event_Wait(gex_VIS_StridedPutNB(test_tm, right, dst, strides, src, strides, CHUNK, count, 1, 0)); break;
        case 7: gex_VIS_StridedPutNBI(test_tm, right, dst, strides, src, strides, CHUNK, count, 1, 0); gex_NBI_Wait(GEX_EC_ALL, 0); break;
        default: gex_VIS_StridedPutBlocking(test_tm, right, dst, strides, src, strides, CHUNK, count, 1, 0); break;
        }
        /* The neighbour checks the round inside its handler: keep rounds apart. */
        test_barrier();
        if (round % 2 == 0) {
            double t0 = test_now();
            while (arrivals < (int)round / 2 + 1) {
                gasnet_AMPoll();
                CHECK_MSG(test_now() - t0 < 30, "round %u: no peer completion after 30 s", round);
            }
        }
        test_barrier();
    }
    CHECK_EQ(arrivals, sent);
    test_pass();
}
