/* tests/perf/ref-many.c: the many-process references of `make bench` (the
 * same all-to-all patterns as perf-many, between forked processes over one
 * shared anonymous mapping, no GASNet).
 *
 *   tests/perf/ref-many --procs N [--sizes 8,64K] [--tests ...] [--json F]
 *
 * Every process sends to every other in turn (process p's i-th operation
 * goes to (p + 1 + i mod (N-1)) mod N), all at the same time; process 0
 * times the whole job between two barriers.  Tests:
 *   many_ring_flood   every ordered pair (p, q) has its own ring of slots
 *                     (flag line + payload).  p copies the payload into the
 *                     next free slot of ring (p, q) and raises its flag; q
 *                     takes slots by their flags without reading the
 *                     payload.  While a ring is full the sender consumes its
 *                     own incoming rings; --iters per process in all,
 *                     spread over its peers.  Size 0: Mmsg/s of the whole job;
 *                     size 1K (the --medium-size of perf-many): MB/s
 *   many_memcpy_to    memcpy of N bytes from a private buffer into the next
 *                     peer's shared area (a put between neighbours): us per
 *                     copy of one process
 *   many_memcpy_from  memcpy of N bytes from the peer's area into the
 *                     private buffer (a get)
 * Waiting spins with a pause instruction, then yields the CPU (at once when
 * processes outnumber CPUs), as the library's polling does.  Children die with their parent (PR_SET_PDEATHSIG).
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
#define FLOOD_SIZE 1024
#define RING_BUDGET ((size_t)256 << 20) /* bytes of all rings together, at most */

static int me, nprocs, oversubscribed;
static char *base;        /* the shared mapping */
static char *areas;       /* nprocs areas of area_bytes (RMA targets) */
static char *rings;       /* nprocs x nprocs rings */
static char *privbuf;     /* this process's source / destination */
static size_t area_bytes; /* per process */
static long ring_slots;
static volatile uint64_t *gen; /* barrier: arrivals counter, generation */
static uint64_t my_gen;

#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* One idle turn of a wait: a pause, and after SPIN_LIMIT idle turns in a
 * row (at once when oversubscribed) the CPU goes to whoever is waited for,
 * as the library's polling does (GASNET_POLL_SPIN).  idle counts the turns
 * of the current wait; a wait starts it at 0. */
#define SPIN_LIMIT 256
static inline void relax(int *idle)
{
    if (oversubscribed || ++*idle > SPIN_LIMIT) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    BENCH_COMPILER_FENCE();
#endif
}

/* Generation barrier: the last arrival resets the count and bumps the
 * generation everybody else waits on. */
static void barrier(void)
{
    uint64_t g = ++my_gen;
    if (__atomic_add_fetch(&gen[0], 1, __ATOMIC_ACQ_REL) == (uint64_t)nprocs) {
        __atomic_store_n(&gen[0], 0, __ATOMIC_RELAXED);
        STORE(&gen[LINE / 8], g);
    } else {
        int idle = 0;
        while (LOAD(&gen[LINE / 8]) != g) relax(&idle);
    }
}

static int peer_of(long i) { return (int)((me + 1 + i % (nprocs - 1)) % nprocs); }

/* ---- ring flood -------------------------------------------------------------- */

static size_t stride(void) { return LINE + FLOOD_SIZE; }

static uint64_t *slot_flag(int from, int to, uint64_t seq)
{
    size_t ring = ((size_t)from * (size_t)nprocs + (size_t)to) * (size_t)ring_slots;
    return (uint64_t *)(rings + (ring + (size_t)((seq - 1) % (uint64_t)ring_slots)) * stride());
}

static uint64_t *sent, *taken; /* per peer: last sequence sent to / taken from */

/* Takes every ready slot of every incoming ring; returns how many. */
static long drain(void)
{
    long got = 0;
    for (int p = 0; p < nprocs; p++) {
        if (p == me) continue;
        for (;;) {
            uint64_t *f = slot_flag(p, me, taken[p] + 1);
            if (LOAD(f) != taken[p] + 1) break;
            STORE(f, 0);
            taken[p]++, got++;
        }
    }
    return got;
}

/* Messages to each peer for iters per process (as perf-many). */
static long per_peer(long iters)
{
    long k = iters / (nprocs - 1);
    return k > 0 ? k : 1;
}

static void ring_flood(size_t n, long iters)
{
    long total = per_peer(iters) * (nprocs - 1), got = 0;
    int idle;
    for (long i = 0; i < total; i++) {
        int q = peer_of(i);
        uint64_t s = sent[q] + 1;
        uint64_t *f = slot_flag(me, q, s);
        idle = 0;
        while (LOAD(f) != 0) {
            long d = drain();
            got += d;
            if (!d) relax(&idle);
        }
        if (n) memcpy((char *)f + LINE, privbuf, n);
        STORE(f, s);
        sent[q] = s;
    }
    idle = 0;
    while (got < total) {
        long d = drain();
        got += d;
        if (!d) relax(&idle);
    }
}

/* ---- memcpy all to all ---------------------------------------------------------- */

static void copies(int from_peer, size_t n, long iters)
{
    for (long i = 0; i < iters; i++) {
        char *there = areas + (size_t)peer_of(i) * area_bytes + (size_t)me * n % area_bytes;
        if (from_peer)
            memcpy(privbuf, there, n);
        else
            memcpy(there, privbuf, n);
        BENCH_COMPILER_FENCE();
    }
}

/* ---- the sequence every process runs --------------------------------------------- */

enum kind { K_FLOOD, K_TO, K_FROM };

static void step(enum kind k, size_t n, long iters)
{
    if (k == K_FLOOD)
        ring_flood(n, iters);
    else
        copies(k == K_FROM, n, iters);
}

static void run_one(const char *test, enum kind k, size_t n)
{
    long iters = bench_iters(n), warm = bench_warmup(iters);
    double vals[BENCH_MAX_REPS];
    if (!bench_selected(test)) return;
    barrier();
    step(k, n, warm);
    barrier();
    long f0 = bench_faults();
    for (int r = 0; r < bench_opts.reps; r++) {
        barrier();
        double t0 = bench_now();
        step(k, n, iters);
        barrier();
        double dt = bench_now() - t0;
        double msgs = (double)per_peer(iters) * (double)nprocs * (double)(nprocs - 1);
        if (k == K_FLOOD)
            vals[r] = n ? msgs * (double)n / dt / 1e6 : msgs / dt / 1e6;
        else
            vals[r] = dt / (double)iters * 1e6;
    }
    if (me == 0)
        bench_record(test, n, k != K_FLOOD ? "us" : n ? "MB/s" : "Mmsg/s", vals,
                     bench_opts.reps, iters, bench_faults() - f0);
}

static void process_main(void)
{
    sent = calloc((size_t)nprocs, sizeof *sent);
    taken = calloc((size_t)nprocs, sizeof *taken);
    if (!sent || !taken) {
        fprintf(stderr, "ref-many: out of memory\n");
        _exit(1);
    }
    memset(privbuf, 0x5a, area_bytes);
    barrier();
    run_one("many_ring_flood", K_FLOOD, 0);
    run_one("many_ring_flood", K_FLOOD, FLOOD_SIZE);
    for (int i = 0; i < bench_opts.nsizes; i++)
        run_one("many_memcpy_to", K_TO, bench_opts.sizes[i]);
    for (int i = 0; i < bench_opts.nsizes; i++)
        run_one("many_memcpy_from", K_FROM, bench_opts.sizes[i]);
    barrier();
}

/* Forks processes 1..nprocs-1; returns this process's number (0 in the
 * parent), or -1 if a fork failed. */
static int spawn_others(void)
{
    const pid_t parent = getpid();
    for (int k = 1; k < nprocs; k++) {
        switch (fork()) {
        case -1:
            perror("ref-many: fork");
            return -1;
        case 0:
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            return getppid() == parent ? k : (_exit(1), -1);
        default:
            break;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts.prog = "ref-many";
    bench_opts.iters = 2000;
    bench_opts.nprocs = 0;
    bench_parse_args(argc, argv, "8,64K", "  --procs N is required (N >= 2)\n");
    nprocs = bench_opts.nprocs;
    if (nprocs < 2) {
        fprintf(stderr, "ref-many: --procs N with N >= 2 is required\n");
        return 2;
    }
    area_bytes = 4096;
    for (int i = 0; i < bench_opts.nsizes; i++)
        if (bench_opts.sizes[i] > area_bytes) area_bytes = bench_opts.sizes[i];
    area_bytes = (area_bytes + 4095) / 4096 * 4096;
    size_t pairs = (size_t)nprocs * (size_t)nprocs;
    ring_slots = (long)(RING_BUDGET / (pairs * stride()));
    if (ring_slots > 64) ring_slots = 64;
    if (ring_slots < 2) ring_slots = 2;
    size_t ctl = 2 * LINE;
    size_t total = ctl + (size_t)nprocs * area_bytes + pairs * (size_t)ring_slots * stride();
    base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE,
                -1, 0);
    privbuf = malloc(area_bytes);
    if (base == MAP_FAILED || !privbuf) {
        fprintf(stderr, "ref-many: cannot map %zu bytes for %d processes\n", total, nprocs);
        return 1;
    }
    if (!bench_opts.cold) memset(base, 0, total);
    gen = (volatile uint64_t *)base;
    areas = base + ctl;
    rings = areas + (size_t)nprocs * area_bytes;
    oversubscribed = nprocs > sysconf(_SC_NPROCESSORS_ONLN);

    /* Process 0 is this one; the others are forked children that die with
     * it.  Exit status: 1 if any process failed. */
    int failed = 0;
    me = spawn_others();
    if (me < 0) return 1;
    process_main();
    if (me > 0) _exit(0);
    for (int status; wait(&status) > 0;)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (failed) fprintf(stderr, "ref-many: a child process failed\n");
    int rc = failed;
    return bench_report(nprocs) || rc ? 1 : 0;
}
