/* tests/perf/perf-many.c: every rank at once, all to all (the many-process
 * tier of `make bench`).
 *
 *   gasnetrun_ibv -n N tests/perf/perf-many [--sizes 8,64K] [--tests ...] [--json F]
 *
 * Every rank sends to every other rank in turn (rank r's i-th operation
 * goes to (r + 1 + i mod (N-1)) mod N), all ranks at the same time; rank 0
 * times the whole job from one barrier to the next and reports:
 *   mp_short_flood   AM Short Requests, every rank --iters in all, spread
 *                    evenly over its peers (--iters / (N-1) to each, at least
 *                    1); the handler only counts.  Mmsg/s of the whole job
 *   mp_medium_flood  the same with N-byte Medium Requests (--medium-size,
 *                    default 1K).  MB/s of the whole job (10^6 bytes)
 *   mp_put_lat       blocking gex_RMA_PutBlocking of N bytes (--sizes),
 *                    per rank --iters in rotation over its peers: us per
 *                    operation of one rank (the job's time / --iters)
 *   mp_get_lat       the same with gex_RMA_GetBlocking
 * The reference is tests/perf/ref-many (the same patterns between forked
 * processes over one shared mapping: slot rings, memcpy).  A flood ends
 * when each rank has received all it expects; every rank polls while it
 * sends, so no rank's sends wait on a peer that stopped polling.
 */
#include "tests/perf/bench-gex.h"

#include <string.h>

enum { H_SHORT, H_MEDIUM, NH };

static volatile unsigned long arrived; /* flood Requests received by this rank */
static unsigned long expected;         /* ... by the end of the current flood */
static size_t region;                  /* bytes per segment region */
static size_t medium_size = 1024;

static void got_short(gex_Token_t t) { (void)t; arrived++; }
static void got_medium(gex_Token_t t, void *buf, size_t nbytes)
{
    (void)t, (void)buf, (void)nbytes;
    arrived++;
}

static gex_AM_Entry_t htab[NH] = {
    {0, (gex_AM_Fn_t)got_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "got_short"},
    {0, (gex_AM_Fn_t)got_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "got_medium"},
};

/* The peer of this rank's i-th operation. */
static gex_Rank_t peer_of(long i)
{
    return (gex_Rank_t)((bg_rank + 1 + (gex_Rank_t)(i % (long)(bg_size - 1))) % bg_size);
}

/* Requests to each peer for iters per rank. */
static long per_peer(long iters)
{
    long k = iters / (long)(bg_size - 1);
    return k > 0 ? k : 1;
}

static void flood(int medium, size_t n, long iters)
{
    long total = per_peer(iters) * (long)(bg_size - 1);
    /* Counted from the start of the job, not from arrived now: a peer that
     * left the last barrier first may have delivered some already. */
    unsigned long want = expected += (unsigned long)total;
    void *src = bg_seg_at(bg_rank, 0);
    for (long i = 0; i < total; i++) {
        if (medium)
            BG_OK(gex_AM_RequestMedium0(bg_tm, peer_of(i), htab[H_MEDIUM].gex_index, src, n,
                                        GEX_EVENT_NOW, 0));
        else
            BG_OK(gex_AM_RequestShort0(bg_tm, peer_of(i), htab[H_SHORT].gex_index, 0));
        if ((i & 15) == 15) gasnet_AMPoll();
    }
    GASNET_BLOCKUNTIL(arrived == want);
}

static void rma(int get, size_t n, long iters)
{
    char *mine = bg_seg_at(bg_rank, region);
    for (long i = 0; i < iters; i++) {
        gex_Rank_t p = peer_of(i);
        /* Each rank owns its own slice of the peer's region: no two ranks
         * write the same bytes. */
        void *there = bg_seg_at(p, (uintptr_t)bg_rank * n % region);
        if (get)
            BG_OK(gex_RMA_GetBlocking(bg_tm, mine, p, there, n, 0));
        else
            BG_OK(gex_RMA_PutBlocking(bg_tm, p, there, mine, n, 0));
    }
}

enum kind { K_SHORT, K_MEDIUM, K_PUT, K_GET };

static void step(enum kind k, size_t n, long iters)
{
    if (k == K_SHORT || k == K_MEDIUM)
        flood(k == K_MEDIUM, n, iters);
    else
        rma(k == K_GET, n, iters);
}

static void run_one(const char *test, enum kind k, size_t n)
{
    long iters = bench_iters(n), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    long f0;
    if (!bench_selected(test)) return;
    bg_barrier();
    step(k, n, warm);
    bg_barrier();
    f0 = bench_faults();
    for (int r = 0; r < bench_opts.reps; r++) {
        bg_barrier();
        double t0 = bench_now();
        step(k, n, iters);
        bg_barrier();
        double dt = bench_now() - t0;
        double msgs = (double)per_peer(iters) * (double)bg_size * (double)(bg_size - 1);
        if (k == K_SHORT)
            vals[r] = msgs / dt / 1e6;
        else if (k == K_MEDIUM)
            vals[r] = msgs * (double)n / dt / 1e6;
        else
            vals[r] = dt / (double)iters * 1e6;
    }
    if (bg_rank == 0)
        bench_record(test, n, k == K_SHORT ? "Mmsg/s" : k == K_MEDIUM ? "MB/s" : "us", vals,
                     bench_opts.reps, iters, bench_faults() - f0);
}

int main(int argc, char **argv)
{
    bench_opts.prog = "perf-many";
    bench_opts.iters = 2000;
    bench_parse_args(argc, argv, "8,64K",
                     "  (the Medium flood's size is 1K; the sizes are the RMA sizes)\n");
    region = 4096;
    for (int i = 0; i < bench_opts.nsizes; i++)
        if (bench_opts.sizes[i] > region) region = bench_opts.sizes[i];
    region = (region + 4095) / 4096 * 4096;
    bg_init("perf-many", &argc, &argv, 2 * region, htab, NH);
    if (bg_size < 2) {
        if (bg_rank == 0) fprintf(stderr, "perf-many: needs at least 2 ranks\n");
        gasnet_exit(2);
    }
    /* Prefault: the own source and every peer's region. */
    memset(bg_seg_at(bg_rank, 0), 0x5a, 2 * region);
    bg_barrier();
    for (gex_Rank_t p = 0; p < bg_size; p++)
        if (p != bg_rank)
            BG_OK(gex_RMA_PutBlocking(bg_tm, p, bg_seg_at(p, 0), bg_seg_at(bg_rank, region),
                                      region, 0));
    bg_barrier();
    run_one("mp_short_flood", K_SHORT, 0);
    run_one("mp_medium_flood", K_MEDIUM, medium_size);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("mp_put_lat", K_PUT, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++) run_one("mp_get_lat", K_GET, bench_opts.sizes[i]);
    bg_finish();
}
