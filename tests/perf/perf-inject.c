/* tests/perf/perf-inject.c: the injection paths, isolated for instruction
 * counting under valgrind --tool=callgrind (tests/perf/icount.sh).
 *
 *   gasnetrun_ibv -n 2 tests/perf/perf-inject OP COUNT
 *
 * Rank 0 calls the injection function of OP COUNT times towards rank 1:
 *   am_short   gex_AM_RequestShort0 (the handler answers with a Short Reply;
 *              at most WINDOW Requests are outstanding, so the Request
 *              itself never waits for queue space: the polling for Replies
 *              happens outside the counted function)
 *   put8_nbi   gex_RMA_PutNBI of 8 bytes with lc GEX_EVENT_NOW
 *   put8_blk   gex_RMA_PutBlocking of 8 bytes
 *   put8_loop  gex_RMA_PutBlocking of 8 bytes, up to LOOP times in one
 *              wrapper call with the same arguments (COUNT puts in all,
 *              so the count per op is per put): the client loop whose
 *              neighbour lookup the compiler computes once
 *              (include/gasnet_pshm_inline.h, gasneti_pshm_xlate)
 * Each call goes through a non-inlined wrapper named bench_inject_<OP>;
 * icount.sh counts only inside it (--toggle-collect) and takes the
 * difference of two runs (COUNT and 2*COUNT), so one-time costs (first
 * call, lazy setup) cancel.  Without valgrind this is also a quick check
 * that the paths work.  Public API only.
 */
#include "tests/perf/bench-gex.h"

#include <string.h>

#define WINDOW 8

static volatile unsigned long replies;
static gex_AM_Entry_t htab[2];

static void req_h(gex_Token_t t) { BG_OK(gex_AM_ReplyShort0(t, htab[1].gex_index, 0)); }
static void rep_h(gex_Token_t t) { (void)t; replies++; }

__attribute__((__noinline__)) int bench_inject_am_short(gex_Rank_t peer);
__attribute__((__noinline__)) int bench_inject_am_short(gex_Rank_t peer)
{
    return gex_AM_RequestShort0(bg_tm, peer, htab[0].gex_index, 0);
}

__attribute__((__noinline__)) int bench_inject_put8_nbi(gex_Rank_t peer, void *dst, const void *src);
__attribute__((__noinline__)) int bench_inject_put8_nbi(gex_Rank_t peer, void *dst, const void *src)
{
    return gex_RMA_PutNBI(bg_tm, peer, dst, src, 8, GEX_EVENT_NOW, 0);
}

__attribute__((__noinline__)) int bench_inject_put8_blk(gex_Rank_t peer, void *dst, const void *src);
__attribute__((__noinline__)) int bench_inject_put8_blk(gex_Rank_t peer, void *dst, const void *src)
{
    return gex_RMA_PutBlocking(bg_tm, peer, dst, src, 8, 0);
}

#define LOOP 64
__attribute__((__noinline__)) int bench_inject_put8_loop(gex_Rank_t peer, void *dst,
                                                         const void *src, int k);
__attribute__((__noinline__)) int bench_inject_put8_loop(gex_Rank_t peer, void *dst,
                                                         const void *src, int k)
{
    int rc = 0;
    for (int j = 0; j < k; j++) rc |= gex_RMA_PutBlocking(bg_tm, peer, dst, src, 8, 0);
    return rc;
}

int main(int argc, char **argv)
{
    const char *op;
    long count;
    htab[0] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)req_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0,
                               NULL, "inject_req"};
    htab[1] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)rep_h, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0,
                               NULL, "inject_rep"};
    bench_opts.prog = "perf-inject";
    if (argc != 3 || (strcmp(argv[1], "am_short") && strcmp(argv[1], "put8_nbi") &&
                      strcmp(argv[1], "put8_blk") && strcmp(argv[1], "put8_loop")) ||
        (count = atol(argv[2])) < 1) {
        fprintf(stderr,
                "usage: perf-inject am_short|put8_nbi|put8_blk|put8_loop COUNT (COUNT >= 1)\n");
        return 2;
    }
    op = argv[1];
    bg_init("perf-inject", &argc, &argv, 4096, htab, 2);
    char *src = bg_seg_at(0, 0), *dst = bg_seg_at(bg_peer, 64);
    bg_barrier();
    double t0 = bench_now();
    if (bg_rank == 0) {
        if (!strcmp(op, "am_short")) {
            for (long i = 0; i < count; i++) {
                GASNET_BLOCKUNTIL((long)(i - (long)replies) < WINDOW);
                BG_OK(bench_inject_am_short(bg_peer));
            }
            GASNET_BLOCKUNTIL((long)replies == count);
        } else if (!strcmp(op, "put8_nbi")) {
            for (long i = 0; i < count; i++) BG_OK(bench_inject_put8_nbi(bg_peer, dst, src));
            gex_NBI_Wait(GEX_EC_PUT, 0);
        } else if (!strcmp(op, "put8_loop")) {
            for (long i = 0; i < count; i += LOOP) {
                int k = count - i < LOOP ? (int)(count - i) : LOOP;
                BG_OK(bench_inject_put8_loop(bg_peer, dst, src, k));
            }
        } else {
            for (long i = 0; i < count; i++) BG_OK(bench_inject_put8_blk(bg_peer, dst, src));
        }
        printf("perf-inject: %s x %ld in %.3f s\n", op, count, bench_now() - t0);
        fflush(stdout);
    }
    bg_barrier();
    gasnet_exit(0);
}
