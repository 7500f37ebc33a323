/* tests/perf/ref-shm.c: shared-memory references for PSHM Active Messages
 * and barriers (cache-line ping-pong, one-way ring flood, counter barrier).
 *
 *   tests/perf/ref-shm [--procs N] [--pin] [--sizes 0,8,4K] [--json F]
 *
 * N processes (default 2; fork, one shared anonymous mapping, no GASNet).
 * Process 0 measures and reports; process 1 answers; all take part in the
 * barriers.  Tests:
 *   shm_pingpong_rtt  round trip (us).  Size 0: one flag cache line each
 *                     way (the cache-line ping-pong).  Size N: the pinger
 *                     copies N bytes into a mailbox and raises its flag; the
 *                     ponger copies the mailbox into the reply mailbox and
 *                     raises its flag: two copies per round trip, as in an
 *                     AM Medium echo over a shared queue
 *   shm_flood         one-way stream through a ring of slots (flag + N
 *                     bytes): the producer copies each payload in; the
 *                     consumer takes the slot by its flag without reading
 *                     the payload, as perf-am's flood handlers do.
 *                     Mmsg/s at size 0, MB/s (10^6 bytes) otherwise
 *   shm_barrier_lat   sense-reversing barrier on one shared counter (us)
 *   shm_dissem_barrier_lat  dissemination barrier over bare flags (us):
 *                     ceil(log2 N) rounds; in round k process i stores the
 *                     barrier's number in its own flag line for round k and
 *                     waits until the flag of process i - 2^k (mod N) shows
 *                     it: one cache-line transfer per round and process, the
 *                     algorithm extended/barrier_pshm.c runs, without the
 *                     library around it
 * Waiting is a spin with a pause instruction (sched_yield when processes
 * outnumber CPUs).  Every child dies with its parent (PR_SET_PDEATHSIG).
 */
#include "tests/perf/bench.h"

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE 64

typedef struct {
    _Alignas(LINE) uint32_t bar_count;
    _Alignas(LINE) uint32_t bar_sense;
    _Alignas(LINE) uint64_t seq_ab; /* ping flag (0 -> 1) */
    _Alignas(LINE) uint64_t seq_ba; /* pong flag (1 -> 0) */
    _Alignas(LINE) uint64_t flood_done;
} ctl_t;

static ctl_t *ctl;
static uint64_t *dissem;   /* [process][round] flag lines (LINE bytes apart) */
static int dissem_rounds;
static uint64_t dissem_epoch;
static char *pay_ab, *pay_ba, *ring, *privbuf;
static size_t region, ring_bytes;
static int me, yield_spin;
static uint32_t my_sense;

static inline void relax(void)
{
    if (yield_spin)
        sched_yield();
    else
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#else
        BENCH_COMPILER_FENCE();
#endif
}

#define WAIT_UNTIL(cond) \
    do {                 \
        while (!(cond)) relax(); \
    } while (0)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static void ref_barrier(void)
{
    my_sense ^= 1;
    if (__atomic_add_fetch(&ctl->bar_count, 1, __ATOMIC_ACQ_REL) == (uint32_t)bench_opts.nprocs) {
        __atomic_store_n(&ctl->bar_count, 0, __ATOMIC_RELAXED);
        STORE(&ctl->bar_sense, my_sense);
    } else {
        WAIT_UNTIL(LOAD(&ctl->bar_sense) == my_sense);
    }
}

#define DISSEM_FLAG(p, k) (dissem + ((size_t)(p) * 32 + (size_t)(k)) * (LINE / sizeof(uint64_t)))

static void dissem_barrier(void)
{
    uint64_t e = ++dissem_epoch;
    int n = bench_opts.nprocs;
    for (int k = 0; k < dissem_rounds; k++) {
        int from = (me - (1 << k) % n + n) % n;
        STORE(DISSEM_FLAG(me, k), e);
        WAIT_UNTIL(LOAD(DISSEM_FLAG(from, k)) >= e);
    }
}

/* ---- ping-pong ---------------------------------------------------------------- */

static void ping(size_t n, long iters, uint64_t *k)
{
    for (long i = 0; i < iters; i++) {
        uint64_t s = ++*k;
        if (n) memcpy(pay_ab, privbuf, n);
        STORE(&ctl->seq_ab, s);
        WAIT_UNTIL(LOAD(&ctl->seq_ba) == s);
    }
}

static void pong(size_t n, long total)
{
    for (uint64_t s = 1; s <= (uint64_t)total; s++) {
        WAIT_UNTIL(LOAD(&ctl->seq_ab) == s);
        if (n) memcpy(pay_ba, pay_ab, n);
        STORE(&ctl->seq_ba, s);
    }
}

/* ---- flood --------------------------------------------------------------------- */

static size_t slot_stride(size_t n) { return LINE + (n + LINE - 1) / LINE * LINE; }

static long ring_slots(size_t n)
{
    long k = (long)(ring_bytes / slot_stride(n));
    return k > 64 ? 64 : k;
}

static void produce(size_t n, long iters, uint64_t *k, uint64_t batch)
{
    size_t stride = slot_stride(n);
    long nslots = ring_slots(n);
    for (long i = 0; i < iters; i++) {
        uint64_t s = ++*k;
        char *slot = ring + (size_t)((s - 1) % (uint64_t)nslots) * stride;
        uint64_t *flag = (uint64_t *)slot;
        WAIT_UNTIL(LOAD(flag) == 0);
        if (n) memcpy(slot + LINE, privbuf, n);
        STORE(flag, s);
    }
    WAIT_UNTIL(LOAD(&ctl->flood_done) == batch);
}

static void consume(size_t n, long warm, long iters, int reps)
{
    size_t stride = slot_stride(n);
    long nslots = ring_slots(n);
    uint64_t s = 0;
    for (int b = 0; b <= reps; b++) {
        long cnt = b == 0 ? warm : iters;
        for (long i = 0; i < cnt; i++) {
            s++;
            uint64_t *flag = (uint64_t *)(ring + (size_t)((s - 1) % (uint64_t)nslots) * stride);
            WAIT_UNTIL(LOAD(flag) == s);
            STORE(flag, 0);
        }
        STORE(&ctl->flood_done, (uint64_t)b + 1);
    }
}

/* ---- the test sequence (every process runs it) ------------------------------------ */

static void run_pingpong(size_t n)
{
    long iters = bench_iters(n), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    uint64_t k = 0;
    if (me == 0) __atomic_store_n(&ctl->seq_ab, 0, __ATOMIC_RELAXED), ctl->seq_ba = 0;
    ref_barrier();
    if (me == 0) {
        ping(n, warm, &k);
        long f0 = bench_faults();
        for (int r = 0; r < bench_opts.reps; r++) {
            double t0 = bench_now();
            ping(n, iters, &k);
            vals[r] = (bench_now() - t0) / (double)iters * 1e6;
        }
        bench_record("shm_pingpong_rtt", n, "us", vals, bench_opts.reps, iters,
                     bench_faults() - f0);
    } else if (me == 1) {
        pong(n, warm + iters * bench_opts.reps);
    }
    ref_barrier();
}

static void run_flood(size_t n)
{
    long iters = bench_iters(n), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    uint64_t k = 0;
    if (me == 0) {
        memset(ring, 0, ring_slots(n) * slot_stride(n));
        ctl->flood_done = 0;
    }
    ref_barrier();
    if (me == 0) {
        produce(n, warm, &k, 1);
        long f0 = bench_faults();
        for (int r = 0; r < bench_opts.reps; r++) {
            double t0 = bench_now();
            produce(n, iters, &k, (uint64_t)r + 2);
            double dt = bench_now() - t0;
            vals[r] = n ? (double)iters * (double)n / dt / 1e6 : (double)iters / dt / 1e6;
        }
        bench_record("shm_flood", n, n ? "MB/s" : "Mmsg/s", vals, bench_opts.reps, iters,
                     bench_faults() - f0);
    } else if (me == 1) {
        consume(n, warm, iters, bench_opts.reps);
    }
    ref_barrier();
}

/* A loop of barriers (ref_barrier or dissem_barrier), reported as test. */
static void run_barrier(const char *test, void (*barrier)(void))
{
    long iters = bench_iters(0), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    barrier();
    for (long i = 0; i < warm; i++) barrier();
    for (int r = 0; r < bench_opts.reps; r++) {
        barrier();
        double t0 = bench_now();
        for (long i = 0; i < iters; i++) barrier();
        vals[r] = (bench_now() - t0) / (double)iters * 1e6;
    }
    if (me == 0) bench_record(test, 0, "us", vals, bench_opts.reps, iters, 0);
    barrier();
}

static void process_main(void)
{
    if (bench_opts.pin) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)(me % (ncpu > 0 ? ncpu : 1)), &set);
        if (sched_setaffinity(0, sizeof set, &set))
            fprintf(stderr, "ref-shm: process %d: sched_setaffinity failed; not pinned\n", me);
    }
    memset(privbuf, 0x5a, region);
    ref_barrier();
    if (bench_opts.nprocs >= 2) {
        for (int i = 0; i < bench_opts.nsizes; i++)
            if (bench_selected("shm_pingpong_rtt")) run_pingpong(bench_opts.sizes[i]);
        for (int i = 0; i < bench_opts.nsizes; i++)
            if (bench_selected("shm_flood")) run_flood(bench_opts.sizes[i]);
    }
    if (bench_selected("shm_barrier_lat")) run_barrier("shm_barrier_lat", ref_barrier);
    if (bench_selected("shm_dissem_barrier_lat"))
        run_barrier("shm_dissem_barrier_lat", dissem_barrier);
}

int main(int argc, char **argv)
{
    bench_opts.prog = "ref-shm";
    bench_opts.iters = 10000;
    bench_opts.max_bytes = 64.0 * 1024 * 1024;
    bench_parse_args(argc, argv, "0,8,512,4K,32K", NULL);
    region = 64;
    for (int i = 0; i < bench_opts.nsizes; i++)
        if (bench_opts.sizes[i] > region) region = bench_opts.sizes[i];
    region = (region + 4095) / 4096 * 4096;
    ring_bytes = 4 * slot_stride(region);
    if (ring_bytes < ((size_t)1 << 20)) ring_bytes = (size_t)1 << 20;
    while ((1 << dissem_rounds) < bench_opts.nprocs) dissem_rounds++;
    size_t dissem_bytes = (size_t)bench_opts.nprocs * 32 * LINE;
    size_t total = 4096 + 2 * region + ring_bytes + dissem_bytes;
    char *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    privbuf = malloc(region);
    if (map == MAP_FAILED || !privbuf) {
        fprintf(stderr, "ref-shm: cannot allocate %zu bytes of shared memory: use smaller --sizes\n",
                total);
        return 1;
    }
    if (!bench_opts.cold) memset(map, 0, total);
    ctl = (ctl_t *)map;
    pay_ab = map + 4096;
    pay_ba = pay_ab + region;
    ring = pay_ba + region;
    dissem = (uint64_t *)(ring + ring_bytes);
    yield_spin = bench_opts.nprocs > sysconf(_SC_NPROCESSORS_ONLN);

    pid_t parent = getpid();
    for (me = 1; me < bench_opts.nprocs; me++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("ref-shm: fork");
            return 1;
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(1);
            process_main();
            _exit(0);
        }
    }
    me = 0;
    process_main();
    int rc = 0, status;
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status)) rc = 1;
    if (rc) fprintf(stderr, "ref-shm: a child process failed\n");
    return bench_report(bench_opts.nprocs) || rc ? 1 : 0;
}
