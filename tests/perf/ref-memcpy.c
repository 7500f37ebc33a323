/* tests/perf/ref-memcpy.c: the memcpy reference for PSHM put/get.
 *
 *   tests/perf/ref-memcpy [--sizes 8,4K,1M] [--iters N] [--json F]
 *
 * Over PSHM a put or get is a memcpy between this process's buffer and the
 * peer's segment mapped into this process, so memcpy between two buffers of
 * one shared mapping is the limit our put/get numbers are judged against.
 * One process, no GASNet.  Tests:
 *   memcpy_time   time per memcpy of N bytes (us); the bench driver derives
 *                 the bandwidth (N / time) and, at 8 bytes, the rate (1/time)
 *   memcpy_bw     N-byte memcpy bandwidth (MB/s, 10^6 bytes), measured
 *                 directly (same loop, reported for the table)
 *   memcpy_ev_bw  the same copies as perf-rma's NB tests make them: in
 *                 windows of BENCH_NB_WINDOW, each copy followed by the
 *                 store of its event (GEX_EVENT_INVALID's value, 0) into an
 *                 array, as a client stores what gex_RMA_PutNB returns.
 *                 Copies of 64-512 bytes are bound by their stores, so
 *                 that one store more per copy is 10-20 % of memcpy_bw.
 * Like perf-rma, every iteration copies the same N bytes between the same
 * two buffers, after a warm-up that has touched both (--cold skips it).
 * The buffers are a MAP_SHARED mapping (as the PSHM segments are), 64-byte
 * aligned, at the same offsets perf-rma uses.
 */
#include "tests/perf/bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static char *src, *dst;

/* The memcpy call is opaque to the compiler (the size is a run-time value),
 * and the fence keeps it from being merged across iterations.  The two
 * pointers are locals, in registers, as perf-rma's are (a global reloaded
 * after each copy can alias the copy's stores: perf-rma.c). */
static BENCH_ALIGNED_LOOPS void loop(size_t n, long iters)
{
    char *const d = dst;
    const char *const s = src;
    for (long i = 0; i < iters; i++) {
        memcpy(d, s, n);
        BENCH_COMPILER_FENCE();
    }
}

static void *events[BENCH_NB_WINDOW];

static BENCH_ALIGNED_LOOPS void loop_ev(size_t n, long iters)
{
    char *const d = dst;
    const char *const s = src;
    void **const ev = events;
    for (long i = 0, w; i < iters; i += w) {
        w = iters - i < BENCH_NB_WINDOW ? iters - i : BENCH_NB_WINDOW;
        for (long j = 0; j < w; j++) {
            memcpy(d, s, n);
            ev[j] = NULL;
        }
        BENCH_ESCAPE(ev);
    }
}


int main(int argc, char **argv)
{
    size_t region = 64;
    bench_opts.prog = "ref-memcpy";
    bench_opts.iters = 10000;
    bench_opts.max_bytes = 256.0 * 1024 * 1024;
    bench_parse_args(argc, argv, "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,256K,1M,4M",
                     NULL);
    for (int i = 0; i < bench_opts.nsizes; i++)
        if (bench_opts.sizes[i] > region) region = bench_opts.sizes[i];
    region = (region + 4095) / 4096 * 4096;
    char *map = mmap(NULL, 2 * region, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        fprintf(stderr, "ref-memcpy: mmap of %zu bytes failed: use smaller --sizes\n", 2 * region);
        return 1;
    }
    /* Same roles as perf-rma: [0, region) remote, [region, 2 region) local. */
    dst = map;
    src = map + region;
    if (!bench_opts.cold) memset(map, 0x5a, 2 * region);

    for (int i = 0; i < bench_opts.nsizes; i++) {
        size_t n = bench_opts.sizes[i];
        long iters = bench_iters(n), warm = bench_warmup(iters);
        double t[BENCH_MAX_REPS], bw[BENCH_MAX_REPS];
        long f0;
        if (bench_selected("memcpy_ev_bw")) {
            loop_ev(n, warm);
            f0 = bench_faults();
            for (int r = 0; r < bench_opts.reps; r++) {
                double t0 = bench_now();
                loop_ev(n, iters);
                bw[r] = (double)n * (double)iters / (bench_now() - t0) / 1e6;
            }
            bench_record("memcpy_ev_bw", n, "MB/s", bw, bench_opts.reps, iters,
                         bench_faults() - f0);
        }
        if (!bench_selected("memcpy_time") && !bench_selected("memcpy_bw")) continue;
        loop(n, warm);
        f0 = bench_faults();
        for (int r = 0; r < bench_opts.reps; r++) {
            double t0 = bench_now();
            loop(n, iters);
            double dt = bench_now() - t0;
            t[r] = dt / (double)iters * 1e6;
            bw[r] = (double)n * (double)iters / dt / 1e6;
        }
        long faults = bench_faults() - f0;
        if (bench_selected("memcpy_time"))
            bench_record("memcpy_time", n, "us", t, bench_opts.reps, iters, faults);
        if (bench_selected("memcpy_bw"))
            bench_record("memcpy_bw", n, "MB/s", bw, bench_opts.reps, iters, faults);
    }
    munmap(map, 2 * region);
    return bench_report(1) ? 1 : 0;
}
