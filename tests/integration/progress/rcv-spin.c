/* tests/integration/progress/rcv-spin.c: the AM receive progress thread
 * (GASNET_RCV_THREAD) runs handlers while the application does not call
 * GASNet.  PAR build; 2 processes whose peer is reached over verbs
 * (GASNET_SUPERNODE_MAXSIZE=1); over PSHM it SKIPs (the receive thread
 * serves verbs only: core/ibv/wr/README "Progress threads").
 *
 *   rcv-spin on [N [MIN_MS]]  N round trips (default 200): rank 0 sends a
 *       Request and spins on memory until the Reply handler (run by its
 *       receive thread) stores the sequence number; rank 1 spins on memory,
 *       without calling GASNet, until the Request handler (run by its
 *       receive thread, which also sends the Reply) stores it.  First
 *       N/2 round trips with both ranks polling give the same-run
 *       reference.  The 90th percentile must be below 10 ms; when the
 *       reference's own 90th percentile is 5 ms or more (an overloaded
 *       machine: the Soft-RoCE guest on a busy host) the bound cannot be
 *       resolved, the test says so and checks instead that the median is
 *       at most 10 x the reference's.  On a crowded host (both ranks on it
 *       and fewer than 4 CPUs: the 2-vCPU guest) the median one-way time
 *       must be below 10 ms, and the 90th percentile is reported: there a
 *       receive thread's wake-up waits for the scheduler to preempt a
 *       spinner (core/ibv/wr/README "Progress threads: measurements").
 *       MIN_MS > 0 instead requires a median round trip of at least
 *       MIN_MS (GASNET_RCV_THREAD_RATE check: each thread wakes at most
 *       RATE times per second).
 *   rcv-spin strict [N]  as "on", but the 10 ms bound at p90 is checked
 *       whatever the reference and the CPU count say: for a quiet machine
 *       with a free CPU per thread (the acceptance run).
 *   Both "on" and "strict" end with one line per checking rank:
 *       "rcv-spin: rank R: RESULT ...: spinning median/p90/max against the
 *       10 ms limit; polling reference median/p90/max (same run)".
 *   rcv-spin off  the control: without the thread, a spinning rank sees
 *       nothing for 300 ms (the handler needs a poll), then polls; 3
 *       attempts, since a message handled before the spin (inside the
 *       barrier's poll) proves nothing.
 *   rcv-spin any [N]  as "on", without the 10 ms check (other thread
 *       settings: every handler must still run while the ranks spin).
 *   rcv-spin poll [N]  the reference: the same exchange with both ranks
 *       polling (gasnet_AMPoll) instead of spinning.
 * When both ranks share a host (the Soft-RoCE guest) each message carries
 * its send time (CLOCK_MONOTONIC), and the one-way time "sent -> the
 * handler's store seen by the spinning thread" is what must stay below
 * 10 ms at the 90th percentile; otherwise the round trip must.
 * Every spin has a 10 s timeout.
 */
#include <gasnetex.h>
#include "../test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { H_PING, H_PONG, NHANDLERS };
static gex_AM_Entry_t htable[NHANDLERS];
#define HIDX(h) (htable[h].gex_index)

static uint32_t ping_seen, pong_seen; /* written by handlers, read by spinning threads */
static uint64_t *sent_ns;              /* [seq]: when the peer sent message seq (same host) */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define HI(t) ((gex_AM_Arg_t)(uint32_t)((t) >> 32))
#define LO(t) ((gex_AM_Arg_t)(uint32_t)(t))
#define TS(hi, lo) (((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo))

static void ping_h(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t hi, gex_AM_Arg_t lo)
{
    sent_ns[(uint32_t)seq] = TS(hi, lo);
    __atomic_store_n(&ping_seen, (uint32_t)seq, __ATOMIC_RELEASE);
    uint64_t now = now_ns();
    gex_AM_ReplyShort3(t, HIDX(H_PONG), 0, seq, HI(now), LO(now));
}
static void pong_h(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t hi, gex_AM_Arg_t lo)
{
    (void)t;
    sent_ns[(uint32_t)seq] = TS(hi, lo);
    __atomic_store_n(&pong_seen, (uint32_t)seq, __ATOMIC_RELEASE);
}

/* Waits until *word >= want (the handler may already have stored a later
 * number), spinning on memory without any GASNet call, or -- poll != 0,
 * the reference -- calling gasnet_AMPoll.  Returns the time seen (ns), or
 * 0 after limit_s. */
static uint64_t spin_for(uint32_t *word, uint32_t want, double limit_s, int poll)
{
    uint64_t t0 = now_ns(), lim = (uint64_t)(limit_s * 1e9);
    do {
        /* the clock is read after the load that sees the store */
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) >= want) return now_ns();
        if (poll) gasnet_AMPoll();
    } while (now_ns() - t0 < lim);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double last_max; /* max of the last report() (ms) */

/* Prints the distribution of v[0..n) (ms) on this rank; returns the p90. */
static double report(const char *what, double *v, unsigned n, double *p50)
{
    last_max = 0;
    qsort(v, n, sizeof(double), cmp_double);
    unsigned over = 0;
    for (unsigned i = 0; i < n; i++) over += v[i] >= 10.0;
    unsigned i90 = (n * 9) / 10 < n ? (n * 9) / 10 : n - 1;
    *p50 = v[n / 2];
    last_max = v[n - 1];
    printf("rcv-spin: rank %u: %s over %u messages: min %.3f ms, median %.3f ms, p90 %.3f ms, "
           "max %.3f ms; %u at or above 10 ms\n", (unsigned)test_rank, what, n, v[0], v[n / 2],
           v[i90], v[n - 1], over);
    fflush(stdout);
    return v[i90];
}

static double last_rtt50; /* rank 0: median round trip of the last exchange (ms) */

/* n ping-pongs (messages 1..n), the ranks spinning on memory or (poll)
 * polling.  Prints this rank's one-way times (one_clock) and, on rank 0,
 * the round trips.  Returns the p90 of what this rank checks (one-way, or
 * round trip on rank 0 without one clock) and its median in *p50. */
static double exchange(unsigned n, int poll, int one_clock, double *p50, double *max)
{
    double *oneway = calloc(n, sizeof(double)), *rtt = calloc(n, sizeof(double));
    CHECK(oneway != NULL && rtt != NULL);
    for (unsigned i = 1; i <= n; i++) {
        if (test_rank == 0) {
            uint64_t t0 = now_ns();
            gex_AM_RequestShort3(test_tm, 1, HIDX(H_PING), 0, (gex_AM_Arg_t)i, HI(t0), LO(t0));
            uint64_t seen = spin_for(&pong_seen, i, 10, poll);
            CHECK_MSG(seen, "round trip %u: the Reply handler did not run within 10 s while this "
                      "rank %s", i, poll ? "polled" : "spun (GASNET_RCV_THREAD=1 expected)");
            rtt[i - 1] = (double)(seen - t0) * 1e-6;
            oneway[i - 1] = (double)(seen - sent_ns[i]) * 1e-6;
        } else {
            uint64_t seen = spin_for(&ping_seen, i, 10, poll);
            CHECK_MSG(seen, "Request %u: its handler did not run within 10 s while this rank %s",
                      i, poll ? "polled" : "spun (GASNET_RCV_THREAD=1 expected)");
            oneway[i - 1] = (double)(seen - sent_ns[i]) * 1e-6;
        }
    }
    const char *how = poll ? "polling (reference)" : "spinning on memory";
    char what[160];
    double p90 = 0, r50 = 0, r90 = 0;
    *p50 = 0;
    if (one_clock) {
        snprintf(what, sizeof(what), "%s, one-way (sent -> handler's store seen)", how);
        p90 = report(what, oneway, n, p50);
        *max = last_max;
    }
    if (test_rank == 0) {
        snprintf(what, sizeof(what), "%s, round trip", how);
        r90 = report(what, rtt, n, &r50);
        last_rtt50 = r50;
        if (!one_clock) {
            p90 = r90;
            *p50 = r50;
            *max = last_max;
        }
    }
    if (!one_clock && test_rank != 0) *p50 = 0;
    free(oneway);
    free(rtt);
    return p90;
}

int main(int argc, char **argv)
{
    htable[H_PING] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)ping_h, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 3, NULL, "ping"};
    htable[H_PONG] = (gex_AM_Entry_t){0, (gex_AM_Fn_t)pong_h, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 3, NULL, "pong"};
    test_init("rcv-spin", &argc, &argv, 0, 0, 2);
    CHECK_OK(gex_EP_RegisterHandlers(test_ep, htable, NHANDLERS));
    const char *mode = argc > 1 ? argv[1] : "on";
    int off = !strcmp(mode, "off"), poll = !strcmp(mode, "poll"), any = !strcmp(mode, "any");
    int strict = !strcmp(mode, "strict");
    CHECK_MSG(off || poll || any || strict || !strcmp(mode, "on"),
              "rcv-spin: unknown mode '%s' (use on, strict, any, poll or off)", mode);
    unsigned n = argc > 2 ? (unsigned)atoi(argv[2]) : 200;
    double min_ms = argc > 3 ? atof(argv[3]) : 0;
    if (n < 1) n = 1;
    if (test_size != 2) {
        if (test_rank == 0) printf("SKIP: rcv-spin runs on exactly 2 processes (got %u)\n", (unsigned)test_size);
        fflush(stdout);
        gasnet_exit(77);
    }
    gex_RankInfo_t *info = NULL;
    gex_Rank_t ninfo = 0;
    gex_System_QueryNbrhdInfo(&info, &ninfo, NULL);
    if (ninfo > 1) {
        if (test_rank == 0)
            printf("SKIP: rank 1 is in rank 0's shared-memory neighbourhood; the receive "
                   "thread serves verbs only (run with GASNET_SUPERNODE_MAXSIZE=1)\n");
        fflush(stdout);
        gasnet_exit(77);
    }
    /* One-way times need one clock: both ranks on one host (the guest). */
    gex_System_QueryHostInfo(&info, &ninfo, NULL);
    int one_clock = ninfo == 2;
    sent_ns = calloc(n + 2, sizeof(uint64_t));
    CHECK(sent_ns != NULL);
    test_barrier();

    if (off) {
        /* Control: without the receive thread nothing runs a handler while
         * this rank spins (no GASNet call): rank 0 sends a Request and
         * spins 300 ms, rank 1 spins 300 ms, then both poll.  A message
         * handled before the spin began (rank 1 still polling inside the
         * barrier, rank 0 inside its Request call) is allowed but proves
         * nothing: 3 attempts, and each rank needs one in which its
         * message was handled only once it polled again. */
        uint32_t *word = test_rank == 0 ? &pong_seen : &ping_seen;
        const char *what = test_rank == 0 ? "Reply" : "Request";
        unsigned conclusive = 0;
        for (uint32_t a = 1; a <= 3; a++) {
            test_barrier();
            uint64_t t = now_ns();
            if (test_rank == 0)
                gex_AM_RequestShort3(test_tm, 1, HIDX(H_PING), 0, (gex_AM_Arg_t)a, HI(t), LO(t));
            int before = LOAD(*word) >= a;
            uint64_t seen = spin_for(word, a, 0.3, 0);
            CHECK_MSG(before || !seen, "a %s handler ran while this rank spun without "
                      "GASNET_RCV_THREAD (attempt %u)", what, (unsigned)a);
            CHECK_MSG(spin_for(word, a, 10, 1), "no %s after 10 s of polling (attempt %u)", what,
                      (unsigned)a);
            conclusive += !before;
        }
        CHECK_MSG(conclusive > 0, "3 attempts: the %s was handled each time before this rank "
                  "began to spin, so the control could not be checked", what);
        TEST_MSG0("control: without the receive thread no handler ran during 300 ms of spinning");
        test_pass();
    }

    double ref50 = 0, ref90 = 0, refmax = 0, p50 = 0, p90, pmax = 0;
    if (!poll && !any && min_ms <= 0) { /* same-run reference first: both ranks poll */
        unsigned nref = n / 2 ? n / 2 : 1;
        ref90 = exchange(nref, 1, one_clock, &ref50, &refmax);
        for (unsigned i = 0; i <= nref + 1; i++) sent_ns[i] = 0;
        __atomic_store_n(&ping_seen, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&pong_seen, 0, __ATOMIC_RELEASE);
        test_barrier();
    }
    p90 = exchange(n, poll, one_clock, &p50, &pmax);
    /* Which rule applies.  p90: the 90th percentile below 10 ms.  Crowded
     * (both ranks on this host and fewer CPUs than the 4 threads that want
     * one while both spin: each rank's spinner, and its receive thread at
     * every message): every wake-up of a receive thread (and of the
     * kernel's rxe work) must preempt a spinner, and how soon is the
     * scheduler's choice, not the library's, so the median must be below
     * 10 ms.  Loaded (the polling reference's own p90 is 5 ms or more):
     * the median must be at most 10 x the reference's.  strict: always
     * p90. */
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int crowded = !strict && one_clock && ncpu > 0 && ncpu < 4;
    int loaded = !strict && !crowded && ref90 >= 5.0;
    if (!poll && !any && min_ms <= 0 && (one_clock || test_rank == 0)) {
        const char *kind = one_clock ? "one-way" : "round-trip";
        double limit = loaded ? 10 * ref50 : 10.0, value = crowded || loaded ? p50 : p90;
        int ok = loaded ? value <= limit : value < limit;
        const char *verdict = ok ? "WITHIN" : "OVER";
        printf("rcv-spin: rank %u: %s the %s (%s): spinning on memory, %s: median %.3f ms, "
               "p90 %.3f ms, max %.3f ms; polling reference (same run): median %.3f ms, "
               "p90 %.3f ms, max %.3f ms\n", (unsigned)test_rank, verdict,
               loaded ? "limit of 10 x the reference median" : "10 ms limit",
               crowded  ? "median; crowded: fewer than 4 CPUs for 2 spinning ranks and their "
                          "receive threads"
               : loaded ? "median; the reference p90 is 5 ms or more: machine too loaded for "
                          "the 10 ms bound"
                        : "p90",
               kind, p50, p90, pmax, ref50, ref90, refmax);
        fflush(stdout);
        CHECK_MSG(ok,
                  "%s %s time %.3f ms is over its limit %.3f ms (%ld CPUs; same-run polling "
                  "reference: median %.3f ms, p90 %.3f ms)", crowded || loaded ? "median" : "p90",
                  kind, value, limit, ncpu, ref50, ref90);
    }
    if (min_ms > 0 && test_rank == 0)
        CHECK_MSG(last_rtt50 >= min_ms, "median round trip %.3f ms is below %.1f ms: "
                  "GASNET_RCV_THREAD_RATE did not limit the wake-ups", last_rtt50, min_ms);
    test_pass();
}
