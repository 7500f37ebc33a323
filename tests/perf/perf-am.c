/* tests/perf/perf-am.c: Active Message latency and throughput.
 *
 *   gasnetrun_ibv -n 2 tests/perf/perf-am [--sizes 8,512,4K] [--tests ...] [--json F]
 *
 * Tests (rank 0 drives, rank 1 answers from its barrier's poll loop):
 *   am_short_rtt     Short Request answered by a Short Reply (size 0)
 *   am_medium_rtt    Medium Request of N bytes echoed by a Medium Reply of N
 *   am_long_rtt      Long Request of N bytes into the peer's segment, echoed
 *                    by a Long Reply of N bytes into rank 0's segment
 *                    (round-trip time in us: a Request is sent only after
 *                    the previous Reply ran)
 *   am_short_flood   one-way stream of Short Requests (Mmsg/s)
 *   am_medium_flood  one-way stream of N-byte Medium Requests (MB/s)
 *   am_long_flood    one-way stream of N-byte Long Requests (MB/s)
 *                    (flood handlers only count; the last one answers with a
 *                    Short Reply, which ends the timed interval)
 * Sizes above gex_AM_MaxRequestMedium/MaxReplyMedium (Medium) or
 * MaxRequestLong/MaxReplyLong (Long) are reported as not run.
 * MB = 10^6 bytes.  Sources are in the sender's segment.
 */
#include "tests/perf/bench-gex.h"

#include <string.h>

enum { H_PING_S, H_PING_M, H_PING_L, H_PONG_S, H_PONG_M, H_PONG_L,
       H_FLOOD_S, H_FLOOD_M, H_FLOOD_L, H_FLOOD_DONE, NH };

static volatile unsigned long pongs;      /* Replies received by rank 0 */
static volatile unsigned long flood_done; /* flood completions received by rank 0 */
static unsigned long flood_count;         /* flood Requests received by rank 1 */
static size_t region;                     /* bytes per segment region */

static gex_AM_Entry_t htab[NH];
#define HIDX(h) (htab[h].gex_index)

/* ---- handlers ---------------------------------------------------------------- */

static void ping_s(gex_Token_t t) { BG_OK(gex_AM_ReplyShort0(t, HIDX(H_PONG_S), 0)); }

static void ping_m(gex_Token_t t, void *buf, size_t nbytes)
{
    BG_OK(gex_AM_ReplyMedium0(t, HIDX(H_PONG_M), buf, nbytes, GEX_EVENT_NOW, 0));
}

static void ping_l(gex_Token_t t, void *buf, size_t nbytes)
{
    void *dest = bg_seg_at(bg_token_src(t), 0);
    BG_OK(gex_AM_ReplyLong0(t, HIDX(H_PONG_L), buf, nbytes, dest, GEX_EVENT_NOW, 0));
}

static void pong_s(gex_Token_t t) { (void)t; pongs++; }
static void pong_ml(gex_Token_t t, void *buf, size_t nbytes) { (void)t, (void)buf, (void)nbytes; pongs++; }

static void flood_arrived(gex_Token_t t, gex_AM_Arg_t total)
{
    if (++flood_count == (unsigned long)(uint32_t)total) {
        flood_count = 0;
        BG_OK(gex_AM_ReplyShort0(t, HIDX(H_FLOOD_DONE), 0));
    }
}
static void flood_s(gex_Token_t t, gex_AM_Arg_t total) { flood_arrived(t, total); }
static void flood_ml(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t total)
{
    (void)buf, (void)nbytes;
    flood_arrived(t, total);
}
static void flood_fin(gex_Token_t t) { (void)t; flood_done++; }

#define REQ GEX_FLAG_AM_REQUEST
#define REP GEX_FLAG_AM_REPLY
#define ENTRY(i, fn, flags, nargs) \
    htab[i] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)(fn), (flags), (nargs), NULL, #fn}

static void fill_handlers(void)
{
    ENTRY(H_PING_S, ping_s, REQ | GEX_FLAG_AM_SHORT, 0);
    ENTRY(H_PING_M, ping_m, REQ | GEX_FLAG_AM_MEDIUM, 0);
    ENTRY(H_PING_L, ping_l, REQ | GEX_FLAG_AM_LONG, 0);
    ENTRY(H_PONG_S, pong_s, REP | GEX_FLAG_AM_SHORT, 0);
    ENTRY(H_PONG_M, pong_ml, REP | GEX_FLAG_AM_MEDIUM, 0);
    ENTRY(H_PONG_L, pong_ml, REP | GEX_FLAG_AM_LONG, 0);
    ENTRY(H_FLOOD_S, flood_s, REQ | GEX_FLAG_AM_SHORT, 1);
    ENTRY(H_FLOOD_M, flood_ml, REQ | GEX_FLAG_AM_MEDIUM, 1);
    ENTRY(H_FLOOD_L, flood_ml, REQ | GEX_FLAG_AM_LONG, 1);
    ENTRY(H_FLOOD_DONE, flood_fin, REP | GEX_FLAG_AM_SHORT, 0);
}

/* ---- measurements (rank 0) ----------------------------------------------------- */

enum kind { K_SHORT, K_MEDIUM, K_LONG };

static void *src_buf(void) { return bg_seg_at(0, region); }

static void rtt_loop(enum kind k, size_t n, long iters)
{
    void *src = src_buf(), *dst = bg_seg_at(bg_peer, 0);
    for (long i = 0; i < iters; i++) {
        unsigned long want = pongs + 1;
        if (k == K_SHORT)
            BG_OK(gex_AM_RequestShort0(bg_tm, bg_peer, HIDX(H_PING_S), 0));
        else if (k == K_MEDIUM)
            BG_OK(gex_AM_RequestMedium0(bg_tm, bg_peer, HIDX(H_PING_M), src, n, GEX_EVENT_NOW, 0));
        else
            BG_OK(gex_AM_RequestLong0(bg_tm, bg_peer, HIDX(H_PING_L), src, n, dst, GEX_EVENT_NOW,
                                      0));
        GASNET_BLOCKUNTIL(pongs == want);
    }
}

static void flood_loop(enum kind k, size_t n, long iters)
{
    void *src = src_buf(), *dst = bg_seg_at(bg_peer, 0);
    gex_AM_Arg_t total = (gex_AM_Arg_t)iters;
    unsigned long want = flood_done + 1;
    for (long i = 0; i < iters; i++) {
        if (k == K_SHORT)
            BG_OK(gex_AM_RequestShort1(bg_tm, bg_peer, HIDX(H_FLOOD_S), 0, total));
        else if (k == K_MEDIUM)
            BG_OK(gex_AM_RequestMedium1(bg_tm, bg_peer, HIDX(H_FLOOD_M), src, n, GEX_EVENT_NOW,
                                        0, total));
        else
            BG_OK(gex_AM_RequestLong1(bg_tm, bg_peer, HIDX(H_FLOOD_L), src, n, dst,
                                      GEX_EVENT_NOW, 0, total));
    }
    GASNET_BLOCKUNTIL(flood_done == want);
}

static size_t max_payload(enum kind k)
{
    size_t req, rep;
    if (k == K_SHORT) return 0;
    if (k == K_MEDIUM) {
        req = gex_AM_MaxRequestMedium(bg_tm, bg_peer, GEX_EVENT_NOW, 0, 1);
        rep = gex_AM_MaxReplyMedium(bg_tm, bg_peer, GEX_EVENT_NOW, 0, 1);
    } else {
        req = gex_AM_MaxRequestLong(bg_tm, bg_peer, GEX_EVENT_NOW, 0, 1);
        rep = gex_AM_MaxReplyLong(bg_tm, bg_peer, GEX_EVENT_NOW, 0, 1);
    }
    return req < rep ? req : rep;
}

/* One (test, size): warm-up, reps timed repetitions, record on rank 0. */
static void run_one(const char *test, enum kind k, int flood, size_t n)
{
    if (!bench_selected(test)) return;
    bg_barrier();
    if (bg_rank == 0) {
        const char *unit = flood ? (k == K_SHORT ? "Mmsg/s" : "MB/s") : "us";
        size_t max = max_payload(k);
        if (n > max) {
            char why[96];
            snprintf(why, sizeof why, "size exceeds the %s limit of %zu bytes",
                     k == K_MEDIUM ? "Medium" : "Long", max);
            bench_record_skip(test, n, unit, why);
        } else {
            long iters = bench_iters(n), warm = bench_warmup(iters);
            double vals[BENCH_MAX_REPS];
            long f0;
            if (warm) (flood ? flood_loop : rtt_loop)(k, n, warm);
            f0 = bench_faults();
            for (int r = 0; r < bench_opts.reps; r++) {
                double t0 = bench_now();
                (flood ? flood_loop : rtt_loop)(k, n, iters);
                double dt = bench_now() - t0;
                if (!flood)
                    vals[r] = dt / (double)iters * 1e6;
                else if (k == K_SHORT)
                    vals[r] = (double)iters / dt / 1e6;
                else
                    vals[r] = (double)iters * (double)n / dt / 1e6;
            }
            bench_record(test, n, unit, vals, bench_opts.reps, iters, bench_faults() - f0);
        }
    }
    bg_barrier();
}

int main(int argc, char **argv)
{
    fill_handlers();
    bench_opts.iters = 10000;
    bench_opts.max_bytes = 64.0 * 1024 * 1024;
    /* Options are parsed after gex_Client_Init (which may consume its own). */
    bench_opts.prog = "perf-am";
    bench_parse_args(argc, argv, "8,512,4K,32K", NULL);
    region = bg_max_size();
    if (region < 64) region = 64;
    region = (region + 4095) / 4096 * 4096;
    bg_init("perf-am", &argc, &argv, 2 * region, htab, NH);
    if (bg_rank == 0) {
        /* Touch the source region once (unless studying first-touch costs). */
        if (!bench_opts.cold) memset(src_buf(), 0x5a, region);
    }

    run_one("am_short_rtt", K_SHORT, 0, 0);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("am_medium_rtt", K_MEDIUM, 0, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("am_long_rtt", K_LONG, 0, bench_opts.sizes[i]);
    run_one("am_short_flood", K_SHORT, 1, 0);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("am_medium_flood", K_MEDIUM, 1, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("am_long_flood", K_LONG, 1, bench_opts.sizes[i]);
    bg_finish();
}
