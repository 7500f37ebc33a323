/* tests/perf/perf-rma.c: put/get latency, bandwidth and message rate.
 *
 *   gasnetrun_ibv -n 2 tests/perf/perf-rma [--sizes 8,4K,1M] [--tests ...] [--json F]
 *
 * Rank 0 works against rank 1's segment; rank 1 waits in a barrier.
 *   put_lat      gex_RMA_PutBlocking of N bytes, time per call (us)
 *   get_lat      gex_RMA_GetBlocking of N bytes, time per call (us)
 *   put_nbi_bw   N-byte gex_RMA_PutNBI (lc GEX_EVENT_DEFER) x iters, then
 *                gex_NBI_Wait(GEX_EC_PUT) (MB/s, 10^6 bytes)
 *   get_nbi_bw   N-byte gex_RMA_GetNBI x iters, then gex_NBI_Wait(GEX_EC_GET)
 *   put_nb_bw    N-byte gex_RMA_PutNB (lc GEX_EVENT_DEFER) in windows of
 *                --window events, each window ended by gex_Event_WaitAll
 *                (the client stores each returned event: ref-memcpy's
 *                memcpy_ev_bw is this loop with memcpy)
 *   get_nb_bw    the same with gex_RMA_GetNB
 *   put8_rate    8-byte gex_RMA_PutNBI with lc GEX_EVENT_NOW x iters, then
 *                gex_NBI_Wait(GEX_EC_PUT) (million puts per second; size
 *                fixed at 8)
 * Every iteration moves the same N bytes between the same two buffers (the
 * source and destination stay in cache when they fit, as with perftest).
 * Both buffers are touched before timing (the warm-up iterations also map
 * the peer's pages into this process); --cold skips that, and the
 * faults/op column then shows the first-touch page faults.
 */
#include "tests/perf/bench-gex.h"

#include <string.h>

#define MAX_WINDOW 1024

static size_t region;     /* bytes per region: [0,region) remote, [region,2region) local */
static long window = BENCH_NB_WINDOW; /* --window: NB events per gex_Event_WaitAll */
static int paired;        /* --paired: memcpy repetitions between ours (below) */
static char *remote_here; /* the peer's region as mapped here (PSHM), or NULL */

enum op { PUT_LAT, GET_LAT, PUT_NBI, GET_NBI, PUT_NB, GET_NB, PUT8_RATE };

static void *local_buf(void) { return bg_seg_at(0, region); }
static void *remote_buf(void) { return bg_seg_at(bg_peer, 0); }

/* One function per test, each with the team, the peer, the buffers and
 * the counts as arguments (in registers, as ref-memcpy keeps its two
 * pointers): a global reloaded after every copy (a copy may write any
 * memory) sits at some page offset, and a load whose address matches the
 * low 12 bits of a store just made by the copy waits for it (4K aliasing);
 * one function for all tests also made the compiler spill values the
 * loops reload from the stack.  Either way the program's own layout, not
 * the library, decided some sizes' times. */
#define PERF_LOOP static __attribute__((__noinline__)) BENCH_ALIGNED_LOOPS void

PERF_LOOP put_lat(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters)
{
    for (long i = 0; i < iters; i++) BG_OK(gex_RMA_PutBlocking(tm, peer, rem, loc, n, 0));
}

PERF_LOOP get_lat(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters)
{
    for (long i = 0; i < iters; i++) BG_OK(gex_RMA_GetBlocking(tm, loc, peer, rem, n, 0));
}

PERF_LOOP put_nbi(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters)
{
    for (long i = 0; i < iters; i++)
        BG_OK(gex_RMA_PutNBI(tm, peer, rem, loc, n, GEX_EVENT_DEFER, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
}

PERF_LOOP get_nbi(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters)
{
    for (long i = 0; i < iters; i++) BG_OK(gex_RMA_GetNBI(tm, loc, peer, rem, n, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
}

static gex_Event_t ev[MAX_WINDOW];

/* NB: windows of win events (the last one shorter), each ended by WaitAll. */
PERF_LOOP put_nb(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters,
                 long win)
{
    for (long i = 0, w; i < iters; i += w) {
        w = iters - i < win ? iters - i : win;
        for (long j = 0; j < w; j++)
            ev[j] = gex_RMA_PutNB(tm, peer, rem, loc, n, GEX_EVENT_DEFER, 0);
        gex_Event_WaitAll(ev, (size_t)w, 0);
    }
}

PERF_LOOP get_nb(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, size_t n, long iters,
                 long win)
{
    for (long i = 0, w; i < iters; i += w) {
        w = iters - i < win ? iters - i : win;
        for (long j = 0; j < w; j++) ev[j] = gex_RMA_GetNB(tm, loc, peer, rem, n, 0);
        gex_Event_WaitAll(ev, (size_t)w, 0);
    }
}

PERF_LOOP put8_rate(gex_TM_t tm, gex_Rank_t peer, char *rem, char *loc, long iters)
{
    for (long i = 0; i < iters; i++)
        BG_OK(gex_RMA_PutNBI(tm, peer, rem + 8 * (i & 7), loc, 8, GEX_EVENT_NOW, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
}

static void loop(enum op op, size_t n, long iters)
{
    char *loc = local_buf(), *rem = remote_buf();
    switch (op) {
    case PUT_LAT: put_lat(bg_tm, bg_peer, rem, loc, n, iters); break;
    case GET_LAT: get_lat(bg_tm, bg_peer, rem, loc, n, iters); break;
    case PUT_NBI: put_nbi(bg_tm, bg_peer, rem, loc, n, iters); break;
    case GET_NBI: get_nbi(bg_tm, bg_peer, rem, loc, n, iters); break;
    case PUT_NB: put_nb(bg_tm, bg_peer, rem, loc, n, iters, window); break;
    case GET_NB: get_nb(bg_tm, bg_peer, rem, loc, n, iters, window); break;
    case PUT8_RATE: put8_rate(bg_tm, bg_peer, rem, loc, iters); break;
    }
}

/* --paired, NB tests: also the same client loop with memcpy in place of
 * the call, storing the event the call would return (GEX_EVENT_INVALID)
 * as the client stores each result, and no wait.  Copies of 64-512 bytes
 * are bound by the stores they make, so the client's one more store per
 * operation is 10-20 % of a copy's time whatever the library does. */
static inline void memcpy_nb_loop(int put, char *rem, char *loc, size_t n, long iters,
                                  long win)
{
    for (long i = 0, w; i < iters; i += w) {
        w = iters - i < win ? iters - i : win;
        for (long j = 0; j < w; j++) {
            if (put) memcpy(rem, loc, n);
            else memcpy(loc, rem, n);
            ev[j] = GEX_EVENT_INVALID;
        }
        BENCH_ESCAPE(ev);
    }
}

PERF_LOOP memcpy_put_nb(char *rem, char *loc, size_t n, long iters, long win)
{
    memcpy_nb_loop(1, rem, loc, n, iters, win);
}

PERF_LOOP memcpy_get_nb(char *rem, char *loc, size_t n, long iters, long win)
{
    memcpy_nb_loop(0, rem, loc, n, iters, win);
}

static double memcpy_ev_loop(int put, size_t n, long iters)
{
    double t0 = bench_now();
    if (put) memcpy_put_nb(remote_here, local_buf(), n, iters, window);
    else memcpy_get_nb(remote_here, local_buf(), n, iters, window);
    return bench_now() - t0;
}

/* --paired: the memcpy a PSHM put (to the peer's segment mapped here) or
 * get (from it) is, on the same buffers, in the same process. */
static BENCH_ALIGNED_LOOPS double memcpy_loop(int put, size_t n, long iters)
{
    char *const loc = local_buf(), *const rem = remote_here;
    double t0 = bench_now();
    for (long i = 0; i < iters; i++) {
        if (put) memcpy(rem, loc, n);
        else memcpy(loc, rem, n);
        BENCH_COMPILER_FENCE();
    }
    return bench_now() - t0;
}

static double value_of(enum op op, size_t n, long iters, double dt)
{
    if (op == PUT_LAT || op == GET_LAT) return dt / (double)iters * 1e6;
    if (op == PUT8_RATE) return (double)iters / dt / 1e6;
    return (double)iters * (double)n / dt / 1e6;
}

static void run_one(const char *test, enum op op, size_t n)
{
    if (!bench_selected(test)) return;
    bg_barrier();
    if (bg_rank == 0) {
        int lat = (op == PUT_LAT || op == GET_LAT);
        int put = (op == PUT_LAT || op == PUT_NBI || op == PUT_NB || op == PUT8_RATE);
        const char *unit = lat ? "us" : (op == PUT8_RATE ? "Mmsg/s" : "MB/s");
        long iters = bench_iters(n), warm = bench_warmup(iters);
        double vals[BENCH_MAX_REPS], ref[BENCH_MAX_REPS], ref_ev[BENCH_MAX_REPS];
        int pair = paired && remote_here, nb = (op == PUT_NB || op == GET_NB);
        long f0;
        if (warm) loop(op, n, warm);
        if (warm && pair) (void)memcpy_loop(put, n, warm);
        if (warm && pair && nb) (void)memcpy_ev_loop(put, n, warm);
        f0 = bench_faults();
        for (int r = 0; r < bench_opts.reps; r++) {
            double t0 = bench_now();
            loop(op, n, iters);
            vals[r] = value_of(op, n, iters, bench_now() - t0);
            if (pair) ref[r] = value_of(op, n, iters, memcpy_loop(put, n, iters));
            if (pair && nb) ref_ev[r] = value_of(op, n, iters, memcpy_ev_loop(put, n, iters));
        }
        bench_record(test, n, unit, vals, bench_opts.reps, iters, bench_faults() - f0);
        if (pair) {
            char name[64];
            snprintf(name, sizeof name, "%s_memcpy", test);
            bench_record(name, n, unit, ref, bench_opts.reps, iters, 0);
            snprintf(name, sizeof name, "%s_memcpy_ev", test);
            if (nb) bench_record(name, n, unit, ref_ev, bench_opts.reps, iters, 0);
        }
    }
    bg_barrier();
}

int main(int argc, char **argv)
{
    static const char help[] =
        "  --window N       NB events per gex_Event_WaitAll (default 64, max 1024)\n"
        "  --paired         after each repetition of a test, one of the memcpy it\n"
        "                   stands for (same buffers, peer mapped here; PSHM only),\n"
        "                   reported as TEST_memcpy; NB tests also TEST_memcpy_ev,\n"
        "                   the same loop with memcpy and the event stores\n";
    /* --window is ours; take it out before the common parser sees argv. */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            window = atol(argv[++i]);
            if (window < 1 || window > MAX_WINDOW) {
                fprintf(stderr, "perf-rma: --window %s is out of range (1..%d)\n", argv[i],
                        MAX_WINDOW);
                return 2;
            }
        } else {
            if (!strcmp(argv[i], "--paired")) paired = 1;
            else argv[kept++] = argv[i];
        }
    }
    argc = kept;
    bench_opts.prog = "perf-rma";
    bench_opts.iters = 10000;
    bench_opts.max_bytes = 256.0 * 1024 * 1024;
    bench_parse_args(argc, argv, "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,256K,1M,4M",
                     help);
    region = bg_max_size();
    if (region < 64) region = 64;
    region = (region + 4095) / 4096 * 4096;
    bg_init("perf-rma", &argc, &argv, 2 * region, NULL, 0);
    {
        void *owner = NULL, *here = NULL;
        uintptr_t len = 0;
        if (gex_Segment_QueryBound(bg_tm, bg_peer, &owner, &here, &len) == GASNET_OK)
            remote_here = here;
    }
    if (bg_rank == 0 && !bench_opts.cold) memset(local_buf(), 0x5a, region);
    if (bg_rank == bg_peer && !bench_opts.cold) memset(bg_seg_at(bg_peer, 0), 0xa5, region);
    bg_barrier();

    /* Size by size, smallest first, as ref-memcpy measures its reference:
     * after a multi-megabyte memcpy this host runs small copies slower for
     * the rest of the process (memcpy of 8 B 0.86 -> 0.98 ns, a blocking
     * get 1.22 -> 1.39 ns; tests/perf/README), so each size is measured in
     * the same state as its reference.  The 8-byte put rate first, as its
     * reference (memcpy of 8 B) is. */
    run_one("put8_rate", PUT8_RATE, 8);
    for (int i = 0; i < bench_opts.nsizes; i++) {
        size_t n = bench_opts.sizes[i];
        run_one("put_lat", PUT_LAT, n);
        run_one("get_lat", GET_LAT, n);
        run_one("put_nbi_bw", PUT_NBI, n);
        run_one("get_nbi_bw", GET_NBI, n);
        run_one("put_nb_bw", PUT_NB, n);
        run_one("get_nb_bw", GET_NB, n);
    }
    bg_finish();
}
