/* tests/perf/perf-barrier.c: barrier latency.
 *
 *   gasnetrun_ibv -n N tests/perf/perf-barrier [--iters N] [--json F]
 *
 * Tests (every rank takes part; rank 0 reports; size = 0):
 *   barrier_lat     gex_Coll_BarrierBlocking, time per barrier (us)
 *   barrier_nb_lat  gex_Coll_BarrierNB + gex_Event_Wait, time per barrier
 * Each repetition starts right after a barrier, so rank 0's time per
 * barrier is the job's.  --sizes is accepted and ignored.
 */
#include "tests/perf/bench-gex.h"

enum { BLOCKING, NONBLOCKING };

static void loop(int kind, long iters)
{
    for (long i = 0; i < iters; i++) {
        if (kind == BLOCKING) {
            BG_OK(gex_Coll_BarrierBlocking(bg_tm, 0));
        } else {
            gex_Event_t ev = gex_Coll_BarrierNB(bg_tm, 0);
            gex_Event_Wait(ev);
        }
    }
}

static void run_one(const char *test, int kind)
{
    long iters = bench_iters(0), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    long f0;
    if (!bench_selected(test)) return;
    bg_barrier();
    loop(kind, warm);
    f0 = bench_faults();
    for (int r = 0; r < bench_opts.reps; r++) {
        bg_barrier();
        double t0 = bench_now();
        loop(kind, iters);
        vals[r] = (bench_now() - t0) / (double)iters * 1e6;
    }
    if (bg_rank == 0) bench_record(test, 0, "us", vals, bench_opts.reps, iters, bench_faults() - f0);
    bg_barrier();
}

int main(int argc, char **argv)
{
    bench_opts.prog = "perf-barrier";
    bench_opts.iters = 5000;
    bench_parse_args(argc, argv, "0", NULL);
    bg_init("perf-barrier", &argc, &argv, 4096, NULL, 0);
    run_one("barrier_lat", BLOCKING);
    run_one("barrier_nb_lat", NONBLOCKING);
    bg_finish();
}
